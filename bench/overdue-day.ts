import { readFileSync } from 'node:fs';
import { withStack } from './harness';
import { claimAccount, claimIdOf, type CreateClaimDetails } from '../adapters/banks/claims-api';
import { newId, ID_PREFIX } from '../domain/ids';
import { sqlArgs } from '../db/event-batch';

/**
 * Overdue day (decision 0246): N issued kröfur all pass their eindagi on one day; one collection run
 * (the workflow and its activities on the test stack's worker, the simulated bank over HTTP) marks
 * each overdue, takes its warning, records the events and alters every krafa at the bank with its
 * totals. Records the run's time, the time by which every warning was issued and the process's peak
 * RSS (API, worker and simulated bank share the process here, so it bounds the worker's).
 * Setup writes the kröfur directly as issued (they are the input, not what is measured) and creates
 * them in the simulated bank's ledger.
 *
 *   npx tsx bench/overdue-day.ts [n=100000]
 */
const N = Number(process.argv[2] ?? 100_000);
const EINDAGI = '2027-03-01'; // a Monday; overdue from Tuesday 2027-03-02
const RUN_AT = Date.parse('2027-03-02T00:05:00Z');

function peakRssMb(): number {
  const kb = Number(/VmHWM:\s+(\d+)/.exec(readFileSync('/proc/self/status', 'utf8'))?.[1] ?? 0);
  return Math.round(kb / 1024);
}

async function main(): Promise<void> {
  await withStack({ bank: true }, async (stack) => {
    const m = await stack.merchant('Overdue day');
    await stack.knex('merchants').where({ id: m.id }).update({ kennitala: '5510730339' });
    const t0 = performance.now();
    const claims = Array.from({ length: N }, (_, i) => {
      const key = { claimantId: '5510730339', account: claimAccount('0001', i + 1), dueDate: EINDAGI };
      return { id: newId(ID_PREFIX.claim), number: i + 1, key, bankId: claimIdOf(key) };
    });
    for (let i = 0; i < N; i += 10_000) {
      const part = claims.slice(i, i + 10_000);
      await stack.knex.raw(
        `insert into claims (id, merchant_id, livemode, status, payer_kennitala, claimant_kennitala, bank,
                             claim_number, bank_claim_id, amount, due_date, final_due_date, cancellation_date,
                             terms, issued_at)
         select u.id, ?, false, 'issued', '1201603389', '5510730339', '0001', u.n, u.b, 25000, ?, ?, '2031-03-01',
                '{"defaultInterest":{"referenceDate":"DueDate","baseTimeType":"360"}}', now()
           from unnest(?::text[], ?::int[], ?::text[]) as u(id, n, b)`,
        sqlArgs(
          m.id,
          EINDAGI,
          EINDAGI,
          part.map((c) => c.id),
          part.map((c) => c.number),
          part.map((c) => c.bankId),
        ),
      );
    }
    const ledger = stack.bank!.bank.ledger;
    for (const c of claims) {
      const details: CreateClaimDetails = {
        claimKey: c.key,
        payorId: '1201603389',
        templateCode: 'SKL',
        amount: 25_000,
        finalDueDate: EINDAGI,
        expirationDate: '2031-03-01',
        defaultInterest: { referenceDate: 'DueDate', baseTimeType: '360' },
      };
      ledger.create(details);
    }
    const seededS = (performance.now() - t0) / 1000;
    console.log(`seeded ${N} issued kröfur in ${seededS.toFixed(1)} s`);

    const start = Date.now();
    const totals = await stack.client.workflow.execute('collectionRun', {
      workflowId: `collection-run/test/bench/${start}`,
      taskQueue: stack.taskQueue,
      args: [{ livemode: false, asOf: RUN_AT, testClockId: null }],
    });
    const runS = (Date.now() - start) / 1000;
    const row = (
      await stack.knex.raw<{ rows: Record<string, string>[] }>(
        `select count(*) filter (where kind = 'warning') as warnings,
                count(distinct claim_id) filter (where kind = 'warning') as claims,
                count(*) filter (where bank_altered_at is not null) as altered,
                extract(epoch from max(created_at) filter (where kind = 'warning') - ?::timestamptz) as last_warning_s,
                extract(epoch from max(bank_altered_at) - ?::timestamptz) as last_altered_s
           from claim_collection_steps where merchant_id = ?`,
        [new Date(start).toISOString(), new Date(start).toISOString(), m.id],
      )
    ).rows[0]!;
    const events = (
      await stack.knex.raw<{ rows: { n: string }[] }>(
        `select count(*) as n from events where merchant_id = ? and type = 'claim.collection_step_taken'`,
        [m.id],
      )
    ).rows[0]!.n;
    const sample = ledger.details(ledger.find(claims[0]!.bankId)!);
    console.log(
      JSON.stringify(
        {
          kröfur: N,
          totals,
          runSeconds: runS,
          warnings: Number(row.warnings),
          distinctClaimsWarned: Number(row.claims),
          stepsAlteredAtBank: Number(row.altered),
          lastWarningRecordedAfterS: Number(row.last_warning_s),
          lastBankAlterationAfterS: Number(row.last_altered_s),
          warningEvents: Number(events),
          sampleAtBank: {
            otherDefaultCostsAmountDue: sample.otherDefaultCostsAmountDue,
            totalAmountDue: sample.totalAmountDue,
          },
          peakRssMb: peakRssMb(),
        },
        null,
        2,
      ),
    );
  });
}

void main();
