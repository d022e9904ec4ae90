import type { Db } from '../db/knex';
import type { SettlementLineRow } from '../db/settlement-runs';

/**
 * Read-only SQL behind the finance pages. Operators see every merchant, so merchant rows (runs,
 * lines, payouts) are scoped by environment here and, once a run is found, by its merchant as well;
 * bank rows belong to the collection account and are scoped by environment (decision 0090).
 * Sums are cast back to bigint so the int8 parser returns exact integers, not numeric strings.
 */

export interface RunSummary {
  id: string;
  merchant_id: string;
  merchant_name: string;
  settlement_date: string;
  status: string;
  gross: number;
  fee: number;
  net: number;
  line_count: number;
}

export interface DailyTotal {
  date: string;
  gross: number;
  fee: number;
  net: number;
  runs: number;
}

/**
 * Runs of the `days` newest settlement dates before `before` (exclusive), newest first; with
 * `merchantId`, that merchant's runs and the dates it has runs on.
 */
export async function runsOfRecentDays(
  db: Db,
  livemode: boolean,
  opts: { days: number; before?: string | undefined; merchantId?: string | undefined },
): Promise<RunSummary[]> {
  const dates = db('settlement_runs')
    .distinct('settlement_date')
    .where({ livemode })
    .modify((q) => {
      if (opts.before) q.where('settlement_date', '<', opts.before);
      if (opts.merchantId) q.where('merchant_id', opts.merchantId);
    })
    .orderBy('settlement_date', 'desc')
    .limit(opts.days);
  const query = db('settlement_runs as r')
    .join('merchants as m', 'm.id', 'r.merchant_id')
    .where('r.livemode', livemode)
    .whereIn('r.settlement_date', dates);
  if (opts.merchantId) query.where('r.merchant_id', opts.merchantId);
  return query
    .select(
      'r.id',
      'r.merchant_id',
      'm.name as merchant_name',
      'r.settlement_date',
      'r.status',
      'r.gross',
      'r.fee',
      'r.net',
      'r.line_count',
    )
    .orderBy([
      { column: 'r.settlement_date', order: 'desc' },
      { column: 'm.name', order: 'asc' },
      { column: 'r.id', order: 'asc' },
    ]);
}

/**
 * Totals per settlement date from `from` to `to` inclusive, of one merchant when `merchantId` is
 * given; days without runs are absent.
 */
export async function dailyTotals(
  db: Db,
  livemode: boolean,
  from: string,
  to: string,
  merchantId?: string,
): Promise<DailyTotal[]> {
  const rows: DailyTotal[] = await db('settlement_runs')
    .where({ livemode })
    .whereBetween('settlement_date', [from, to])
    .modify((q) => {
      if (merchantId) q.where('merchant_id', merchantId);
    })
    .groupBy('settlement_date')
    .orderBy('settlement_date')
    .select(
      'settlement_date as date',
      db.raw('sum(gross)::bigint as gross'),
      db.raw('sum(fee)::bigint as fee'),
      db.raw('sum(net)::bigint as net'),
      db.raw('count(*)::bigint as runs'),
    );
  return rows;
}

export interface MerchantOption {
  id: string;
  name: string;
}

/** The merchants with at least one run in the environment, by name: the runs page's filter. */
export async function merchantsWithRuns(db: Db, livemode: boolean, limit: number): Promise<MerchantOption[]> {
  return db('merchants as m')
    .whereExists((q) => {
      q.select(db.raw('1'))
        .from('settlement_runs as r')
        .whereRaw('r.merchant_id = m.id')
        .where('r.livemode', livemode);
    })
    .orderBy([
      { column: 'm.name', order: 'asc' },
      { column: 'm.id', order: 'asc' },
    ])
    .limit(limit)
    .select('m.id', 'm.name');
}

/** A merchant by id, whatever its environment (merchants have both). */
export async function findMerchant(db: Db, id: string): Promise<MerchantOption | undefined> {
  return db('merchants').where({ id }).first('id', 'name');
}

export interface RunDetail extends RunSummary {
  livemode: boolean;
  cutoff: Date;
  approved_by: string | null;
  approved_at: Date | null;
  paid_at: Date | null;
  failure_reason: string | null;
}

