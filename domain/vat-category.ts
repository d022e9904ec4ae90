import type { VatRate } from './vat';

/**
 * The VAT category of a line (EN 16931 BT-151, UNCL 5305 as Peppol BIS 3 restricts it), beside its
 * rate, which stays 0, 11 or 24 (decision 0234):
 * - `S` standard rate: 24 % or the reduced 11 %;
 * - `Z` zero rated: taxable at 0 % (e.g. exports);
 * - `E` exempt from VAT (VAT Act 50/1988 art. 2): rate 0 and an exemption reason, as text and/or a
 *   code of the VATEX list (BR-E-10);
 * - `O` outside the scope of VAT: rate 0; an invoice with such a line holds nothing else and does
 *   not carry the seller's VAT number (BR-O-02, BR-O-11, BR-O-12).
 * A line that names no category has the one Skil always derived: O for a seller without a VAT
 * number, Z at 0 %, S otherwise.
 */
export const VAT_CATEGORIES = ['S', 'Z', 'E', 'O'] as const;
export type VatCategory = (typeof VAT_CATEGORIES)[number];

/** What a line carries beside its rate; every field null when the line names no category. */
export interface VatTreatment {
  vat_category: VatCategory | null;
  vat_exemption_reason: string | null;
  vat_exemption_reason_code: string | null;
}

export const NO_VAT_TREATMENT: VatTreatment = {
  vat_category: null,
  vat_exemption_reason: null,
  vat_exemption_reason_code: null,
};

/**
 * The codes of the CEF VATEX list (as EN 16931's artefact BR-CL-22 holds them) that an exempt line
 * may carry: Peppol ties VATEX-EU-G, -O, -IC and -AE to categories G, O, K and AE (PEPPOL-EN16931-
 * P0104…P0107), which Icelandic sales in Skil do not use, so they are not offered for E. The French
 * codes are left out: they describe French law.
 */
export const EXEMPTION_CODES: readonly string[] = [
  'VATEX-EU-79-C',
  'VATEX-EU-132',
  ...'ABCDEFGHIJKLMNOPQ'.split('').map((c) => `VATEX-EU-132-1${c}`),
  'VATEX-EU-135-1',
  'VATEX-EU-143',
  ...['A', 'B', 'C', 'D', 'E', 'F', 'FA', 'G', 'H', 'I', 'J', 'K', 'L'].map((c) => `VATEX-EU-143-1${c}`),
  'VATEX-EU-144',
  'VATEX-EU-146-1E',
  'VATEX-EU-148',
  ...'ABCDEFG'.split('').map((c) => `VATEX-EU-148-${c}`),
  'VATEX-EU-151',
  ...['A', 'AA', 'B', 'C', 'D', 'E'].map((c) => `VATEX-EU-151-1${c}`),
  'VATEX-EU-153',
  'VATEX-EU-159',
  'VATEX-EU-309',
  'VATEX-EU-D',
  'VATEX-EU-F',
  'VATEX-EU-I',
  'VATEX-EU-J',
];

/** The one code an outside-the-scope line may carry (PEPPOL-EN16931-P0105). */
export const OUTSIDE_SCOPE_CODE = 'VATEX-EU-O';

export const isVatCategory = (v: unknown): v is VatCategory =>
  typeof v === 'string' && (VAT_CATEGORIES as readonly string[]).includes(v);

/**
 * The category a line is invoiced under: a seller without a VAT number charges none and every line
 * of its is outside the scope (BR-S-02, BR-Z-02 and BR-E-02 ask S, Z and E for the seller's VAT
 * number); else the line's own category; else Z at 0 % and S at 11 or 24 %.
 */
export function effectiveVatCategory(
  rate: VatRate,
  category: VatCategory | null | undefined,
  seller: { vat_number: string | null },
): VatCategory {
  if (seller.vat_number === null) return 'O';
  if (category) return category;
  return rate === 0 ? 'Z' : 'S';
}

export interface VatTreatmentProblem {
  param: 'vat_rate' | 'vat_category' | 'vat_exemption_reason' | 'vat_exemption_reason_code';
  message: string;
}

/**
 * Whether a rate and a treatment go together (decision 0234): S at 11 or 24; Z, E and O at 0; E
 * with a reason (text or code, BR-E-10); a reason only on E or O lines; codes from the list above.
 */
