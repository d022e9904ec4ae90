// The key of a krafa (TS 315, the banks' claims standard): who claims, in which ledger, which claim
// and when it falls due. Skil's rows and the banks' API both name claims by it.

/** An ISO date, YYYY-MM-DD. */
type IsoDate = string;

/** `claimKey`: claimant kennitala + account (bank 4 + "66" + claim number 6) + due date. */
export interface ClaimKey {
  claimantId: string;
  account: string;
  dueDate: IsoDate;
}

/** The string form `claimId = claimantId + account + "+" + YYYYMMDD` (TS 315). */
export function claimIdOf(key: ClaimKey): string {
  return `${key.claimantId}${key.account}+${key.dueDate.replaceAll('-', '')}`;
}

/** Parses a claimId back into its key; null when malformed. */
export function parseClaimId(claimId: string): ClaimKey | null {
  const m = /^(\d{10})(\d{4}66\d{6})\+(\d{4})(\d{2})(\d{2})$/.exec(claimId);
  if (!m) return null;
  return { claimantId: m[1]!, account: m[2]!, dueDate: `${m[3]}-${m[4]}-${m[5]}` };
}

/** `account` of a claim: bank/branch (4) + ledger 66 + claim number (6). */
export function claimAccount(bank: string, claimNumber: number): string {
  if (!/^\d{4}$/.test(bank)) throw new RangeError('bank must be 4 digits');
  if (!Number.isInteger(claimNumber) || claimNumber < 1 || claimNumber > 999_999)
    throw new RangeError('claim number must be 1–999999');
  return `${bank}66${String(claimNumber).padStart(6, '0')}`;
}
