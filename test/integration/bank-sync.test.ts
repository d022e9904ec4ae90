import { createHash } from 'node:crypto';
import { createPostgresRawFileStore } from '../../db/raw-bank-files';
/**
 * Bank sync (decision 0092) end to end below the simulated bank's publishing: camt files
 * dropped into the real SFTP server's inbox, the real SFTP client, the bankSync workflow on the
 * Temporal dev server, real PostgreSQL. Covers Done-means 3 (same files twice), 4 (hostile files
 * quarantined, the next one processed) and 5 (every public sample lands as entries).
 */
import { copyFileSync, mkdtempSync, readFileSync, readdirSync, rmSync, writeFileSync } from 'node:fs';
import { createReadStream } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { Worker } from '@temporalio/worker';
import {
  startSimulatedBankSftp,
  SIMULATED_BANK_FOLDERS,
  type SimulatedBankSftp,
} from '../../simulators/bank/sftp-server';
import type { BankConnection } from '../../adapters/banks/bank-connections';
import { parseCamt } from '../../adapters/banks/camt';
import { createWorker } from '../../worker/create-worker';
import { createLogger } from '../../stack/logger';
import { randomBase62 } from '../../domain/ids';
import { bankSync, type BankSyncResult } from '../../workflows/bank-sync';
import { listOpenBankExceptions } from '../../db/bank-exceptions';
import { createBankExceptionService } from '../../services/settlement/bank-exceptions';
import { listBankEntriesOfFile } from '../../db/bank-entries';
import { listBankFilesByDay } from '../../db/bank-files';
import { claimNotificationXml, statementXml, COLLECTION_ACCOUNT } from '../../bench/reconcile-files';
import { startTestStack, TEST_SECRETS_KEY, type TestStack } from '../helpers/stack';

jest.setTimeout(120_000);

const FIXTURES = join(__dirname, '..', 'fixtures');
let stack: TestStack;
let sftp: SimulatedBankSftp;
let root: string;
let bankData: string;
let worker: { worker: Worker; running: Promise<void>; close: () => Promise<void> };
let connection: BankConnection;
let merchantId: string;

const CLAIMANT = '5012131870';
const claimId = (n: number) => `${CLAIMANT}0133660000${String(n).padStart(2, '0')}+20261201`;

beforeAll(async () => {
  stack = await startTestStack({ worker: false });
  root = mkdtempSync(join(tmpdir(), 'bank-sync-root-'));
  bankData = mkdtempSync(join(tmpdir(), 'bank-sync-bank-'));
  sftp = await startSimulatedBankSftp({
    rootDir: root,
    dataDir: bankData,
    users: [{ username: 'skil', password: 'pw' }],
  });
  connection = {
    id: `sim-${randomBase62(6)}`,
    livemode: false,
    sftp: {
      host: '127.0.0.1',
      port: sftp.port,
      username: 'skil',
      password: 'pw',
      hostKeySha256: sftp.hostKeyFingerprint,
      folders: SIMULATED_BANK_FOLDERS,
      settleMs: 150,
    },
    collectionAccount: { account: '0133-26-000133', kennitala: CLAIMANT },
  };
  const created = await createWorker({
    knex: stack.knex,
    client: stack.client,
    log: createLogger('test', process.env.TEST_LOG_LEVEL ?? 'silent'),
    address: process.env.SKIL_TEST_TEMPORAL_ADDRESS!,
    namespace: 'default',
    taskQueue: stack.taskQueue,
    secretsKey: TEST_SECRETS_KEY,
    workflowBundlePath: process.env.SKIL_TEST_WORKFLOW_BUNDLE!,
    acquirer: stack.acquirer.client,
    bankConnections: [connection],
  });
  worker = { worker: created.worker, running: created.worker.run(), close: () => created.connection.close() };
  merchantId = (await stack.merchant('Bank sync merchant')).id;
  await seed();
});

afterAll(async () => {
  worker.worker.shutdown();
  await worker.running;
  await worker.close();
  await sftp.stop();
  await stack.stop();
  for (const d of [root, bankData]) rmSync(d, { recursive: true, force: true });
});

