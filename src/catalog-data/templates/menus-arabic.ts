/** Demo menus of Arabic and Gulf kitchens. Prices in Kuwaiti fils. */
import { section, type MenuTpl } from './types.js';

export const SHAWARMA: MenuTpl = {
  key: 'shawarma', categoryIds: ['shawarma', 'arabic'], prepMin: 10,
  tagline: 'Charcoal-kissed shawarma, garlic toum made every morning and Lebanese classics in {area}.',
  taglineAr: 'شاورما على الفحم وثومية طازجة كل صباح وأطباق لبنانية كلاسيكية في {area}.',
  sections: [
    section('sandwiches', 'Shawarma Sandwiches', 'سندويشات الشاورما', [
      ['chicken-shawarma-wrap', 'Chicken Shawarma Wrap', 'شاورما دجاج', 'Marinated chicken, garlic toum, pickles and fries in Lebanese bread.', 'دجاج متبل مع ثومية ومخلل وبطاطا في خبز لبناني.', 650, ['shawarma-size', 'shawarma-extras']],
      ['beef-shawarma-wrap', 'Beef Shawarma Wrap', 'شاورما لحم', 'Slow-roasted beef with tahini, parsley, tomato and onion.', 'لحم مشوي ببطء مع طحينة وبقدونس وطماطم وبصل.', 750, ['shawarma-size', 'shawarma-extras']],
      ['saj-shawarma', 'Saj Shawarma', 'شاورما صاج', 'Chicken shawarma wrapped in thin saj bread and toasted.', 'شاورما دجاج ملفوفة بخبز الصاج الرقيق ومحمصة.', 900, ['shawarma-extras']],
      ['arabi-shawarma-platter', 'Shawarma Arabi', 'شاورما عربي', 'Chicken shawarma cut into bites, with fries, toum and pickles.', 'شاورما دجاج مقطعة مع بطاطا وثومية ومخلل.', 1750, ['sauces']],
    ]),
    section('plates', 'Plates', 'الأطباق', [
      ['chicken-shawarma-plate', 'Chicken Shawarma Plate', 'صحن شاورما دجاج', 'With rice, fattoush, fries and toum.', 'مع رز وفتوش وبطاطا وثومية.', 2250, ['rice-choice', 'sauces']],
      ['beef-shawarma-plate', 'Beef Shawarma Plate', 'صحن شاورما لحم', 'With rice, hummus, grilled tomato and tahini.', 'مع رز وحمص وطماطم مشوية وطحينة.', 2500, ['rice-choice', 'sauces']],
    ]),
    section('sides', 'Sides & Salads', 'المقبلات والسلطات', [
      ['hummus', 'Hummus', 'حمص', 'Chickpea purée with tahini, lemon and olive oil.', 'حمص بالطحينة والليمون وزيت الزيتون.', 750],
      ['fattoush', 'Fattoush', 'فتوش', 'Crisp vegetables, sumac dressing and toasted bread.', 'خضار طازجة مع صلصة السماق وخبز محمص.', 900],
      ['shawarma-fries', 'Shawarma Spiced Fries', 'بطاطا بهارات الشاورما', 'Crispy fries tossed in our shawarma spice.', 'بطاطا مقرمشة ببهارات الشاورما.', 500],
    ]),
    section('drinks', 'Drinks', 'المشروبات', [
      ['laban', 'Laban', 'لبن', 'Chilled salted yogurt drink, 250 ml.', 'لبن بارد ٢٥٠ مل.', 250],
      ['fresh-lemon-mint', 'Lemon Mint', 'ليمون بالنعناع', 'Fresh lemon blended with mint and ice.', 'ليمون طازج مع نعناع وثلج.', 900],
      ['soft-drink', 'Soft Drink', 'مشروب غازي', 'Chilled can, 330 ml.', 'علبة باردة ٣٣٠ مل.', 200, ['drink-choice']],
    ]),
  ],
};

