/**
 * The simulated bank's file exchange end to end, with real parts only: claims paid in the bank's
 * ledger and through its payer page, captures and refunds reported by the real simulated acquirer
 * (HTTP), days closed over HTTP, files fetched over SFTP with the real SftpTransport and read with
 * the real camt parser; a pain.001 in the outbox is booked once as a debit.
 */
import { createReadStream, existsSync, mkdtempSync, readFileSync, readdirSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { parseCamt, type CamtEntry, type CamtEvent, type CamtStatement } from '../../adapters/banks/camt';
import { claimAccount, claimIdOf, type CreateClaimDetails } from '../../adapters/banks/claims-api';
import { createHttpCardAcquirer } from '../../adapters/acquirers/http-card-acquirer';
import { startTestAcquirer, type TestAcquirer } from '../helpers/acquirer';
import { createSftpTransport } from '../../adapters/banks/sftp-transport';
import type { BankFileTransport } from '../../adapters/banks/bank-file-transport';
import {
  simulatedBankConnection,
  startSimulatedBankWithFiles,
  type SimulatedBankWithFiles,
} from '../helpers/simulated-bank';

const CLAIMANT = '5510730339';
const order = { currency: 'ISK', merchant: 'acct_test', return_url: 'http://127.0.0.1/return' } as const;
const PAYOR = '1201603389';
let clock = new Date('2026-11-23T10:00:00Z'); // a Monday
let sim: SimulatedBankWithFiles;
let transport: BankFileTransport;
let acquirerService: TestAcquirer;
let acquirerUrl: string;
let local: string;
let seq = 0;

function claim(): CreateClaimDetails {
  seq++;
  return {
    claimKey: { claimantId: CLAIMANT, account: claimAccount('0001', seq), dueDate: '2026-12-01' },
    payorId: PAYOR,
    templateCode: '001',
    amount: 10_000 + seq,
    finalDueDate: '2026-12-15',
  };
}

beforeAll(async () => {
  local = mkdtempSync(path.join(tmpdir(), 'bank-files-local-'));
  sim = await startSimulatedBankWithFiles({ now: () => clock });
  transport = createSftpTransport(simulatedBankConnection(sim).sftp);
  acquirerService = await startTestAcquirer({ bankUrl: sim.baseUrl });
  acquirerUrl = acquirerService.url;
});

afterAll(async () => {
  await transport?.close();
  await acquirerService?.stop();
  await sim?.stop();
  rmSync(local, { recursive: true, force: true });
  if (sim) rmSync(sim.rootDir, { recursive: true, force: true });
});

/** Waits until the bank holds `n` acquirer items (reports are sent without waiting on them). */
async function reported(n: number): Promise<void> {
  for (let i = 0; i < 200 && sim.bank.account.acquirerItems().length < n; i++)
    await new Promise((r) => setTimeout(r, 10));
  expect(sim.bank.account.acquirerItems()).toHaveLength(n);
}

async function closeDayOverHttp(date: string): Promise<{ status: number; body: Record<string, unknown> }> {
  const res = await fetch(`${sim.baseUrl}/_sim/bank/close-day`, {
    method: 'POST',
    headers: { 'content-type': 'application/json' },
    body: JSON.stringify({ date }),
  });
  return { status: res.status, body: (await res.json()) as Record<string, unknown> };
}

interface ParsedFile {
  type: string;
  statement: CamtStatement;
  entries: CamtEntry[];
  failedChecks: string[];
}

/** Lists the inbox over SFTP, downloads and archives every file, and parses it. */
async function fetchInbox(): Promise<Map<string, ParsedFile>> {
  const out = new Map<string, ParsedFile>();
  for (const file of await transport.listInbox()) {
    const downloaded = await transport.download(file.name, path.join(local, file.name));
    await transport.archive(file.name);
    const events: CamtEvent[] = [];
    for await (const ev of parseCamt(createReadStream(downloaded.localPath))) events.push(ev);
    const message = events.find((e) => e.kind === 'message');
    const statement = events.find((e) => e.kind === 'statement');
    const end = events.find((e) => e.kind === 'statement-end');
    if (message?.kind !== 'message' || statement?.kind !== 'statement' || end?.kind !== 'statement-end')
      throw new Error(`${file.name}: incomplete`);
    out.set(file.name, {
      type: message.message.type,
      statement: statement.statement,
      entries: events.flatMap((e) => (e.kind === 'entry' ? [e.entry] : [])),
      failedChecks: end.totals.checks.filter((c) => !c.ok).map((c) => c.check),
    });
  }
  return out;
}

const balances = (s: CamtStatement) => s.Bal.map((b) => `${b.Tp} ${b.Amt.minor} ${b.CdtDbtInd}`);

function painFile(payouts: { id: string; amount: number }[], account = '013326000133'): string {
  const sum = payouts.reduce((n, p) => n + p.amount, 0);
  const txs = payouts
    .map(
      (p) => `<CdtTrfTxInf><PmtId><EndToEndId>${p.id}</EndToEndId></PmtId>
<Amt><InstdAmt Ccy="ISK">${p.amount}</InstdAmt></Amt><Cdtr><Nm>Kaffi &amp; kökur ehf.</Nm>
<Id><OrgId><Othr><Id>4101010100</Id></Othr></OrgId></Id></Cdtr>
<CdtrAcct><Id><Othr><Id>011126004242</Id></Othr></Id></CdtrAcct><RmtInf><Ustrd>str_1</Ustrd></RmtInf></CdtTrfTxInf>`,
    )
    .join('\n');
  return `<?xml version="1.0" encoding="UTF-8"?>
<Document xmlns="urn:iso:std:iso:20022:tech:xsd:pain.001.001.09"><CstmrCdtTrfInitn>
<GrpHdr><MsgId>${payouts[0]!.id}</MsgId><CreDtTm>2026-11-24T12:00:00+00:00</CreDtTm><NbOfTxs>${payouts.length}</NbOfTxs>
<CtrlSum>${sum}</CtrlSum><InitgPty><Nm>Skil</Nm></InitgPty></GrpHdr>
<PmtInf><PmtInfId>str_1</PmtInfId><PmtMtd>TRF</PmtMtd><NbOfTxs>${payouts.length}</NbOfTxs><CtrlSum>${sum}</CtrlSum>
<ReqdExctnDt><Dt>2026-11-24</Dt></ReqdExctnDt><Dbtr><Nm>Skil</Nm></Dbtr>
<DbtrAcct><Id><Othr><Id>${account}</Id></Othr></Id></DbtrAcct>
<DbtrAgt><FinInstnId><Othr><Id>NOTPROVIDED</Id></Othr></FinInstnId></DbtrAgt>
${txs}</PmtInf></CstmrCdtTrfInitn></Document>`;
}

describe('simulated bank files', () => {
  // One banking week, in order: each test continues the account's book from the one before.
  const paid: { claimId: string; amount: number; batch: string }[] = [];
  const captures: { id: string; amount: number }[] = [];

  it('deposits the acquirer’s captures and refunds of a day as one ACQ entry', async () => {
    const acquirer = createHttpCardAcquirer({ baseUrl: acquirerUrl });
    for (const amount of [4_990, 12_500]) {
      const card = await acquirer.tokenize({
        number: '4242424242424242',
        exp_month: 12,
        exp_year: 2030,
        cvc: '123',
      });
      const auth = await acquirer.authorize({
        token: card.token,
        amount,
        idempotency_key: `a-${amount}`,
        ...order,
      });
      await acquirer.capture({ authorization: auth.id, amount, idempotency_key: `c-${amount}` });
      captures.push({ id: auth.id, amount });
    }
    const refund = await acquirer.refund({
      authorization: captures[1]!.id,
      amount: 2_500,
      idempotency_key: 'r-1',
    });
    // A renewal the worker charges goes through the same shared acquirer (decision 0102).
    const renewalCard = await acquirer.tokenize({
      number: '4242424242424242',
      exp_month: 12,
      exp_year: 2030,
      cvc: '123',
    });
    const renewal = await acquirer.authorize({
      token: renewalCard.token,
      amount: 990,
      idempotency_key: 'renewal-1',
      ...order,
    });
    await acquirer.capture({ authorization: renewal.id, amount: 990, idempotency_key: 'renewal-1-c' });
    await reported(4);

    // A repeated report (an acquirer retry) is acknowledged and changes nothing.
    const repeat = await fetch(`${sim.baseUrl}/_sim/acquirer-settlements`, {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify({
        id: refund.id,
        kind: 'refund',
        authorization: captures[1]!.id,
        amount: 2_500,
        at: clock.toISOString(),
      }),
    });
    expect(repeat.status).toBe(200);
    expect(await repeat.json()).toEqual({ id: refund.id, duplicate: true });
    expect(sim.bank.account.acquirerItems()).toHaveLength(4);

    const closed = await closeDayOverHttp('2026-11-23');
    expect(closed.status).toBe(201);
    expect(closed.body).toMatchObject({ files: ['camt053_20261123_1.xml'], acquirerItems: 4 });

    const files = await fetchInbox();
    expect([...files.keys()]).toEqual(['camt053_20261123_1.xml']); // no claim payments booked today: no camt.054
    const stmt = files.get('camt053_20261123_1.xml')!;
    expect(stmt.failedChecks).toEqual([]);
    expect(stmt.statement).toMatchObject({
      Id: 'STM-20261123',
      ElctrncSeqNb: '1',
      Acct: { Othr: '013326000133' },
    });
    const net = 4_990 + 12_500 - 2_500 + 990;
    expect(balances(stmt.statement)).toEqual(['OPBD 0 CRDT', `CLBD ${net} CRDT`]);
    expect(stmt.entries).toHaveLength(1);
    const deposit = stmt.entries[0]!;
    expect(deposit).toMatchObject({
      AcctSvcrRef: 'ACQ-20261123',
      NtryRef: 'ACQ-20261123',
      CdtDbtInd: 'CRDT',
      booked: true,
    });
    expect(deposit.Amt.minor).toBe(BigInt(net));
    // Reports arrive in any order; the bank lists them by time, then id.
    const byId = (a: unknown[], b: unknown[]) => String(a[0]).localeCompare(String(b[0]));
    expect(
      deposit.NtryDtls[0]!.TxDtls.map((t) => [t.Refs.TxId, t.CdtDbtInd, t.Amt?.minor]).sort(byId),
    ).toEqual(
      [
        [captures[0]!.id, 'CRDT', 4_990n],
        [captures[1]!.id, 'CRDT', 12_500n],
        [refund.id, 'DBIT', 2_500n],
        [renewal.id, 'CRDT', 990n],
      ].sort(byId),
    );
  });

  it('credits claim payments on their booking day: camt.054 with details, camt.053 lump sum', async () => {
    // Paid on Monday, booked by the bank on the next banking day (Tuesday).
    const ledger = sim.bank.ledger;
    for (let i = 0; i < 2; i++) {
      const created = ledger.create(claim());
      const tx = ledger.pay(created.claimId);
      paid.push({ claimId: created.claimId, amount: tx.totalAmountPaid!, batch: tx.transactionBatchId! });
    }
    // One through the payer's online bank page.
    const viaPage = ledger.create(claim());
    const res = await fetch(`${sim.bank.payerUrl}/pay`, {
      method: 'POST',
      headers: { 'content-type': 'application/x-www-form-urlencoded' },
      body: new URLSearchParams({ kt: PAYOR, claimId: viaPage.claimId }).toString(),
      redirect: 'manual',
    });
    expect(res.status).toBe(303);
    const pageTx = ledger.transactionsOf(viaPage.claimId)[0]!;
    paid.push({
      claimId: viaPage.claimId,
      amount: pageTx.totalAmountPaid!,
      batch: pageTx.transactionBatchId!,
    });
    // A reversal of the first payment, on the same day: a DBIT detail in the same lump sum.
    const reversal = ledger.reverse(paid[0]!.claimId);

    clock = new Date('2026-11-24T16:00:00Z');
    const result = await sim.closeDay();
    expect(result).toMatchObject({
      date: '2026-11-24',
      files: ['camt054_20261124_1.xml', 'camt053_20261124_2.xml'],
      claimTransactions: 4,
      acquirerItems: 0,
    });
    const files = await fetchInbox();
    const ntfctn = files.get('camt054_20261124_1.xml')!;
    expect(ntfctn.type).toBe('camt.054');
    expect(ntfctn.failedChecks).toEqual([]);
    expect(ntfctn.statement).toMatchObject({ element: 'Ntfctn', Id: 'CLM-20261124', ElctrncSeqNb: '1' });
    const lump = paid[1]!.amount + paid[2]!.amount; // the first payment was reversed
    expect(ntfctn.entries).toHaveLength(1);
    const entry = ntfctn.entries[0]!;
    expect(entry).toMatchObject({ AcctSvcrRef: 'CLM-20261124', CdtDbtInd: 'CRDT' });
    expect(entry.Amt.minor).toBe(BigInt(lump));
    expect(entry.NtryDtls[0]!.Btch).toMatchObject({ NbOfTxs: 4, TtlAmt: { minor: BigInt(lump) } });
    const details = entry.NtryDtls[0]!.TxDtls;
    expect(details.map((d) => [d.Refs.EndToEndId, d.Refs.TxId, d.CdtDbtInd, d.Amt?.minor])).toEqual([
      ...paid.map((p) => [p.claimId, p.batch, 'CRDT', BigInt(p.amount)]),
      [paid[0]!.claimId, reversal.transactionBatchId, 'DBIT', BigInt(paid[0]!.amount)],
    ]);
    expect(details[0]!.RmtInf.Strd[0]!.CdtrRefInf?.Ref).toBe(paid[0]!.claimId);
    expect(details[0]!.RltdPties.Dbtr?.Id).toBe(PAYOR);
    expect(paid[0]!.claimId).toBe(
      claimIdOf({ claimantId: CLAIMANT, account: claimAccount('0001', 1), dueDate: '2026-12-01' }),
    );

    const stmt = files.get('camt053_20261124_2.xml')!;
    expect(stmt.failedChecks).toEqual([]);
    const opening = 4_990 + 12_500 - 2_500 + 990;
    expect(balances(stmt.statement)).toEqual([`OPBD ${opening} CRDT`, `CLBD ${opening + lump} CRDT`]);
    expect(stmt.entries.map((e) => [e.AcctSvcrRef, e.CdtDbtInd, e.Amt.minor, e.NtryDtls.length])).toEqual([
      ['CLM-20261124', 'CRDT', BigInt(lump), 0],
    ]);
  });

  it('books a payout file from the outbox as a DBIT exactly once; a bad file is rejected', async () => {
    const before = sim.bank.account.balance;
    await transport.upload('pain001_po_1.xml', Buffer.from(painFile([{ id: 'po_1', amount: 20_000 }])));
    // The same payout again in a second file (a re-upload), and a file debiting another account.
    await transport.upload('pain001_po_1_again.xml', Buffer.from(painFile([{ id: 'po_1', amount: 20_000 }])));
    await transport.upload(
      'pain001_other.xml',
      Buffer.from(painFile([{ id: 'po_2', amount: 5 }], '011126000001')),
    );

    clock = new Date('2026-11-25T16:00:00Z');
    const result = await closeDayOverHttp('2026-11-25');
    expect(result.status).toBe(201);
    expect(result.body).toMatchObject({
      files: ['camt053_20261125_3.xml'],
      payouts: ['po_1'],
      rejectedFiles: ['pain001_other.xml'],
    });
    const stmt = (await fetchInbox()).get('camt053_20261125_3.xml')!;
    expect(stmt.failedChecks).toEqual([]);
    expect(balances(stmt.statement)).toEqual([`OPBD ${before} CRDT`, `CLBD ${before - 20_000} CRDT`]);
    expect(stmt.entries).toHaveLength(1);
    const debit = stmt.entries[0]!;
    expect(debit).toMatchObject({ CdtDbtInd: 'DBIT', booked: true });
    expect(debit.Amt.minor).toBe(20_000n);
    expect(debit.NtryDtls[0]!.TxDtls[0]).toMatchObject({
      Refs: { EndToEndId: 'po_1', PmtInfId: 'str_1' },
      CdtDbtInd: 'DBIT',
      RltdPties: { Cdtr: { Nm: 'Kaffi & kökur ehf.', Id: '4101010100' }, CdtrAcct: { Othr: '011126004242' } },
    });
    const outbox = path.join(sim.rootDir, 'outbox');
    expect(readdirSync(outbox).filter((n) => n.endsWith('.xml'))).toEqual([]);
    expect(readdirSync(path.join(outbox, 'processed')).sort()).toEqual([
      '20261125_pain001_po_1.xml',
      '20261125_pain001_po_1_again.xml',
    ]);
    expect(
      readFileSync(path.join(outbox, 'rejected', '20261125_pain001_other.xml.reason.txt'), 'utf8'),
    ).toMatch(/debits account 011126000001/);

    // The next day: nothing left to book, and the statement is still published (empty).
    clock = new Date('2026-11-26T16:00:00Z');
    const next = await sim.closeDay();
    expect(next.payouts).toEqual([]);
    const empty = (await fetchInbox()).get('camt053_20261126_4.xml')!;
    expect(empty.failedChecks).toEqual([]);
    expect(empty.entries).toEqual([]);
    expect(balances(empty.statement)).toEqual([
      `OPBD ${before - 20_000} CRDT`,
      `CLBD ${before - 20_000} CRDT`,
    ]);
  });

  it('publishes nothing new when a day is closed twice, and refuses to close an earlier day', async () => {
    const again = await closeDayOverHttp('2026-11-26');
    expect(again.status).toBe(200);
    expect(again.body).toMatchObject({ alreadyClosed: true, files: [], statementSeq: 4 });
    expect(await transport.listInbox()).toEqual([]);
    const earlier = await closeDayOverHttp('2026-11-20');
    expect(earlier.status).toBe(409);
    expect(await transport.listInbox()).toEqual([]);
  });

  it('keeps the book across a restart with the same data directory', async () => {
    const dataDir = mkdtempSync(path.join(tmpdir(), 'bank-data-'));
    const rootDir = mkdtempSync(path.join(tmpdir(), 'bank-root-'));
    try {
      const first = await startSimulatedBankWithFiles({
        dataDir,
        rootDir,
        now: () => new Date('2026-11-23T09:00:00Z'),
      });
      const post = await fetch(`${first.baseUrl}/_sim/acquirer-settlements`, {
        method: 'POST',
        headers: { 'content-type': 'application/json' },
        body: JSON.stringify({
          id: 'auth_x',
          kind: 'capture',
          authorization: 'auth_x',
          amount: 700,
          at: '2026-11-23T09:00:00Z',
        }),
      });
      expect(post.status).toBe(201);
      await first.closeDay('2026-11-23');
      const hostKey = first.hostKeySha256;
      await first.stop();

      const second = await startSimulatedBankWithFiles({
        dataDir,
        rootDir,
        now: () => new Date('2026-11-24T09:00:00Z'),
      });
      try {
        expect(second.hostKeySha256).toBe(hostKey);
        expect((await second.closeDay('2026-11-23')).alreadyClosed).toBe(true);
        const next = await second.closeDay('2026-11-24');
        expect(next).toMatchObject({
          statementSeq: 2,
          openingBalance: 700,
          closingBalance: 700,
          acquirerItems: 0,
        });
        expect(existsSync(path.join(rootDir, 'inbox', 'camt053_20261124_2.xml'))).toBe(true);
      } finally {
        await second.stop();
      }
    } finally {
      rmSync(dataDir, { recursive: true, force: true });
      rmSync(rootDir, { recursive: true, force: true });
    }
  });
});
