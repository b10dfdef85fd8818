/** Demo assortments of pharmacies and groceries. Prices in Kuwaiti fils. */
import { section, type MenuTpl } from './types.js';

export const PHARMACY: MenuTpl = {
  key: 'pharmacy', categoryIds: ['pharmacy'], prepMin: 8,
  tagline: 'Medicines, vitamins, baby and personal care delivered from {area}. Prescription items need a pharmacist call.',
  taglineAr: 'أدوية وفيتامينات ومستلزمات الأطفال والعناية الشخصية من {area}. الأدوية بوصفة تتطلب اتصال الصيدلي.',
  sections: [
    section('pain-fever', 'Pain & Fever', 'الألم والحرارة', [
      ['panadol-extra-24', 'Panadol Extra, 24 tablets', 'بنادول إكسترا، ٢٤ قرص', 'Paracetamol 500 mg with caffeine.', 'باراسيتامول ٥٠٠ ملغ مع كافيين.', 1250],
      ['panadol-advance-24', 'Panadol Advance, 24 tablets', 'بنادول أدفانس، ٢٤ قرص', 'Paracetamol 500 mg, fast absorption.', 'باراسيتامول ٥٠٠ ملغ سريع الامتصاص.', 950],
      ['brufen-400-30', 'Brufen 400 mg, 30 tablets', 'بروفين ٤٠٠ ملغ، ٣٠ قرص', 'Ibuprofen for pain and inflammation.', 'آيبوبروفين للألم والالتهاب.', 1500],
    ]),
    section('cold-flu', 'Cold & Flu', 'البرد والإنفلونزا', [
      ['strepsils-honey-lemon', 'Strepsils Honey & Lemon, 24 lozenges', 'ستربسلز بالعسل والليمون، ٢٤ قرص', 'Soothes sore throats.', 'يلطف التهاب الحلق.', 1750],
      ['vicks-vaporub-50', 'Vicks VapoRub 50 g', 'فيكس فابوراب ٥٠ غرام', 'Chest rub for cough and congestion.', 'مرهم للصدر للسعال والاحتقان.', 2000],
      ['otrivin-spray', 'Otrivin Adult Nasal Spray 10 ml', 'أوتريفين بخاخ أنف للكبار ١٠ مل', 'Relief from a blocked nose.', 'يخفف انسداد الأنف.', 1850],
    ]),
    section('vitamins', 'Vitamins & Supplements', 'الفيتامينات والمكملات', [
      ['vitamin-d3-5000', 'Vitamin D3 5000 IU', 'فيتامين د٣ ٥٠٠٠ وحدة', 'One softgel a day.', 'كبسولة واحدة يومياً.', 4750, ['pack-size']],
      ['omega-3-1000', 'Omega-3 Fish Oil 1000 mg', 'أوميغا ٣ زيت السمك ١٠٠٠ ملغ', 'Purified, lemon flavour.', 'منقى بنكهة الليمون.', 6500, ['pack-size']],
      ['vitamin-c-effervescent', 'Vitamin C 1000 mg Effervescent, 20 tablets', 'فيتامين سي ١٠٠٠ ملغ فوار، ٢٠ قرص', 'Orange flavour.', 'بنكهة البرتقال.', 2250],
    ]),
    section('baby', 'Baby Care', 'العناية بالطفل', [
      ['pampers-premium', 'Pampers Premium Care, 52 diapers', 'بامبرز بريميوم كير، ٥٢ حفاض', 'Softest comfort and dryness.', 'أقصى نعومة وجفاف.', 8500, ['diaper-size']],
      ['johnsons-baby-shampoo', "Johnson's Baby Shampoo 500 ml", 'جونسون شامبو أطفال ٥٠٠ مل', 'No more tears.', 'لا دموع بعد اليوم.', 1750],
    ]),
    section('personal-care', 'Personal & Skin Care', 'العناية الشخصية والبشرة', [
      ['sensodyne-repair', 'Sensodyne Repair & Protect 75 ml', 'سنسوداين ريبير آند بروتكت ٧٥ مل', 'For sensitive teeth.', 'للأسنان الحساسة.', 1450],
      ['cetaphil-cleanser', 'Cetaphil Gentle Skin Cleanser 473 ml', 'سيتافيل غسول لطيف ٤٧٣ مل', 'Fragrance-free, for all skin types.', 'خالي من العطور لجميع أنواع البشرة.', 5250],
      ['sunscreen-spf50', 'La Roche-Posay Anthelios SPF 50+ 50 ml', 'لاروش بوزيه أنثيليوس SPF 50+ ٥٠ مل', 'Invisible fluid, very high protection.', 'سائل غير مرئي بحماية عالية جداً.', 8750],
      ['bepanthen-cream', 'Bepanthen Nappy Care Ointment 100 g', 'بيبانثين مرهم الحفاض ١٠٠ غرام', 'Protects against nappy rash.', 'يحمي من التهاب الحفاض.', 2750],
    ]),
    section('first-aid', 'First Aid', 'الإسعافات الأولية', [
      ['band-aid-assorted', 'Band-Aid Assorted, 40 strips', 'باند إيد متنوع، ٤٠ لاصق', 'Flexible fabric plasters.', 'لاصقات قماشية مرنة.', 1250],
      ['hand-sanitizer', 'Hand Sanitizer Gel 250 ml', 'جل معقم لليدين ٢٥٠ مل', '70% alcohol.', 'كحول ٧٠٪.', 750],
      ['digital-thermometer', 'Digital Thermometer', 'ميزان حرارة رقمي', '60-second reading, flexible tip.', 'قراءة خلال ٦٠ ثانية برأس مرن.', 3500],
    ]),
  ],
};