export const GRILLS: MenuTpl = {
  key: 'grills', categoryIds: ['grills', 'arabic'], prepMin: 25,
  tagline: 'Skewers grilled over charcoal to order, mezze and warm tanoor bread in {area}.',
  taglineAr: 'مشاوي على الفحم حسب الطلب ومقبلات وخبز تنور ساخن في {area}.',
  sections: [
    section('grills', 'From the Grill', 'المشاوي', [
      ['mixed-grill', 'Mixed Grill Platter', 'مشاوي مشكلة', 'Shish tawook, lamb kebab and lamb tikka with grilled vegetables.', 'شيش طاووق وكباب لحم وتكة لحم مع خضار مشوية.', 4750, ['bread-choice', 'sauces']],
      ['shish-tawook', 'Shish Tawook', 'شيش طاووق', 'Chicken cubes in garlic and yogurt marinade.', 'مكعبات دجاج متبلة بالثوم واللبن.', 2750, ['bread-choice']],
      ['lamb-kebab', 'Lamb Kebab', 'كباب لحم', 'Minced lamb with parsley and onion, grilled on skewers.', 'لحم غنم مفروم مع بقدونس وبصل على السيخ.', 3250, ['bread-choice']],
      ['lamb-chops', 'Lamb Chops', 'ريش غنم', 'Australian lamb chops with rosemary salt.', 'ريش غنم أسترالية مع ملح إكليل الجبل.', 5500, ['doneness']],
      ['kebab-halabi', 'Kebab Halabi', 'كباب حلبي', 'Aleppo-style kebab with spicy tomato and pepper sauce.', 'كباب على الطريقة الحلبية مع صلصة طماطم وفلفل حارة.', 3000],
      ['arayes', 'Arayes', 'عرايس', 'Bread stuffed with spiced minced meat, grilled crisp.', 'خبز محشو باللحم المتبل ومشوي حتى يقرمش.', 1750],
    ]),
    section('mezze', 'Mezze', 'المقبلات', [
      ['moutabal', 'Moutabal', 'متبل', 'Smoky aubergine with tahini and pomegranate.', 'باذنجان مشوي مع طحينة ورمان.', 850],
      ['tabbouleh', 'Tabbouleh', 'تبولة', 'Parsley, bulgur, tomato and lemon.', 'بقدونس وبرغل وطماطم وليمون.', 950],
      ['vine-leaves', 'Vine Leaves', 'ورق عنب', 'Rolled with rice, tomato and pomegranate molasses.', 'ملفوف بالرز والطماطم ودبس الرمان.', 1200],
    ]),
    section('drinks', 'Drinks', 'المشروبات', [
      ['ayran', 'Ayran', 'عيران', 'Cold yogurt drink.', 'مشروب لبن بارد.', 300],
      ['soft-drink', 'Soft Drink', 'مشروب غازي', 'Chilled can, 330 ml.', 'علبة باردة ٣٣٠ مل.', 200, ['drink-choice']],
    ]),
  ],
};