export async function findRun(db: Db, livemode: boolean, id: string): Promise<RunDetail | undefined> {
  return db('settlement_runs as r')
    .join('merchants as m', 'm.id', 'r.merchant_id')
    .where({ 'r.livemode': livemode, 'r.id': id })
    .first(
      'r.id',
      'r.merchant_id',
      'm.name as merchant_name',
      'r.livemode',
      'r.settlement_date',
      'r.cutoff',
      'r.status',
      'r.gross',
      'r.fee',
      'r.net',
      'r.line_count',
      'r.approved_by',
      'r.approved_at',
      'r.paid_at',
      'r.failure_reason',
    );
}

export type LineRow = Pick<
  SettlementLineRow,
  'id' | 'kind' | 'fee_kind' | 'source_id' | 'payment_intent_id' | 'gross' | 'fee' | 'net' | 'occurred_at'
>;

/** A page of a run's lines in insertion order, after line id `after`. */
export async function runLines(
  db: Db,
  run: Pick<RunDetail, 'id' | 'merchant_id' | 'livemode'>,
  opts: { after?: number | undefined; limit: number },
): Promise<LineRow[]> {
  return db('settlement_lines')
    .where({ settlement_run_id: run.id, merchant_id: run.merchant_id, livemode: run.livemode })
    .where('id', '>', opts.after ?? 0)
    .orderBy('id')
    .limit(opts.limit)
    .select('id', 'kind', 'fee_kind', 'source_id', 'payment_intent_id', 'gross', 'fee', 'net', 'occurred_at');
}

export interface PayoutRow {
  id: string;
  amount: number;
  status: string;
  destination_account: string;
  file_name: string | null;
  submitted_at: Date | null;
  paid_at: Date | null;
  failure_reason: string | null;
}

export async function runPayout(
  db: Db,
  run: Pick<RunDetail, 'id' | 'merchant_id' | 'livemode'>,
): Promise<PayoutRow | undefined> {
  return db('payouts')
    .where({ settlement_run_id: run.id, merchant_id: run.merchant_id, livemode: run.livemode })
    .first(
      'id',
      'amount',
      'status',
      'destination_account',
      'file_name',
      'submitted_at',
      'paid_at',
      'failure_reason',
    );
}

export interface ExceptionRow {
  id: string;
  kind: string;
  status: string;
  message: string;
  expected_amount: number | null;
  actual_amount: number | null;
  bank_file_id: string;
  file_name: string;
  bank_entry_id: number | null;
  entry_index: number | null;
  detail_index: number;
  booking_date: string | null;
  reference: string | null;
  resolution_note: string | null;
  resolved_payment_intent_id: string | null;
  resolved_by: string | null;
  resolved_at: Date | null;
  created_at: Date;
}

function exceptionsQuery(db: Db, livemode: boolean) {
  return db('bank_exceptions as x')
    .join('bank_files as f', 'f.id', 'x.bank_file_id')
    .leftJoin('bank_entries as e', 'e.id', 'x.bank_entry_id')
    .where('x.livemode', livemode)
    .select(
      'x.id',
      'x.kind',
      'x.status',
      'x.message',
      'x.expected_amount',
      'x.actual_amount',
      'x.bank_file_id',
      'f.name as file_name',
      'x.bank_entry_id',
      'e.entry_index',
      'x.detail_index',
      'e.booking_date',
      db.raw('coalesce(e.end_to_end_id, e.acct_svcr_ref, e.reference, e.entry_ref) as reference'),
      'x.resolution_note',
      'x.resolved_payment_intent_id',
      'x.resolved_by',
      'x.resolved_at',
      'x.created_at',
    );
}

/** The queue: open exceptions, or the newest resolved and handled ones; newest first. */
export async function listExceptions(
  db: Db,
  livemode: boolean,
  opts: { open: boolean; limit: number },
): Promise<ExceptionRow[]> {
  const query = exceptionsQuery(db, livemode);
  if (opts.open) query.where('x.status', 'open');
  else query.whereIn('x.status', ['resolved', 'handled']);
  return query
    .orderBy([
      { column: opts.open ? 'x.created_at' : 'x.resolved_at', order: 'desc' },
      { column: 'x.id', order: 'desc' },
    ])
    .limit(opts.limit);
}

