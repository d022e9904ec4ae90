/**
 * Icelandic kennitala checks (CLAIMS-DOMAIN.md §2.1). Structure is strict: 10 digits, a real date
 * (day + 40 for companies), a known century digit. The mod-11 check digit is only a warning: ids
 * issued since 18 February 2026, and system ids, may have none.
 */

export type KennitalaKind = 'person' | 'company';

export interface KennitalaCheck {
  /** The 10 digits, separators removed. */
  value: string;
  kind: KennitalaKind;
  /** Registration or birth date, `YYYY-MM-DD`. */
  date: string;
  /** False when the mod-11 check digit fails: accepted, but worth telling the caller. */
  checksumValid: boolean;
}

export type KennitalaResult = { ok: true; kennitala: KennitalaCheck } | { ok: false; reason: string };

const WEIGHTS = [3, 2, 7, 6, 5, 4, 3, 2];
const CENTURY: Record<string, number> = { '8': 1800, '9': 1900, '0': 2000 };

/** Whether the 9th digit is the mod-11 check digit of the first eight. */
export function hasValidCheckDigit(digits: string): boolean {
  const sum = WEIGHTS.reduce((acc, w, i) => acc + w * Number(digits[i]), 0);
  const check = (11 - (sum % 11)) % 11;
  return check !== 10 && check === Number(digits[8]);
}

function isRealDate(year: number, month: number, day: number): boolean {
  const d = new Date(Date.UTC(year, month - 1, day));
  return d.getUTCFullYear() === year && d.getUTCMonth() === month - 1 && d.getUTCDate() === day;
}

/** Validates a kennitala, with or without the hyphen after the sixth digit. */
export function checkKennitala(input: string): KennitalaResult {
  const value = input.replace(/^(\d{6})-(\d{4})$/, '$1$2');
  if (!/^\d{10}$/.test(value)) return { ok: false, reason: 'must be exactly 10 digits' };
  const rawDay = Number(value.slice(0, 2));
  const month = Number(value.slice(2, 4));
  const yy = Number(value.slice(4, 6));
  const century = CENTURY[value[9]!];
  if (century === undefined) return { ok: false, reason: 'the last digit (century) must be 8, 9 or 0' };
  const kind: KennitalaKind = rawDay > 40 ? 'company' : 'person';
  const day = kind === 'company' ? rawDay - 40 : rawDay;
  const year = century + yy;
  // Some companies registered in 1969 carry impossible dates (e.g. 700269…) and are valid all the same.
  const legacy1969 = kind === 'company' && year === 1969 && month === 2 && day >= 29;
  if (!legacy1969 && !isRealDate(year, month, day))
    return { ok: false, reason: 'the first six digits are not a valid date' };
  return {
    ok: true,
    kennitala: {
      value,
      kind,
      date: `${year}-${String(month).padStart(2, '0')}-${String(day).padStart(2, '0')}`,
      checksumValid: hasValidCheckDigit(value),
    },
  };
}
