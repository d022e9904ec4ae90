import type { Knex } from '../../db/knex';

/*
 * The ledger invariant of decision 0093, checked from the tables after every test file that starts
 * the real stack (test/helpers/stack.ts runs it when the stack stops) — decision 0107.
 *
 *   captured − refunds − reversals − disputes + disputes won  =  settled gross  +  unsettled
 *                                                                          per merchant and livemode
 *
 * Left: the money movements themselves (payment_intents, refunds, claim_transactions, disputes), with no
 * regard to settlement. Right: `settled gross` is what the settlement runs were gathered (and paid
 * out) with — the totals on settlement_runs, fixed at gather time from the lines inserted — and
 * `unsettled` is every movement that no settlement line holds yet.
 *
 * Why this can fail (it is not an identity): the movements on a line appear on the left at their
 * amount *now*, and on the right at the amount their run was gathered with. The two agree only if
 *   - every line of every run still exists (a deleted line makes its movement look unsettled, so it
 *     counts on the right twice: in its run's gross and again in `unsettled`);
 *   - no settled movement disappeared or changed afterwards (a deleted or changed refund moves the
 *     left side while its run keeps the old figure; a capture amount changed after settling, a
 *     refund flipped to failed after settling, likewise);
 *   - each line's amount was its movement's amount, and each run's totals were its lines' sums.
 * Summing lines instead of run totals on the right would make a deleted line cancel out (it would
 * leave `settled` and enter `unsettled`), which is why the runs' own totals are used; the per-run
 * check below also names the run whose lines no longer add up to what it was gathered (and paid) with.
 *
 * Further checks, each from two different tables:
 *   - a payment intent's amount_refunded equals its succeeded and pending refunds (catches a refund
 *     deleted or added before any settlement, which the equation above cannot see: both sides would move);
 *   - a krafa refund (decision 0101) goes back to its payer once: the runs that settled krafa refunds
 *     and were paid paid each of them (the bank booked its transfer, so it is succeeded), and no
 *     krafa refund is succeeded without being settled by a paid run;
 *   - a run's gross, fee, net and line count equal the sums of its lines; a payout equals its run's net;
 *   - no subscription is charged twice for a period: every captured payment intent of a
 *     subscription that is not refunded in full pays exactly one of its renewals (periods), no
 *     renewal is paid by two such intents, and no two paid periods of one subscription overlap.
 *
 * Extending it: a new kind of money movement (a new settlement line kind) is one more entry in
 * MOVEMENTS, selecting merchant_id, livemode, source_id and the signed amount it settles at.
 *
 * Costs added on top (decision 0113) are fees, not money received: their lines have gross 0 and
 * stay out of the equation above. They have their own, per merchant and livemode, from the same
 * kinds of tables:
 *
 *   recorded costs  =  costs the runs deducted  +  costs on no line
 *
 * Left: payment_costs. Right: the runs' acquirer_fee + bank_cost (fixed at gather time) and the
 * recorded costs no settlement line holds. A deleted cost line counts twice on the right; a settled
 * cost changed or deleted moves only the left. Beside it: a run's acquirer_fee and bank_cost are its
 * cost lines' fees, and each cost line is a recorded cost of its fee with gross 0.
 */

/** One kind of money movement and the signed amount it contributes to the merchant's balance. */
export interface MoneyMovement {
  /** The settlement line kind that settles it (settlement_lines.kind). */
  kind: string;
  /** Its name in the figures. */
  label: string;
  /** Selects merchant_id, livemode, source_id (= settlement_lines.source_id), amount (signed). */
  sql: string;
}

