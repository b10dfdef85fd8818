/**
 * Modifier groups shared by the demo menus. Option prices are Kuwaiti fils (the generator
 * converts them to each store's currency); `{ times: n }` means n x the item's own price
 * (for weights and box sizes).
 */
export type OptionPrice = number | { times: number };
export type OptionTpl = [id: string, name: string, nameAr: string, price: OptionPrice];

export interface GroupTpl {
  id: string;
  name: string;
  nameAr: string;
  required: boolean;
  min: number;
  max: number | null;
  options: OptionTpl[];
}

const required = (id: string, name: string, nameAr: string, options: OptionTpl[]): GroupTpl => ({
  id,
  name,
  nameAr,
  required: true,
  min: 1,
  max: 1,
  options,
});
const optional = (id: string, name: string, nameAr: string, max: number | null, options: OptionTpl[]): GroupTpl => ({
  id,
  name,
  nameAr,
  required: false,
  min: 0,
  max,
  options,
});

export const GROUPS = {
  'shawarma-size': required('size', 'Size', 'الحجم', [
    ['size-regular', 'Regular', 'عادي', 0],
    ['size-large', 'Large', 'كبير', 300],
    ['size-jumbo', 'Jumbo', 'جامبو', 600],
  ]),
  'shawarma-extras': optional('extras', 'Extras', 'إضافات', 3, [
    ['extra-toum', 'Extra garlic toum', 'ثومية إضافية', 100],
    ['extra-cheese', 'Mozzarella', 'جبنة موزاريلا', 200],
    ['extra-fries', 'Fries inside', 'بطاطا داخل الساندويش', 150],
    ['no-pickles', 'No pickles', 'بدون مخلل', 0],
  ]),
  sauces: optional('sauces', 'Sauces', 'الصلصات', 2, [
    ['sauce-toum', 'Garlic toum', 'ثومية', 0],
    ['sauce-tahini', 'Tahini', 'طحينة', 0],
    ['sauce-chili', 'Hot chili', 'شطة حارة', 50],
    ['sauce-bbq', 'Smoky BBQ', 'باربكيو مدخن', 100],
  ]),
  'burger-extras': optional('extras', 'Add-ons', 'إضافات', null, [
    ['add-cheese', 'Extra cheese slice', 'شريحة جبن إضافية', 250],
    ['add-patty', 'Extra patty', 'قطعة لحم إضافية', 750],
    ['add-jalapeno', 'Jalapeños', 'هالبينو', 150],
    ['add-egg', 'Fried egg', 'بيضة مقلية', 250],
    ['add-turkey-bacon', 'Turkey bacon', 'بيكون ديك رومي', 400],
  ]),
  'meal-upgrade': optional('meal', 'Make it a meal', 'حولها وجبة', 1, [
    ['meal-regular', 'Fries + soft drink', 'بطاطا ومشروب غازي', 900],
    ['meal-large', 'Large fries + soft drink', 'بطاطا كبيرة ومشروب غازي', 1200],
  ]),
  'drink-choice': required('drink', 'Choose your drink', 'اختر مشروبك', [
    ['drink-pepsi', 'Pepsi', 'بيبسي', 0],
    ['drink-diet-pepsi', 'Diet Pepsi', 'دايت بيبسي', 0],
    ['drink-7up', '7UP', 'سفن أب', 0],
    ['drink-water', 'Water', 'ماء', 0],
  ]),
  'spice-level': required('spice', 'Spice level', 'درجة الحرارة', [
    ['spice-mild', 'Mild', 'خفيف', 0],
    ['spice-medium', 'Medium', 'متوسط', 0],
    ['spice-hot', 'Hot', 'حار', 0],
    ['spice-extra-hot', 'Extra hot', 'حار جداً', 0],
  ]),
  'rice-choice': required('rice', 'Rice', 'الرز', [
    ['rice-white', 'White rice', 'رز أبيض', 0],
    ['rice-vermicelli', 'Vermicelli rice', 'رز بالشعيرية', 0],
    ['rice-biryani', 'Biryani rice', 'رز برياني', 250],
  ]),
  'bread-choice': required('bread', 'Bread', 'الخبز', [
    ['bread-arabic', 'Arabic bread', 'خبز عربي', 0],
    ['bread-saj', 'Saj bread', 'خبز صاج', 100],
    ['bread-tanoor', 'Tanoor bread', 'خبز تنور', 150],
  ]),
  doneness: required('doneness', 'Cooking', 'درجة الاستواء', [
    ['done-medium', 'Medium', 'متوسط', 0],
    ['done-medium-well', 'Medium well', 'فوق المتوسط', 0],
    ['done-well', 'Well done', 'مستوي جيداً', 0],
  ]),
  'pizza-size': required('size', 'Size', 'الحجم', [
    ['size-small', 'Small 8"', 'صغير', 0],
    ['size-medium', 'Medium 10"', 'وسط', 900],
    ['size-large', 'Large 12"', 'كبير', 1750],
  ]),
  'pizza-crust': required('crust', 'Crust', 'العجينة', [
    ['crust-classic', 'Classic hand-tossed', 'كلاسيك', 0],
    ['crust-thin', 'Thin & crispy', 'رقيقة ومقرمشة', 0],
    ['crust-stuffed', 'Cheese-stuffed crust', 'أطراف محشوة بالجبن', 500],
  ]),
  'pizza-toppings': optional('toppings', 'Extra toppings', 'إضافات', null, [
    ['top-mushroom', 'Mushrooms', 'فطر', 250],
    ['top-olives', 'Black olives', 'زيتون أسود', 200],
    ['top-peppers', 'Bell peppers', 'فلفل رومي', 200],
    ['top-jalapeno', 'Jalapeños', 'هالبينو', 200],
    ['top-mozzarella', 'Extra mozzarella', 'موزاريلا إضافية', 400],
  ]),
  'coffee-size': required('size', 'Size', 'الحجم', [
    ['size-small', 'Small 8 oz', 'صغير', 0],
    ['size-medium', 'Medium 12 oz', 'وسط', 250],
    ['size-large', 'Large 16 oz', 'كبير', 500],
  ]),
  'milk-choice': optional('milk', 'Milk', 'الحليب', 1, [
    ['milk-oat', 'Oat milk', 'حليب الشوفان', 250],
    ['milk-almond', 'Almond milk', 'حليب اللوز', 250],
    ['milk-lactose-free', 'Lactose-free milk', 'حليب خالي من اللاكتوز', 150],
  ]),
  sweetness: required('sweetness', 'Sugar', 'السكر', [
    ['sugar-none', 'No sugar', 'بدون سكر', 0],
    ['sugar-less', 'Less sugar', 'سكر خفيف', 0],
    ['sugar-regular', 'Regular', 'عادي', 0],
  ]),
  'mandi-portion': required('portion', 'Portion', 'الكمية', [
    ['portion-quarter', 'Quarter', 'ربع', 0],
    ['portion-half', 'Half', 'نص', { times: 1 }],
    ['portion-whole', 'Whole (serves 4)', 'كامل (يكفي ٤)', { times: 3 }],
  ]),
  'kunafa-size': required('size', 'Size', 'الحجم', [
    ['size-single', 'Single portion', 'قطعة واحدة', 0],
    ['size-medium-tray', 'Medium tray (serves 4)', 'صينية وسط (٤ أشخاص)', { times: 3 }],
    ['size-large-tray', 'Large tray (serves 8)', 'صينية كبيرة (٨ أشخاص)', { times: 5 }],
  ]),
  'protein-add': optional('protein', 'Add protein', 'إضافة بروتين', 2, [
    ['protein-chicken', 'Grilled chicken', 'دجاج مشوي', 750],
    ['protein-salmon', 'Salmon', 'سلمون', 1500],
    ['protein-halloumi', 'Halloumi', 'حلوم', 600],
    ['protein-egg', 'Boiled egg', 'بيضة مسلوقة', 200],
  ]),
  'fish-cooking': required('cooking', 'Cooking style', 'طريقة الطبخ', [
    ['cook-grilled', 'Grilled', 'مشوي', 0],
    ['cook-fried', 'Fried', 'مقلي', 0],
    ['cook-sayadieh', 'Sayadieh (with rice)', 'صيادية مع رز', 500],
  ]),
  'naan-add': optional('breads', 'Add bread', 'إضافة خبز', 3, [
    ['naan-butter', 'Butter naan', 'خبز نان بالزبدة', 350],
    ['naan-garlic', 'Garlic naan', 'نان بالثوم', 450],
    ['naan-cheese', 'Cheese naan', 'نان بالجبن', 650],
  ]),
  'manoushe-add': optional('extras', 'Add to your manoushe', 'إضافات للمنقوشة', 3, [
    ['add-tomato', 'Tomato & mint', 'طماطم ونعناع', 100],
    ['add-olives', 'Olives', 'زيتون', 100],
    ['add-akkawi', 'Extra akkawi cheese', 'جبنة عكاوي إضافية', 300],
  ]),
  weight: required('weight', 'Weight', 'الوزن', [
    ['weight-500g', '500 g', '٥٠٠ غرام', 0],
    ['weight-1kg', '1 kg', '١ كيلو', { times: 1 }],
    ['weight-2kg', '2 kg', '٢ كيلو', { times: 3 }],
  ]),
  'pack-size': required('pack', 'Pack size', 'حجم العبوة', [
    ['pack-60', '60 capsules', '٦٠ كبسولة', 0],
    ['pack-120', '120 capsules', '١٢٠ كبسولة', { times: 1 }],
  ]),
  'diaper-size': required('size', 'Diaper size', 'مقاس الحفاض', [
    ['size-3', 'Size 3 (6-10 kg)', 'مقاس ٣', 0],
    ['size-4', 'Size 4 (9-14 kg)', 'مقاس ٤', 0],
    ['size-5', 'Size 5 (11-16 kg)', 'مقاس ٥', 0],
  ]),
  'gift-wrap': optional('wrap', 'Gift options', 'خيارات الهدية', 1, [
    ['wrap-box', 'Gift box', 'علبة هدية', 500],
    ['wrap-card', 'Greeting card', 'بطاقة تهنئة', 250],
  ]),
} satisfies Record<string, GroupTpl>;

export type GroupKey = keyof typeof GROUPS;
