/**
 * The demo stores. Ids are stable: tests and docs/catalog.md name some of them.
 * `zone` is a radius in metres or 'polygon' (an irregular hexagon around the store).
 */
import type { HoursKey } from './hours.js';
import { BAKERY, BREAKFAST, DESSERTS, GRILLS, GULF, MANDI, SHAWARMA } from './templates/menus-arabic.js';
import { ASIAN, CHICKEN, HEALTHY, SEAFOOD } from './templates/menus-more.js';
import { GROCERY, PHARMACY } from './templates/menus-shops.js';
import { BURGERS, CAFE, INDIAN, PIZZA, SUSHI } from './templates/menus-world.js';
import type { MenuTpl } from './templates/types.js';

export interface StoreDef {
  id: string;
  name: string;
  /** null: the store gave no Arabic, so its menu has none either. */
  nameAr: string | null;
  tpl: MenuTpl;
  area: string;
  hours: HoursKey;
  zone: number | 'polygon';
  busy?: boolean;
  acceptingOrders?: boolean;
  snoozedUntil?: string;
  closures?: [date: string, reason: string][];
  /** Item slugs forced discounted / sold out, so tests can rely on them. */
  discounted?: string[];
  soldOut?: string[];
}

const s = (
  id: string,
  name: string,
  nameAr: string | null,
  tpl: MenuTpl,
  area: string,
  hours: HoursKey,
  zone: number | 'polygon',
  extra: Partial<StoreDef> = {},
): StoreDef => ({ id, name, nameAr, tpl, area, hours, zone, ...extra });

const KW_NATIONAL_DAYS: [string, string][] = [
  ['2027-02-25', 'National Day'],
  ['2027-02-26', 'Liberation Day'],
];
const NEVER = '2099-12-31T23:59:59Z';