export const GULF: MenuTpl = {
  key: 'gulf', categoryIds: ['gulf'], prepMin: 30,
  tagline: 'Home-style machboos, murabyan and Gulf sweets, cooked the way grandmothers do in {area}.',
  taglineAr: 'مجبوس ومربين وحلويات خليجية على طريقة الجدات في {area}.',
  sections: [
    section('mains', 'Main Dishes', 'الأطباق الرئيسية', [
      ['chicken-machboos', 'Chicken Machboos', 'مجبوس دجاج', 'Spiced basmati rice with a whole chicken leg and daqoos.', 'رز بسمتي متبل مع فخذ دجاج كامل ودقوس.', 2750, ['spice-level']],
      ['lamb-machboos', 'Lamb Machboos', 'مجبوس لحم', 'Tender local lamb on saffron rice with loomi.', 'لحم غنم محلي طري على رز بالزعفران واللومي.', 4250, ['spice-level']],
      ['hamour-machboos', 'Hamour Machboos', 'مجبوس هامور', 'Fried hamour fillet on spiced rice with hashu.', 'فيليه هامور مقلي على رز متبل مع الحشو.', 5250],
      ['murabyan', 'Murabyan', 'مربين', 'Gulf shrimp cooked into fragrant rice.', 'روبيان خليجي مطبوخ مع رز بالبهارات.', 4000, ['spice-level']],
      ['mutabbaq-zubaidi', 'Mutabbaq Zubaidi', 'مطبق زبيدي', 'Whole pomfret over layered rice, a Kuwaiti favourite.', 'زبيدي كامل على رز مطبق، طبق كويتي مفضل.', 6500],
      ['jireesh', 'Jireesh', 'جريش', 'Cracked wheat slow-cooked with chicken and spices.', 'جريش مطبوخ ببطء مع الدجاج والبهارات.', 1500],
      ['harees', 'Harees', 'هريس', 'Wheat and lamb, stirred for hours, topped with ghee.', 'قمح ولحم مطبوخ لساعات ومزين بالسمن.', 1500],
    ]),
    section('sides', 'Sides', 'الإضافات', [
      ['daqoos', 'Daqoos', 'دقوس', 'Tangy tomato and chili sauce.', 'صلصة طماطم وفلفل حار.', 250],
      ['gulf-salad', 'Gulf Salad', 'سلطة خليجية', 'Cucumber, tomato, onion and lemon.', 'خيار وطماطم وبصل وليمون.', 650],
    ]),
    section('sweets', 'Sweets', 'الحلويات', [
      ['gers-ogaily', 'Gers Ogaily', 'قرص عقيلي', 'Saffron and cardamom sponge cake.', 'كيكة بالزعفران والهيل.', 1250],
      ['luqaimat', 'Luqaimat', 'لقيمات', 'Crisp dumplings drizzled with date syrup and sesame.', 'لقيمات مقرمشة مع دبس التمر والسمسم.', 1250],
    ]),
  ],
};

export const MANDI: MenuTpl = {
  key: 'mandi', categoryIds: ['mandi', 'arabic'], prepMin: 25,
  tagline: 'Yemeni mandi from the underground tanoor, fahsa and fresh malawah in {area}.',
  taglineAr: 'مندي يمني من التنور الأرضي وفحسة وملوح طازج في {area}.',
  sections: [
    section('mandi', 'Mandi & Madhbi', 'مندي ومظبي', [
      ['chicken-mandi', 'Chicken Mandi', 'مندي دجاج', 'Smoked chicken on long-grain mandi rice.', 'دجاج مدخن على رز المندي.', 2500, ['mandi-portion', 'sauces']],
      ['lamb-mandi', 'Lamb Mandi', 'مندي لحم', 'Lamb cooked slowly in the tanoor until it falls apart.', 'لحم غنم مطبوخ ببطء في التنور.', 4500, ['mandi-portion']],
      ['chicken-madhbi', 'Chicken Madhbi', 'مظبي دجاج', 'Chicken grilled on hot stones.', 'دجاج مشوي على الحجر الساخن.', 2500, ['mandi-portion']],
      ['lamb-haneeth', 'Lamb Haneeth', 'حنيذ لحم', 'Lamb slow-roasted with Yemeni spices.', 'لحم محمر ببطء مع البهارات اليمنية.', 5000],
    ]),
    section('yemeni', 'Yemeni Classics', 'أطباق يمنية', [
      ['saltah', 'Saltah', 'سلتة', 'Bubbling stew topped with fenugreek froth.', 'مرق يغلي مع حلبة مخفوقة.', 1500],
      ['fahsa', 'Fahsa', 'فحسة', 'Shredded lamb stew served in a stone pot.', 'لحم مفتت في مرق يقدم في المقلى الحجري.', 2250],
      ['masoub', 'Masoub', 'معصوب', 'Mashed bread with banana, honey and cream.', 'خبز مهروس مع موز وعسل وقشطة.', 1750],
      ['malawah', 'Malawah Bread', 'خبز ملوح', 'Flaky layered flatbread.', 'خبز رقائقي طبقات.', 500],
    ]),
    section('drinks', 'Drinks', 'المشروبات', [
      ['adeni-tea', 'Adeni Tea', 'شاي عدني', 'Spiced milk tea.', 'شاي بالحليب والبهارات.', 350, ['sweetness']],
    ]),
  ],
};

