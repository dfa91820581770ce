/**
 * The advice engine's tables, each row with its source: storage times, the danger-zone rule, reheating and
 * cooling temperatures, substitutions and the recovery playbooks. Facts, not model output: the rules that use
 * them (rules-*.ts) cite the row (`evidence`) so a reader can check it.
 */

export interface Source {
  title: string;
  url: string;
}

export const SOURCES = {
  fsisLeftovers: {
    title: 'USDA FSIS, Leftovers and Food Safety',
    url: 'https://www.fsis.usda.gov/food-safety/safe-food-handling-and-preparation/food-safety-basics/leftovers-and-food-safety',
  },
  fsisDangerZone: {
    title: 'USDA FSIS, "Danger Zone" (40 °F – 140 °F)',
    url: 'https://www.fsis.usda.gov/food-safety/safe-food-handling-and-preparation/food-safety-basics/danger-zone-40f-140f',
  },
  foodKeeper: {
    title: 'USDA FoodKeeper (FSIS, Cornell University, Food Marketing Institute)',
    url: 'https://www.foodsafety.gov/keep-food-safe/foodkeeper-app',
  },
  fdaChart: {
    title: 'FDA / FoodSafety.gov, Cold Food Storage Chart',
    url: 'https://www.foodsafety.gov/food-safety-charts/cold-food-storage-charts',
  },
  foodCode: {
    title: 'FDA Food Code 2022, 3-501.14 Cooling and 3-403.11 Reheating for hot holding',
    url: 'https://www.fda.gov/food/fda-food-code/food-code-2022',
  },
  dga: {
    title: 'Dietary Guidelines for Americans 2020–2025, Appendix 2: Estimated Calorie Needs',
    url: 'https://www.dietaryguidelines.gov/',
  },
  mifflin: { title: 'Mifflin MD, St Jeor ST et al., Am J Clin Nutr 1990;51:241–7', url: 'https://doi.org/10.1093/ajcn/51.2.241' },
} as const satisfies Record<string, Source>;

export type SourceId = keyof typeof SOURCES;

/** How long a food class keeps, in days (fridge at ≤ 5 °C) and months (freezer at −18 °C); `null` = not advised. */
export interface StorageRow {
  id: string;
  label: string;
  fridgeDays: number;
  freezerMonths: number | null;
  note?: string;
  source: SourceId;
}

export const STORAGE: readonly StorageRow[] = [
  { id: 'cw.storage.soups_stews', label: 'soups, stews and sauces', fridgeDays: 3, freezerMonths: 2, source: 'fdaChart' },
  { id: 'cw.storage.cooked_poultry', label: 'cooked poultry dishes', fridgeDays: 3, freezerMonths: 2, source: 'fdaChart' },
  { id: 'cw.storage.cooked_meat', label: 'cooked meat dishes', fridgeDays: 3, freezerMonths: 2, source: 'fdaChart' },
  { id: 'cw.storage.cooked_rice_pasta', label: 'cooked rice, pasta and grains', fridgeDays: 3, freezerMonths: 1, source: 'foodKeeper' },
  {
    id: 'cw.storage.egg_dishes',
    label: 'cooked egg dishes',
    fridgeDays: 3,
    freezerMonths: null,
    note: 'cooked eggs do not freeze well; keep the base and cook eggs fresh',
    source: 'fdaChart',
  },
  {
    id: 'cw.storage.fried',
    label: 'fried foods',
    fridgeDays: 3,
    freezerMonths: 1,
    note: 'loses crispness; re-crisp in an oven',
    source: 'foodKeeper',
  },
  { id: 'cw.storage.leftovers', label: 'cooked leftovers', fridgeDays: 3, freezerMonths: 2, source: 'fsisLeftovers' },
];

