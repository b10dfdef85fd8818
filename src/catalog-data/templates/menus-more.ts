/** More demo menus: healthy, seafood, fried chicken, Asian. Prices in Kuwaiti fils. */
import { section, type MenuTpl } from './types.js';

export const HEALTHY: MenuTpl = {
  key: 'healthy', categoryIds: ['healthy'], prepMin: 12,
  tagline: 'Grain bowls, big salads and cold-pressed juices with calories on every item, in {area}.',
  taglineAr: 'أطباق حبوب وسلطات وعصائر معصورة على البارد مع السعرات لكل صنف، في {area}.',
  sections: [
    section('bowls', 'Bowls', 'الأطباق', [
      ['chicken-quinoa-bowl', 'Chicken Quinoa Bowl', 'طبق كينوا بالدجاج', 'Grilled chicken, quinoa, roasted vegetables, lemon tahini. 520 kcal.', 'دجاج مشوي وكينوا وخضار محمصة وطحينة بالليمون. ٥٢٠ سعرة.', 2750, ['protein-add']],
      ['salmon-poke-bowl', 'Salmon Poke Bowl', 'طبق بوكي سلمون', 'Salmon, sushi rice, edamame, mango, ponzu. 610 kcal.', 'سلمون ورز سوشي وإيدامامي ومانجو وصلصة بونزو. ٦١٠ سعرة.', 3500],
      ['falafel-bowl', 'Falafel Bowl', 'طبق فلافل', 'Baked falafel, hummus, tabbouleh, pickled turnip. 480 kcal.', 'فلافل مخبوزة وحمص وتبولة ولفت مخلل. ٤٨٠ سعرة.', 2250, ['protein-add']],
      ['acai-bowl', 'Açaí Bowl', 'طبق أساي', 'Açaí, banana, granola, berries and honey. 390 kcal.', 'أساي وموز وجرانولا وتوت وعسل. ٣٩٠ سعرة.', 2650],
    ]),
    section('salads', 'Salads', 'السلطات', [
      ['caesar-salad', 'Caesar Salad', 'سلطة سيزر', 'Romaine, parmesan, sourdough croutons, light dressing.', 'خس روماني وبارميزان وخبز محمص وصلصة خفيفة.', 2250, ['protein-add']],
      ['halloumi-salad', 'Halloumi & Pomegranate Salad', 'سلطة حلوم ورمان', 'Grilled halloumi, rocket, pomegranate, walnuts.', 'حلوم مشوي وجرجير ورمان وجوز.', 2350],
    ]),
    section('juices', 'Juices & Smoothies', 'العصائر والسموذي', [
      ['green-detox', 'Green Detox Juice', 'عصير ديتوكس أخضر', 'Apple, cucumber, celery, spinach, lemon.', 'تفاح وخيار وكرفس وسبانخ وليمون.', 1500],
      ['protein-smoothie', 'Peanut Protein Smoothie', 'سموذي بروتين بزبدة الفول السوداني', 'Whey, banana, peanut butter, oat milk.', null, 1750],
    ]),
  ],
};

export const SEAFOOD: MenuTpl = {
  key: 'seafood', categoryIds: ['seafood'], prepMin: 25,
  tagline: "The morning's catch from the Gulf, grilled, fried or sayadieh, in {area}.",
  taglineAr: 'صيد الصباح من الخليج، مشوي أو مقلي أو صيادية، في {area}.',
  sections: [
    section('fish', 'Fish', 'الأسماك', [
      ['grilled-hamour', 'Hamour (per fish)', 'هامور (سمكة كاملة)', 'Local hamour, about 700 g, with lemon and garlic.', 'هامور محلي حوالي ٧٠٠ غرام مع ليمون وثوم.', 5500, ['fish-cooking']],
      ['zubaidi', 'Zubaidi (per fish)', 'زبيدي (سمكة كاملة)', 'Silver pomfret, the Kuwaiti favourite.', 'سمك الزبيدي المفضل في الكويت.', 6000, ['fish-cooking']],
      ['fish-and-chips', 'Fish & Chips', 'فيش آند تشيبس', 'Battered sheri fillet, fries and tartare sauce.', 'فيليه شعري مقلي مع بطاطا وصلصة التارتار.', 3250],
    ]),
    section('shrimp', 'Shrimp & Calamari', 'الروبيان والحبار', [
      ['jumbo-shrimp', 'Jumbo Shrimp Platter', 'طبق روبيان جامبو', 'Twelve Gulf jumbo shrimp with garlic butter.', 'اثنا عشر روبيان جامبو خليجي بزبدة الثوم.', 6500, ['fish-cooking']],
      ['fried-calamari', 'Fried Calamari', 'كاليماري مقلي', 'Crispy squid rings with lemon aioli.', 'حلقات حبار مقرمشة مع صلصة الليمون.', 2250],
      ['shrimp-soup', 'Shrimp Soup', 'شوربة روبيان', 'Creamy soup with Gulf shrimp.', 'شوربة كريمية بالروبيان الخليجي.', 1750],
    ]),
    section('sides', 'Sides', 'الإضافات', [
      ['sayadieh-rice', 'Sayadieh Rice', 'رز صيادية', 'Caramelised onion rice.', 'رز بالبصل المكرمل.', 1500],
      ['tahini-sauce', 'Tahini Sauce', 'صلصة طحينة', 'With parsley and lemon.', 'بالبقدونس والليمون.', 250],
    ]),
  ],
};