/** The movements a settlement gathers (db/settlement-runs.ts GATHER_SQL), without the cutoff. */
export const MOVEMENTS: MoneyMovement[] = [
  {
    kind: 'payment',
    label: 'captured',
    sql: `select pi.merchant_id, pi.livemode, pi.id as source_id, pi.amount_captured as amount
            from payment_intents pi
           where pi.captured_at is not null and pi.amount_captured > 0`,
  },
  {
    kind: 'refund',
    label: 'refunded',
    // A krafa's refund moves the merchant's money when it is made, while its bank transfer is still
    // pending: its line nets it and its payout file pays it (decision 0101). A failed one moves none.
    sql: `select r.merchant_id, r.livemode, r.id as source_id, -r.amount as amount
            from refunds r
           where r.status in ('succeeded', 'pending')`,
  },
  {
    kind: 'reversal',
    label: 'reversed',
    // A reversal counts only for a claim captured as a payment intent (decision 0093).
    sql: `select c.merchant_id, c.livemode, ct.bank_transaction_key as source_id, ct.amount
            from claim_transactions ct join claims c on c.id = ct.claim_id
           where c.payment_intent_id is not null and ct.payment_type = 'Refund' and ct.amount < 0`,
  },
  {
    kind: 'dispute',
    label: 'disputed',
    // Every dispute the acquirer opened takes its amount back, whatever became of it (decision 0157).
    sql: `select d.merchant_id, d.livemode, d.id as source_id, -d.amount as amount from disputes d`,
  },
  {
    kind: 'dispute_reversal',
    label: 'dispute won',
    // A won dispute returns its amount.
    sql: `select d.merchant_id, d.livemode, d.id as source_id, d.amount from disputes d where d.status = 'won'`,
  },
];

/** The costs added on top (decision 0113): each settles as a line of its kind, gross 0, fee = amount. */
export const COST_KINDS = ['acquirer_fee', 'bank_cost'] as const;

/** The two sides for one merchant and environment; `movements` holds the left side by label. */
export interface LedgerFigures {
  merchantId: string;
  livemode: boolean;
  movements: Record<string, number>;
  /** Σ movements: captured − refunds − reversals − disputes + disputes won (+ each new kind). */
  left: number;
  /** Σ settlement_runs.gross. */
  settledGross: number;
  /** Σ movements no settlement line holds. */
  unsettled: number;
  /** Σ payment_costs.amount: every cost added on top recorded. */
  costs: number;
  /** Σ settlement_runs.acquirer_fee + bank_cost. */
  settledCosts: number;
  /** Σ recorded costs no settlement line holds. */
  unsettledCosts: number;
}

export interface LedgerReport {
  figures: LedgerFigures[];
  /** Empty when every invariant holds; otherwise one line per broken fact. */
  violations: string[];
}

const key = (merchantId: string, livemode: boolean) => `${merchantId}/${livemode ? 'live' : 'test'}`;

async function rows<T>(db: Knex, sql: string): Promise<T[]> {
  return (await db.raw<{ rows: T[] }>(sql)).rows;
}