export const KUWAIT_STORES: StoreDef[] = [
  s('kw-shawarma-reem', 'Shawarma Al Reem', 'شاورما الريم', SHAWARMA, 'salmiya', '24h', 6000, {
    discounted: ['arabi-shawarma-platter'],
    soldOut: ['fresh-lemon-mint'],
  }),
  s('kw-burger-hub', 'Burger Hub', 'برجر هب', BURGERS, 'hawalli', 'late', 5000),
  s('kw-karak-corner', 'Karak Corner', 'ركن الكرك', CAFE, 'sharq', '24h', 4000, { busy: true }),
  s('kw-bait-mashawi', 'Bait Al Mashawi', 'بيت المشاوي', GRILLS, 'jabriya', 'late', 'polygon'),
  s('kw-machboos-diwaniya', 'Machboos Al Diwaniya', 'مجبوس الديوانية', GULF, 'surra', 'day', 7000, {
    closures: KW_NATIONAL_DAYS,
  }),
  s('kw-mandi-house', 'Mandi House Hawalli', 'بيت المندي حولي', MANDI, 'hawalli', 'day', 6000),
  s('kw-forno-jabriya', 'Forno Pizza Jabriya', 'فورنو بيتزا الجابرية', PIZZA, 'jabriya', 'weekend-late', 'polygon'),
  s('kw-koi-sushi', 'Koi Sushi Bar', 'كوي سوشي بار', SUSHI, 'sharq', 'day', 5000),
  s('kw-tikka-junction', 'Tikka Junction', null, INDIAN, 'salmiya', 'late', 6000),
  s('kw-lebanese-oven', 'The Lebanese Oven', 'الفرن اللبناني', BAKERY, 'rumaithiya', 'breakfast', 4000),
  s('kw-cafe-bloom', 'Café Bloom', 'كافيه بلوم', CAFE, 'shuwaikh', 'cafe', 5000),
  s('kw-kunafa-nabulsi', 'Kunafa Nabulsi Sweets', 'حلويات كنافة نابلسي', DESSERTS, 'hawalli', 'late', 7000),
  s('kw-green-bowl', 'Green Bowl', 'جرين بول', HEALTHY, 'mishref', 'day', 6000),
  s('kw-boom-seafood', 'Al Boom Seafood', 'البوم للمأكولات البحرية', SEAFOOD, 'sharq', 'closed', 6000, {
    acceptingOrders: false,
  }),
  s('kw-falafel-yasmin', 'Falafel Al Yasmin', 'فلافل الياسمين', BREAKFAST, 'bneid-al-gar', 'breakfast', 4000),
  s('kw-broasted-express', 'Broasted Express', 'بروستد إكسبرس', CHICKEN, 'salwa', 'late', 6000, { busy: true }),
  s('kw-seoul-noodle', 'Seoul Noodle Bar', null, ASIAN, 'salmiya', 'day', 5000),
  s('kw-grills-coals', 'Grills & Coals', 'فحم ومشاوي', GRILLS, 'kaifan', 'dinner', 6000),
  s('kw-shrimp-shack', 'The Shrimp Shack', 'كوخ الروبيان', SEAFOOD, 'salmiya', 'day', 'polygon'),
  s('kw-bayt-harees', 'Bayt Al Harees Kitchen', 'مطبخ بيت الهريس', GULF, 'dasma', 'lunch', 5000),
  s('kw-smash-lab', 'Smash Lab', null, BURGERS, 'shuwaikh', 'weekend-late', 7000),
  s('kw-layali-dimashq', 'Layali Dimashq', 'ليالي دمشق', SHAWARMA, 'qibla', 'late', 5000),
  s('kw-mutawa-pharmacy', 'Al Mutawa Pharmacy', 'صيدلية المطوع', PHARMACY, 'salmiya', '24h', 8000),
  s('kw-yasmeen-pharmacy', 'Yasmeen Pharmacy Hawalli', 'صيدلية الياسمين حولي', PHARMACY, 'hawalli', 'split', 5000),
  s('kw-dawa-pharmacy', 'Dawa Pharmacy', 'صيدلية دواء', PHARMACY, 'jabriya', 'pharmacy', 6000),
  s('kw-sharq-care', 'Sharq Care Pharmacy', 'صيدلية رعاية شرق', PHARMACY, 'sharq', 'split', 'polygon'),
  s('kw-rawda-pharmacy', 'Al Rawda Pharmacy', 'صيدلية الروضة', PHARMACY, 'kaifan', 'closed', 5000, {
    acceptingOrders: false,
  }),
  s('kw-salwa-health', 'Salwa Health Pharmacy', null, PHARMACY, 'salwa', 'pharmacy', 6000, { busy: true }),
  s('kw-sultan-express', 'Sultan Center Express', 'سلطان سنتر إكسبرس', GROCERY, 'salmiya', '24h', 'polygon'),
  s('kw-fresh-basket', 'Fresh Basket Hawalli', 'سلة الطازج حولي', GROCERY, 'hawalli', 'grocery', 6000),
  s(
    'kw-nakheel-dates',
    'Al Nakheel Dates & Groceries',
    'النخيل للتمور والمواد الغذائية',
    GROCERY,
    'shuwaikh',
    'day',
    8000,
  ),
  s('kw-city-mart', 'City Mart Sharq', 'سيتي مارت شرق', GROCERY, 'sharq', 'grocery', 5000, {
    closures: KW_NATIONAL_DAYS,
  }),
  s('kw-surra-coop', 'Surra Co-op Express', 'جمعية السرة إكسبرس', GROCERY, 'surra', 'day', 5000),
  s('kw-mishref-market', 'Mishref Fresh Market', 'سوق مشرف الطازج', GROCERY, 'mishref', 'closed', 6000, {
    acceptingOrders: false,
  }),
  s('kw-gulf-organics', 'Gulf Organics', null, GROCERY, 'rumaithiya', 'day', 7000),
];

