import type { Db, Knex } from './knex';
import { withoutJit } from './knex';
import { findPayoutDestination } from './payouts';
import { resolvePendingRefundDestinations } from './claim-refunds';
import type { Scope } from '../domain/scope';
import type { SettlementFeeKind, SettlementLineKind } from '../domain/settlement-lines';
import { autoApproves, opensRun } from '../domain/settlement-lines';
import { newId } from '../domain/ids';
import { pageByCreated } from './pagination';
import type { PageOptions } from './tenant';

export type SettlementRunStatus = 'open' | 'pending_review' | 'approved' | 'submitted' | 'paid' | 'failed';

export interface SettlementRunRow {
  id: string;
  merchant_id: string;
  livemode: boolean;
  settlement_date: string;
  cutoff: Date;
  status: SettlementRunStatus;
  currency: 'ISK';
  gross: number;
  /** Every fee of the run: the service fee and the costs added on top below (decision 0113). */
  fee: number;
  net: number;
  /** The part of `fee` that is acquirer fees, and the part that is the bank's claim costs. */
  acquirer_fee: number;
  bank_cost: number;
  line_count: number;
  approved_by: string | null;
  approved_at: Date | null;
  submitted_at: Date | null;
  paid_at: Date | null;
  failed_at: Date | null;
  failure_reason: string | null;
  created_at: Date;
  updated_at: Date;
}

export interface SettlementLineRow {
  id: number;
  settlement_run_id: string;
  merchant_id: string;
  livemode: boolean;
  kind: SettlementLineKind;
  fee_kind: SettlementFeeKind;
  source_id: string;
  payment_intent_id: string | null;
  gross: number;
  fee: number;
  net: number;
  occurred_at: Date;
  created_at: Date;
}

export interface GatherInput {
  scope: Scope;
  settlementDate: string;
  cutoff: Date;
  /** SETTLEMENT_AUTO_APPROVE_MAX_NET; 0 = every run waits for an operator. */
  autoApproveMaxNet: number;
}

export interface RunFilters {
  status?: SettlementRunStatus;
  settlementDateGte?: string;
  settlementDateLte?: string;
}

/** The operator who approved by policy rather than by hand. */
export const AUTO_APPROVER = 'auto-approve policy';

/*
 * Every captured payment, succeeded refund, pending refund of a krafa that knows the payer's account
 * (its credit transfer goes out in this run's payout file, decision 0101) and claim reversal of one
 * merchant and environment up to the cutoff that no line settles yet, as lines of one run. Bindings:
 * run id, merchant, livemode, cutoff — once per source. The unique (livemode, kind, source_id) index makes a
 * concurrent or retried gather insert nothing twice. A reversal counts only when its claim was
 * captured as a payment intent: a partial payment never captured was never settled either.
 *
 * A card dispute (decision 0157) withdraws its amount in the first run after it opened (kind
 * `dispute`, gross = net = −amount, no fee), and a won one pays it back in the first run after it
 * closed (`dispute_reversal`); the same unique index makes each happen once per dispute.
 *
 * A recorded cost (decision 0113) joins the run that settles its payment, or the first run after it
 * was recorded: it counts once its payment is captured up to the cutoff (so it is settled by this
 * run or was by an earlier one) and it was recorded up to the cutoff. A bank cost's payment is its
 * claim's intent, which exists once the claim is paid in full.
 */
