/**
 * The caps on collection costs charged to a debtor (Collection Act 95/2008 art. 12; Regulation
 * 37/2009 art. 6(1) as worded by Regulation 133/2010; decision 0245). The figures are data: the
 * migration loads these defaults into each environment and the operator updates them through the
 * operator API when the regulation changes. Amounts are whole ISK without VAT (decision 0245).
 */

export const COLLECTION_CAP_KEYS = [
  'warning',
  'letter_band_1',
  'letter_band_2',
  'letter_band_3',
  'letter_band_4',
  'call',
  'payment_agreement',
] as const;
export type CollectionCapKey = (typeof COLLECTION_CAP_KEYS)[number];
export type CollectionCaps = Record<CollectionCapKey, number>;

const REG_133_2010 = 'Reglugerð nr. 133/2010 um breytingu á reglugerð nr. 37/2009, 1. gr. (6. gr. 1. mgr.)';

export const DEFAULT_COLLECTION_CAPS: Record<CollectionCapKey, { amount: number; source: string }> = {
  warning: { amount: 950, source: `${REG_133_2010}, liður 1: innheimtuviðvörun` },
  letter_band_1: { amount: 1300, source: `${REG_133_2010}, liður 2 a: höfuðstóll til og með 2.999 kr.` },
  letter_band_2: { amount: 2100, source: `${REG_133_2010}, liður 2 b: höfuðstóll 3.000–10.499 kr.` },
  letter_band_3: { amount: 3700, source: `${REG_133_2010}, liður 2 c: höfuðstóll 10.500–84.999 kr.` },
  letter_band_4: { amount: 5900, source: `${REG_133_2010}, liður 2 d: höfuðstóll 85.000 kr. og yfir` },
  call: { amount: 550, source: `${REG_133_2010}, liður 5: eitt símtal í milliinnheimtu` },
  payment_agreement: { amount: 2700, source: `${REG_133_2010}, liður 6: skriflegt samkomulag um greiðslu` },
};

/** The principal bands of a collection letter (Reg. 133/2010 items 2 a–d): lowest principal of each. */
export const LETTER_BANDS: readonly { key: CollectionCapKey; from: number; label: string }[] = [
  { key: 'letter_band_1', from: 0, label: '0–2.999 kr.' },
  { key: 'letter_band_2', from: 3000, label: '3.000–10.499 kr.' },
  { key: 'letter_band_3', from: 10_500, label: '10.500–84.999 kr.' },
  { key: 'letter_band_4', from: 85_000, label: '85.000 kr. og yfir' },
];

/** The band (0–3) of a principal for a letter or reminder. */
export function letterBand(principal: number): number {
  let band = 0;
  LETTER_BANDS.forEach((b, i) => {
    if (principal >= b.from) band = i;
  });
  return band;
}

/** The defaults as a plain table. */
export function defaultCaps(): CollectionCaps {
  return Object.fromEntries(
    COLLECTION_CAP_KEYS.map((k) => [k, DEFAULT_COLLECTION_CAPS[k].amount]),
  ) as CollectionCaps;
}
