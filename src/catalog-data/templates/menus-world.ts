/** Demo menus of international kitchens. Prices in Kuwaiti fils. */
import { section, type MenuTpl } from './types.js';

export const BURGERS: MenuTpl = {
  key: 'burgers', categoryIds: ['burgers'], prepMin: 15,
  tagline: 'Smashed-to-order burgers on toasted potato buns, crispy chicken and thick shakes in {area}.',
  taglineAr: 'برجر سماش يحضر عند الطلب بخبز البطاطا المحمص ودجاج مقرمش وميلك شيك في {area}.',
  sections: [
    section('burgers', 'Burgers', 'البرجر', [
      ['classic-smash', 'Classic Smash Burger', 'برجر سماش كلاسيك', 'Two smashed beef patties, American cheese, house sauce.', 'قطعتا لحم مع جبنة أمريكية وصلصة خاصة.', 1950, ['burger-extras', 'meal-upgrade']],
      ['truffle-mushroom', 'Truffle Mushroom Burger', 'برجر الفطر بالترافل', 'Beef patty, sautéed mushrooms, truffle mayo, Swiss cheese.', 'لحم مع فطر سوتيه ومايونيز الترافل وجبنة سويسرية.', 2650, ['burger-extras', 'meal-upgrade']],
      ['jalapeno-heat', 'Jalapeño Heat Burger', 'برجر الهالبينو الحار', 'Pepper jack, jalapeños and chipotle sauce.', 'جبنة حارة وهالبينو وصلصة شيبوتلي.', 2400, ['burger-extras', 'meal-upgrade']],
      ['double-cheeseburger', 'Double Cheeseburger', 'دبل تشيز برجر', 'Double beef, double cheddar, pickles and onions.', 'لحم مزدوج وجبنة شيدر مزدوجة مع مخلل وبصل.', 2250, ['burger-extras', 'meal-upgrade']],
    ]),
    section('chicken', 'Chicken', 'الدجاج', [
      ['crispy-chicken-burger', 'Crispy Chicken Burger', 'برجر دجاج مقرمش', 'Buttermilk fried chicken, slaw and pickles.', 'دجاج مقلي متبل باللبن مع سلطة ملفوف ومخلل.', 1850, ['meal-upgrade']],
      ['nashville-hot', 'Nashville Hot Chicken', 'دجاج ناشفيل الحار', 'Fried chicken dipped in hot chili oil.', 'دجاج مقلي مغموس بزيت الفلفل الحار.', 2100, ['spice-level', 'meal-upgrade']],
    ]),
    section('sides', 'Sides', 'الأطباق الجانبية', [
      ['loaded-fries', 'Loaded Cheese Fries', 'بطاطا بالجبنة', 'Fries, cheese sauce, jalapeños and crispy onions.', 'بطاطا مع صوص الجبن والهالبينو والبصل المقرمش.', 1450],
      ['onion-rings', 'Onion Rings', 'حلقات البصل', 'Beer-free batter, crunchy.', 'حلقات بصل مقرمشة.', 950],
      ['sweet-potato-fries', 'Sweet Potato Fries', 'بطاطا حلوة مقلية', 'With smoked paprika salt.', 'مع ملح البابريكا المدخنة.', 1050],
    ]),
    section('shakes', 'Shakes & Drinks', 'الميلك شيك والمشروبات', [
      ['vanilla-shake', 'Vanilla Milkshake', 'ميلك شيك فانيلا', 'Madagascar vanilla ice cream.', 'آيس كريم فانيلا مدغشقر.', 1350],
      ['lotus-shake', 'Lotus Biscoff Shake', 'ميلك شيك لوتس', 'Blended with Biscoff spread and crumbs.', 'مخفوق مع كريمة وبسكويت اللوتس.', 1650],
      ['soft-drink', 'Soft Drink', 'مشروب غازي', 'Chilled can, 330 ml.', 'علبة باردة ٣٣٠ مل.', 350, ['drink-choice']],
    ]),
  ],
};