export const CHICKEN: MenuTpl = {
  key: 'chicken', categoryIds: ['chicken'], prepMin: 15,
  tagline: 'Broasted chicken pressure-fried to order, zinger sandwiches and garlic dip in {area}.',
  taglineAr: 'دجاج بروستد مقلي عند الطلب وساندويشات زنجر وثومية في {area}.',
  sections: [
    section('broasted', 'Broasted', 'البروستد', [
      ['broasted-4pc', 'Broasted Chicken (4 pcs)', 'دجاج بروستد (٤ قطع)', 'With fries, coleslaw, bun and garlic dip.', 'مع بطاطا وسلطة ملفوف وخبز وثومية.', 2250, ['spice-level', 'drink-choice']],
      ['broasted-8pc', 'Family Broasted (8 pcs)', 'بروستد عائلي (٨ قطع)', 'With large fries, two coleslaws, buns and dips.', 'مع بطاطا كبيرة وسلطتين وخبز وصلصات.', 3950, ['spice-level']],
      ['chicken-strips', 'Chicken Strips (5 pcs)', 'ستربس دجاج (٥ قطع)', 'Crispy tenders with honey mustard.', 'قطع دجاج مقرمشة مع صلصة العسل والخردل.', 1950, ['sauces']],
    ]),
    section('sandwiches', 'Sandwiches', 'السندويشات', [
      ['zinger-sandwich', 'Zinger Sandwich', 'ساندويش زنجر', 'Spicy fillet, lettuce and mayo.', 'فيليه حار مع خس ومايونيز.', 1450, ['meal-upgrade']],
      ['popcorn-chicken', 'Popcorn Chicken', 'بوب كورن دجاج', 'Bite-size crispy chicken.', 'قطع دجاج صغيرة مقرمشة.', 1350],
    ]),
    section('sides', 'Sides', 'الإضافات', [
      ['coleslaw', 'Coleslaw', 'سلطة ملفوف', 'Creamy, made fresh daily.', 'كريمية تحضر يومياً.', 500],
      ['garlic-dip', 'Garlic Dip', 'ثومية', 'Our famous toum.', 'ثوميتنا المشهورة.', 150],
      ['corn-cob', 'Buttered Corn Cob', 'ذرة بالزبدة', 'Grilled corn with butter.', 'ذرة مشوية بالزبدة.', 600],
    ]),
  ],
};

export const ASIAN: MenuTpl = {
  key: 'asian', categoryIds: ['asian'], prepMin: 18,
  tagline: 'Ramen, wok-tossed noodles, bao and dumplings in {area}.',
  taglineAr: 'رامن ونودلز من الووك وباو ودامبلنغ في {area}.',
  sections: [
    section('noodles', 'Noodles', 'النودلز', [
      ['chicken-pad-thai', 'Chicken Pad Thai', 'باد تاي دجاج', 'Rice noodles, tamarind, peanuts, bean sprouts.', 'نودلز الرز والتمر الهندي والفول السوداني.', 2650, ['spice-level']],
      ['beef-ramen', 'Beef Ramen', 'رامن لحم', 'Rich beef broth, noodles, soft egg, nori.', 'مرق لحم غني ونودلز وبيضة وطحالب.', 3250, ['spice-level']],
    ]),
    section('rice', 'Rice', 'الرز', [
      ['chicken-katsu-curry', 'Chicken Katsu Curry', 'كاري كاتسو دجاج', 'Panko chicken, Japanese curry, rice.', 'دجاج بالبانكو مع كاري ياباني ورز.', 2950],
      ['kimchi-fried-rice', 'Kimchi Fried Rice', 'رز مقلي بالكيمتشي', 'With a fried egg and sesame.', 'مع بيضة مقلية وسمسم.', 2450, ['spice-level']],
    ]),
    section('small-plates', 'Dumplings & Bao', 'دامبلنغ وباو', [
      ['chicken-gyoza', 'Chicken Gyoza (6 pcs)', 'جيوزا دجاج (٦ قطع)', 'Pan-fried, with soy-vinegar dip.', 'مقلية في المقلاة مع صلصة الصويا والخل.', 1650],
      ['crispy-chicken-bao', 'Crispy Chicken Bao (2 pcs)', 'باو دجاج مقرمش (قطعتان)', 'Steamed buns, gochujang mayo, pickles.', 'خبز باو مع مايونيز غوتشوجانغ ومخلل.', 1850],
      ['veg-spring-rolls', 'Vegetable Spring Rolls (4 pcs)', 'سبرينغ رولز خضار (٤ قطع)', 'With sweet chili sauce.', 'مع صلصة الفلفل الحلو.', 1250],
      ['thai-iced-tea', 'Thai Iced Tea', 'شاي تايلندي مثلج', 'Spiced tea with condensed milk.', 'شاي متبل مع حليب مكثف.', 950],
    ]),
  ],
};
