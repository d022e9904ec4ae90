/**
 * Reconcile benchmark (decision 0092): a generated camt.054 of claim payments in decision 0090's format
 * (one notification per banking day, one lump-sum entry with a `TxDtls` per payment) is put in the
 * simulated bank's SFTP inbox, and one bank-sync file activity takes it through transport (real SFTP
 * client and server), store (raw bytes by sha256, bank_files), parse, insert and set-based matching
 * against the claims and claim transactions seeded for it. In the same process, the bare parse of
 * the same file is measured as the baseline. Each size runs in a fresh child process, so one size's
 * peak RSS does not hide the other's. Settlement lines are not part of the measured path (see
 * bench/RESULTS.md). Prints one JSON line per size.
 *
 *   npx tsx bench/reconcile.ts [sizes…]      e.g. npx tsx bench/reconcile.ts 100000 1000000
 */
import { statementStats } from './statement-stats';
import { spawn } from 'node:child_process';
import { once } from 'node:events';
import { createReadStream, mkdtempSync, rmSync, statSync } from 'node:fs';
import { loadavg, tmpdir } from 'node:os';
import { join } from 'node:path';
import { parseCamt } from '../adapters/banks/camt';
import { SIMULATED_BANK_FOLDERS, startSimulatedBankSftp } from '../simulators/bank/sftp-server';
import { createBankSyncActivities } from '../activities/bank-sync';
import { createBankSyncService } from '../services/bank-sync/bank-sync-service';
import { createLogger } from '../stack/logger';
import { Client, Connection } from '@temporalio/client';
import globalSetup from '../test/helpers/global-setup';
import globalTeardown from '../test/helpers/global-teardown';
import { createTestDatabase } from '../test/helpers/database';
import { createKnex } from '../db/knex';
import { createPostgresRawFileStore } from '../db/raw-bank-files';
import { createMerchantRepository } from '../db/merchants';
import { createSettlementRunRepository } from '../db/settlement-runs';
import { writeClaimNotifications, type ClaimPaymentDetail } from './reconcile-files';

const PER_DAY = 10_000; // details per day's lump-sum entry: ~4 MB, well under the parser's 16 MiB bound
// The bank sync's parser threads (BANK_SYNC_PARSE_WORKERS); the bare parse uses the same.
const PARSE_WORKERS = Number(process.env.RECONCILE_PARSE_WORKERS ?? 0);
const PER_MERCHANT = 900_000; // claim numbers are 6 digits per merchant
const CLAIMANT = '5012131870';
const dueOf = (m: number) => `2026-12-${String(m + 1).padStart(2, '0')}`;
const claimIdOf = (i: number) => {
  const m = Math.floor(i / PER_MERCHANT);
  const number = String((i % PER_MERCHANT) + 1).padStart(6, '0');
  return `${CLAIMANT}013366${number}+${dueOf(m).replaceAll('-', '')}`;
};
const amountOf = (i: number) => 1000 + ((i * 7919) % 250000);
const detail = (i: number): ClaimPaymentDetail => ({
  claimId: claimIdOf(i),
  transactionBatchId: `TB${i}`,
  amount: amountOf(i),
  payer: '0101302989',
});
const dayOf = (d: number) => new Date(Date.UTC(2026, 0, 1) + d * 86_400_000).toISOString().slice(0, 10);

/** Peak RSS of a phase: sampled every 50 ms, plus the process high-water mark. */
function rssMeter(): { stop: () => number } {
  let peak = process.memoryUsage().rss;
  const timer = setInterval(() => (peak = Math.max(peak, process.memoryUsage().rss)), 50);
  return {
    stop: () => {
      clearInterval(timer);
      return Math.max(peak, process.memoryUsage().rss);
    },
  };
}

/** What the measuring child needs to reach the database, Temporal and the simulated bank. */
interface Job {
  size: number;
  merchantIds: string[];
  name: string;
  databaseUrl: string;
  temporalAddress: string;
  sftpPort: number;
  hostKeySha256: string;
  /** The SFTP server's archive, where the file lands after sync: the bare parse reads it there. */
  archivedPath: string;
}

/**
 * The measured half, in its own process with only what a worker needs (knex, a Temporal client,
 * the SFTP client): transport → store → parse → insert → match, then the bare parse of the same file.
 */