/** Claims paid through IOBWS (as the claim payments sync records them), a card capture and refund, a submitted payout. */
async function seed(): Promise<void> {
  const k = stack.knex;
  for (const n of [1, 2]) {
    await k('claims').insert({
      id: `clm_bs${n}`,
      merchant_id: merchantId,
      livemode: false,
      status: 'paid',
      payer_kennitala: '0101302989',
      claimant_kennitala: CLAIMANT,
      bank: '0133',
      claim_number: n,
      bank_claim_id: claimId(n),
      amount: n * 1500,
      amount_paid: n * 1500,
      due_date: '2026-12-01',
      final_due_date: '2026-12-01',
      cancellation_date: '2027-12-01',
    });
    await k('claim_transactions').insert({
      claim_id: `clm_bs${n}`,
      bank_transaction_key: `${claimId(n)}|TB${n}|2026-11-20T10:00:00|Complete|${n * 1500}`,
      payment_type: 'Complete',
      amount: n * 1500,
      data: JSON.stringify({ transactionBatchId: `TB${n}`, totalAmountPaid: n * 1500 }),
    });
  }
  const captured = new Date('2026-11-20T09:00:00Z');
  await k('payment_intents').insert({
    id: 'pi_bs1',
    merchant_id: merchantId,
    livemode: false,
    amount: 10_000,
    status: 'succeeded',
    acquirer_authorization: 'AUTH-1',
    amount_captured: 10_000,
    amount_refunded: 2_000,
    fee_amount: 150,
    captured_at: captured,
  });
  await k('refunds').insert({
    id: 're_bs1',
    merchant_id: merchantId,
    livemode: false,
    payment_intent_id: 'pi_bs1',
    amount: 2_000,
    status: 'succeeded',
    idempotency_key: 're_bs1',
    acquirer_reference: 'RF-1',
  });
  await k('settlement_runs').insert({
    id: 'stl_bs1',
    merchant_id: merchantId,
    livemode: false,
    settlement_date: '2026-11-19',
    cutoff: new Date('2026-11-19T23:59:59Z'),
    status: 'submitted',
    gross: 5_100,
    fee: 100,
    net: 5_000,
    line_count: 1,
    submitted_at: new Date(),
  });
  await settledPayment('stl_bs1', 'pi_bs0', 5_100, 100, new Date('2026-11-19T09:00:00Z'));
  await k('payouts').insert({
    id: 'po_bs1',
    merchant_id: merchantId,
    livemode: false,
    settlement_run_id: 'stl_bs1',
    amount: 5_000,
    destination_account: '0133-26-012345',
    destination_kennitala: '4403051230',
    idempotency_key: 'stl_bs1:payout',
    end_to_end_id: 'po_bs1',
    channel: 'sftp',
    status: 'submitted',
  });
}

/**
 * The payment a fixture run settled, and its line: a run holds the lines it was gathered with, so
 * the ledger invariant checked when the stack stops (decision 0107) holds for these runs too.
 */
async function settledPayment(run: string, id: string, gross: number, fee: number, capturedAt: Date) {
  await stack.knex('payment_intents').insert({
    id,
    merchant_id: merchantId,
    livemode: false,
    amount: gross,
    status: 'succeeded',
    acquirer_authorization: `AUTH-${id}`,
    amount_captured: gross,
    fee_amount: fee,
    captured_at: capturedAt,
  });
  await stack.knex('settlement_lines').insert({
    settlement_run_id: run,
    merchant_id: merchantId,
    livemode: false,
    kind: 'payment',
    fee_kind: 'card_online',
    source_id: id,
    payment_intent_id: id,
    gross,
    fee,
    net: gross - fee,
    occurred_at: capturedAt,
  });
}

const drop = (name: string, content: string | Buffer) => writeFileSync(join(root, 'inbox', name), content);

async function sync(): Promise<BankSyncResult> {
  return stack.client.workflow.execute(bankSync, {
    workflowId: `bank-sync/${connection.id}`,
    taskQueue: stack.taskQueue,
    args: [{ connection: connection.id }],
  });
}

