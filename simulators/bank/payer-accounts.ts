/**
 * The payers' own accounts at the simulated bank (decision 0101). Each payer pays from one current
 * account (ledger 26) at the paying bank, numbered from the last six digits of their kennitala, so
 * the same payer always pays from the same account: the bank's payment notification (camt.054
 * `DbtrAcct`) names it, and a refund of a krafa is paid back to it.
 */
export function payerAccountOf(kennitala: string, bank = '0001'): string {
  return `${bank}26${kennitala.slice(4, 10)}`;
}

/** 4-2-6 with dashes, as a bank shows an account to a person. */
export function formatAccount(account: string): string {
  return `${account.slice(0, 4)}-${account.slice(4, 6)}-${account.slice(6)}`;
}