async function measure(job: Job): Promise<void> {
  const k = createKnex(job.databaseUrl);
  const connectionToTemporal = await Connection.connect({ address: job.temporalAddress });
  const client = new Client({ connection: connectionToTemporal, namespace: 'default' });
  try {
    const connection = {
      id: 'bench',
      livemode: false,
      sftp: {
        host: '127.0.0.1',
        port: job.sftpPort,
        username: 'skil',
        password: 'pw',
        hostKeySha256: job.hostKeySha256,
        folders: SIMULATED_BANK_FOLDERS,
        settleMs: 100,
        // The connection's default, plain get (decision 0080); RECONCILE_FAST_GET=1 opts into fastGet.
        useFastGet: process.env.RECONCILE_FAST_GET === '1',
      },
      collectionAccount: { account: '013326000133', kennitala: CLAIMANT },
    };
    const activities = createBankSyncActivities({
      bankSync: createBankSyncService({
        knex: k,
        client,
        log: createLogger('bench', 'silent'),
        bankConnections: [connection],
        // The production store (decision 0145): the bytes go into PostgreSQL and are read back from it.
        rawFiles: createPostgresRawFileStore(k),
        parseWorkers: PARSE_WORKERS,
      }),
    });

    const baselineRss = process.memoryUsage().rss;
    const syncRss = rssMeter();
    await statementStats.reset(k);
    const t0 = process.hrtime.bigint();
    const outcome = await activities.syncBankFile({ connection: 'bench', name: job.name });
    const matchedSeconds = Number(process.hrtime.bigint() - t0) / 1e9;
    // Settlement lines: the day's run per merchant, built by the settlement part's own gather
    // (RECONCILE_LINES=0 leaves it out; see bench/RESULTS.md for why the 1,000,000 run does).
    const tLines = process.hrtime.bigint();
    const runs = createSettlementRunRepository(k);
    let lines = 0;
    for (const merchantId of process.env.RECONCILE_LINES === '0' ? [] : job.merchantIds) {
      const run = await runs.gather({
        scope: { merchantId, livemode: false },
        settlementDate: '2026-11-21',
        cutoff: new Date(),
        autoApproveMaxNet: 0,
      });
      lines += run?.line_count ?? 0;
    }
    const linesMs = Math.round(Number(process.hrtime.bigint() - tLines) / 1e6);
    await statementStats.top(k);
    const syncSeconds = Number(process.hrtime.bigint() - t0) / 1e9;
    const syncPeak = syncRss.stop();
    const matched = await k.raw<{ rows: { n: number }[] }>(
      `select count(*)::int as n from bank_matches where kind = 'claim_payment'`,
    );

    const parseRss = rssMeter();
    const t1 = process.hrtime.bigint();
    let parsedDetails = 0;
    for await (const e of parseCamt(createReadStream(job.archivedPath, { highWaterMark: 256 * 1024 }), {
      workers: PARSE_WORKERS,
    })) {
      if (e.kind === 'entry') parsedDetails += e.entry.NtryDtls.reduce((s, d) => s + d.TxDtls.length, 0);
    }
    const parseSeconds = Number(process.hrtime.bigint() - t1) / 1e9;
    const parsePeak = parseRss.stop();

    const perSecond = Math.round(job.size / syncSeconds);
    const parsePerSecond = Math.round(parsedDetails / parseSeconds);
    console.log(
      JSON.stringify({
        bench: 'reconcile',
        date: new Date().toISOString(),
        claimPayments: job.size,
        fileMB: Math.round(statSync(job.archivedPath).size / 1e6),
        status: outcome.status,
        matched: matched.rows[0]!.n,
        exceptions: outcome.exceptions,
        settlementLines: lines,
        stepsMs: { ...outcome.timingsMs, settlementLines: linesMs },
        seconds: Number(syncSeconds.toFixed(2)),
        entriesPerSecond: perSecond,
        entriesPerSecondToMatching: Math.round(job.size / matchedSeconds),
        baselineRssMB: Math.round(baselineRss / 1e6),
        peakRssMB: Math.round(syncPeak / 1e6),
        bareParseSeconds: Number(parseSeconds.toFixed(2)),
        bareParseEntriesPerSecond: parsePerSecond,
        bareParsePeakRssMB: Math.round(parsePeak / 1e6),
        ratioToBareParse: Number((perSecond / parsePerSecond).toFixed(2)),
        processMaxRssMB: Math.round((process.resourceUsage().maxRSS * 1024) / 1e6),
        heapLimitMB: process.env.RECONCILE_HEAP_MB ?? 'default',
        parseWorkers: PARSE_WORKERS,
        loadAverage: Number(loadavg()[0]!.toFixed(1)),
      }),
    );
    // Exactly once, all of it: every payment stored, matched and parsed, nothing left over.
    const wrong = [
      outcome.status !== 'processed' && `status ${outcome.status}`,
      matched.rows[0]!.n !== job.size && `${matched.rows[0]!.n} of ${job.size} matched`,
      outcome.exceptions !== 0 && `${outcome.exceptions} exceptions`,
      parsedDetails !== job.size && `bare parse read ${parsedDetails} of ${job.size}`,
    ].filter(Boolean);
    if (wrong.length > 0) {
      console.error(`reconcile: wrong result: ${wrong.join(', ')}`);
      process.exitCode = 1;
    }
  } finally {
    await connectionToTemporal.close();
    await k.destroy();
  }
}

