import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { claimAccount, claimIdOf, type CreateClaimDetails } from '../adapters/banks/claims-api';
import { IobwsClaimsClient, waitForBatch } from '../adapters/banks/iobws-claims-client';
import { SIMULATED_BANK_CLIENT, startSimulatedBank } from '../simulators/bank/claims-bank';
import { createLogger } from '../stack/logger';
import { percentile } from './harness';

/**
 * bench/claim-issuance: N claims issued through the simulated bank's batch endpoint by the real
 * IOBWS client over real HTTP (same process, loopback): POST /v1/batches, then poll
 * GET /v1/batches/{id} until nothing is pending. Measures claims/s end to end and each batch's
 * round trip (POST → all processed). Target: ≥ 1 000 claims/s.
 *
 *   npx tsx bench/claim-issuance.ts [--claims 10000] [--batch 1000] [--concurrency 2] [--persist]
 */

function arg(name: string, fallback: number): number {
  const i = process.argv.indexOf(`--${name}`);
  return i > 0 ? Number(process.argv[i + 1]) : fallback;
}

async function main(): Promise<void> {
  const total = arg('claims', 10_000);
  const batchSize = arg('batch', 1_000);
  const concurrency = arg('concurrency', 2);
  const persist = process.argv.includes('--persist');
  const dataDir = persist ? await mkdtemp(path.join(tmpdir(), 'claim-bench-')) : undefined;
  const bank = await startSimulatedBank({ log: createLogger('bench', 'warn'), ...(dataDir && { dataDir }) });
  const client = new IobwsClaimsClient({
    baseUrl: bank.url,
    clientId: SIMULATED_BANK_CLIENT.clientId,
    clientSecret: SIMULATED_BANK_CLIENT.clientSecret,
  });

  const claims: CreateClaimDetails[] = Array.from({ length: total }, (_, i) => ({
    claimKey: { claimantId: '5510730339', account: claimAccount('0001', i + 1), dueDate: '2026-12-01' },
    payorId: i % 2 ? '1201603389' : '3108962099',
    templateCode: '001',
    amount: 1_000 + (i % 5_000),
    finalDueDate: '2026-12-15',
    reference: `INV-${i + 1}`,
    paymentFee: { printingFee: 390, paperlessFee: 250 },
    defaultInterest: { referenceDate: 'DueDate', baseAmountType: 'Amount', baseTimeType: '360' },
  }));
  const batches: CreateClaimDetails[][] = [];
  for (let i = 0; i < total; i += batchSize) batches.push(claims.slice(i, i + batchSize));

  const roundTrips: number[] = [];
  let polls = 0;
  let failed = 0;
  let issued = 0;
  const started = performance.now();
  let next = 0;
  await Promise.all(
    Array.from({ length: concurrency }, async () => {
      for (let b = next++; b < batches.length; b = next++) {
        const t0 = performance.now();
        const accepted = await client.createClaimsBatch(batches[b]!, {
          idempotencyIdentity: `claim-batch/bench/${b}`,
        });
        const done = await waitForBatch(client, accepted.batchId!, { intervalMs: 10, timeoutMs: 120_000 });
        roundTrips.push(performance.now() - t0);
        polls += done.polls;
        failed += done.status.failed ?? 0;
        issued += done.status.success ?? 0;
      }
    }),
  );
  const seconds = (performance.now() - started) / 1000;
  // Spot-check that the bank really holds them.
  const sample = await client.getClaim(claimIdOf(claims[total - 1]!.claimKey));
  client.close();
  await bank.stop();
  if (dataDir) await rm(dataDir, { recursive: true, force: true });
  roundTrips.sort((a, b) => a - b);
  process.stdout.write(
    JSON.stringify({
      bench: 'claim-issuance',
      claims: total,
      batchSize,
      concurrency,
      persist,
      issued,
      failed,
      seconds: Number(seconds.toFixed(2)),
      claimsPerSecond: Math.round(issued / seconds),
      batches: batches.length,
      batchRoundTripP50Ms: Number(percentile(roundTrips, 50).toFixed(1)),
      batchRoundTripMaxMs: Number(roundTrips.at(-1)!.toFixed(1)),
      pollsPerBatch: Number((polls / batches.length).toFixed(1)),
      lastClaimStatus: sample.claimStatus,
      rssMb: Math.round(process.memoryUsage().rss / 1e6),
    }) + '\n',
  );
}

void main();
