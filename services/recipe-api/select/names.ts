/** Language and country names the recipe API accepts and shows (codes, English names, nationalities). */

export const LANGUAGE_NAMES: Record<string, string> = {
  ar: 'Arabic',
  bn: 'Bengali',
  cs: 'Czech',
  de: 'German',
  el: 'Greek',
  en: 'English',
  es: 'Spanish',
  fa: 'Persian',
  fr: 'French',
  he: 'Hebrew',
  hi: 'Hindi',
  id: 'Indonesian',
  it: 'Italian',
  ja: 'Japanese',
  ko: 'Korean',
  ku: 'Kurdish',
  nl: 'Dutch',
  pl: 'Polish',
  ps: 'Pashto',
  pt: 'Portuguese',
  ro: 'Romanian',
  ru: 'Russian',
  sq: 'Albanian',
  sv: 'Swedish',
  sw: 'Swahili',
  te: 'Telugu',
  tr: 'Turkish',
  ur: 'Urdu',
  vi: 'Vietnamese',
  zh: 'Chinese',
};

/** ISO 3166 code → [country, nationality]. */
export const COUNTRIES: Record<string, [string, string]> = {
  EG: ['Egypt', 'Egyptian'],
  MA: ['Morocco', 'Moroccan'],
  TN: ['Tunisia', 'Tunisian'],
  DZ: ['Algeria', 'Algerian'],
  LB: ['Lebanon', 'Lebanese'],
  SY: ['Syria', 'Syrian'],
  PS: ['Palestine', 'Palestinian'],
  JO: ['Jordan', 'Jordanian'],
  IQ: ['Iraq', 'Iraqi'],
  SA: ['Saudi Arabia', 'Saudi'],
  YE: ['Yemen', 'Yemeni'],
  TR: ['Turkey', 'Turkish'],
  IR: ['Iran', 'Iranian'],
  IN: ['India', 'Indian'],
  PK: ['Pakistan', 'Pakistani'],
  CN: ['China', 'Chinese'],
  JP: ['Japan', 'Japanese'],
  KR: ['Korea', 'Korean'],
  VN: ['Vietnam', 'Vietnamese'],
  TH: ['Thailand', 'Thai'],
  ID: ['Indonesia', 'Indonesian'],
  MY: ['Malaysia', 'Malaysian'],
  PH: ['Philippines', 'Filipino'],
  IT: ['Italy', 'Italian'],
  ES: ['Spain', 'Spanish'],
  FR: ['France', 'French'],
  GR: ['Greece', 'Greek'],
  DE: ['Germany', 'German'],
  GB: ['United Kingdom', 'British'],
  US: ['United States', 'American'],
  MX: ['Mexico', 'Mexican'],
  BR: ['Brazil', 'Brazilian'],
  PE: ['Peru', 'Peruvian'],
  ET: ['Ethiopia', 'Ethiopian'],
  NG: ['Nigeria', 'Nigerian'],
  KE: ['Kenya', 'Kenyan'],
  SD: ['Sudan', 'Sudanese'],
  RU: ['Russia', 'Russian'],
  PL: ['Poland', 'Polish'],
  PT: ['Portugal', 'Portuguese'],
};

/** A `lang` parameter (code, tag such as ar-EG, or English name) → a language code; undefined when unknown. */
export function languageCode(v: string): string | undefined {
  const low = v.trim().toLowerCase();
  const code = low.split(/[-_]/)[0] ?? '';
  if (LANGUAGE_NAMES[code]) return code;
  return Object.entries(LANGUAGE_NAMES).find(([, name]) => name.toLowerCase() === low)?.[0];
}

/** A cuisine/country parameter value → an ISO code (codes pass through upper-cased). */
export function countryCode(v: string): string {
  const low = v.trim().toLowerCase();
  for (const [code, [country, nationality]] of Object.entries(COUNTRIES)) {
    if (code.toLowerCase() === low || country.toLowerCase() === low || nationality.toLowerCase() === low) return code;
  }
  return v.trim().toUpperCase();
}

export function countryName(code: string): string {
  return COUNTRIES[code]?.[0] ?? code;
}