export function vatTreatmentProblem(rate: VatRate, t: Partial<VatTreatment>): VatTreatmentProblem | null {
  const category = t.vat_category ?? null;
  const reason = t.vat_exemption_reason ?? null;
  const code = t.vat_exemption_reason_code ?? null;
  if (category === 'S' && rate === 0)
    return { param: 'vat_rate', message: 'must be 11 or 24 for VAT category S' };
  if ((category === 'Z' || category === 'E' || category === 'O') && rate !== 0)
    return { param: 'vat_rate', message: `must be 0 for VAT category ${category}` };
  if (category !== 'E' && category !== 'O' && (reason !== null || code !== null))
    return {
      param: reason !== null ? 'vat_exemption_reason' : 'vat_exemption_reason_code',
      message: 'is only for VAT category E (exempt) or O (outside the scope of VAT)',
    };
  if (category === 'E' && reason === null && code === null)
    return {
      param: 'vat_exemption_reason',
      message:
        'VAT category E (exempt) needs an exemption reason: vat_exemption_reason or vat_exemption_reason_code',
    };
  if (category === 'E' && code !== null && !EXEMPTION_CODES.includes(code))
    return { param: 'vat_exemption_reason_code', message: 'must be an exemption code of the VATEX list' };
  if (category === 'O' && code !== null && code !== OUTSIDE_SCOPE_CODE)
    return {
      param: 'vat_exemption_reason_code',
      message: `must be ${OUTSIDE_SCOPE_CODE} for VAT category O`,
    };
  return null;
}

/**
 * Which line, if any, cannot share an invoice with the lines before it (decision 0234): lines
 * outside the scope of VAT stand alone (EN 16931 BR-O-11, BR-O-12), and exempt lines are not put
 * beside taxable ones (S or Z; a line that names no category is taxable), as the Icelandic rule on
 * sales invoices has it (Reg. 50/1993, CLAIMS-DOMAIN §6). A sale is refused where it is made, naming
 * this line; -1 when every line fits. A seller without a VAT number has every line outside the
 * scope whatever it names, so for it nothing conflicts on the invoice, but the sale is held to the
 * same rule, as the seller may register.
 */
export function conflictingVatLine(categories: readonly (VatCategory | null)[]): number {
  const kind = (c: VatCategory | null) => (c === 'O' ? 'O' : c === 'E' ? 'E' : 'taxable');
  const first = categories[0] === undefined ? null : kind(categories[0]);
  return categories.findIndex((c) => kind(c) !== first);
}

/** What a refusal by `conflictingVatLine` says. */
export const VAT_CONFLICT_MESSAGE =
  'Lines outside the scope of VAT (O), exempt lines (E) and taxable lines (S, Z) are sold on separate sales: one invoice holds one of these kinds';

/** The treatment a stored row or JSON line carries; lines stored before decision 0234 carry none. */
export function vatTreatmentOf(x: Partial<VatTreatment> | null | undefined): VatTreatment {
  return {
    vat_category: x?.vat_category ?? null,
    vat_exemption_reason: x?.vat_exemption_reason ?? null,
    vat_exemption_reason_code: x?.vat_exemption_reason_code ?? null,
  };
}

/**
 * A till line's category where no invoice's seller is at hand (receipts, X and Z reports): its own,
 * else Z at 0 % and S otherwise. A seller without a VAT number is O only on its invoices, which say
 * so; the till's figures keep the line's own treatment so a bookkeeper reads them as sold.
 */
export const tillVatCategory = (rate: VatRate, category: VatCategory | null | undefined): VatCategory =>
  category ?? (rate === 0 ? 'Z' : 'S');

const CATEGORY_ORDER: Record<VatCategory, number> = { S: 0, Z: 1, E: 2, O: 3 };

/**
 * VAT-inclusive amounts summed per (category, rate), as invoices group them (EN 16931 BG-23,
 * decision 0234), so zero-rated, exempt and outside-the-scope takings stay apart; rate ascending,
 * then S, Z, E, O. `vatOf` is applied once per group by the caller's rounding.
 */
export function groupByVatCategory(
  lines: readonly { rate: VatRate; category: VatCategory; amount: number }[],
): { category: VatCategory; rate: VatRate; gross: number }[] {
  const groups = new Map<string, { category: VatCategory; rate: VatRate; gross: number }>();
  for (const l of lines) {
    const key = `${l.category}:${l.rate}`;
    const g = groups.get(key) ?? { category: l.category, rate: l.rate, gross: 0 };
    g.gross += l.amount;
    groups.set(key, g);
  }
  return [...groups.values()].sort(
    (a, b) => a.rate - b.rate || CATEGORY_ORDER[a.category] - CATEGORY_ORDER[b.category],
  );
}