export const BAKERY: MenuTpl = {
  key: 'bakery', categoryIds: ['bakery', 'breakfast'], prepMin: 12,
  tagline: 'Manakish and fatayer from the stone oven in {area}, baked to order from 6 am.',
  taglineAr: 'مناقيش وفطاير من فرن الحجر في {area}، تخبز حسب الطلب من السادسة صباحاً.',
  sections: [
    section('manakish', 'Manakish', 'مناقيش', [
      ['zaatar-manoushe', "Za'atar Manoushe", 'منقوشة زعتر', "Wild thyme za'atar with olive oil.", 'زعتر بري مع زيت الزيتون.', 500, ['manoushe-add']],
      ['cheese-manoushe', 'Akkawi Cheese Manoushe', 'منقوشة جبنة عكاوي', 'Melted akkawi and mozzarella.', 'جبنة عكاوي وموزاريلا ذائبة.', 850, ['manoushe-add']],
      ['half-half-manoushe', "Half Za'atar, Half Cheese", 'نص زعتر نص جبنة', 'The best of both.', 'أفضل ما في الاثنين.', 750],
      ['kishk-manoushe', 'Kishk Manoushe', 'منقوشة كشك', 'Fermented yogurt and bulgur with onion and tomato.', 'كشك مع بصل وطماطم.', 750],
      ['sujuk-cheese', 'Sujuk & Cheese', 'سجق وجبنة', 'Spicy beef sujuk with mozzarella.', 'سجق لحم حار مع موزاريلا.', 1250],
    ]),
    section('pies', 'Pies', 'الفطاير', [
      ['lahm-bi-ajeen', 'Lahm Bi Ajeen', 'لحم بعجين', 'Thin dough topped with spiced minced beef.', 'عجينة رقيقة مع لحم مفروم متبل.', 1000],
      ['spinach-fatayer', 'Spinach Fatayer', 'فطاير سبانخ', 'Spinach, onion and sumac in a triangle pie.', 'سبانخ وبصل وسماق في فطيرة مثلثة.', 350],
      ['labneh-veggies', 'Labneh & Vegetables Wrap', 'لفافة لبنة وخضار', 'Labneh, cucumber, tomato and mint.', 'لبنة وخيار وطماطم ونعناع.', 900],
    ]),
    section('drinks', 'Hot Drinks', 'المشروبات الساخنة', [
      ['turkish-coffee', 'Turkish Coffee', 'قهوة تركية', 'Cardamom coffee, brewed in a dallah.', 'قهوة بالهيل.', 500, ['sweetness']],
    ]),
  ],
};