/** Seeds claims and claim transactions for `size` payments, publishes the file, runs the measuring child. */
async function runSize(size: number): Promise<void> {
  const db = await createTestDatabase();
  const k = db.knex;
  const root = mkdtempSync(join(tmpdir(), 'reconcile-sftp-'));
  const bankData = mkdtempSync(join(tmpdir(), 'reconcile-bank-'));
  const sftp = await startSimulatedBankSftp({
    rootDir: root,
    dataDir: bankData,
    users: [{ username: 'skil', password: 'pw' }],
  });
  try {
    const merchants = createMerchantRepository(k);
    const ids: string[] = [];
    for (let m = 0; m < Math.ceil(size / PER_MERCHANT); m++)
      ids.push((await merchants.create({ name: `Reconcile ${m}` })).id);
    // The claims the notification pays and the transactions the IOBWS sync recorded, set-based.
    await k.raw(
      `insert into claims (id, merchant_id, livemode, status, payer_kennitala, claimant_kennitala, bank, claim_number,
                           bank_claim_id, amount, amount_paid, due_date, final_due_date, cancellation_date)
       select 'clm_b' || i, (?::text[])[i / ? + 1], false, 'paid', '0101302989', ?, '0133', i % ? + 1,
              ? || '013366' || lpad((i % ? + 1)::text, 6, '0') || '+202612' || lpad((i / ? + 1)::text, 2, '0'),
              1000 + (i::bigint * 7919) % 250000, 1000 + (i::bigint * 7919) % 250000, '2026-12-01', '2026-12-31', '2027-12-31'
         from generate_series(0, ? - 1) i`,
      [ids, PER_MERCHANT, CLAIMANT, PER_MERCHANT, CLAIMANT, PER_MERCHANT, PER_MERCHANT, size],
    );
    await k.raw(
      `insert into claim_transactions (claim_id, bank_transaction_key, payment_type, amount, data)
       select c.id, c.bank_claim_id || '|TB' || substr(c.id, 6), 'Complete', c.amount,
              jsonb_build_object('transactionBatchId', 'TB' || substr(c.id, 6))
         from claims c where c.id like 'clm_b%'`,
    );
    // The claim payments sync captured each paid claim as a payment intent (decision 0062, claim fee
    // 0.8 %, 25–250): what the settlement run turns into lines.
    await k.raw(
      `insert into payment_intents (id, merchant_id, livemode, amount, status, amount_captured, fee_amount, captured_at)
       select 'pi_b' || substr(c.id, 6), c.merchant_id, false, c.amount, 'succeeded', c.amount,
              greatest(25, least(250, round(c.amount * 0.008))), now() - interval '1 hour'
         from claims c where c.id like 'clm_b%'`,
    );
    await k.raw(`update claims set payment_intent_id = 'pi_b' || substr(id, 6) where id like 'clm_b%'`);
    // A table in steady state has statistics (autovacuum); freshly seeded ones must be analyzed.
    await k.raw('analyze claims, claim_transactions, payment_intents');
    const check = await k.raw<{ rows: { id: string }[] }>(
      `select bank_claim_id as id from claims where id = 'clm_b0'`,
    );
    if (check.rows[0]?.id !== claimIdOf(0))
      throw new Error(`seeded claim id ${check.rows[0]?.id} ≠ ${claimIdOf(0)}`);

    const name = `camt054_bench_${size}.xml`;
    await writeClaimNotifications(join(root, 'inbox', name), size, PER_DAY, detail, dayOf);
    const job: Job = {
      size,
      merchantIds: ids,
      name,
      databaseUrl: db.url,
      temporalAddress: process.env.SKIL_TEST_TEMPORAL_ADDRESS!,
      sftpPort: sftp.port,
      hostKeySha256: sftp.hostKeyFingerprint,
      archivedPath: join(root, 'archive', name),
    };
    // Asynchronously: the simulated bank's SFTP server runs on this process's event loop.
    // RECONCILE_HEAP_MB caps the measured process's V8 heap, as a worker's deployment would.
    const heap = process.env.RECONCILE_HEAP_MB;
    const flags = heap ? [`--max-old-space-size=${heap}`] : [];
    // RECONCILE_CPU_PROFILE_DIR writes a V8 CPU profile of the measured process there.
    const profileDir = process.env.RECONCILE_CPU_PROFILE_DIR;
    if (profileDir) flags.push('--cpu-prof', `--cpu-prof-dir=${profileDir}`);
    const child = spawn(
      process.execPath,
      [...process.execArgv, ...flags, __filename, '--measure', JSON.stringify(job)],
      {
        stdio: 'inherit',
      },
    );
    const [code] = (await once(child, 'exit')) as [number | null];
    if (code !== 0) throw new Error(`the measuring process exited with ${code}`);
  } finally {
    await sftp.stop();
    await db.drop();
    for (const d of [root, bankData]) rmSync(d, { recursive: true, force: true });
  }
}

async function main(): Promise<void> {
  if (process.argv[2] === '--measure') return measure(JSON.parse(process.argv[3]!) as Job);
  const sizes = process.argv.slice(2).map(Number);
  await globalSetup();
  try {
    for (const size of sizes.length > 0 ? sizes : [100_000, 1_000_000]) await runSize(size);
  } finally {
    await globalTeardown();
  }
}

if (require.main === module) {
  main().then(
    () => process.exit(0),
    (err: unknown) => {
      console.error(err);
      process.exit(1);
    },
  );
}
