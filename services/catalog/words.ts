/**
 * Word tables of the synthetic catalog: dish names and styles in English, French, Spanish, German, Turkish
 * and Arabic (fully vowelled, with tashkeel, so searches must fold diacritics). Invented combinations, not
 * real recipes.
 */

export type Lang = 'en' | 'fr' | 'es' | 'de' | 'tr' | 'ar';
export const LANGS: readonly Lang[] = ['en', 'fr', 'es', 'de', 'tr', 'ar'];

export interface Dish {
  names: Record<Lang, string>;
  cuisine: string;
  course: 'breakfast' | 'starter' | 'soup' | 'salad' | 'main' | 'side' | 'bread' | 'dessert' | 'snack' | 'sauce';
  /** The main ingredient ids (`cw.ing.<x>`) and the EU allergens they bring. */
  ingredients: readonly string[];
  allergens: readonly string[];
}

export const DISHES: readonly Dish[] = [
  {
    names: {
      en: 'Lentil soup',
      fr: 'Soupe de lentilles',
      es: 'Sopa de lentejas',
      de: 'Linsensuppe',
      tr: 'Mercimek çorbası',
      ar: 'شُورْبَةُ عَدَسٍ',
    },
    cuisine: 'EG',
    course: 'soup',
    ingredients: ['lentils_red', 'onion_yellow', 'cumin_ground', 'water'],
    allergens: [],
  },
  {
    names: { en: 'Koshari', fr: 'Kochari', es: 'Koshari', de: 'Koschari', tr: 'Koşari', ar: 'كُشَرِي' },
    cuisine: 'EG',
    course: 'main',
    ingredients: ['rice_short', 'lentils_brown', 'pasta_short', 'tomato_passata'],
    allergens: ['cereals_gluten'],
  },
  {
    names: { en: 'Shakshuka', fr: 'Chakchouka', es: 'Shakshuka', de: 'Schakschuka', tr: 'Şakşuka', ar: 'شَكْشُوكَة' },
    cuisine: 'TN',
    course: 'breakfast',
    ingredients: ['egg', 'tomato', 'pepper_red', 'onion_yellow'],
    allergens: ['eggs'],
  },
  {
    names: { en: 'Falafel', fr: 'Falafels', es: 'Faláfel', de: 'Falafel', tr: 'Falafel', ar: 'فَلَافِل' },
    cuisine: 'EG',
    course: 'snack',
    ingredients: ['fava_dried', 'parsley', 'garlic', 'coriander_ground'],
    allergens: ['sesame'],
  },
  {
    names: {
      en: 'Molokhia stew',
      fr: 'Ragoût de corète',
      es: 'Guiso de moloquía',
      de: 'Muluchija-Eintopf',
      tr: 'Molohiya yemeği',
      ar: 'مُلُوخِيَّة',
    },
    cuisine: 'EG',
    course: 'main',
    ingredients: ['molokhia', 'chicken_stock', 'garlic', 'coriander_ground'],
    allergens: ['celery'],
  },
  {
    names: {
      en: 'Baked kofta',
      fr: 'Kefta au four',
      es: 'Kofta al horno',
      de: 'Kofta aus dem Ofen',
      tr: 'Fırında köfte',
      ar: 'كُفْتَة بِالفُرْنِ',
    },
    cuisine: 'LB',
    course: 'main',
    ingredients: ['beef_minced', 'onion_yellow', 'parsley', 'tomato'],
    allergens: [],
  },
  {
    names: { en: 'Crème brûlée', fr: 'Crème brûlée', es: 'Crema quemada', de: 'Gebrannte Creme', tr: 'Krem brüle', ar: 'كْرِيم بْرُولِيه' },
    cuisine: 'FR',
    course: 'dessert',
    ingredients: ['cream', 'egg_yolk', 'sugar', 'vanilla'],
    allergens: ['milk', 'eggs'],
  },
  {
    names: { en: 'Gazpacho', fr: 'Gaspacho', es: 'Gazpacho andaluz', de: 'Gazpacho', tr: 'Gazpaço', ar: 'غَازْبَاتْشُو' },
    cuisine: 'ES',
    course: 'soup',
    ingredients: ['tomato', 'cucumber', 'pepper_green', 'olive_oil'],
    allergens: ['sulphites'],
  },
  {
    names: { en: 'Paella', fr: 'Paëlla', es: 'Paella valenciana', de: 'Paella', tr: 'Paella', ar: 'بَايِيَّا' },
    cuisine: 'ES',
    course: 'main',
    ingredients: ['rice_bomba', 'chicken_thigh', 'saffron', 'beans_green'],
    allergens: ['molluscs', 'crustaceans'],
  },
  {
    names: { en: 'Lemon tart', fr: 'Tarte au citron', es: 'Tarta de limón', de: 'Zitronentarte', tr: 'Limonlu tart', ar: 'تَارْت اللَّيْمُونِ' },
    cuisine: 'FR',
    course: 'dessert',
    ingredients: ['wheat_flour', 'butter', 'lemon', 'egg'],
    allergens: ['cereals_gluten', 'milk', 'eggs'],
  },
  {
    names: { en: 'Red pepper dip', fr: 'Mouhammara', es: 'Muhammara', de: 'Muhammara-Dip', tr: 'Muhammara', ar: 'مُحَمَّرَة' },
    cuisine: 'SY',
    course: 'starter',
    ingredients: ['pepper_red', 'walnuts_ground', 'pomegranate_molasses', 'breadcrumbs'],
    allergens: ['nuts', 'cereals_gluten'],
  },
  {
    names: {
      en: 'Chickpea stew',
      fr: 'Ragoût de pois chiches',
      es: 'Potaje de garbanzos',
      de: 'Kichererbseneintopf',
      tr: 'Nohut yahnisi',
      ar: 'يَخْنَةُ حُمُّصٍ',
    },
    cuisine: 'MA',
    course: 'main',
    ingredients: ['chickpeas_cooked', 'tomato', 'onion_yellow', 'cumin_ground'],
    allergens: [],
  },
  {
    names: {
      en: 'Apple strudel',
      fr: 'Strudel aux pommes',
      es: 'Strudel de manzana',
      de: 'Apfelstrudel',
      tr: 'Elmalı ştrudel',
      ar: 'سْتْرُودِل التُّفَّاحِ',
    },
    cuisine: 'AT',
    course: 'dessert',
    ingredients: ['apple', 'wheat_flour', 'butter', 'cinnamon'],
    allergens: ['cereals_gluten', 'milk'],
  },
  {
    names: {
      en: 'Grilled fish',
      fr: 'Poisson grillé',
      es: 'Pescado a la plancha',
      de: 'Gegrillter Fisch',
      tr: 'Izgara balık',
      ar: 'سَمَكٌ مَشْوِيٌّ',
    },
    cuisine: 'TR',
    course: 'main',
    ingredients: ['fish_seabass', 'lemon', 'olive_oil', 'salt'],
    allergens: ['fish'],
  },
  {
    names: { en: 'Flatbread', fr: 'Pain plat', es: 'Pan plano', de: 'Fladenbrot', tr: 'Pide', ar: 'خُبْزٌ بَلَدِيٌّ' },
    cuisine: 'TR',
    course: 'bread',
    ingredients: ['wheat_flour', 'yeast', 'water', 'salt'],
    allergens: ['cereals_gluten'],
  },
  {
    names: { en: 'Rice pudding', fr: 'Riz au lait', es: 'Arroz con leche', de: 'Milchreis', tr: 'Sütlaç', ar: 'أَرُزٌّ بِاللَّبَنِ' },
    cuisine: 'EG',
    course: 'dessert',
    ingredients: ['rice_short', 'milk', 'sugar', 'rose_water'],
    allergens: ['milk'],
  },
  {
    names: { en: 'Tabbouleh', fr: 'Taboulé', es: 'Tabulé', de: 'Taboulé', tr: 'Tabule', ar: 'تَبُّولَة' },
    cuisine: 'LB',
    course: 'salad',
    ingredients: ['bulgur_fine', 'parsley', 'tomato', 'lemon'],
    allergens: ['cereals_gluten'],
  },
  {
    names: {
      en: 'Mushroom risotto',
      fr: 'Risotto aux champignons',
      es: 'Risotto de champiñones',
      de: 'Pilzrisotto',
      tr: 'Mantarlı risotto',
      ar: 'رِيزُوتُو بِالفُطْرِ',
    },
    cuisine: 'IT',
    course: 'main',
    ingredients: ['rice_arborio', 'mushroom', 'parmesan', 'vegetable_stock'],
    allergens: ['milk', 'celery'],
  },
  {
    names: {
      en: 'Spinach pie',
      fr: 'Tourte aux épinards',
      es: 'Empanada de espinacas',
      de: 'Spinatkuchen',
      tr: 'Ispanaklı börek',
      ar: 'فَطِيرَةُ سَبَانِخٍ',
    },
    cuisine: 'GR',
    course: 'starter',
    ingredients: ['spinach', 'feta', 'filo_pastry', 'onion_yellow'],
    allergens: ['cereals_gluten', 'milk'],
  },
  {
    names: {
      en: 'Mustard chicken',
      fr: 'Poulet à la moutarde',
      es: 'Pollo a la mostaza',
      de: 'Senfhähnchen',
      tr: 'Hardallı tavuk',
      ar: 'دَجَاجٌ بِالخَرْدَلِ',
    },
    cuisine: 'FR',
    course: 'main',
    ingredients: ['chicken_thigh', 'mustard', 'cream', 'thyme'],
    allergens: ['mustard', 'milk'],
  },
];

