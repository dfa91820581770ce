/**
 * The SMS command grammar of the food-redistribution profile (profiles.md §1): OFFER/FARM, CLAIM, HAND, DIST,
 * MENU, CANCEL, HELP. Pure: no data file is read. Every decimal digit (any script) counts as its value.
 */

export type SmsError = 'empty' | 'unknown_command' | 'usage' | 'bad_date';
export type SmsResult = ({ ok: true; command: string } & Record<string, unknown>) | { ok: false; error: SmsError };

const NUM = String.raw`\p{Nd}+(?:\.\p{Nd}+)?`;
const NUMBER = new RegExp(`^${NUM}$`, 'u');
const KG = new RegExp(`^(${NUM})KG$`, 'u');
const TEMP = new RegExp(`^(?:T(-?${NUM})C?|(-?${NUM})C)$`, 'u');
const DATE = /^(UB|BB|HV)(\p{Nd}{4})$/u;
const MENU_FIELD = new RegExp(`^(KCAL|SODIUM|FV|PROTEIN)(${NUM})$`, 'u');
const DIGITS = /^\p{Nd}+$/u;
const ND = /^\p{Nd}$/u;

const STORAGE: Record<string, string> = { A: 'ambient', C: 'chilled', F: 'frozen', H: 'hot_held' };
const REJECT_REASONS: Record<string, string> = {
  TEMP: 'temp_out_of_range',
  DATE: 'past_use_by',
  PACK: 'packaging_damaged',
  ALLERG: 'allergen_unlabelled',
  QTY: 'quantity_mismatch',
  PEST: 'pests_or_contamination',
  SPACE: 'no_capacity',
  TRANSPORT: 'no_transport',
  LATE: 'arrived_late',
  OTHER: 'other',
};
const MENU_KEYS: Record<string, string> = { KCAL: 'energyKcal', SODIUM: 'sodiumMg', FV: 'fruitVegG', PROTEIN: 'proteinG' };
const FOOD_CLASSES: [string, string[]][] = [
  ['dairy', ['YOGURT', 'YOGHURT', 'MILK', 'CHEESE', 'LABNEH', 'CREAM', 'BUTTER', 'ZABADI']],
  ['poultry', ['CHICKEN', 'POULTRY', 'TURKEY']],
  ['meat', ['MEAT', 'BEEF', 'LAMB', 'KOFTA', 'MINCE', 'LIVER']],
  ['fish', ['FISH', 'SHRIMP', 'PRAWN', 'TUNA', 'SARDINE']],
  ['egg', ['EGG', 'EGGS']],
  ['cooked_food', ['COOKED', 'HOT', 'MEALS', 'MEAL', 'TRAYS', 'SOUP', 'STEW', 'KOSHARI']],
  ['cooked_rice', ['RICE']],
];

/**
 * Replace every decimal digit of any script by its ASCII digit. Unicode encodes decimal digits in contiguous
 * runs of ten, zero first, so a digit's value is its distance from the start of its block of digits, modulo 10.
 */
function asciiDigits(s: string): string {
  return s.replace(/\p{Nd}/gu, (d) => {
    const cp = d.codePointAt(0) as number;
    let start = cp;
    while (start > 0 && cp - start < 200 && ND.test(String.fromCodePoint(start - 1))) start--;
    return String((cp - start) % 10);
  });
}

function num(token: string): number {
  return Number(asciiDigits(token));
}

function temperature(token: string): number | null {
  const m = TEMP.exec(token);
  if (!m) return null;
  return num((m[1] ?? m[2]) as string);
}

function kg(token: string | undefined): number | null {
  const m = token === undefined ? null : KG.exec(token);
  return m ? num(m[1] as string) : null;
}

function isNumber(token: string | undefined): token is string {
  return token !== undefined && NUMBER.test(token);
}

function foodClasses(words: string[]): string[] {
  const set = new Set(words);
  const out = FOOD_CLASSES.filter(([, keys]) => keys.some((k) => set.has(k))).map(([c]) => c);
  return out.includes('cooked_food') ? out : out.filter((c) => c !== 'cooked_rice');
}

const usage = { ok: false, error: 'usage' } as const;

