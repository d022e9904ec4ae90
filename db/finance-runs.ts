import type { Db } from './knex';
import type { SettlementLineRow } from './settlement-runs';

/**
 * Read-only SQL behind the finance pages' settlement half. Operators see every merchant, so runs,
 * lines and payouts are scoped by environment here and, once a run is found, by its merchant as
 * well. Sums are cast back to bigint so the int8 parser returns exact integers, not numeric strings.
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

export interface MerchantOption {
  id: string;
  name: string;
}

export interface RunDetail extends RunSummary {
  livemode: boolean;
  /** The parts of `fee` that are costs added on top (decision 0113). */
  acquirer_fee: number;
  bank_cost: number;
  cutoff: Date;
  approved_by: string | null;
  approved_at: Date | null;
  paid_at: Date | null;
  failure_reason: string | null;
}

export type LineRow = Pick<
  SettlementLineRow,
  'id' | 'kind' | 'fee_kind' | 'source_id' | 'payment_intent_id' | 'gross' | 'fee' | 'net' | 'occurred_at'
>;

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

export function createFinanceRunRepository(db: Db) {
  return {
    /**
     * Runs of the `days` newest settlement dates before `before` (exclusive), newest first; with
     * `merchantId`, that merchant's runs and the dates it has runs on.
     */
    async runsOfRecentDays(
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
    },

    /**
     * Totals per settlement date from `from` to `to` inclusive, of one merchant when `merchantId` is
     * given; days without runs are absent.
     */
    async dailyTotals(
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
    },

    /** The merchants with at least one run in the environment, by name: the runs page's filter. */
    async merchantsWithRuns(livemode: boolean, limit: number): Promise<MerchantOption[]> {
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
    },

    /** A merchant by id, whatever its environment (merchants have both). */
    async findMerchant(id: string): Promise<MerchantOption | undefined> {
      return db('merchants').where({ id }).first('id', 'name');
    },

    async findRun(livemode: boolean, id: string): Promise<RunDetail | undefined> {
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
          'r.acquirer_fee',
          'r.bank_cost',
          'r.line_count',
          'r.approved_by',
          'r.approved_at',
          'r.paid_at',
          'r.failure_reason',
        );
    },

    /** A page of a run's lines in insertion order, after line id `after`. */
    async runLines(
      run: Pick<RunDetail, 'id' | 'merchant_id' | 'livemode'>,
      opts: { after?: number | undefined; limit: number },
    ): Promise<LineRow[]> {
      return db('settlement_lines')
        .where({ settlement_run_id: run.id, merchant_id: run.merchant_id, livemode: run.livemode })
        .where('id', '>', opts.after ?? 0)
        .orderBy('id')
        .limit(opts.limit)
        .select(
          'id',
          'kind',
          'fee_kind',
          'source_id',
          'payment_intent_id',
          'gross',
          'fee',
          'net',
          'occurred_at',
        );
    },

    async runPayout(run: Pick<RunDetail, 'id' | 'merchant_id' | 'livemode'>): Promise<PayoutRow | undefined> {
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
    },
  };
}

export type FinanceRunRepository = ReturnType<typeof createFinanceRunRepository>;