/** Cooling (Food Code 3-501.14): 57 → 21 °C within 2 h, then to 5 °C within 4 more hours; reheat to 74 °C. */
export const COOLING = {
  stages: [
    { fromC: 57, toC: 21, within: 'PT2H' },
    { fromC: 21, toC: 5, within: 'PT4H' },
  ],
  maxDepthCm: 5,
  source: 'foodCode' as SourceId,
};
export const REHEAT_MIN_CORE_C = 74;

/** Perishable food left between 5 and 60 °C: discard after 2 h, or 1 h above 32 °C (USDA FSIS). */
export const DANGER_ZONE = {
  maxMinutes: 120,
  hotAmbientC: 32,
  hotMaxMinutes: 60,
  rule: 'cw.safety.danger_zone_2h',
  source: 'fsisDangerZone' as SourceId,
};

export interface Substitution {
  from: string;
  to: string;
  ratio: number;
  note: string;
  /** Allergens the substitute brings (so a household block still applies). */
  allergens?: string[];
}

/** Ingredient substitutions by ingredient id (CC0 facts of common kitchen practice), `cw.knowledge.substitutions.core`. */
export const SUBSTITUTIONS: readonly Substitution[] = [
  { from: 'cw.ing.saffron', to: 'cw.ing.turmeric', ratio: 1, note: 'colour, not aroma' },
  { from: 'cw.ing.olive_oil', to: 'cw.ing.vegetable_oil', ratio: 1, note: 'neutral taste' },
  { from: 'cw.ing.vegetable_oil', to: 'cw.ing.olive_oil', ratio: 1, note: 'not for deep-frying above 190 °C' },
  { from: 'cw.ing.butter', to: 'cw.ing.vegetable_oil', ratio: 0.8, note: 'for sautéing' },
  { from: 'cw.ing.tomato_crushed_canned', to: 'cw.ing.tomato_passata', ratio: 1, note: 'smoother sauce' },
  { from: 'cw.ing.tomato_passata', to: 'cw.ing.tomato_crushed_canned', ratio: 1, note: 'chunkier sauce' },
  { from: 'cw.ing.bell_pepper_red', to: 'cw.ing.bell_pepper_green', ratio: 1, note: 'less sweet' },
  { from: 'cw.ing.onion_yellow', to: 'cw.ing.onion_red', ratio: 1, note: 'sweeter' },
  { from: 'cw.ing.paprika_sweet', to: 'cw.ing.paprika_smoked', ratio: 0.5, note: 'stronger; use half' },
  { from: 'cw.ing.parsley_flat_leaf', to: 'cw.ing.coriander_fresh', ratio: 1, note: 'different herb note' },
  { from: 'cw.ing.lentils_brown', to: 'cw.ing.lentils_green', ratio: 1, note: 'same cooking time' },
  { from: 'cw.ing.rice_short', to: 'cw.ing.rice_basmati', ratio: 1, note: 'less sticky' },
  { from: 'cw.ing.vinegar_white', to: 'cw.ing.lemon_juice', ratio: 1, note: 'fresher acid' },
  { from: 'cw.ing.yogurt_plain', to: 'cw.ing.sour_cream', ratio: 1, note: 'richer', allergens: ['milk'] },
];
export const SUBSTITUTION_RULE = 'cw.knowledge.substitutions.core';

/** Estimated daily energy need (kcal) of children by age and sex, moderately active (DGA 2020–2025, Appendix 2). */
export const CHILD_KCAL: readonly { maxAge: number; female: number; male: number }[] = [
  { maxAge: 3, female: 1000, male: 1000 },
  { maxAge: 8, female: 1400, male: 1500 },
  { maxAge: 13, female: 1800, male: 2000 },
  { maxAge: 18, female: 2000, male: 2600 },
];
/** Activity factors applied to the Mifflin–St Jeor resting energy of adults. */
export const ACTIVITY: Record<string, number> = { sedentary: 1.2, light: 1.375, moderate: 1.55, active: 1.725, very_active: 1.9 };
/** Share of the day's energy a main meal (dinner) is planned at. */
export const MEAL_SHARE = 0.35;