const GOOD_054 = claimNotificationXml('NTF-20261120-1', [
  {
    day: '2026-11-20',
    details: [
      { claimId: claimId(1), transactionBatchId: 'TB1', amount: 1500, payer: '0101302989' },
      { claimId: claimId(2), transactionBatchId: 'TB2', amount: 3000, payer: '0101302989' },
      { claimId: claimId(3), transactionBatchId: 'TB3', amount: 700, payer: '0101302989' },
    ],
  },
]);
const statement = (msgId: string) =>
  statementXml({
    msgId,
    day: '2026-11-20',
    seq: 1,
    opening: 100_000,
    entries: [
      { amount: 5_200, acctSvcrRef: 'CLM-20261120' },
      {
        amount: 8_000,
        acctSvcrRef: 'ACQ-20261120',
        details: [
          { amount: 10_000, txId: 'AUTH-1' },
          { amount: -2_000, txId: 'RF-1' },
        ],
      },
      { amount: -5_000, details: [{ amount: -5_000, endToEndId: 'po_bs1' }] },
      { amount: 999 },
      { amount: 20, reversal: true },
      { amount: 50, status: 'PDNG' },
    ],
  });
const GOOD_053 = statement('STM-MSG-1');

/** Everything money-related the sync writes, as counts and sums, to compare before and after. */
async function ledger(): Promise<Record<string, string>> {
  const one = async (sql: string) => JSON.stringify((await stack.knex.raw<{ rows: unknown[] }>(sql)).rows[0]);
  return {
    entries: await one(`select count(*), coalesce(sum(amount), 0) as sum from bank_entries`),
    statements: await one(
      `select count(*), coalesce(sum(credits), 0) as c, coalesce(sum(debits), 0) as d from bank_statements`,
    ),
    matches: await one(`select count(*), coalesce(sum(amount), 0) as sum from bank_matches`),
    payouts: await one(
      `select string_agg(status || ':' || coalesce(bank_entry_id::text, '-'), ',') from payouts`,
    ),
    runs: await one(`select string_agg(status, ',') from settlement_runs`),
    audit: await one(`select count(*) from audit_log`),
    entryExceptions: await one(`select count(*) from bank_exceptions where kind <> 'duplicate'`),
  };
}

test('a camt.054/053 pair is stored, matched to claims, deposits and a payout, and the rest is queued', async () => {
  drop('camt053_20261120_1.xml', GOOD_053);
  drop('camt054_20261120_1.xml', GOOD_054);
  const result = await sync();
  // Notifications first, so the statement's lump sum finds its notification.
  expect(result.files.map((f) => [f.name, f.status])).toEqual([
    ['camt054_20261120_1.xml', 'processed'],
    ['camt053_20261120_1.xml', 'processed'],
  ]);
  const [n054, n053] = result.files;
  expect(n054).toMatchObject({ entries: 1, details: 3, claimPayments: 2, exceptions: 1 });
  expect(n053).toMatchObject({ entries: 6, lumpSums: 1, deposits: 1, payouts: 1, exceptions: 2 });

  const matches = await stack
    .knex('bank_matches')
    .orderBy('id')
    .select('kind', 'object_id', 'amount', 'detail_index');
  expect(matches).toEqual([
    {
      kind: 'claim_payment',
      object_id: `${claimId(1)}|TB1|2026-11-20T10:00:00|Complete|1500`,
      amount: 1500,
      detail_index: 0,
    },
    {
      kind: 'claim_payment',
      object_id: `${claimId(2)}|TB2|2026-11-20T10:00:00|Complete|3000`,
      amount: 3000,
      detail_index: 1,
    },
    { kind: 'claim_lump_sum', object_id: 'CLM-20261120', amount: 5200, detail_index: 0 },
    { kind: 'acquirer_deposit', object_id: 'ACQ-20261120', amount: 8000, detail_index: 0 },
    { kind: 'payout', object_id: 'po_bs1', amount: 5000, detail_index: 0 },
  ]);
  // The notification's third detail is no claim payment of ours; the lump sum still equals its
  // notification entry (5,200), which is what the statement line is matched against.
  const exceptions = await listOpenBankExceptions(stack.knex, { livemode: false });
  expect(exceptions.map((e) => [e.kind, e.detail_index, e.actual_amount]).sort()).toEqual(
    [
      ['reversal', 0, 20],
      ['unmatched', 0, 999],
      ['unmatched', 2, 700],
    ].sort(),
  );
  const entries053 = await listBankEntriesOfFile(stack.knex, { livemode: false }, n053!.fileId);
  expect(entries053.map((e) => [e.amount, e.match_status, e.matched_kind])).toEqual([
    [5200, 'matched', 'claim_lump_sum'],
    [8000, 'matched', 'acquirer_deposit'],
    [5000, 'matched', 'payout'],
    [999, 'exception', null],
    [20, 'exception', null],
    [50, 'information', null],
  ]);
  const payout = await stack.knex('payouts').where({ id: 'po_bs1' }).first();
  expect(payout).toMatchObject({ status: 'paid', bank_entry_id: entries053[2]!.id });
  expect(await stack.knex('settlement_runs').where({ id: 'stl_bs1' }).first()).toMatchObject({
    status: 'paid',
  });
  const audit = await stack.knex('audit_log').where({ object_id: 'po_bs1' });
  expect(audit).toHaveLength(1);
  expect(audit[0]).toMatchObject({ actor_kind: 'system', action: 'payout.paid', merchant_id: merchantId });
  // Raw bytes kept under their hash in the shared store; both files archived on the server; the
  // day's list shows them.
  const files = await stack
    .knex('bank_files')
    .select<{ sha256: string; storage_path: string }[]>('sha256', 'storage_path');
  expect(files).toHaveLength(2);
  const store = createPostgresRawFileStore(stack.knex);
  for (const f of files) {
    const hash = createHash('sha256');
    for await (const chunk of store.open(f.storage_path)) hash.update(chunk as Buffer);
    expect(hash.digest('hex')).toBe(f.sha256);
  }
  expect(readdirSync(join(root, 'inbox'))).toEqual([]);
  expect(readdirSync(join(root, 'archive')).sort()).toEqual([
    'camt053_20261120_1.xml',
    'camt054_20261120_1.xml',
  ]);
  const today = new Date().toISOString().slice(0, 10);
  const listed = await listBankFilesByDay(stack.knex, { livemode: false }, today);
  expect(listed.map((f) => [f.name, f.status, f.entry_count, f.open_exceptions]).sort()).toEqual(
    [
      ['camt053_20261120_1.xml', 'processed', 6, 2],
      ['camt054_20261120_1.xml', 'processed', 1, 1],
    ].sort(),
  );
});