export const PIZZA: MenuTpl = {
  key: 'pizza', categoryIds: ['pizza'], prepMin: 20,
  tagline: 'Neapolitan-style pizza from a wood-fired oven and fresh pasta in {area}.',
  taglineAr: 'بيتزا على الطريقة النابولية من فرن الحطب وباستا طازجة في {area}.',
  sections: [
    section('pizza', 'Pizza', 'البيتزا', [
      ['margherita', 'Margherita', 'مارغريتا', 'San Marzano tomato, fior di latte, basil.', 'طماطم سان مارزانو وموزاريلا طازجة وريحان.', 2250, ['pizza-size', 'pizza-crust', 'pizza-toppings']],
      ['beef-pepperoni', 'Beef Pepperoni', 'بيبروني لحم', 'Beef pepperoni, mozzarella, oregano.', 'بيبروني لحم وموزاريلا وأوريجانو.', 2750, ['pizza-size', 'pizza-crust', 'pizza-toppings']],
      ['quattro-formaggi', 'Quattro Formaggi', 'أربع أجبان', 'Mozzarella, gorgonzola, parmesan and fontina.', 'موزاريلا وجورجونزولا وبارميزان وفونتينا.', 2950, ['pizza-size', 'pizza-crust']],
      ['bbq-chicken-pizza', 'BBQ Chicken', 'بيتزا دجاج باربكيو', 'Smoky BBQ sauce, chicken, red onion.', 'صلصة باربكيو مدخنة ودجاج وبصل أحمر.', 2850, ['pizza-size', 'pizza-crust', 'pizza-toppings']],
      ['veggie-supreme', 'Veggie Supreme', 'خضار سوبريم', 'Peppers, mushrooms, olives, onions and sweetcorn.', 'فلفل وفطر وزيتون وبصل وذرة.', 2550, ['pizza-size', 'pizza-crust', 'pizza-toppings']],
    ]),
    section('starters', 'Starters', 'المقبلات', [
      ['garlic-bread', 'Garlic Bread', 'خبز بالثوم', 'With herb butter and mozzarella.', 'بزبدة الأعشاب والموزاريلا.', 900],
      ['burrata', 'Burrata & Tomatoes', 'بوراتا وطماطم', 'Creamy burrata, heirloom tomatoes, basil oil.', 'بوراتا كريمية مع طماطم وزيت الريحان.', 2600],
    ]),
    section('pasta', 'Pasta', 'الباستا', [
      ['penne-arrabbiata', 'Penne Arrabbiata', 'بيني أرابياتا', 'Tomato, garlic and chili.', 'طماطم وثوم وفلفل حار.', 2100, ['spice-level']],
      ['chicken-alfredo', 'Chicken Fettuccine Alfredo', 'فيتوتشيني ألفريدو بالدجاج', 'Parmesan cream sauce and grilled chicken.', 'صلصة كريمة البارميزان مع دجاج مشوي.', 2600],
    ]),
    section('desserts', 'Desserts', 'الحلويات', [
      ['tiramisu', 'Tiramisu', 'تيراميسو', 'Mascarpone, espresso-soaked savoiardi, cocoa.', 'ماسكاربوني وبسكويت بالإسبريسو وكاكاو.', 1500],
    ]),
  ],
};

