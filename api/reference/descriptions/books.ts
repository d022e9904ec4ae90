/**
 * Descriptions of the books' operations (decision 0252): the VAT report (decision 0238), the
 * journal and chart of accounts (0239), closing periods (0240), the settlement export (0241), and
 * the collection of overdue kröfur (0245, 0246).
 */
export const BOOKS_DESCRIPTIONS: Record<string, string> = {
  'GET /v1/reports/vat':
    'A VAT period’s figures as the boxes of the VAT return (RSK 10.01), with the period’s due date, the credits that reduce them and how many documents of each kind they come from. `period` picks the period (the current one by default). 400 (param `period`) for a period that is not one of the merchant’s.',
  'GET /v1/reports/vat/documents':
    'The invoices, credit notes, till sales and refunds behind a VAT period’s figures, oldest first, each with its own figures, so a total in the report can be traced to its documents. 400 (param `period`) for a malformed period.',
  'GET /v1/reports/vat.csv':
    'The same documents as `GET /v1/reports/vat/documents` as CSV, a row each and a total row, streamed; for the accountant. 400 (param `period`) for a malformed period.',
  'GET /v1/reports/journal':
    'A period’s accounting journal: balanced double entries per source (invoice, payment, refund, fee, payout…), posted to the merchant’s chart of accounts, oldest first; page with `page` (the `next_page` of the previous answer). 400 (param `period` or `page`) for a malformed value.',
  'GET /v1/reports/journal.csv':
    'A period’s journal as CSV, a row per line, streamed for import into accounting software: Skil’s documented columns by default, or with `format=regla` Regla’s import of ledger entries (“Færslur í fjárhagsbókhald 8 dálkar”: semicolons, the date as d.m.yyyy, the entry as its voucher number). Once the period is closed the file is the same bytes every time. 400 (param `period` or `format`) for a malformed value.',
  'GET /v1/reports/settlement.csv':
    'The settlement lines of the runs settled in a period, each with its run’s payout and the bank statement (camt.053) entry that booked it, and its refund, dispute or cost, as CSV: reconciles payouts with the bank account. 400 (param `period`) for a malformed period.',
  'POST /v1/reports/periods/{period}/close':
    'Closes a period of the books: its journal stays as it is now, and anything recorded later lands in the next open period. Closing a closed period again answers it unchanged. 400 (param `period`) for a period that has not begun, one before the last close, or one after an earlier period still open: periods close in order.',
  'GET /v1/reports/chart_of_accounts':
    'The accounts the journal posts to, each with the merchant’s number and name and Skil’s default number and Icelandic and English names.',
  'POST /v1/reports/chart_of_accounts':
    'Sets the merchant’s own account numbers (and names) for some or all accounts; the journal of open periods uses them, closed periods keep theirs. 400 names the account at fault (`accounts[i][role]` given twice, a malformed number).',
  'GET /v1/collection_policy':
    'The steps an overdue krafa goes through: the warning (days to pay and its cost), the interim letters, reminders or calls, and the final hand-off to a collector or closing. Until the merchant sets one, the lawful defaults (`is_default: true`).',
  'POST /v1/collection_policy':
    'Sets the collection policy for kröfur falling overdue from now on. Costs are capped by law: 400 `parameter_invalid` names the field and the cap it exceeds, or a step too soon after the previous one.',
  'GET /v1/claims/{id}/collection':
    'A krafa’s collection: its state, the next step and its day, the steps taken with their costs, and what is owed today (principal, default interest and costs), the same figures the bank shows the payer. 404 for an unknown krafa.',
};