test('Done 3: the same file again, the same bytes under another name, and the same statement in another file change nothing', async () => {
  const before = await ledger();
  drop('camt053_20261120_1.xml', GOOD_053); // same name, same bytes
  drop('statement-copy.xml', GOOD_053); // same bytes, another name
  drop('camt054_20261120_1.xml', GOOD_054);
  drop('camt053_20261120_1_resent.xml', statement('STM-MSG-RESENT')); // other bytes, same statement
  const result = await sync();
  const byName = Object.fromEntries(result.files.map((f) => [f.name, f]));
  expect(byName['camt053_20261120_1.xml']).toMatchObject({ status: 'processed', firstTime: false });
  expect(byName['statement-copy.xml']).toMatchObject({ status: 'processed', firstTime: false });
  expect(byName['camt054_20261120_1.xml']).toMatchObject({ status: 'processed', firstTime: false });
  expect(byName['camt053_20261120_1_resent.xml']).toMatchObject({ status: 'duplicate', firstTime: true });
  expect(await ledger()).toEqual(before);
  const dup = await stack.knex('bank_exceptions').where({ kind: 'duplicate' });
  expect(dup).toHaveLength(1);
  expect(dup[0]).toMatchObject({
    bank_file_id: byName['camt053_20261120_1_resent.xml']!.fileId,
    bank_entry_id: null,
  });
  expect(await stack.knex('bank_files').count({ n: '*' }).first()).toEqual({ n: 3 });
  expect(readdirSync(join(root, 'inbox'))).toEqual([]);

  // A whole second run over an empty inbox, and processing a finished file again, change nothing either.
  await sync();
  expect(await ledger()).toEqual(before);
});

