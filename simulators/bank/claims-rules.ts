import { claimAmountDue } from '../../domain/claim-amount-due';
import { constantRateTable } from '../../domain/default-interest-rates';
import { checkKennitala } from '../../domain/kennitala';
import type { ClaimKey, ClaimResultCode, CreateClaimDetails } from '../../adapters/banks/claims-api';
import { claimTermsOf } from '../../adapters/banks/claim-terms';

/** The rules the simulated bank checks a claim against, and the merge patch it alters claims with. */

export class ClaimRuleError extends Error {
  constructor(
    readonly resultCode: ClaimResultCode,
    message: string,
  ) {
    super(message);
  }
}

const DATE = /^\d{4}-\d{2}-\d{2}$/;

/**
 * A test payer the simulated bank refuses every claim on, as a bank refuses a payor it cannot find
 * in the national register (docs/guides/testing.md, "The simulated bank"): a well-formed kennitala, 121212-1299.
 */
export const REFUSED_PAYOR_KENNITALA = '1212121299';

export function isDate(v: unknown): v is string {
  return typeof v === 'string' && DATE.test(v) && !Number.isNaN(Date.parse(`${v}T00:00:00Z`));
}

export function plusYears(date: string, years: number): string {
  return `${Number(date.slice(0, 4)) + years}${date.slice(4)}`;
}

function isWholeIsk(v: unknown): boolean {
  return v === undefined || (typeof v === 'number' && Number.isSafeInteger(v) && v >= 0);
}

/** RFC 7396 merge patch. */
export function mergePatch(target: unknown, patch: unknown): unknown {
  if (typeof patch !== 'object' || patch === null || Array.isArray(patch)) return patch;
  const out: Record<string, unknown> =
    typeof target === 'object' && target !== null && !Array.isArray(target)
      ? { ...(target as Record<string, unknown>) }
      : {};
  for (const [k, v] of Object.entries(patch)) {
    if (v === null) delete out[k];
    else out[k] = mergePatch(out[k], v);
  }
  return out;
}

/** Checks a claim the way the bank does; throws ClaimRuleError(CLAIM_OTHERS) with the reason. */
export function validateClaim(c: CreateClaimDetails & { expirationDate: string }): void {
  const fail = (msg: string): never => {
    throw new ClaimRuleError('CLAIM_OTHERS', msg);
  };
  const key = c.claimKey as Partial<ClaimKey> | undefined;
  if (!key || typeof key !== 'object') fail('claimKey is required');
  if (!checkKennitala(String(key!.claimantId)).ok) fail('claimKey.claimantId is not a kennitala');
  if (!/^\d{4}66\d{6}$/.test(String(key!.account)))
    fail('claimKey.account must be bank(4) + 66 + claim number(6)');
  if (!isDate(key!.dueDate)) fail('claimKey.dueDate must be a date');
  if (!checkKennitala(String(c.payorId)).ok) fail('payorId is not a kennitala');
  if (c.payorId === REFUSED_PAYOR_KENNITALA) fail('payorId is not in the national register');
  if (!/^[0-9A-Z]{3}$/.test(String(c.templateCode))) fail('templateCode must be 3 characters [0-9A-Z]');
  if (typeof c.amount !== 'number' || !Number.isSafeInteger(c.amount) || c.amount < 1)
    fail('amount must be a whole ISK amount ≥ 1');
  if (c.currency !== undefined && c.currency !== 'ISK') fail('only ISK claims are supported');
  if (!isDate(c.finalDueDate) || c.finalDueDate < key!.dueDate!)
    fail('finalDueDate must be on or after the due date');
  if (!isDate(c.expirationDate) || c.expirationDate < c.finalDueDate)
    fail('expirationDate must be on or after finalDueDate');
  if (c.expirationDate > plusYears(key!.dueDate!, 4))
    fail('expirationDate must be within 4 years of the due date');
  for (const [name, v] of [
    ['paymentFee.printingFee', c.paymentFee?.printingFee],
    ['paymentFee.paperlessFee', c.paymentFee?.paperlessFee],
    ['otherCostsAmount', c.otherCostsAmount],
    ['otherDefaultCostsAmount', c.otherDefaultCostsAmount],
  ] as const)
    if (!isWholeIsk(v)) fail(`${name} must be a whole ISK amount ≥ 0`);
  const pct = c.defaultInterest?.percentage;
  if (pct !== undefined && !(typeof pct === 'number' && pct >= 0 && pct <= 100))
    fail('defaultInterest.percentage must be 0–100');
  try {
    claimAmountDue(claimTermsOf(c), key!.dueDate!, { statutoryRates: constantRateTable(0) });
  } catch (err) {
    fail(`claim terms: ${(err as Error).message}`);
  }
}