export const GROCERY: MenuTpl = {
  key: 'grocery', categoryIds: ['groceries'], prepMin: 15,
  tagline: 'Fresh produce, dairy, bakery and household essentials from {area}, picked and packed in minutes.',
  taglineAr: 'خضار وفواكه طازجة وألبان ومخبوزات ومستلزمات منزلية من {area}، تجهز في دقائق.',
  sections: [
    section('produce', 'Fruits & Vegetables', 'الفواكه والخضار', [
      ['bananas', 'Bananas', 'موز', 'Ecuador, per 500 g.', 'إكوادور، لكل ٥٠٠ غرام.', 300, ['weight']],
      ['tomatoes', 'Tomatoes', 'طماطم', 'Jordanian, per 500 g.', 'أردنية، لكل ٥٠٠ غرام.', 250, ['weight']],
      ['cucumbers', 'Cucumbers', 'خيار', 'Local, per 500 g.', 'محلي، لكل ٥٠٠ غرام.', 200, ['weight']],
      ['avocados', 'Avocados, 2 pcs', 'أفوكادو، حبتان', 'Ready to eat.', 'جاهز للأكل.', 1200],
      ['strawberries', 'Strawberries 250 g', 'فراولة ٢٥٠ غرام', 'Egyptian, sweet and ripe.', 'مصرية حلوة وناضجة.', 1500],
    ]),
    section('dairy', 'Dairy & Eggs', 'الألبان والبيض', [
      ['fresh-milk-1l', 'Fresh Milk Full Fat 1 L', 'حليب طازج كامل الدسم ١ لتر', 'Local dairy.', 'ألبان محلية.', 450],
      ['laban-1l', 'Laban 1 L', 'لبن ١ لتر', 'Cultured buttermilk.', 'لبن رائب.', 400],
      ['eggs-30', 'Fresh Eggs, 30 pcs', 'بيض طازج، ٣٠ حبة', 'Large white eggs.', 'بيض أبيض كبير.', 1750],
      ['labneh-500', 'Labneh 500 g', 'لبنة ٥٠٠ غرام', 'Thick and creamy.', 'كثيفة وكريمية.', 950],
      ['halloumi-250', 'Halloumi 250 g', 'جبنة حلوم ٢٥٠ غرام', 'Cypriot, for grilling.', 'قبرصية للشوي.', 1450],
    ]),
    section('bakery', 'Bakery', 'المخبوزات', [
      ['arabic-bread', 'Arabic Bread, 6 pcs', 'خبز عربي، ٦ حبات', 'Baked this morning.', 'مخبوز هذا الصباح.', 200],
      ['sourdough-loaf', 'Sourdough Loaf', 'خبز العجين المخمر', 'Slow-fermented for 36 hours.', 'مخمر ببطء لمدة ٣٦ ساعة.', 1350],
    ]),
    section('pantry', 'Pantry', 'المؤن', [
      ['basmati-rice-5kg', 'Basmati Rice 5 kg', 'رز بسمتي ٥ كيلو', 'Extra-long grain, aged.', 'حبة طويلة جداً معتقة.', 4750],
      ['sunflower-oil-1-8l', 'Sunflower Oil 1.8 L', 'زيت دوار الشمس ١٫٨ لتر', 'For cooking and frying.', 'للطبخ والقلي.', 2250],
      ['tomato-paste', 'Tomato Paste 400 g', 'معجون طماطم ٤٠٠ غرام', 'Double concentrated.', 'مركز مضاعف.', 350],
      ['red-tea-100', 'Red Tea, 100 bags', 'شاي أحمر، ١٠٠ كيس', 'Ceylon black tea.', 'شاي سيلاني أسود.', 1500],
      ['khalas-dates-1kg', 'Khalas Dates 1 kg', 'تمر خلاص ١ كيلو', 'Al-Ahsa, soft and sweet.', 'من الأحساء، طري وحلو.', 2500, ['gift-wrap']],
    ]),
    section('beverages', 'Beverages', 'المشروبات', [
      ['water-12x500', 'Drinking Water 12 x 500 ml', 'مياه شرب ١٢ × ٥٠٠ مل', 'Low sodium.', 'قليلة الصوديوم.', 650],
      ['orange-juice-1l', 'Fresh Orange Juice 1 L', 'عصير برتقال طازج ١ لتر', 'Not from concentrate.', 'غير مركز.', 850],
    ]),
    section('household', 'Household', 'المستلزمات المنزلية', [
      ['dish-soap', 'Dishwashing Liquid 1 L', 'سائل غسيل الصحون ١ لتر', 'Lemon.', 'بالليمون.', 650],
      ['facial-tissues', 'Facial Tissues, 5 boxes', 'مناديل وجه، ٥ علب', '2-ply, 150 sheets each.', 'طبقتان، ١٥٠ منديل لكل علبة.', 1150],
    ]),
  ],
};