test('Done 4: billion laughs, an external entity and a truncated file are quarantined; the next good file processes', async () => {
  for (const name of ['billion-laughs.xml', 'external-entity.xml', 'truncated.xml']) {
    copyFileSync(join(FIXTURES, 'bank-sync', name), join(root, 'inbox', `a-${name}`));
  }
  drop(
    'camt053_20261121_2.xml',
    statementXml({
      msgId: 'STM-MSG-2',
      day: '2026-11-21',
      seq: 2,
      opening: 108_169,
      entries: [{ amount: 1_234 }],
    }),
  );
  const result = await sync();
  const byName = Object.fromEntries(result.files.map((f) => [f.name, f]));
  expect(byName['a-billion-laughs.xml']).toMatchObject({
    status: 'quarantined',
    reason: expect.stringMatching(/^doctype_forbidden: /),
  });
  expect(byName['a-external-entity.xml']).toMatchObject({
    status: 'quarantined',
    reason: expect.stringMatching(/^doctype_forbidden: /),
  });
  expect(byName['a-truncated.xml']).toMatchObject({
    status: 'quarantined',
    reason: expect.stringMatching(/^truncated: /),
  });
  expect(byName['camt053_20261121_2.xml']).toMatchObject({ status: 'processed', entries: 1, exceptions: 1 });
  const quarantined = await stack.knex('bank_files').where({ status: 'quarantined' }).orderBy('name');
  expect(quarantined.map((f: { quarantine_reason: string }) => f.quarantine_reason.split(':')[0])).toEqual([
    'doctype_forbidden',
    'doctype_forbidden',
    'truncated',
  ]);
  // Nothing of a quarantined file is stored as a statement or an entry.
  const ids = quarantined.map((f: { id: string }) => f.id);
  expect(await stack.knex('bank_entries').whereIn('bank_file_id', ids).count({ n: '*' }).first()).toEqual({
    n: 0,
  });
  expect(await stack.knex('bank_statements').whereIn('bank_file_id', ids).count({ n: '*' }).first()).toEqual({
    n: 0,
  });
  // Archived (their bytes are kept locally under their hash for inspection), so they are not fetched again.
  expect(readdirSync(join(root, 'inbox'))).toEqual([]);
});

test('Done 5: every public sample goes through the sync and lands as entries (foreign accounts: exceptions)', async () => {
  const samples = readdirSync(join(FIXTURES, 'bank-files')).filter((n) => n.endsWith('.xml'));
  expect(samples.length).toBe(8);
  // What the parser alone says of each sample: its entry count, or the code it refuses it with.
  const expected: Record<string, { entries: number } | { code: string }> = {};
  for (const name of samples) {
    let entries = 0;
    try {
      for await (const e of parseCamt(createReadStream(join(FIXTURES, 'bank-files', name))))
        if (e.kind === 'entry') entries++;
      expected[name] = { entries };
    } catch (err) {
      expected[name] = { code: (err as { code: string }).code };
    }
    copyFileSync(join(FIXTURES, 'bank-files', name), join(root, 'inbox', name));
  }
  const result = await sync();
  expect(result.files).toHaveLength(8);
  let stored = 0;
  for (const f of result.files) {
    const want = expected[f.name]!;
    if ('code' in want) {
      // Refused by the parser: quarantined with its code, even when it also repeats a statement.
      expect(f).toMatchObject({
        status: 'quarantined',
        reason: expect.stringMatching(new RegExp(`^${want.code}: `)),
      });
      continue;
    }
    // A sample repeating another's statement identity is a duplicate; every other lands whole.
    if (f.status === 'duplicate') continue;
    expect(f).toMatchObject({ status: 'processed', entries: want.entries });
    stored++;
    const rows = await listBankEntriesOfFile(stack.knex, { livemode: false }, f.fileId);
    expect(rows).toHaveLength(want.entries);
    // None of these is Skil's collection account: every booked entry is an unknown_account exception.
    const booked = rows.filter((r) => r.booked);
    const unknown = await stack
      .knex('bank_exceptions')
      .where({ bank_file_id: f.fileId, kind: 'unknown_account' });
    expect(unknown).toHaveLength(booked.length);
    expect(
      rows.every((r) => (r.booked ? r.match_status === 'exception' : r.match_status === 'information')),
    ).toBe(true);
  }
  // genkgo's v04/v08 camt.054 repeat the v02 file's statement identity (same id, sequence and
  // account): received after it they are duplicates and post nothing, as decision 0090 requires.
  // Its v04/v08 camt.053 repeat one too, but fail their totals: broken beats repeated (0092).
  expect(Object.fromEntries(result.files.map((f) => [f.name, f.status]))).toEqual({
    'fi_fffs_camt053_001_02_statement.xml': 'processed',
    'fi_fffs_camt054_001_02_credit_advice.xml': 'quarantined',
    'genkgo_camt053_001_02_multi_statement.xml': 'processed',
    'genkgo_camt053_001_04.xml': 'quarantined',
    'genkgo_camt053_001_08.xml': 'quarantined',
    'genkgo_camt054_001_02.xml': 'processed',
    'genkgo_camt054_001_04.xml': 'duplicate',
    'genkgo_camt054_001_08.xml': 'duplicate',
  });
  expect(stored).toBe(3);
  expect(COLLECTION_ACCOUNT).toBe('013326000133');
  expect(readFileSync(join(FIXTURES, 'bank-sync', 'truncated.xml'), 'utf8')).not.toMatch(/<\/Document>/);
});