export const BREAKFAST: MenuTpl = {
  key: 'breakfast', categoryIds: ['breakfast', 'arabic'], prepMin: 10,
  tagline: 'Foul, falafel and Kuwaiti breakfast favourites in {area}, from dawn.',
  taglineAr: 'فول وفلافل وفطور كويتي في {area}، من الفجر.',
  sections: [
    section('breakfast', 'Breakfast', 'الفطور', [
      ['foul-medames', 'Foul Medames', 'فول مدمس', 'Fava beans with cumin, lemon and olive oil.', 'فول بالكمون والليمون وزيت الزيتون.', 750],
      ['balaleet', 'Balaleet', 'بلاليط', 'Sweet saffron vermicelli topped with an omelette.', 'شعيرية حلوة بالزعفران مع عجة.', 1250],
      ['shakshuka', 'Shakshuka', 'شكشوكة', 'Eggs poached in tomato and pepper sauce.', 'بيض في صلصة الطماطم والفلفل.', 1250, ['bread-choice']],
      ['nakhi', 'Nakhi', 'نخي', 'Boiled chickpeas with cumin and lemon.', 'حمص مسلوق بالكمون والليمون.', 750],
      ['falafel-plate', 'Falafel Plate', 'صحن فلافل', 'Six falafel with tahini, pickles and salad.', 'ست حبات فلافل مع طحينة ومخلل وسلطة.', 1250],
    ]),
    section('sandwiches', 'Sandwiches', 'السندويشات', [
      ['falafel-sandwich', 'Falafel Sandwich', 'ساندويش فلافل', 'Falafel, tahini, tomato and parsley.', 'فلافل وطحينة وطماطم وبقدونس.', 350],
      ['chips-oman-sandwich', 'Chips Oman Sandwich', 'ساندويش شيبس عمان', 'Crushed Chips Oman, cream cheese and chili.', 'شيبس عمان مع جبنة كريمية وشطة.', 450],
      ['egg-cheese-sandwich', 'Egg & Cheese Sandwich', 'ساندويش بيض وجبن', 'Scrambled eggs and cheddar in a soft bun.', 'بيض مخفوق مع جبنة شيدر في خبز طري.', 650],
    ]),
    section('drinks', 'Drinks', 'المشروبات', [
      ['red-tea', 'Red Tea', 'شاي أحمر', 'Strong black tea.', 'شاي أحمر ثقيل.', 150, ['sweetness']],
    ]),
  ],
};

export const DESSERTS: MenuTpl = {
  key: 'desserts', categoryIds: ['desserts'], prepMin: 10,
  tagline: 'Kunafa pulled fresh every hour, baklava and Arabic sweets in {area}.',
  taglineAr: 'كنافة طازجة كل ساعة وبقلاوة وحلويات عربية في {area}.',
  sections: [
    section('kunafa', 'Kunafa', 'الكنافة', [
      ['kunafa-nabulsiyeh', 'Kunafa Nabulsiyeh', 'كنافة نابلسية', 'Nabulsi cheese under crisp kataifi and syrup.', 'جبنة نابلسية تحت عجينة مقرمشة وقطر.', 1750, ['kunafa-size']],
      ['kunafa-cream', 'Kunafa with Cream', 'كنافة بالقشطة', 'Ashta cream filling, pistachio crumbs.', 'حشوة قشطة مع فستق مطحون.', 1750, ['kunafa-size']],
      ['kunafa-roll', 'Kunafa Roll', 'رول كنافة', 'Rolled kataifi with cream and pistachio.', 'كنافة ملفوفة بالقشطة والفستق.', 1500],
    ]),
    section('sweets', 'Arabic Sweets', 'الحلويات العربية', [
      ['baklava-box', 'Mixed Baklava Box', 'علبة بقلاوة مشكلة', 'Pistachio, cashew and walnut baklava, 500 g.', 'بقلاوة بالفستق والكاجو والجوز، ٥٠٠ غرام.', 4500, ['gift-wrap']],
      ['umm-ali', 'Umm Ali', 'أم علي', 'Warm bread pudding with nuts and cream.', 'حلى أم علي ساخن مع المكسرات والقشطة.', 1500],
      ['mohallabiya', 'Mohallabiya', 'مهلبية', 'Rose-water milk pudding.', 'مهلبية بماء الورد.', 950],
      ['halawet-el-jibn', 'Halawet El Jibn', 'حلاوة الجبن', 'Sweet cheese rolls with ashta.', 'رولات حلاوة الجبن مع القشطة.', 1650],
    ]),
    section('ice-cream', 'Ice Cream', 'الآيس كريم', [
      ['booza-pistachio', 'Booza with Pistachio', 'بوظة بالفستق', 'Stretchy mastic ice cream rolled in pistachio.', 'بوظة بالمستكة مغطاة بالفستق.', 1350],
    ]),
  ],
};