export const DUBAI_STORES: StoreDef[] = [
  s('dxb-shawarma-station', 'Shawarma Station', 'محطة الشاورما', SHAWARMA, 'marina', '24h', 6000, {
    discounted: ['chicken-shawarma-wrap'],
    soldOut: ['beef-shawarma-plate'],
  }),
  s('dxb-tandoor-nights', 'Tandoor Nights Karama', 'ليالي التندور الكرامة', INDIAN, 'karama', 'late', 7000),
  s('dxb-zaatar-street', 'Zaatar Street', 'شارع الزعتر', BAKERY, 'jlt', 'breakfast', 5000),
  s('dxb-al-bait-kitchen', 'Al Bait Emirati Kitchen', 'مطبخ البيت الإماراتي', GULF, 'jumeirah', 'day', 8000, {
    closures: [['2026-12-02', 'UAE National Day']],
  }),
  s('dxb-burger-yard', 'Burger Yard', null, BURGERS, 'jbr', '24h', 5000, { snoozedUntil: NEVER }),
  s('dxb-sakura-sushi', 'Sakura Sushi DIFC', 'ساكورا سوشي', SUSHI, 'difc', 'day', 6000),
  s('dxb-napoli-slice', 'Napoli Slice', 'نابولي سلايس', PIZZA, 'business-bay', 'late', 'polygon'),
  s('dxb-deira-fish', 'Deira Fish Grill', 'مشويات سمك ديرة', SEAFOOD, 'deira', 'dinner', 7000, { busy: true }),
  s('dxb-mandi-khaleej', 'Mandi Al Khaleej', 'مندي الخليج', MANDI, 'al-quoz', 'day', 9000),
  s('dxb-karama-tea', 'Karama Tea House', 'مقهى الكرامة', CAFE, 'karama', '24h', 4000, { acceptingOrders: false }),
  s('dxb-sweet-orient', 'Sweet Orient', 'حلويات الشرق', DESSERTS, 'bur-dubai', 'late', 8000),
  s('dxb-bowl-theory', 'Bowl Theory', null, HEALTHY, 'downtown', 'day', 'polygon'),
  s('dxb-barsha-grill', 'Barsha Grill House', 'مشاوي البرشاء', GRILLS, 'al-barsha', 'late', 'polygon'),
  s('dxb-crispy-coop', 'The Crispy Coop', null, CHICKEN, 'silicon-oasis', 'late', 7000),
  s('dxb-wok-street', 'Wok Street', 'شارع الووك', ASIAN, 'jlt', 'day', 6000),
  s('dxb-ful-falafel', 'Ful & Falafel Bur Dubai', 'فول وفلافل بر دبي', BREAKFAST, 'bur-dubai', 'breakfast', 5000),
  s('dxb-beans-co', 'Beans & Co. Coffee Roasters', 'بينز آند كو', CAFE, 'al-quoz', 'cafe', 6000, {
    closures: [['2026-12-02', 'UAE National Day']],
  }),
  s('dxb-mirdif-mashawi', 'Mirdif Mashawi', 'مشاوي مردف', GRILLS, 'mirdif', 'dinner', 8000),
  s('dxb-life-care', 'Life Care Pharmacy Marina', 'صيدلية لايف كير مارينا', PHARMACY, 'marina', '24h', 7000),
  s('dxb-karama-medical', 'Karama Medical Pharmacy', 'صيدلية الكرامة الطبية', PHARMACY, 'karama', 'split', 5000),
  s(
    'dxb-barsha-wellness',
    'Barsha Wellness Pharmacy',
    'صيدلية البرشاء للعافية',
    PHARMACY,
    'al-barsha',
    'pharmacy',
    7000,
    { busy: true },
  ),
  s('dxb-boulevard-pharmacy', 'Boulevard Pharmacy', 'صيدلية البوليفارد', PHARMACY, 'downtown', 'pharmacy', 'polygon'),
  s('dxb-oasis-care', 'Oasis Care Pharmacy', 'صيدلية واحة الرعاية', PHARMACY, 'silicon-oasis', 'closed', 6000, {
    acceptingOrders: false,
  }),
  s('dxb-deira-health', 'Deira Health Pharmacy', null, PHARMACY, 'deira', 'late', 6000),
  s('dxb-marina-mini-mart', 'Marina Mini Mart', 'ميني مارت مارينا', GROCERY, 'marina', '24h', 5000),
  s('dxb-barsha-fresh', 'Al Barsha Fresh Market', 'سوق البرشاء الطازج', GROCERY, 'al-barsha', 'grocery', 'polygon'),
  s('dxb-desert-greens', 'Desert Greens Organic', null, GROCERY, 'al-quoz', 'day', 9000),
  s('dxb-deira-spice', 'Deira Spice Souq Market', 'سوق ديرة للبهارات', GROCERY, 'deira', 'day', 6000),
  s('dxb-palm-daily', 'Palm Daily Needs', 'احتياجات النخلة اليومية', GROCERY, 'palm', 'grocery', 6000, { busy: true }),
  s('dxb-jlt-grocer', 'JLT Corner Grocer', 'بقالة زاوية البحيرات', GROCERY, 'jlt', 'grocery', 4000),
];