test('a file that fails half-way is retried by Temporal and stored and matched exactly once', async () => {
  const k = stack.knex;
  await k('claims').insert({
    id: 'clm_bs4',
    merchant_id: merchantId,
    livemode: false,
    status: 'paid',
    payer_kennitala: '0101302989',
    claimant_kennitala: CLAIMANT,
    bank: '0133',
    claim_number: 4,
    bank_claim_id: claimId(4),
    amount: 4_000,
    amount_paid: 4_000,
    due_date: '2026-12-01',
    final_due_date: '2026-12-01',
    cancellation_date: '2027-12-01',
  });
  await k('claim_transactions').insert({
    claim_id: 'clm_bs4',
    bank_transaction_key: `${claimId(4)}|TB4`,
    payment_type: 'Complete',
    amount: 4_000,
    data: JSON.stringify({ transactionBatchId: 'TB4' }),
  });
  // The first attempt fails after its statement and entries are written (at the first match).
  await k.raw(`
    create sequence bank_sync_fail_once;
    create function bank_sync_fail_once() returns trigger language plpgsql as $$
    begin
      if nextval('bank_sync_fail_once') = 1 then raise exception 'injected failure half-way'; end if;
      return null;
    end $$;
    create trigger bank_sync_fail_once before insert on bank_matches
      for each statement execute function bank_sync_fail_once();`);
  try {
    drop(
      'camt054_20261122_1.xml',
      claimNotificationXml('NTF-20261122-1', [
        {
          day: '2026-11-22',
          details: [{ claimId: claimId(4), transactionBatchId: 'TB4', amount: 4_000, payer: '0101302989' }],
        },
      ]),
    );
    const result = await sync();
    expect(result.files).toEqual([
      expect.objectContaining({
        name: 'camt054_20261122_1.xml',
        status: 'processed',
        // The failed attempt had recorded the file (before parsing): the retry finds it.
        firstTime: false,
        claimPayments: 1,
      }),
    ]);
    const attempts = await k.raw<{ rows: { last_value: number }[] }>(
      `select last_value from bank_sync_fail_once`,
    );
    expect(attempts.rows[0]!.last_value).toBeGreaterThanOrEqual(2); // it did fail once, and was retried
    const fileId = result.files[0]!.fileId;
    expect(await k('bank_files').where({ name: 'camt054_20261122_1.xml' }).count({ n: '*' }).first()).toEqual(
      { n: 1 },
    );
    expect(await k('bank_files').where({ id: fileId }).first()).toMatchObject({
      status: 'processed',
      entry_count: 1,
    });
    expect(await k('bank_statements').where({ bank_file_id: fileId }).count({ n: '*' }).first()).toEqual({
      n: 1,
    });
    const entries = await listBankEntriesOfFile(k, { livemode: false }, fileId);
    expect(entries.map((e) => [e.amount, e.match_status, e.matched_kind])).toEqual([
      [4000, 'matched', 'claim_payment'],
    ]);
    expect(
      await k('bank_matches')
        .where({ object_id: `${claimId(4)}|TB4` })
        .count({ n: '*' })
        .first(),
    ).toEqual({ n: 1 });
  } finally {
    await k.raw(
      `drop trigger bank_sync_fail_once on bank_matches; drop function bank_sync_fail_once(); drop sequence bank_sync_fail_once;`,
    );
  }
});