const GATHER_SQL = `
with inserted as (
  insert into settlement_lines
    (settlement_run_id, merchant_id, livemode, kind, fee_kind, source_id, payment_intent_id, gross, fee, net, occurred_at)
  select :run, pi.merchant_id, pi.livemode, 'payment',
         case when exists (select 1 from claims c where c.payment_intent_id = pi.id) then 'claim'
              when pi.channel = 'pos' then 'card_pos' else 'card_online' end,
         pi.id, pi.id, pi.amount_captured, pi.fee_amount, pi.amount_captured - pi.fee_amount, pi.captured_at
    from payment_intents pi
   where pi.merchant_id = :merchant and pi.livemode = :livemode
     and pi.captured_at is not null and pi.captured_at <= :cutoff and pi.amount_captured > 0
     and not exists (select 1 from settlement_lines l
                      where l.livemode = pi.livemode and l.kind = 'payment' and l.source_id = pi.id)
  union all
  select :run, r.merchant_id, r.livemode, 'refund',
         case when exists (select 1 from claims c where c.payment_intent_id = pi.id) then 'claim'
              when pi.channel = 'pos' then 'card_pos' else 'card_online' end,
         r.id, r.payment_intent_id, -r.amount, 0, -r.amount, r.created_at
    from refunds r join payment_intents pi on pi.id = r.payment_intent_id
   where r.merchant_id = :merchant and r.livemode = :livemode
     and (r.status = 'succeeded' or (r.status = 'pending' and r.destination_account is not null))
     and r.created_at <= :cutoff
     and not exists (select 1 from settlement_lines l
                      where l.livemode = r.livemode and l.kind = 'refund' and l.source_id = r.id)
  union all
  select :run, c.merchant_id, c.livemode, 'reversal', 'claim',
         ct.bank_transaction_key, c.payment_intent_id, ct.amount, 0, ct.amount, ct.created_at
    from claim_transactions ct join claims c on c.id = ct.claim_id
   where c.merchant_id = :merchant and c.livemode = :livemode and c.payment_intent_id is not null
     and ct.payment_type = 'Refund' and ct.amount < 0 and ct.created_at <= :cutoff
     and not exists (select 1 from settlement_lines l
                      where l.livemode = c.livemode and l.kind = 'reversal' and l.source_id = ct.bank_transaction_key)
  union all
  select :run, d.merchant_id, d.livemode, 'dispute',
         case when pi.channel = 'pos' then 'card_pos' else 'card_online' end,
         d.id, d.payment_intent_id, -d.amount, 0, -d.amount, d.created_at
    from disputes d join payment_intents pi on pi.id = d.payment_intent_id
   where d.merchant_id = :merchant and d.livemode = :livemode and d.created_at <= :cutoff
     and not exists (select 1 from settlement_lines l
                      where l.livemode = d.livemode and l.kind = 'dispute' and l.source_id = d.id)
  union all
  select :run, d.merchant_id, d.livemode, 'dispute_reversal',
         case when pi.channel = 'pos' then 'card_pos' else 'card_online' end,
         d.id, d.payment_intent_id, d.amount, 0, d.amount, d.closed_at
    from disputes d join payment_intents pi on pi.id = d.payment_intent_id
   where d.merchant_id = :merchant and d.livemode = :livemode and d.status = 'won'
     and d.closed_at <= :cutoff
     and not exists (select 1 from settlement_lines l
                      where l.livemode = d.livemode and l.kind = 'dispute_reversal' and l.source_id = d.id)
  union all
  select :run, k.merchant_id, k.livemode, k.kind,
         case when k.kind = 'bank_cost' then 'claim' when pi.channel = 'pos' then 'card_pos' else 'card_online' end,
         k.source_id, pi.id, 0, k.amount, -k.amount, k.occurred_at
    from payment_costs k
    left join claims c on c.id = k.claim_id
    join payment_intents pi on pi.id = coalesce(k.payment_intent_id, c.payment_intent_id)
   where k.merchant_id = :merchant and k.livemode = :livemode and k.recorded_at <= :cutoff
     and pi.captured_at is not null and pi.captured_at <= :cutoff and pi.amount_captured > 0
     and not exists (select 1 from settlement_lines l
                      where l.livemode = k.livemode and l.kind = k.kind and l.source_id = k.source_id)
  -- Lines are numbered in the order the money moved (occurred_at, kind, source), for stable exports.
  order by 11, 4, 6
  on conflict (livemode, kind, source_id) do nothing
  returning kind, gross, fee, net
)
select cast(coalesce(sum(gross), 0) as bigint) as gross, cast(coalesce(sum(fee), 0) as bigint) as fee,
       cast(coalesce(sum(net), 0) as bigint) as net, cast(count(*) as integer) as line_count,
       cast(coalesce(sum(fee) filter (where kind = 'acquirer_fee'), 0) as bigint) as acquirer_fee,
       cast(coalesce(sum(fee) filter (where kind = 'bank_cost'), 0) as bigint) as bank_cost
  from inserted`;

/** Merchants of an environment with money not yet on a line up to the cutoff (same rules as above). */
const UNSETTLED_MERCHANTS_SQL = `
select merchant_id from payment_intents pi
 where pi.livemode = :livemode and pi.captured_at is not null and pi.captured_at <= :cutoff
   and pi.amount_captured > 0
   and not exists (select 1 from settlement_lines l
                    where l.livemode = pi.livemode and l.kind = 'payment' and l.source_id = pi.id)
union
select merchant_id from refunds r
 where r.livemode = :livemode and r.status in ('succeeded', 'pending') and r.created_at <= :cutoff
   and not exists (select 1 from settlement_lines l
                    where l.livemode = r.livemode and l.kind = 'refund' and l.source_id = r.id)
union
select c.merchant_id from claim_transactions ct join claims c on c.id = ct.claim_id
 where c.livemode = :livemode and c.payment_intent_id is not null and ct.payment_type = 'Refund'
   and ct.amount < 0 and ct.created_at <= :cutoff
   and not exists (select 1 from settlement_lines l
                    where l.livemode = c.livemode and l.kind = 'reversal' and l.source_id = ct.bank_transaction_key)
union
select d.merchant_id from disputes d
 where d.livemode = :livemode and d.created_at <= :cutoff
   and not exists (select 1 from settlement_lines l
                    where l.livemode = d.livemode and l.kind = 'dispute' and l.source_id = d.id)
union
select d.merchant_id from disputes d
 where d.livemode = :livemode and d.status = 'won' and d.closed_at <= :cutoff
   and not exists (select 1 from settlement_lines l
                    where l.livemode = d.livemode and l.kind = 'dispute_reversal' and l.source_id = d.id)
union
select k.merchant_id from payment_costs k
  left join claims c on c.id = k.claim_id
  join payment_intents pi on pi.id = coalesce(k.payment_intent_id, c.payment_intent_id)
 where k.livemode = :livemode and k.recorded_at <= :cutoff
   and pi.captured_at is not null and pi.captured_at <= :cutoff and pi.amount_captured > 0
   and not exists (select 1 from settlement_lines l
                    where l.livemode = k.livemode and l.kind = k.kind and l.source_id = k.source_id)
order by 1`;

