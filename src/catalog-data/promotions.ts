/**
 * Top-level categories and offers of the demo catalog. Offer windows use far past or far
 * future dates so that "active", "expired" and "not yet valid" hold whatever today is.
 */
import type { Category, Offer } from '../domain/catalog/model.js';

const cat = (id: string, name: string, nameAr: string): Category => ({
  id,
  name,
  name_ar: nameAr,
  image_url: `https://images.example-cdn.com/categories/${id}.png`,
});

export const CATEGORIES: Category[] = [
  cat('shawarma', 'Shawarma', 'شاورما'),
  cat('burgers', 'Burgers', 'برجر'),
  cat('grills', 'Grills', 'مشاوي'),
  cat('arabic', 'Arabic', 'عربي'),
  cat('gulf', 'Kuwaiti & Emirati', 'كويتي وإماراتي'),
  cat('mandi', 'Mandi', 'مندي'),
  cat('pizza', 'Pizza', 'بيتزا'),
  cat('sushi', 'Sushi', 'سوشي'),
  cat('asian', 'Asian', 'آسيوي'),
  cat('indian', 'Indian', 'هندي'),
  cat('bakery', 'Bakery & Manakish', 'مخبوزات ومناقيش'),
  cat('breakfast', 'Breakfast', 'فطور'),
  cat('coffee', 'Coffee & Tea', 'قهوة وشاي'),
  cat('desserts', 'Desserts', 'حلويات'),
  cat('healthy', 'Healthy', 'صحي'),
  cat('seafood', 'Seafood', 'مأكولات بحرية'),
  cat('chicken', 'Fried Chicken', 'دجاج مقلي'),
  cat('pharmacy', 'Pharmacy', 'صيدلية'),
  cat('groceries', 'Groceries', 'بقالة'),
];

const ACTIVE = { starts_at: '2020-01-01T00:00:00Z', ends_at: '2099-12-31T23:59:59Z' };
const EXPIRED = { starts_at: '2020-04-23T00:00:00Z', ends_at: '2020-05-23T00:00:00Z' };
const FUTURE = { starts_at: '2099-01-01T00:00:00Z', ends_at: '2099-12-31T23:59:59Z' };

type Base = Omit<Offer, 'percent_bp' | 'amount' | 'kind'>;
const platform = (id: string, title: string, titleAr: string | null, rest: Partial<Base> = {}): Base => ({
  id,
  scope: 'platform',
  title,
  title_ar: titleAr,
  currency: null,
  min_subtotal: 0,
  max_discount: null,
  promo_code: null,
  ...ACTIVE,
  ...rest,
});
const atStore = (
  id: string,
  storeId: string,
  title: string,
  titleAr: string | null,
  rest: Partial<Base> = {},
): Base => ({ ...platform(id, title, titleAr, rest), scope: 'store', store_id: storeId });
const percent = (base: Base, bp: number): Offer => ({ ...base, kind: 'percent', percent_bp: bp });
const fixed = (base: Base, amount: number): Offer => ({ ...base, kind: 'fixed', amount });
const freeDelivery = (base: Base): Offer => ({ ...base, kind: 'free_delivery' });

export const OFFERS: Offer[] = [
  // Automatic offers.
  freeDelivery(
    platform('off-kw-free-delivery', 'Free delivery on orders over 5 KWD', 'توصيل مجاني للطلبات فوق ٥ د.ك', {
      currency: 'KWD',
      min_subtotal: 5000,
      cities: ['Kuwait City'],
    }),
  ),
  percent(
    platform(
      'off-dxb-10-off',
      '10% off orders over AED 40 (up to AED 15)',
      'خصم ١٠٪ على الطلبات فوق ٤٠ درهم (حتى ١٥ درهم)',
      { currency: 'AED', min_subtotal: 4000, max_discount: 1500, cities: ['Dubai'] },
    ),
    1000,
  ),
  percent(
    atStore(
      'off-reem-20',
      'kw-shawarma-reem',
      '20% off everything at Shawarma Al Reem (up to 1.5 KWD)',
      'خصم ٢٠٪ على كل شيء في شاورما الريم (حتى ١٫٥ د.ك)',
      { currency: 'KWD', max_discount: 1500 },
    ),
    2000,
  ),
  fixed(
    atStore(
      'off-sultan-1kwd',
      'kw-sultan-express',
      '1 KWD off your basket over 10 KWD',
      'خصم ١ د.ك على سلتك فوق ١٠ د.ك',
      { currency: 'KWD', min_subtotal: 10000 },
    ),
    1000,
  ),
  freeDelivery(
    atStore(
      'off-marina-mart-free-delivery',
      'dxb-marina-mini-mart',
      'Free delivery over AED 50',
      'توصيل مجاني فوق ٥٠ درهم',
      { currency: 'AED', min_subtotal: 5000 },
    ),
  ),
  percent(platform('off-summer-2020', 'Summer 2020: 15% off', 'صيف ٢٠٢٠: خصم ١٥٪', EXPIRED), 1500),
  percent(platform('off-2099-launch', '2099 launch week: 50% off', null, FUTURE), 5000),
  // Promo codes.
  percent(
    platform(
      'off-welcome10',
      'WELCOME10: 10% off your order (up to 2 KWD)',
      'WELCOME10: خصم ١٠٪ على طلبك (حتى ٢ د.ك)',
      { promo_code: 'WELCOME10', currency: 'KWD', min_subtotal: 3000, max_discount: 2000, cities: ['Kuwait City'] },
    ),
    1000,
  ),
  fixed(
    platform('off-dubai15', 'DUBAI15: AED 15 off orders over AED 60', 'DUBAI15: خصم ١٥ درهم على الطلبات فوق ٦٠ درهم', {
      promo_code: 'DUBAI15',
      currency: 'AED',
      min_subtotal: 6000,
    }),
    1500,
  ),
  freeDelivery(platform('off-freedel', 'FREEDEL: free delivery', 'FREEDEL: توصيل مجاني', { promo_code: 'FREEDEL' })),
  percent(
    platform('off-pharma5', 'PHARMA5: 5% off at pharmacies', 'PHARMA5: خصم ٥٪ في الصيدليات', {
      promo_code: 'PHARMA5',
      verticals: ['pharmacy'],
    }),
    500,
  ),
  fixed(
    atStore(
      'off-reem5',
      'kw-shawarma-reem',
      'REEM5: 0.500 KWD off at Shawarma Al Reem over 2 KWD',
      'REEM5: خصم ٠٫٥٠٠ د.ك في شاورما الريم فوق ٢ د.ك',
      { promo_code: 'REEM5', currency: 'KWD', min_subtotal: 2000 },
    ),
    500,
  ),
  percent(
    platform('off-ramadan2020', 'RAMADAN2020: 15% off', 'RAMADAN2020: خصم ١٥٪', {
      ...EXPIRED,
      promo_code: 'RAMADAN2020',
    }),
    1500,
  ),
  percent(
    platform('off-future2099', 'FUTURE2099: 25% off', 'FUTURE2099: خصم ٢٥٪', { ...FUTURE, promo_code: 'FUTURE2099' }),
    2500,
  ),
];