/** Computes every figure and lists what does not hold. `db` may be a transaction. */
export async function checkLedger(db: Knex): Promise<LedgerReport> {
  const violations: string[] = [];
  const figures = new Map<string, LedgerFigures>();
  const at = (merchantId: string, livemode: boolean) => {
    const k = key(merchantId, livemode);
    let f = figures.get(k);
    if (!f) {
      f = {
        merchantId,
        livemode,
        movements: {},
        left: 0,
        settledGross: 0,
        unsettled: 0,
        costs: 0,
        settledCosts: 0,
        unsettledCosts: 0,
      };
      for (const m of MOVEMENTS) f.movements[m.label] = 0;
      figures.set(k, f);
    }
    return f;
  };

  for (const m of MOVEMENTS) {
    const sums = await rows<{ merchant_id: string; livemode: boolean; total: string; unsettled: string }>(
      db,
      `select m.merchant_id, m.livemode, sum(m.amount) as total,
              coalesce(sum(m.amount) filter (where not exists (
                select 1 from settlement_lines l
                 where l.livemode = m.livemode and l.kind = '${m.kind}' and l.source_id = m.source_id)), 0) as unsettled
         from (${m.sql}) m
        group by m.merchant_id, m.livemode`,
    );
    for (const s of sums) {
      const f = at(s.merchant_id, s.livemode);
      f.movements[m.label] = Number(s.total);
      f.left += Number(s.total);
      f.unsettled += Number(s.unsettled);
    }
  }
  const settled = await rows<{ merchant_id: string; livemode: boolean; gross: string; costs: string }>(
    db,
    `select merchant_id, livemode, sum(gross) as gross, sum(acquirer_fee + bank_cost) as costs
       from settlement_runs group by merchant_id, livemode`,
  );
  for (const s of settled) {
    const f = at(s.merchant_id, s.livemode);
    f.settledGross = Number(s.gross);
    f.settledCosts = Number(s.costs);
  }
  const costs = await rows<{ merchant_id: string; livemode: boolean; total: string; unsettled: string }>(
    db,
    `select k.merchant_id, k.livemode, sum(k.amount) as total,
            coalesce(sum(k.amount) filter (where not exists (
              select 1 from settlement_lines l
               where l.livemode = k.livemode and l.kind = k.kind and l.source_id = k.source_id)), 0) as unsettled
       from payment_costs k group by k.merchant_id, k.livemode`,
  );
  for (const c of costs) {
    const f = at(c.merchant_id, c.livemode);
    f.costs = Number(c.total);
    f.unsettledCosts = Number(c.unsettled);
  }

  for (const f of figures.values()) {
    const right = f.settledGross + f.unsettled;
    if (f.left !== right) {
      const parts = MOVEMENTS.map((m) => `${m.label} ${f.movements[m.label]}`).join(', ');
      violations.push(
        `ledger ${key(f.merchantId, f.livemode)}: movements ${f.left} (${parts}) ≠ settled gross ` +
          `${f.settledGross} + unsettled ${f.unsettled} = ${right}`,
      );
    }
    const costsRight = f.settledCosts + f.unsettledCosts;
    if (f.costs !== costsRight)
      violations.push(
        `costs ${key(f.merchantId, f.livemode)}: recorded ${f.costs} ≠ settled ${f.settledCosts} + ` +
          `unsettled ${f.unsettledCosts} = ${costsRight}`,
      );
  }

  // Lines on a kind no movement knows, or whose movement is gone (the equation sees these too, but
  // this names them).
  const costKinds = COST_KINDS.map((k) => `'${k}'`).join(', ');
  const orphanLines = await rows<{ id: string; kind: string; source_id: string }>(
    db,
    `select l.id, l.kind, l.source_id from settlement_lines l
      where l.kind not in (${costKinds}) and ${MOVEMENTS.map(
        (m) => `not (l.kind = '${m.kind}' and exists (
                   select 1 from (${m.sql}) m where m.source_id = l.source_id and m.livemode = l.livemode
                      and m.merchant_id = l.merchant_id and m.amount = l.gross))`,
      ).join(' and ')}`,
  );
  for (const l of orphanLines)
    violations.push(`settlement line ${l.id} (${l.kind} ${l.source_id}) matches no movement of that amount`);
  const orphanCostLines = await rows<{ id: string; kind: string; source_id: string }>(
    db,
    `select l.id, l.kind, l.source_id from settlement_lines l
      where l.kind in (${costKinds})
        and not (l.gross = 0 and exists (
              select 1 from payment_costs k
               where k.livemode = l.livemode and k.kind = l.kind and k.source_id = l.source_id
                 and k.merchant_id = l.merchant_id and k.amount = l.fee))`,
  );
  for (const l of orphanCostLines)
    violations.push(
      `settlement line ${l.id} (${l.kind} ${l.source_id}) matches no recorded cost of that amount`,
    );

  const runs = await rows<{
    id: string;
    gross: string;
    fee: string;
    net: string;
    line_count: number;
    lines_gross: string;
    lines_fee: string;
    lines_net: string;
    lines: string;
  }>(
    db,
    `select r.id, r.gross, r.fee, r.net, r.line_count,
            coalesce(sum(l.gross), 0) as lines_gross, coalesce(sum(l.fee), 0) as lines_fee,
            coalesce(sum(l.net), 0) as lines_net, count(l.id) as lines
       from settlement_runs r left join settlement_lines l on l.settlement_run_id = r.id
      group by r.id
     having r.gross <> coalesce(sum(l.gross), 0) or r.fee <> coalesce(sum(l.fee), 0)
         or r.net <> coalesce(sum(l.net), 0) or r.line_count <> count(l.id)`,
  );
  for (const r of runs)
    violations.push(
      `settlement run ${r.id}: gross/fee/net/lines ${r.gross}/${r.fee}/${r.net}/${r.line_count} ≠ its lines' ` +
        `${r.lines_gross}/${r.lines_fee}/${r.lines_net}/${r.lines}`,
    );

  const runCosts = await rows<{
    id: string;
    acquirer_fee: string;
    bank_cost: string;
    lines_acquirer_fee: string;
    lines_bank_cost: string;
  }>(
    db,
    `select r.id, r.acquirer_fee, r.bank_cost,
            coalesce(sum(l.fee) filter (where l.kind = 'acquirer_fee'), 0) as lines_acquirer_fee,
            coalesce(sum(l.fee) filter (where l.kind = 'bank_cost'), 0) as lines_bank_cost
       from settlement_runs r left join settlement_lines l on l.settlement_run_id = r.id
      group by r.id
     having r.acquirer_fee <> coalesce(sum(l.fee) filter (where l.kind = 'acquirer_fee'), 0)
         or r.bank_cost <> coalesce(sum(l.fee) filter (where l.kind = 'bank_cost'), 0)`,
  );
  for (const r of runCosts)
    violations.push(
      `settlement run ${r.id}: acquirer fee/bank cost ${r.acquirer_fee}/${r.bank_cost} ≠ its lines' ` +
        `${r.lines_acquirer_fee}/${r.lines_bank_cost}`,
    );

  const payouts = await rows<{ id: string; amount: string; net: string }>(
    db,
    `select p.id, p.amount, r.net from payouts p join settlement_runs r on r.id = p.settlement_run_id
      where p.amount <> r.net or p.merchant_id <> r.merchant_id or p.livemode <> r.livemode`,
  );
  for (const p of payouts) violations.push(`payout ${p.id}: amount ${p.amount} ≠ its run's net ${p.net}`);

  const refundTotals = await rows<{ id: string; amount_refunded: string; refunds: string }>(
    db,
    `select pi.id, pi.amount_refunded, coalesce(r.total, 0) as refunds
       from payment_intents pi
       left join (select payment_intent_id, sum(amount) as total from refunds
                   where status in ('succeeded', 'pending') group by payment_intent_id) r on r.payment_intent_id = pi.id
      where pi.amount_refunded <> coalesce(r.total, 0)`,
  );
  for (const r of refundTotals)
    violations.push(
      `payment intent ${r.id}: amount_refunded ${r.amount_refunded} ≠ its succeeded and pending refunds ${r.refunds}`,
    );

  // Krafa refunds (no card: a transfer to the payer, decision 0101) against the runs and payouts
  // that carried them: refunds on one side, settlement lines and payouts on the other.
  const krafaRefunds = await rows<{ id: string; status: string; run: string | null; payout: string | null }>(
    db,
    `select r.id, r.status, l.settlement_run_id as run, p.status as payout
       from refunds r
       left join settlement_lines l on l.livemode = r.livemode and l.kind = 'refund' and l.source_id = r.id
       left join payouts p on p.settlement_run_id = l.settlement_run_id
      where r.acquirer_reference is null
        and ((p.status = 'paid') <> (r.status = 'succeeded') or (r.status = 'succeeded' and p.status is null))`,
  );
  for (const r of krafaRefunds)
    violations.push(
      r.status === 'succeeded'
        ? `refund ${r.id}: succeeded, but ${r.run === null ? 'no run settled it' : `its run ${r.run}'s payout is ${r.payout ?? 'not written'}`}`
        : `refund ${r.id}: ${r.status}, but the payout of its run ${r.run} is paid`,
    );

  violations.push(...(await subscriptionDoubleCharges(db)));
  return { figures: [...figures.values()], violations };
}