/**
 * Settlement runs and their lines. Merchant access takes the tenancy Scope; the operator methods
 * (`…ForOperator`) look across merchants of one environment, as finance operators do.
 */
export function createSettlementRunRepository(knex: Knex) {
  const runs = (db: Db, scope: Scope) =>
    db<SettlementRunRow>('settlement_runs').where({
      merchant_id: scope.merchantId,
      livemode: scope.livemode,
    });

  return {
    async find(scope: Scope, id: string, db: Db = knex): Promise<SettlementRunRow | undefined> {
      return runs(db, scope).where({ id }).first();
    },

    async findByDate(
      scope: Scope,
      settlementDate: string,
      db: Db = knex,
    ): Promise<SettlementRunRow | undefined> {
      return runs(db, scope).where({ settlement_date: settlementDate }).first();
    },

    async list(scope: Scope, filters: RunFilters, page: PageOptions) {
      const q = runs(knex, scope);
      applyFilters(q, filters);
      return pageByCreated<SettlementRunRow>(q, 'settlement_runs', scope, page);
    },

    /** Lines of a run in the order they were gathered, paged by line id. */
    async lines(
      scope: Scope,
      runId: string,
      page: { limit: number; startingAfter?: number },
    ): Promise<{ data: SettlementLineRow[]; hasMore: boolean }> {
      const q = knex<SettlementLineRow>('settlement_lines')
        .where({ settlement_run_id: runId, merchant_id: scope.merchantId, livemode: scope.livemode })
        .orderBy('id', 'asc')
        .limit(page.limit + 1);
      if (page.startingAfter !== undefined) q.where('id', '>', page.startingAfter);
      const rows = await q;
      return { data: rows.slice(0, page.limit), hasMore: rows.length > page.limit };
    },

    /** Every line of a run (CSV export), streamed in id order by the caller's page size. */
    async allLines(scope: Scope, runId: string): Promise<SettlementLineRow[]> {
      return knex<SettlementLineRow>('settlement_lines')
        .where({ settlement_run_id: runId, merchant_id: scope.merchantId, livemode: scope.livemode })
        .orderBy('id', 'asc');
    },

    /**
     * Gathers a run for one merchant and banking day in one transaction. A run that already exists
     * for the day is returned as it is (a retried or repeated gather adds nothing). Otherwise the
     * lines are inserted set-based; the run is kept only when its net is positive — else nothing is
     * written and the money waits for a later day.
     */
    async gather(input: GatherInput): Promise<SettlementRunRow | null> {
      const { scope } = input;
      return knex.transaction(async (trx) => {
        await withoutJit(trx);
        const existing = await runs(trx, scope).where({ settlement_date: input.settlementDate }).first();
        if (existing) return existing;
        const id = newId('stl');
        const [created] = await trx<SettlementRunRow>('settlement_runs')
          .insert({
            id,
            merchant_id: scope.merchantId,
            livemode: scope.livemode,
            settlement_date: input.settlementDate,
            cutoff: input.cutoff,
            status: 'open',
          })
          .onConflict(['merchant_id', 'livemode', 'settlement_date'])
          .ignore()
          .returning('*');
        // A concurrent gather of the same day won the insert: its run is the day's run.
        if (!created)
          return (await runs(trx, scope).where({ settlement_date: input.settlementDate }).first())!;
        // Krafa refunds made before the bank's notification named the payer's account learn it now.
        await resolvePendingRefundDestinations(trx, scope);
        const result = await trx.raw<{
          rows: {
            gross: number;
            fee: number;
            net: number;
            line_count: number;
            acquirer_fee: number;
            bank_cost: number;
          }[];
        }>(GATHER_SQL, {
          run: id,
          merchant: scope.merchantId,
          livemode: scope.livemode,
          cutoff: input.cutoff,
        });
        const totals = result.rows[0]!;
        if (!opensRun({ net: totals.net, lineCount: totals.line_count })) {
          await trx('settlement_lines').where({ settlement_run_id: id }).delete();
          await trx('settlement_runs').where({ id }).delete();
          return null;
        }
        // The policy approves only what can be paid out: a merchant without a bank account and
        // kennitala waits for an operator (who cannot approve either until they are added).
        const auto =
          autoApproves(totals.net, input.autoApproveMaxNet) &&
          (await findPayoutDestination(trx, scope.merchantId)) !== undefined;
        const now = new Date();
        const [run] = await trx<SettlementRunRow>('settlement_runs')
          .where({ id })
          .update({
            gross: totals.gross,
            fee: totals.fee,
            net: totals.net,
            acquirer_fee: totals.acquirer_fee,
            bank_cost: totals.bank_cost,
            line_count: totals.line_count,
            status: auto ? 'approved' : 'pending_review',
            ...(auto && { approved_by: AUTO_APPROVER, approved_at: now }),
            updated_at: now,
          })
          .returning('*');
        if (auto) {
          await trx('audit_log').insert({
            livemode: scope.livemode,
            actor_kind: 'system',
            actor_id: null,
            actor_name: AUTO_APPROVER,
            action: 'settlement_run.approved',
            object_type: 'settlement_run',
            object_id: id,
            merchant_id: scope.merchantId,
            data: JSON.stringify({ net: totals.net, policy: 'SETTLEMENT_AUTO_APPROVE_MAX_NET' }),
          });
        }
        return run!;
      });
    },

    /** Merchants of an environment with unsettled money up to the cutoff. */
    async merchantsWithUnsettled(livemode: boolean, cutoff: Date): Promise<string[]> {
      const result = await knex.raw<{ rows: { merchant_id: string }[] }>(UNSETTLED_MERCHANTS_SQL, {
        livemode,
        cutoff,
      });
      return result.rows.map((r) => r.merchant_id);
    },

    /** Moves a run from one status to another; undefined when it was not in `from` any more. */
    async transition(
      scope: Scope,
      id: string,
      from: SettlementRunStatus[],
      patch: Partial<SettlementRunRow> & { status: SettlementRunStatus },
      db: Db = knex,
    ): Promise<SettlementRunRow | undefined> {
      const [row] = await runs(db, scope)
        .where({ id })
        .whereIn('status', from)
        .update({ ...patch, updated_at: new Date() })
        .returning('*');
      return row;
    },

    /** A run by id in any merchant (operator access); the caller authorizes. */
    async findForOperator(id: string, db: Db = knex): Promise<SettlementRunRow | undefined> {
      return db<SettlementRunRow>('settlement_runs').where({ id }).first();
    },

    /** Runs of one environment across merchants, newest settlement date first. */
    async listForOperator(
      livemode: boolean,
      filters: RunFilters & { merchantId?: string },
      page: { limit: number; startingAfter?: string },
    ): Promise<{ data: SettlementRunRow[]; hasMore: boolean }> {
      const q = knex<SettlementRunRow>('settlement_runs').where({ livemode });
      if (filters.merchantId !== undefined) q.where({ merchant_id: filters.merchantId });
      applyFilters(q, filters);
      if (page.startingAfter !== undefined) {
        q.whereRaw(
          '(settlement_date, created_at, id) < (select settlement_date, created_at, id from settlement_runs where id = ? and livemode = ?)',
          [page.startingAfter, livemode],
        );
      }
      const rows = await q
        .orderBy([
          { column: 'settlement_date', order: 'desc' },
          { column: 'created_at', order: 'desc' },
          { column: 'id', order: 'desc' },
        ])
        .limit(page.limit + 1);
      return { data: rows.slice(0, page.limit), hasMore: rows.length > page.limit };
    },

    /** Runs of one environment and banking day across merchants (a settlement day's result). */
    async listByDate(livemode: boolean, settlementDate: string): Promise<SettlementRunRow[]> {
      return knex<SettlementRunRow>('settlement_runs')
        .where({ livemode, settlement_date: settlementDate })
        .orderBy([
          { column: 'merchant_id', order: 'asc' },
          { column: 'id', order: 'asc' },
        ]);
    },
  };
}

function applyFilters(q: Knex.QueryBuilder, filters: RunFilters): void {
  if (filters.status !== undefined) q.where({ status: filters.status });
  if (filters.settlementDateGte !== undefined) q.where('settlement_date', '>=', filters.settlementDateGte);
  if (filters.settlementDateLte !== undefined) q.where('settlement_date', '<=', filters.settlementDateLte);
}

export type SettlementRunRepository = ReturnType<typeof createSettlementRunRepository>;