test('a payout debited with another amount and a deposit listing another amount are exceptions; nothing is paid', async () => {
  const k = stack.knex;
  await k('payment_intents').insert({
    id: 'pi_bs2',
    merchant_id: merchantId,
    livemode: false,
    amount: 3_000,
    status: 'succeeded',
    acquirer_authorization: 'AUTH-2',
    amount_captured: 3_000,
    fee_amount: 45,
    captured_at: new Date('2026-11-23T09:00:00Z'),
  });
  await k('settlement_runs').insert({
    id: 'stl_bs2',
    merchant_id: merchantId,
    livemode: false,
    settlement_date: '2026-11-22',
    cutoff: new Date('2026-11-22T23:59:59Z'),
    status: 'submitted',
    gross: 7_100,
    fee: 100,
    net: 7_000,
    line_count: 1,
    submitted_at: new Date(),
  });
  await settledPayment('stl_bs2', 'pi_bs3', 7_100, 100, new Date('2026-11-22T09:00:00Z'));
  await k('payouts').insert({
    id: 'po_bs2',
    merchant_id: merchantId,
    livemode: false,
    settlement_run_id: 'stl_bs2',
    amount: 7_000,
    destination_account: '0133-26-012345',
    destination_kennitala: '4403051230',
    idempotency_key: 'stl_bs2:payout',
    end_to_end_id: 'po_bs2',
    channel: 'sftp',
    status: 'submitted',
  });
  const auditBefore = await k('audit_log').count({ n: '*' }).first();
  drop(
    'camt053_20261123_3.xml',
    statementXml({
      msgId: 'STM-MSG-3',
      day: '2026-11-23',
      seq: 3,
      opening: 0,
      entries: [
        { amount: -6_999, details: [{ amount: -6_999, endToEndId: 'po_bs2' }] },
        { amount: 2_500, acctSvcrRef: 'ACQ-20261123', details: [{ amount: 2_500, txId: 'AUTH-2' }] },
      ],
    }),
  );
  const result = await sync();
  expect(result.files).toEqual([
    expect.objectContaining({ status: 'processed', payouts: 0, deposits: 0, exceptions: 2 }),
  ]);
  const exceptions = await k('bank_exceptions')
    .where({ bank_file_id: result.files[0]!.fileId })
    .orderBy('bank_entry_id')
    .select('kind', 'detail_index', 'expected_amount', 'actual_amount');
  expect(exceptions).toEqual([
    { kind: 'amount_mismatch', detail_index: 0, expected_amount: 7_000, actual_amount: 6_999 },
    { kind: 'amount_mismatch', detail_index: 0, expected_amount: 3_000, actual_amount: 2_500 },
  ]);
  expect(await k('payouts').where({ id: 'po_bs2' }).first()).toMatchObject({
    status: 'submitted',
    bank_entry_id: null,
  });
  expect(await k('settlement_runs').where({ id: 'stl_bs2' }).first()).toMatchObject({
    status: 'submitted',
    paid_at: null,
  });
  expect(await k('audit_log').count({ n: '*' }).first()).toEqual(auditBefore);
  expect(
    await k('bank_matches').whereIn('object_id', ['po_bs2', 'ACQ-20261123']).count({ n: '*' }).first(),
  ).toEqual({ n: 0 });
});