export const SUSHI: MenuTpl = {
  key: 'sushi', categoryIds: ['sushi', 'asian'], prepMin: 20,
  tagline: 'Hand-rolled maki, nigiri and hot Japanese dishes in {area}.',
  taglineAr: 'ماكي ونيجيري ملفوف باليد وأطباق يابانية ساخنة في {area}.',
  sections: [
    section('maki', 'Maki Rolls', 'رولات الماكي', [
      ['california-roll', 'California Roll (8 pcs)', 'كاليفورنيا رول (٨ قطع)', 'Crab sticks, avocado, cucumber, tobiko.', 'كابوريا وأفوكادو وخيار وبيض سمك.', 2250],
      ['spicy-tuna-roll', 'Spicy Tuna Roll (8 pcs)', 'رول تونة حار (٨ قطع)', 'Tuna, sriracha mayo, spring onion.', 'تونة ومايونيز سريراتشا وبصل أخضر.', 2750],
      ['salmon-avocado-roll', 'Salmon Avocado Roll (8 pcs)', 'رول سلمون وأفوكادو (٨ قطع)', 'Fresh salmon and ripe avocado.', 'سلمون طازج وأفوكادو.', 2650],
      ['dragon-roll', 'Dragon Roll (8 pcs)', 'دراغون رول (٨ قطع)', 'Shrimp tempura topped with avocado and eel sauce.', 'روبيان تمبورا مغطى بالأفوكادو وصلصة الأنقليس.', 3750],
      ['crispy-shrimp-roll', 'Crispy Shrimp Roll (8 pcs)', 'رول روبيان مقرمش (٨ قطع)', 'Tempura shrimp, cream cheese, crunchy flakes.', 'روبيان تمبورا وجبنة كريمية ورقائق مقرمشة.', 3250],
    ]),
    section('nigiri', 'Nigiri', 'النيجيري', [
      ['salmon-nigiri', 'Salmon Nigiri (2 pcs)', 'نيجيري سلمون (قطعتان)', 'Norwegian salmon over seasoned rice.', 'سلمون نرويجي على رز متبل.', 1500],
      ['tuna-nigiri', 'Tuna Nigiri (2 pcs)', 'نيجيري تونة (قطعتان)', 'Yellowfin tuna over seasoned rice.', 'تونة صفراء الزعانف على رز متبل.', 1650],
    ]),
    section('hot', 'Hot Dishes', 'الأطباق الساخنة', [
      ['chicken-teriyaki', 'Chicken Teriyaki', 'دجاج ترياكي', 'Glazed chicken thigh with steamed rice.', 'فخذ دجاج بصلصة الترياكي مع رز مطهو بالبخار.', 2950],
      ['edamame', 'Edamame', 'إيدامامي', 'Steamed soybeans with sea salt.', 'فول الصويا مطهو بالبخار مع ملح البحر.', 1100],
      ['miso-soup', 'Miso Soup', 'شوربة ميسو', 'Tofu, wakame and spring onion.', 'توفو وطحالب وبصل أخضر.', 900],
    ]),
  ],
};

export const INDIAN: MenuTpl = {
  key: 'indian', categoryIds: ['indian'], prepMin: 25,
  tagline: 'North Indian curries, dum biryani and tandoor breads in {area}.',
  taglineAr: 'كاري هندي شمالي وبرياني دم وخبز التندور في {area}.',
  sections: [
    section('curries', 'Curries', 'الكاري', [
      ['butter-chicken', 'Butter Chicken', 'دجاج بالزبدة', 'Tandoori chicken in a silky tomato and butter gravy.', 'دجاج تندوري في صلصة طماطم وزبدة ناعمة.', 2500, ['spice-level', 'naan-add']],
      ['chicken-tikka-masala', 'Chicken Tikka Masala', 'دجاج تكا ماسالا', 'Charred tikka in spiced onion-tomato masala.', 'تكا دجاج في ماسالا البصل والطماطم.', 2500, ['spice-level', 'naan-add']],
      ['palak-paneer', 'Palak Paneer', 'بالاك بانير', 'Cottage cheese in creamy spinach.', 'جبن بانير في سبانخ كريمية.', 2100, ['spice-level', 'naan-add']],
      ['dal-makhani', 'Dal Makhani', 'دال مخني', 'Black lentils simmered overnight with butter.', 'عدس أسود مطبوخ طوال الليل مع الزبدة.', 1750, ['naan-add']],
    ]),
    section('biryani', 'Biryani', 'البرياني', [
      ['chicken-biryani', 'Chicken Dum Biryani', 'برياني دجاج', 'Layered basmati and chicken sealed and slow-cooked.', 'رز بسمتي ودجاج مطبوخ ببطء بطريقة الدم.', 2750, ['spice-level']],
      ['mutton-biryani', 'Mutton Biryani', 'برياني لحم', 'Tender mutton with saffron rice and fried onions.', 'لحم طري مع رز بالزعفران وبصل مقلي.', 3500, ['spice-level']],
    ]),
    section('tandoor', 'Tandoor', 'التندور', [
      ['tandoori-chicken', 'Tandoori Chicken (Half)', 'دجاج تندوري (نصف)', 'Yogurt and spice marinated, charred in the tandoor.', 'متبل باللبن والبهارات ومشوي في التندور.', 2250],
      ['paneer-tikka', 'Paneer Tikka', 'بانير تكا', 'Smoky cottage cheese skewers with peppers.', 'أسياخ جبن بانير مدخنة مع الفلفل.', 2000],
      ['butter-naan', 'Butter Naan', 'نان بالزبدة', 'Soft leavened bread brushed with butter.', 'خبز نان طري مدهون بالزبدة.', 350],
      ['garlic-naan', 'Garlic Naan', 'نان بالثوم', 'With garlic and coriander.', 'بالثوم والكزبرة.', 450],
    ]),
    section('drinks', 'Drinks & Desserts', 'المشروبات والحلويات', [
      ['mango-lassi', 'Mango Lassi', 'لاسي مانجو', 'Alphonso mango and yogurt.', 'مانجو ألفونسو مع اللبن.', 900],
      ['gulab-jamun', 'Gulab Jamun', 'جلاب جامون', 'Milk dumplings in rose syrup.', 'كرات الحليب في شراب الورد.', 900],
    ]),
  ],
};

