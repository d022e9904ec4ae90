import { withStack } from './harness';
import { insertClaim } from '../db/claims';
import { randomBase62 } from '../domain/ids';
import type { ClaimBatchTotals } from '../workflows/claim-batch';

/**
 * bench/claim-issuance-workflow: the whole issuance path, end to end. N pending claims are stored
 * in PostgreSQL (not timed), then claim-batch workflows on the real Temporal dev server and worker
 * take them in batches, create them through the simulated bank's batch endpoint with the real
 * IOBWS client (requests and responses validated against IOBWS-Claims3.1.yaml, as in the tests),
 * poll the batch results and record every claim key. Measures claims/s from the first workflow
 * start to the last claim key recorded, and each workflow's round trip. Target: ≥ 1 000 claims/s.
 *
 *   npx tsx bench/claim-issuance-workflow.ts [--claims 10000] [--batch 1000] [--concurrency 2]
 */

function arg(name: string, fallback: number): number {
  const i = process.argv.indexOf(`--${name}`);
  return i > 0 ? Number(process.argv[i + 1]) : fallback;
}

async function main(): Promise<void> {
  const total = arg('claims', 10_000);
  const batchSize = arg('batch', 1_000);
  const concurrency = arg('concurrency', 2);
  await withStack({ bank: true }, async (stack) => {
    const m = await stack.merchant('Kröfuhafi ehf.');
    await stack.knex('merchants').where({ id: m.id }).update({ kennitala: '5510730339' });
    const seedStart = performance.now();
    await stack.knex.transaction(async (trx) => {
      for (let i = 0; i < total; i++) {
        await insertClaim(trx, {
          merchantId: m.id,
          livemode: false,
          claimantKennitala: '5510730339',
          bankAccount: '011126000001',
          customerId: null,
          payerKennitala: i % 2 ? '1201603389' : '3108962099',
          amount: 1_000 + (i % 5_000),
          dueDate: '2027-03-01',
          finalDueDate: '2027-03-15',
          cancellationDate: '2027-06-15',
          noticeFee: 250,
        });
      }
    });
    const seedSeconds = (performance.now() - seedStart) / 1000;

    const rounds = Math.ceil(total / batchSize);
    const roundTrips: number[] = [];
    const results: ClaimBatchTotals[] = [];
    const started = performance.now();
    let next = 0;
    await Promise.all(
      Array.from({ length: concurrency }, async () => {
        while (next < rounds) {
          next++;
          const t0 = performance.now();
          const batch = `bench-${randomBase62(8)}`;
          const totals = await stack.client.workflow.execute('claimBatch', {
            workflowId: `claim-batch/test/${batch}`,
            taskQueue: stack.taskQueue,
            args: [{ livemode: false, batch, limit: batchSize, pollMs: 50 }],
          });
          roundTrips.push(performance.now() - t0);
          results.push(totals as ClaimBatchTotals);
        }
      }),
    );
    const seconds = (performance.now() - started) / 1000;
    const issued = results.reduce((s, r) => s + r.issued, 0);
    const failed = results.reduce((s, r) => s + r.failed, 0);
    const polls = results.reduce((s, r) => s + r.polls, 0);
    const recorded = Number(
      (
        await stack
          .knex('claims')
          .where({ merchant_id: m.id, status: 'issued' })
          .count<{ n: string }[]>('* as n')
      )[0]!.n,
    );
    roundTrips.sort((a, b) => a - b);
    console.log(
      JSON.stringify(
        {
          claims: total,
          batchSize,
          concurrency,
          workflows: results.length,
          issued,
          failed,
          recordedIssued: recorded,
          seedSeconds: Number(seedSeconds.toFixed(1)),
          seconds: Number(seconds.toFixed(2)),
          claimsPerSecond: Math.round(issued / seconds),
          roundTripMs: {
            p50: Math.round(roundTrips[Math.floor(roundTrips.length / 2)]!),
            max: Math.round(roundTrips[roundTrips.length - 1]!),
          },
          pollsPerWorkflow: Number((polls / results.length).toFixed(1)),
        },
        null,
        2,
      ),
    );
    if (recorded !== total || failed !== 0) process.exitCode = 1;
  });
}

void main();