test('a lump sum whose notification comes in a later run is matched then, once; another amount is an amount_mismatch', async () => {
  const k = stack.knex;
  // Three days' lump sums, and no notification yet: each is left with an open `unmatched` exception.
  const stmt = await syncOne(
    'camt053_20261124_4.xml',
    statementXml({
      msgId: 'STM-MSG-4',
      day: '2026-11-24',
      seq: 4,
      opening: 0,
      entries: [
        { amount: 2_600, acctSvcrRef: 'CLM-20261124' },
        { amount: 1_000, acctSvcrRef: 'CLM-20261125' },
        { amount: 400, acctSvcrRef: 'CLM-20261126' },
      ],
    }),
  );
  expect(stmt).toMatchObject({ status: 'processed', lumpSums: 0, exceptions: 3 });
  const [sameAmount, otherAmount, operators] = await listBankEntriesOfFile(
    k,
    { livemode: false },
    stmt.fileId,
  );
  const unmatched = async (entryId: number) =>
    k('bank_exceptions').where({ bank_entry_id: entryId, kind: 'unmatched' }).first();
  expect(await unmatched(sameAmount!.id)).toMatchObject({ status: 'open', bank_file_id: stmt.fileId });
  // An operator closes the third by hand before the notification comes: that decision stands.
  const byHand = await unmatched(operators!.id);
  await createBankExceptionService({ knex: k }).markHandled(
    false,
    byHand.id,
    { note: 'booked by hand' },
    { kind: 'operator', id: null, name: 'Finance' },
  );
  const auditBefore = Number((await k('audit_log').count({ n: '*' }).first())!.n);

  const detail = (n: number, amount: number) => ({
    claimId: claimId(n),
    transactionBatchId: `TB${n}`,
    amount,
    payer: '0101302989',
  });
  const NTF = claimNotificationXml('NTF-20261124-1', [
    { day: '2026-11-24', details: [detail(60, 2_600)] },
    { day: '2026-11-25', details: [detail(61, 1_100)] },
    { day: '2026-11-26', details: [detail(62, 400)] },
  ]);
  const ntf = await syncOne('camt054_20261124_1.xml', NTF);
  // Its three details are no claim payments of ours (three exceptions of its own), plus the mismatch.
  expect(ntf).toMatchObject({ status: 'processed', lumpSums: 1, exceptions: 4 });

  expect(await listBankEntriesOfFile(k, { livemode: false }, stmt.fileId)).toEqual([
    expect.objectContaining({ amount: 2_600, match_status: 'matched', matched_kind: 'claim_lump_sum' }),
    expect.objectContaining({ amount: 1_000, match_status: 'exception', matched_kind: null }),
    expect.objectContaining({ amount: 400, match_status: 'exception', matched_kind: null }),
  ]);
  expect(await k('bank_matches').where({ bank_entry_id: sameAmount!.id })).toEqual([
    expect.objectContaining({ kind: 'claim_lump_sum', object_id: 'CLM-20261124', amount: 2_600 }),
  ]);
  expect(await k('bank_matches').whereIn('bank_entry_id', [otherAmount!.id, operators!.id])).toEqual([]);
  const handled = await unmatched(sameAmount!.id);
  expect(handled).toMatchObject({
    status: 'handled',
    resolution_note: 'matched to its notification in camt054_20261124_1.xml',
    resolved_by: 'bank sync',
    resolved_at: expect.any(Date),
  });
  // Another amount: a mismatch of the statement's file (so it is recorded once), the `unmatched` one superseded.
  expect(await k('bank_exceptions').where({ bank_entry_id: otherAmount!.id }).orderBy('kind')).toEqual([
    expect.objectContaining({
      kind: 'amount_mismatch',
      status: 'open',
      bank_file_id: stmt.fileId,
      expected_amount: 1_100,
      actual_amount: 1_000,
    }),
    expect.objectContaining({
      kind: 'unmatched',
      status: 'handled',
      resolution_note:
        'its notification in camt054_20261124_1.xml has another amount: see the amount_mismatch exception',
    }),
  ]);
  expect(await unmatched(operators!.id)).toMatchObject({
    status: 'handled',
    resolution_note: 'booked by hand',
    resolved_by: 'Finance',
  });
  const audit = await k('audit_log').where({ actor_name: 'bank sync', action: 'bank_exception.handled' });
  expect(audit.map((a: { object_id: string }) => a.object_id).sort()).toEqual(
    [handled.id, (await unmatched(otherAmount!.id)).id].sort(),
  );
  expect(audit[0]).toMatchObject({ actor_kind: 'system', object_type: 'bank_exception', livemode: false });
  expect(Number((await k('audit_log').count({ n: '*' }).first())!.n)).toBe(auditBefore + 2);

  // The same notification again, and a whole run over an empty inbox, change nothing.
  const before = await ledger();
  const statuses = async () => k('bank_exceptions').orderBy('id').select('id', 'status', 'resolution_note');
  const statusesBefore = await statuses();
  expect(await syncOne('camt054_20261124_1.xml', NTF)).toMatchObject({
    status: 'processed',
    firstTime: false,
  });
  await sync();
  expect(await ledger()).toEqual(before);
  expect(await statuses()).toEqual(statusesBefore);
});

/** Drops one file and syncs: that file's outcome. */
async function syncOne(name: string, content: string): Promise<BankSyncResult['files'][number]> {
  drop(name, content);
  const result = await sync();
  expect(result.files.map((f) => f.name)).toEqual([name]);
  return result.files[0]!;
}