function offer(tokens: string[], farm: boolean): SmsResult {
  const amount = kg(tokens[1]);
  if (tokens.length < 4 || amount === null) return usage;
  let storage: string | undefined;
  let tempC: number | undefined;
  let dateMark: { kind: string; dayMonth: string } | undefined;
  let harvested: string | undefined;
  const words: string[] = [];
  for (const tok of tokens.slice(2)) {
    if (storage === undefined && Object.hasOwn(STORAGE, tok)) {
      storage = STORAGE[tok];
      continue;
    }
    const t = tempC === undefined ? temperature(tok) : null;
    if (t !== null) {
      tempC = t;
      continue;
    }
    const d = DATE.exec(tok);
    if (d) {
      const digits = asciiDigits(d[2] as string);
      const day = Number(digits.slice(0, 2));
      const month = Number(digits.slice(2));
      if (day < 1 || day > 31 || month < 1 || month > 12) return { ok: false, error: 'bad_date' };
      const dayMonth = `${digits.slice(0, 2)}-${digits.slice(2)}`;
      if (d[1] === 'HV') harvested = dayMonth;
      else dateMark = { kind: d[1] === 'UB' ? 'use_by' : 'best_before', dayMonth };
      continue;
    }
    words.push(tok);
  }
  if (storage === undefined || words.length === 0) return usage;
  const out: SmsResult = { ok: true, command: 'OFFER', kg: amount, item: words.join(' ').toLowerCase(), storage };
  if (farm) out.origin = 'farm';
  if (tempC !== undefined) out.tempC = tempC;
  if (dateMark !== undefined) out.dateMark = dateMark;
  if (harvested !== undefined) out.harvested = harvested;
  const classes = foodClasses(words);
  if (classes.length > 0) out.foodClasses = classes;
  return out;
}

function claim(tokens: string[]): SmsResult {
  if (tokens.length !== 3) return usage;
  const [, offerId, amount] = tokens as [string, string, string];
  if (amount === 'ALL') return { ok: true, command: 'CLAIM', offer: offerId, all: true };
  const value = amount.endsWith('KG') ? kg(amount) : isNumber(amount) ? num(amount) : null;
  if (value === null) return usage;
  return { ok: true, command: 'CLAIM', offer: offerId, kg: value };
}

function hand(tokens: string[]): SmsResult {
  if (tokens.length < 3 || !isNumber(tokens[2])) return usage;
  const out: SmsResult = { ok: true, command: 'HAND', offer: tokens[1] as string, kgAccepted: num(tokens[2]) };
  let rest = tokens.slice(3);
  if (rest[0] === 'REJ') {
    if (rest.length < 3 || !isNumber(rest[1])) return usage;
    const code = rest[2] as string;
    out.kgRejected = num(rest[1]);
    out.reason = Object.hasOwn(REJECT_REASONS, code) ? REJECT_REASONS[code] : 'other';
    out.reasonCode = code;
    rest = rest.slice(3);
  }
  for (const tok of rest) {
    const t = temperature(tok);
    if (t !== null) out.tempC = t;
  }
  return out;
}

function dist(tokens: string[]): SmsResult {
  const [, meals, mealsWord, people, peopleWord, amount] = tokens;
  const weight = kg(amount);
  if (tokens.length !== 6 || mealsWord !== 'MEALS' || peopleWord !== 'PEOPLE' || weight === null) return usage;
  if (!DIGITS.test(meals as string) || !DIGITS.test(people as string)) return usage;
  return { ok: true, command: 'DIST', meals: num(meals as string), people: num(people as string), kg: weight };
}

function menu(tokens: string[]): SmsResult {
  if (tokens.length < 3) return usage;
  const perMeal: Record<string, number> = {};
  for (const tok of tokens.slice(2)) {
    const m = MENU_FIELD.exec(tok);
    if (!m) return usage;
    perMeal[MENU_KEYS[m[1] as string] as string] = num(m[2] as string);
  }
  return { ok: true, command: 'MENU', distribution: tokens[1] as string, perMeal };
}

/** Parse one SMS. Never throws: bad input is `{ok: false, error}`. */
export function parseSms(text: unknown): SmsResult {
  if (typeof text !== 'string' || text.trim() === '') return { ok: false, error: 'empty' };
  const tokens = asciiDigits(text)
    .toUpperCase()
    .split(/\s+/u)
    .filter((t) => t !== '');
  if (tokens.length === 0) return { ok: false, error: 'empty' };
  switch (tokens[0]) {
    case 'HELP':
      return { ok: true, command: 'HELP' };
    case 'CANCEL':
      return tokens.length === 2 ? { ok: true, command: 'CANCEL', id: tokens[1] as string } : usage;
    case 'OFFER':
      return offer(tokens, false);
    case 'FARM':
      return offer(tokens, true);
    case 'CLAIM':
      return claim(tokens);
    case 'HAND':
      return hand(tokens);
    case 'DIST':
      return dist(tokens);
    case 'MENU':
      return menu(tokens);
    default:
      return { ok: false, error: 'unknown_command' };
  }
}