/**
 * The exceptions of a settlement day: from files received that day, or on entries booked that day.
 * Iceland keeps UTC all year, so the UTC date of `received_at` is the Reykjavik date.
 */
export async function exceptionsOfDay(db: Db, livemode: boolean, date: string): Promise<ExceptionRow[]> {
  return exceptionsQuery(db, livemode)
    .where((q) => {
      // A booking date may be a Dt or a DtTm (camt BookgDt); its first ten characters are the day.
      q.whereRaw(`(f.received_at at time zone 'UTC')::date = ?::date`, [date]).orWhereRaw(
        'left(e.booking_date, 10) = ?',
        [date],
      );
    })
    .orderBy([
      { column: 'x.created_at', order: 'asc' },
      { column: 'x.id', order: 'asc' },
    ])
    .limit(500);
}

export interface BankFileRow {
  id: string;
  name: string;
  received_at: Date;
  message_type: string | null;
  status: string;
  quarantine_reason: string | null;
  entry_count: number;
  open_exceptions: number;
}

const BANK_FILE_COLUMNS = [
  'f.id',
  'f.name',
  'f.received_at',
  'f.message_type',
  'f.status',
  'f.quarantine_reason',
  'f.entry_count',
] as const;

export async function listBankFiles(db: Db, livemode: boolean, limit: number): Promise<BankFileRow[]> {
  return db('bank_files as f')
    .where('f.livemode', livemode)
    .select(
      ...BANK_FILE_COLUMNS,
      db.raw(
        `(select count(*) from bank_exceptions x where x.bank_file_id = f.id and x.status = 'open')::bigint as open_exceptions`,
      ),
    )
    .orderBy([
      { column: 'f.received_at', order: 'desc' },
      { column: 'f.id', order: 'desc' },
    ])
    .limit(limit);
}

export async function findBankFile(db: Db, livemode: boolean, id: string): Promise<BankFileRow | undefined> {
  return db('bank_files as f')
    .where({ 'f.livemode': livemode, 'f.id': id })
    .first(...BANK_FILE_COLUMNS, db.raw('0::bigint as open_exceptions'));
}

export interface EntryRow {
  id: number;
  entry_index: number;
  statement_id: string;
  status: string;
  booked: boolean;
  credit: boolean;
  reversal: boolean;
  amount: number;
  currency: string;
  booking_date: string | null;
  acct_svcr_ref: string | null;
  entry_ref: string | null;
  end_to_end_id: string | null;
  reference: string | null;
  detail_count: number;
  match_status: string;
  matched_kind: string | null;
}

/** A page of a file's parsed entries after entry id `after`; files can hold a million entries. */
export async function fileEntries(
  db: Db,
  livemode: boolean,
  fileId: string,
  opts: { after?: number | undefined; limit: number },
): Promise<EntryRow[]> {
  return db('bank_entries as e')
    .join('bank_statements as s', 's.id', 'e.bank_statement_id')
    .where({ 'e.livemode': livemode, 'e.bank_file_id': fileId })
    .where('e.id', '>', opts.after ?? 0)
    .orderBy('e.id')
    .limit(opts.limit)
    .select(
      'e.id',
      'e.entry_index',
      's.statement_id',
      'e.status',
      'e.booked',
      'e.credit',
      'e.reversal',
      'e.amount',
      'e.currency',
      'e.booking_date',
      'e.acct_svcr_ref',
      'e.entry_ref',
      'e.end_to_end_id',
      'e.reference',
      db.raw('jsonb_array_length(e.details) as detail_count'),
      'e.match_status',
      'e.matched_kind',
    );
}

export interface AuditListRow {
  id: number;
  livemode: boolean | null;
  actor_kind: string;
  actor_name: string;
  action: string;
  object_type: string;
  object_id: string;
  created_at: Date;
}

/** The newest audit records of an environment, and those that belong to none. */
export async function recentAudit(db: Db, livemode: boolean, limit: number): Promise<AuditListRow[]> {
  return db('audit_log')
    .where((q) => {
      q.where({ livemode }).orWhereNull('livemode');
    })
    .orderBy([
      { column: 'created_at', order: 'desc' },
      { column: 'id', order: 'desc' },
    ])
    .limit(limit)
    .select('id', 'livemode', 'actor_kind', 'actor_name', 'action', 'object_type', 'object_id', 'created_at');
}
