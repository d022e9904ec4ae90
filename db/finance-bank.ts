import type { Db } from './knex';

/**
 * Read-only SQL behind the finance pages' bank half: files, entries and exceptions. Bank rows
 * belong to the collection account and are scoped by environment (decision 0090).
 */

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

const BANK_FILE_COLUMNS = [
  'f.id',
  'f.name',
  'f.received_at',
  'f.message_type',
  'f.status',
  'f.quarantine_reason',
  'f.entry_count',
] as const;

export function createFinanceBankRepository(db: Db) {
  return {
    /** The queue: open exceptions, or the newest resolved and handled ones; newest first. */
    async listExceptions(livemode: boolean, opts: { open: boolean; limit: number }): Promise<ExceptionRow[]> {
      const query = exceptionsQuery(db, livemode);
      if (opts.open) query.where('x.status', 'open');
      else query.whereIn('x.status', ['resolved', 'handled']);
      return query
        .orderBy([
          { column: opts.open ? 'x.created_at' : 'x.resolved_at', order: 'desc' },
          { column: 'x.id', order: 'desc' },
        ])
        .limit(opts.limit);
    },

    /**
     * The exceptions of a settlement day: from files received that day, or on entries booked that day.
     * Iceland keeps UTC all year, so the UTC date of `received_at` is the Reykjavik date.
     */
    async exceptionsOfDay(livemode: boolean, date: string): Promise<ExceptionRow[]> {
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
    },

    async listBankFiles(livemode: boolean, limit: number): Promise<BankFileRow[]> {
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
    },

    async findBankFile(livemode: boolean, id: string): Promise<BankFileRow | undefined> {
      return db('bank_files as f')
        .where({ 'f.livemode': livemode, 'f.id': id })
        .first(...BANK_FILE_COLUMNS, db.raw('0::bigint as open_exceptions'));
    },

    /** A page of a file's parsed entries after entry id `after`; files can hold a million entries. */
    async fileEntries(
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
    },
  };
}

export type FinanceBankRepository = ReturnType<typeof createFinanceBankRepository>;