export const CAFE: MenuTpl = {
  key: 'cafe', categoryIds: ['coffee'], prepMin: 8,
  tagline: 'Specialty coffee roasted in small batches, karak and fresh pastries in {area}.',
  taglineAr: 'قهوة مختصة محمصة بكميات صغيرة وكرك ومعجنات طازجة في {area}.',
  sections: [
    section('coffee', 'Coffee', 'القهوة', [
      ['spanish-latte', 'Spanish Latte', 'سبانش لاتيه', 'Espresso with condensed milk.', 'إسبريسو مع حليب مكثف.', 1500, ['coffee-size', 'milk-choice']],
      ['iced-latte', 'Iced Latte', 'آيس لاتيه', 'Double shot over ice and cold milk.', 'شوتين إسبريسو على الثلج والحليب البارد.', 1500, ['coffee-size', 'milk-choice']],
      ['flat-white', 'Flat White', 'فلات وايت', 'Ristretto and velvety milk.', 'ريستريتو مع حليب مخملي.', 1350, ['milk-choice']],
      ['cappuccino', 'Cappuccino', 'كابتشينو', 'Espresso, steamed milk and foam.', 'إسبريسو وحليب مبخر ورغوة.', 1350, ['coffee-size', 'milk-choice']],
      ['v60-pour-over', 'V60 Pour Over', 'في ٦٠', 'Single-origin Ethiopian beans, brewed by hand.', 'بن إثيوبي أحادي المصدر محضر يدوياً.', 1750],
    ]),
    section('tea', 'Tea', 'الشاي', [
      ['karak-chai', 'Karak Chai', 'شاي كرك', 'Strong tea with cardamom and evaporated milk.', 'شاي قوي بالهيل والحليب المبخر.', 350, ['sweetness']],
      ['saffron-karak', 'Saffron Karak', 'كرك بالزعفران', 'Karak with Iranian saffron.', 'كرك بالزعفران الإيراني.', 500, ['sweetness']],
      ['matcha-latte', 'Matcha Latte', 'ماتشا لاتيه', 'Ceremonial-grade matcha and milk.', 'ماتشا فاخرة مع الحليب.', 1650, ['milk-choice']],
    ]),
    section('bakery', 'Bakery', 'المخبوزات', [
      ['butter-croissant', 'Butter Croissant', 'كرواسون بالزبدة', 'French butter, 27 layers.', 'زبدة فرنسية، ٢٧ طبقة.', 850],
      ['pistachio-croissant', 'Pistachio Croissant', 'كرواسون بالفستق', 'Filled with pistachio cream.', 'محشو بكريمة الفستق.', 1250],
      ['date-cake', 'Date Cake', 'كيكة التمر', 'Warm date cake with toffee sauce.', 'كيكة تمر دافئة مع صلصة التوفي.', 1150],
      ['chocolate-cookie', 'Chocolate Chunk Cookie', 'كوكيز بقطع الشوكولاتة', 'Baked every morning.', 'يخبز كل صباح.', 650],
    ]),
  ],
};