/**
 * No subscription is charged twice for a period. A charge is a captured payment intent of the
 * subscription that was not refunded in full; it pays a period through the renewal that names it
 * (card) or through the claim that collects the renewal (krafa).
 */
async function subscriptionDoubleCharges(db: Knex): Promise<string[]> {
  const out: string[] = [];
  const charges = `
    select pi.id, pi.subscription_id from payment_intents pi
     where pi.subscription_id is not null and pi.captured_at is not null
       and pi.amount_captured > pi.amount_refunded`;
  const pays = `
    select r.id as renewal_id, r.subscription_id, r.period_start, r.payment_intent_id from renewals r
     where r.payment_intent_id is not null
    union
    select r.id, r.subscription_id, r.period_start, c.payment_intent_id
      from claims c join renewals r on r.id = c.renewal_id where c.payment_intent_id is not null`;

  const twice = await rows<{ subscription_id: string; period_start: Date; intents: string[] }>(
    db,
    `select p.subscription_id, p.period_start, array_agg(distinct c.id order by c.id) as intents
       from (${pays}) p join (${charges}) c on c.id = p.payment_intent_id and c.subscription_id = p.subscription_id
      group by p.subscription_id, p.period_start
     having count(distinct c.id) > 1`,
  );
  for (const t of twice)
    out.push(
      `subscription ${t.subscription_id} charged twice for the period from ${t.period_start.toISOString()}: ${t.intents.join(', ')}`,
    );

  const unattributed = await rows<{ id: string; subscription_id: string }>(
    db,
    `select c.id, c.subscription_id from (${charges}) c
      where not exists (select 1 from (${pays}) p
                         where p.payment_intent_id = c.id and p.subscription_id = c.subscription_id)`,
  );
  for (const u of unattributed)
    out.push(`subscription ${u.subscription_id}: payment intent ${u.id} was captured for no period of it`);

  const overlapping = await rows<{ subscription_id: string; a: string; b: string }>(
    db,
    `with paid as (
       select p.renewal_id, p.subscription_id, r.period_start, r.period_end
         from (${pays}) p join (${charges}) c on c.id = p.payment_intent_id
         join renewals r on r.id = p.renewal_id
     )
     select a.subscription_id, a.renewal_id as a, b.renewal_id as b
       from paid a join paid b on a.subscription_id = b.subscription_id and a.renewal_id < b.renewal_id
      where tstzrange(a.period_start, a.period_end) && tstzrange(b.period_start, b.period_end)`,
  );
  for (const o of overlapping)
    out.push(`subscription ${o.subscription_id}: paid periods of renewals ${o.a} and ${o.b} overlap`);
  return out;
}

/** Throws with every violation when the ledger invariant does not hold. */
export async function assertLedgerInvariant(db: Knex): Promise<void> {
  const { violations } = await checkLedger(db);
  if (violations.length > 0) throw new Error(`ledger invariant broken:\n${violations.join('\n')}`);
}

/**
 * The ledger report with `change` applied inside a transaction that is always rolled back: how a
 * test shows that breaking the books one way is caught, without breaking them for the next test.
 */
export async function ledgerWith(
  db: Knex,
  change: (trx: Knex.Transaction) => Promise<unknown>,
): Promise<LedgerReport> {
  let report: LedgerReport | undefined;
  await db
    .transaction(async (trx) => {
      await change(trx);
      report = await checkLedger(trx);
      throw new Error('rollback');
    })
    .catch((err: unknown) => {
      if (!(err instanceof Error) || err.message !== 'rollback') throw err;
    });
  return report!;
}
