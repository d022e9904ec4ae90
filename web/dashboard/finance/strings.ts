import type { Request, Response } from 'express';
import { readCookies, setCookie, type CookieNames } from '../../session';

/** The finance dashboard's languages; English is the default (decision 0094). */
export type FinanceLang = 'is' | 'en';

const LANG_COOKIE = 'skil_finance_lang';

/**
 * `?lang=is|en` chooses and remembers (a year, in a cookie); otherwise the cookie; otherwise en.
 * The cookie carries nothing secret, but it is httpOnly like every cookie the dashboard sets.
 */
export function chooseLang(req: Request, res: Response, cookies: CookieNames): FinanceLang {
  const asked = req.query.lang;
  if (asked === 'is' || asked === 'en') {
    if (readCookies(req)[LANG_COOKIE] !== asked) setCookie(res, cookies, LANG_COOKIE, asked, 365 * 24 * 3600);
    return asked;
  }
  const remembered = readCookies(req)[LANG_COOKIE];
  return remembered === 'is' ? 'is' : 'en';
}

/** Groups the digits of an integer with `sep`, exactly, whatever its size. */
function groupDigits(value: number | bigint, sep: string): string {
  const text = BigInt(value).toString();
  const negative = text.startsWith('-');
  const digits = negative ? text.slice(1) : text;
  const grouped = digits.replace(/\B(?=(\d{3})+(?!\d))/g, sep);
  return negative ? `-${grouped}` : grouped;
}

/** Whole krónur: "1.234.567 kr." in Icelandic, "ISK 1,234,567" in English. */
export function formatIsk(value: number | bigint, lang: FinanceLang): string {
  return lang === 'is' ? `${groupDigits(value, '.')} kr.` : `ISK ${groupDigits(value, ',')}`;
}

/** A count with the language's thousands separator. */
export function formatCount(value: number, lang: FinanceLang): string {
  return groupDigits(value, lang === 'is' ? '.' : ',');
}

/** A UTC timestamp as "yyyy-mm-dd hh:mm" (Iceland keeps UTC all year, so this is local time too). */
export function formatTime(value: Date | null): string {
  return value ? value.toISOString().slice(0, 16).replace('T', ' ') : '—';
}

const en = {
  finance: 'Finance',
  runsByDay: 'Settlement runs by day',
  run: (id: string) => `Settlement run ${id}`,
  bankFiles: 'Bank files',
  bankFile: (name: string) => `Bank file ${name}`,
  exceptions: 'Exceptions',
  auditLog: 'Audit log',
  environment: 'Environment',
  live: 'Live',
  test: 'Test',
  language: 'Language',
  testData: 'Test environment: no real money.',
  date: 'Settlement date',
  merchant: 'Merchant',
  status: 'Status',
  gross: 'Gross',
  fees: 'Fees',
  fee: 'Fee',
  feeDetail: {
    service_fee: 'of which service fee',
    acquirer_fee: 'of which acquirer fees',
    bank_cost: 'of which bank costs for claims',
  },
  net: 'Net',
  count: 'Runs',
  lineCount: 'Lines',
  dayTotal: 'Day total',
  noRuns: 'No settlement runs in the last 90 days.',
  allMerchants: 'All merchants',
  show: 'Show',
  merchantInvalid: 'The merchant filter is not a merchant id (acct_…). Choose a merchant from the list.',
  merchantUnknown: (id: string) => `There is no merchant ${id}. Choose a merchant from the list.`,
  noRunsOfMerchant: (name: string) => `No settlement runs of ${name} in this environment.`,
  chartTitle: 'Daily gross, fees and net, last 90 days',
  chartDesc: (from: string, to: string, gross: string, fees: string, net: string) =>
    `Bars per day from ${from} to ${to}. In total: gross ${gross}, fees ${fees}, net ${net}. The same figures are in the data table below the chart.`,
  dataTable: 'Chart data as a table',
  totals: 'Totals',
  lines: 'Lines',
  kind: 'Kind',
  feeKind: 'Fee kind',
  paymentIntent: 'Payment intent',
  source: 'Source',
  occurred: 'Occurred',
  payout: 'Payout',
  noPayout: 'No payout yet: it is written when the run is approved.',
  destination: 'Destination account',
  amount: 'Amount',
  approve: 'Approve run',
  approved: 'The run was approved and its payout is on its way.',
  approvedBy: 'Approved by',
  approveUnavailable: 'Approval is not available: this server has no connection to the workflow engine.',
  dayExceptions: 'Exceptions from the bank files of this day',
  noExceptions: 'No exceptions.',
  name: 'Name',
  received: 'Received',
  type: 'Type',
  entries: 'Entries',
  viewEntries: 'Entries',
  noFiles: 'No bank files received.',
  fileStatus: {
    received: 'received',
    processed: 'processed',
    duplicate: 'duplicate',
    quarantined: 'quarantined',
  } as Record<string, string>,
  entry: 'Entry',
  direction: 'Direction',
  credit: 'credit',
  debit: 'debit',
  references: 'References',
  match: 'Match',
  booked: 'booked',
  noEntries: 'No entries.',
  moreEntries: 'Next entries',
  message: 'Message',
  file: 'File',
  expected: 'expected',
  created: 'Created',
  openExceptions: 'Open exceptions',
  resolvedExceptions: 'Resolved and handled',
  resolveWithPayment: 'Match to a payment',
  paymentIntentId: 'Payment intent id (pi_…)',
  note: 'Note',
  resolve: 'Resolve',
  markHandled: 'Mark as handled',
  resolvedOk: 'The exception was resolved.',
  handledOk: 'The exception was marked as handled.',
  resolvedBy: 'By',
  resolution: 'Resolution',
  time: 'Time',
  actor: 'Actor',
  action: 'Action',
  object: 'Object',
  noAudit: 'Nothing recorded yet.',
  notFound: 'Not found',
  notFoundText: 'There is no such record in this environment.',
  refused: 'Not done',
  runStatus: {
    open: 'open',
    pending_review: 'pending review',
    approved: 'approved',
    submitted: 'submitted',
    paid: 'paid',
    failed: 'failed',
  } as Record<string, string>,
};