export interface Style {
  names: Record<Lang, string>;
}

/** Appended to a dish name (after a comma in Latin scripts, after a space in Arabic). */
export const STYLES: readonly Style[] = [
  { names: { en: 'home style', fr: 'façon maison', es: 'casera', de: 'nach Hausfrauenart', tr: 'ev usulü', ar: 'عَلَى الطَّرِيقَةِ البَيْتِيَّةِ' } },
  {
    names: {
      en: 'Alexandria style',
      fr: 'à l’alexandrine',
      es: 'al estilo de Alejandría',
      de: 'nach Alexandria-Art',
      tr: 'İskenderiye usulü',
      ar: 'عَلَى الطَّرِيقَةِ الإِسْكَنْدَرَانِيَّةِ',
    },
  },
  { names: { en: 'quick', fr: 'express', es: 'rápida', de: 'schnell', tr: 'pratik', ar: 'سَرِيعَة' } },
  { names: { en: 'with herbs', fr: 'aux herbes fraîches', es: 'con hierbas', de: 'mit Kräutern', tr: 'otlu', ar: 'بِالأَعْشَابِ' } },
  { names: { en: 'spicy', fr: 'épicée', es: 'picante', de: 'würzig', tr: 'acılı', ar: 'حَارَّة' } },
  {
    names: {
      en: 'for a crowd',
      fr: 'pour une tablée',
      es: 'para muchos',
      de: 'für viele Gäste',
      tr: 'kalabalık sofralar için',
      ar: 'لِلعَزَائِمِ',
    },
  },
  { names: { en: 'village style', fr: 'à la paysanne', es: 'de pueblo', de: 'nach Landart', tr: 'köy usulü', ar: 'عَلَى الطَّرِيقَةِ الرِّيفِيَّةِ' } },
  { names: { en: 'festive', fr: 'de fête', es: 'de fiesta', de: 'festlich', tr: 'bayramlık', ar: 'لِلأَعْيَادِ' } },
  { names: { en: 'light', fr: 'légère', es: 'ligera', de: 'leicht', tr: 'hafif', ar: 'خَفِيفَة' } },
  {
    names: {
      en: 'grandmother’s',
      fr: 'de grand-mère',
      es: 'de la abuela',
      de: 'nach Omas Rezept',
      tr: 'anneanne usulü',
      ar: 'عَلَى طَرِيقَةِ الجَدَّةِ',
    },
  },
];

/** The title of `dish` in `style`, per language. */
export function titleOf(dish: Dish, style: Style | undefined): Record<Lang, string> {
  const out = {} as Record<Lang, string>;
  for (const lang of LANGS) {
    const base = dish.names[lang];
    if (!style) out[lang] = base;
    else out[lang] = lang === 'ar' ? `${base} ${style.names.ar}` : `${base}, ${style.names[lang]}`;
  }
  return out;
}