export type FinanceStrings = typeof en;

const is: FinanceStrings = {
  finance: 'Fjármál',
  runsByDay: 'Uppgjör eftir dögum',
  run: (id: string) => `Uppgjör ${id}`,
  bankFiles: 'Bankaskrár',
  bankFile: (name: string) => `Bankaskrá ${name}`,
  exceptions: 'Frávik',
  auditLog: 'Aðgerðaskrá',
  environment: 'Umhverfi',
  live: 'Raunumhverfi',
  test: 'Prófun',
  language: 'Tungumál',
  testData: 'Prófunarumhverfi: engir raunverulegir peningar.',
  date: 'Uppgjörsdagur',
  merchant: 'Söluaðili',
  status: 'Staða',
  gross: 'Brúttó',
  fees: 'Gjöld',
  fee: 'Gjald',
  feeDetail: {
    service_fee: 'þar af þjónustugjald',
    acquirer_fee: 'þar af gjöld færsluhirðis',
    bank_cost: 'þar af bankakostnaður vegna krafna',
  },
  net: 'Nettó',
  count: 'Uppgjör',
  lineCount: 'Línur',
  dayTotal: 'Samtals dagsins',
  noRuns: 'Engin uppgjör síðustu 90 daga.',
  allMerchants: 'Allir söluaðilar',
  show: 'Sýna',
  merchantInvalid: 'Söluaðilasían er ekki auðkenni söluaðila (acct_…). Veldu söluaðila af listanum.',
  merchantUnknown: (id: string) => `Enginn söluaðili er með auðkennið ${id}. Veldu söluaðila af listanum.`,
  noRunsOfMerchant: (name: string) => `Engin uppgjör hjá ${name} í þessu umhverfi.`,
  chartTitle: 'Brúttó, gjöld og nettó á dag, síðustu 90 daga',
  chartDesc: (from: string, to: string, gross: string, fees: string, net: string) =>
    `Súlur fyrir hvern dag frá ${from} til ${to}. Samtals: brúttó ${gross}, gjöld ${fees}, nettó ${net}. Sömu tölur eru í töflunni fyrir neðan myndina.`,
  dataTable: 'Gögn myndarinnar sem tafla',
  totals: 'Samtölur',
  lines: 'Línur',
  kind: 'Tegund',
  feeKind: 'Gjaldflokkur',
  paymentIntent: 'Greiðsla',
  source: 'Uppruni',
  occurred: 'Tími',
  payout: 'Útborgun',
  noPayout: 'Engin útborgun enn: hún verður til þegar uppgjörið er samþykkt.',
  destination: 'Móttökureikningur',
  amount: 'Upphæð',
  approve: 'Samþykkja uppgjör',
  approved: 'Uppgjörið var samþykkt og útborgunin er á leiðinni.',
  approvedBy: 'Samþykkt af',
  approveUnavailable: 'Ekki hægt að samþykkja: þjónninn nær ekki sambandi við verkflæðisvélina.',
  dayExceptions: 'Frávik úr bankaskrám dagsins',
  noExceptions: 'Engin frávik.',
  name: 'Heiti',
  received: 'Móttekin',
  type: 'Tegund',
  entries: 'Færslur',
  viewEntries: 'Færslur',
  noFiles: 'Engar bankaskrár hafa borist.',
  fileStatus: {
    received: 'móttekin',
    processed: 'unnin',
    duplicate: 'tvítekin',
    quarantined: 'í sóttkví',
  },
  entry: 'Færsla',
  direction: 'Átt',
  credit: 'inn',
  debit: 'út',
  references: 'Tilvísanir',
  match: 'Pörun',
  booked: 'bókuð',
  noEntries: 'Engar færslur.',
  moreEntries: 'Næstu færslur',
  message: 'Skýring',
  file: 'Skrá',
  expected: 'vænt',
  created: 'Stofnað',
  openExceptions: 'Opin frávik',
  resolvedExceptions: 'Leyst og afgreidd',
  resolveWithPayment: 'Para við greiðslu',
  paymentIntentId: 'Auðkenni greiðslu (pi_…)',
  note: 'Athugasemd',
  resolve: 'Leysa',
  markHandled: 'Merkja sem afgreitt',
  resolvedOk: 'Frávikið var leyst.',
  handledOk: 'Frávikið var merkt sem afgreitt.',
  resolvedBy: 'Af',
  resolution: 'Úrlausn',
  time: 'Tími',
  actor: 'Gerandi',
  action: 'Aðgerð',
  object: 'Hlutur',
  noAudit: 'Ekkert skráð enn.',
  notFound: 'Fannst ekki',
  notFoundText: 'Engin slík færsla er í þessu umhverfi.',
  refused: 'Ekki framkvæmt',
  runStatus: {
    open: 'opið',
    pending_review: 'bíður yfirferðar',
    approved: 'samþykkt',
    submitted: 'sent',
    paid: 'greitt',
    failed: 'mistókst',
  },
};

export const FINANCE_STRINGS: Record<FinanceLang, FinanceStrings> = { is, en };
