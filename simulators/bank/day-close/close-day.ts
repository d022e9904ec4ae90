import { mkdir, readdir, readFile, rename, writeFile } from 'node:fs/promises';
import path from 'node:path';
import type { Logger } from '../../../stack/logger';
import { claimIdOf, type ClaimTransaction } from '../../../adapters/banks/claims-api';
import { isTemporaryName } from '../../../adapters/banks/sftp-transport';
import type { ClaimsLedger } from '../claims-ledger';
import {
  netOf,
  writeCamt053,
  writeCamt054,
  type CamtAccountInfo,
  type CamtEntryInput,
  type CamtTxDetailInput,
} from '../camt-writer';
import type { AcquirerSettlementItem, CollectionAccount } from '../collection-account';
import { readPain001, type Pain001Payout } from '../pain001-reader';
import { payerAccountOf } from '../payer-accounts';
import { CLAIM_PAYMENT_CHARGE } from '../bank-charges';

/**
 * Closing a banking day at the simulated bank (decision 0090, 0091): books the day's claim payments
 * as one lump sum, the acquirer's reported captures and refunds as one deposit, and each payout
 * found in the outbox as a debit, then publishes camt.054 (claims, when there were any) and camt.053
 * (always) into the SFTP inbox. Closing a day that is already closed publishes nothing; closes are
 * serialised, and every item is marked booked in the account book, so nothing is booked twice.
 */

export interface DayCloseResult {
  date: string;
  /** The day was closed before: nothing was published now. */
  alreadyClosed: boolean;
  /** Names of the files published into the inbox by this call. */
  files: string[];
  statementSeq: number;
  openingBalance: number;
  closingBalance: number;
  claimTransactions: number;
  acquirerItems: number;
  /** Payout ids booked as debits. */
  payouts: string[];
  /** Outbox files moved to `outbox/rejected/`. */
  rejectedFiles: string[];
}

export class DayCloseError extends Error {
  override name = 'DayCloseError';
}

export interface DayCloserDeps {
  ledger: ClaimsLedger;
  account: CollectionAccount;
  /** The SFTP root: files are written to `inbox/`, payouts read from `outbox/`. */
  rootDir: string;
  collectionAccount: CamtAccountInfo;
  now: () => Date;
  log: Logger;
}

const compact = (date: string) => date.replaceAll('-', '');

/** Identity of a claim transaction at the bank: the claim and the bank's references to the payment. */
export function claimTransactionKey(tx: ClaimTransaction): string {
  const claimId = tx.claimKey ? claimIdOf(tx.claimKey) : '';
  return [claimId, tx.transactionBatchId ?? '', tx.transactionTimestamp ?? '', tx.paymentType ?? ''].join(
    '|',
  );
}

/** What a claim payment moved: the total the payer paid (a reversal moves it back). */
const claimAmount = (tx: ClaimTransaction): number =>
  Math.abs(Number(tx.totalAmountPaid ?? tx.depositedAmount ?? tx.amount ?? 0));

/** Returns `closeDay(date?)`; the date defaults to today (Iceland = UTC). */
export function createDayCloser(deps: DayCloserDeps): (date?: string) => Promise<DayCloseResult> {
  let queue: Promise<unknown> = Promise.resolve();
  return (date?: string) => {
    const run = queue.catch(() => undefined).then(() => closeDay(deps, date ?? today(deps.now())));
    queue = run;
    return run;
  };
}

const today = (d: Date) => d.toISOString().slice(0, 10);

async function closeDay(deps: DayCloserDeps, date: string): Promise<DayCloseResult> {
  if (!/^\d{4}-\d{2}-\d{2}$/.test(date) || Number.isNaN(Date.parse(`${date}T00:00:00Z`)))
    throw new DayCloseError(`not a date: ${date}`);
  const { account } = deps;
  const done = account.closedDay(date);
  if (done)
    return {
      date,
      alreadyClosed: true,
      files: [],
      statementSeq: done.statementSeq,
      openingBalance: done.openingBalance,
      closingBalance: done.closingBalance,
      claimTransactions: 0,
      acquirerItems: 0,
      payouts: [],
      rejectedFiles: [],
    };
  const last = account.lastClosedDay;
  if (last && last.date > date)
    throw new DayCloseError(`${last.date} is closed already; cannot close ${date}`);

  const createdAt = deps.now();
  const ymd = compact(date);
  const claimTxs = deps.ledger
    .listTransactions({ dateFrom: '0000-01-01', dateTo: date })
    .filter((tx) => !account.isClaimTransactionBooked(claimTransactionKey(tx)));
  const acquirerItems = account.unsettledAcquirerItems(date);
  const outbox = await readOutbox(deps, date);

  const entries: CamtEntryInput[] = [];
  const claimEntry = claimTxs.length > 0 ? claimLumpSum(date, claimTxs) : undefined;
  if (claimEntry) entries.push({ ...claimEntry, batch: false, details: [] });
  if (acquirerItems.length > 0) entries.push(acquirerDeposit(date, acquirerItems));
  outbox.payouts.forEach((p, i) => entries.push(payoutDebit(date, i + 1, p)));

  const files: { name: string; xml: string }[] = [];
  const notificationSeq = claimEntry ? account.nextNotificationSeq() : undefined;
  if (claimEntry && notificationSeq !== undefined) {
    files.push({
      name: `camt054_${ymd}_${notificationSeq}.xml`,
      xml: writeCamt054({
        msgId: `CAMT054-${ymd}-${notificationSeq}`,
        createdAt,
        id: `CLM-${ymd}`,
        seq: notificationSeq,
        account: deps.collectionAccount,
        date,
        entries: [claimEntry],
      }),
    });
  }
  const statementSeq = account.nextStatementSeq();
  const openingBalance = account.balance;
  const net = netOf(entries);
  const closingBalance = openingBalance + net;
  files.push({
    name: `camt053_${ymd}_${statementSeq}.xml`,
    xml: writeCamt053({
      msgId: `CAMT053-${ymd}-${statementSeq}`,
      createdAt,
      id: `STM-${ymd}`,
      seq: statementSeq,
      account: deps.collectionAccount,
      date,
      entries,
      openingBalance,
      closingBalance,
    }),
  });

  // Files first, then the book: a crash in between republishes the same statement (same id and
  // sequence), which bank sync stores once and reports as a duplicate, rather than losing a day.
  const inbox = path.join(deps.rootDir, 'inbox');
  await mkdir(inbox, { recursive: true });
  for (const file of files) {
    const target = path.join(inbox, file.name);
    await writeFile(`${target}.partial`, file.xml);
    await rename(`${target}.partial`, target);
  }
  account.recordClose({
    day: {
      date,
      statementSeq,
      ...(notificationSeq !== undefined && { notificationSeq }),
      files: files.map((f) => f.name),
      openingBalance,
      closingBalance,
    },
    net,
    acquirerItemIds: acquirerItems.map((i) => i.id),
    claimTransactionKeys: claimTxs.map(claimTransactionKey),
    payoutIds: outbox.payouts.map((p) => p.payoutId),
  });
  await account.save();
  // Processed payment files leave the outbox only once booked; a crash before this leaves them
  // there, and the next close skips their already-booked payouts.
  await moveAll(deps.rootDir, outbox.processed, 'processed', date);
  deps.log.info(
    { date, files: files.map((f) => f.name), closingBalance, payouts: outbox.payouts.length },
    'simulated bank: day closed',
  );
  return {
    date,
    alreadyClosed: false,
    files: files.map((f) => f.name),
    statementSeq,
    openingBalance,
    closingBalance,
    claimTransactions: claimTxs.length,
    acquirerItems: acquirerItems.length,
    payouts: outbox.payouts.map((p) => p.payoutId),
    rejectedFiles: outbox.rejected,
  };
}

/** camt.054's lump-sum entry (camt.053 repeats it without details). */
function claimLumpSum(date: string, txs: ClaimTransaction[]): CamtEntryInput {
  const details: CamtTxDetailInput[] = txs.map((tx) => {
    const claimId = tx.claimKey ? claimIdOf(tx.claimKey) : '';
    const reversal = tx.paymentType === 'Refund';
    return {
      amount: claimAmount(tx),
      cdtDbt: reversal ? 'DBIT' : 'CRDT',
      ...(!reversal && { charges: CLAIM_PAYMENT_CHARGE }),
      ...(tx.transactionBatchId !== undefined && { txId: tx.transactionBatchId }),
      endToEndId: claimId,
      creditorReference: claimId,
      // The payer's account, which the refund of a krafa goes back to (decision 0101).
      ...(tx.payorId !== undefined && {
        debtor: { id: tx.payorId, account: payerAccountOf(tx.payorId, tx.transactionBank) },
      }),
    };
  });
  const net = netOf(details);
  const reference = `CLM-${compact(date)}`;
  return {
    amount: Math.abs(net),
    cdtDbt: net < 0 ? 'DBIT' : 'CRDT',
    bookingDate: date,
    valueDate: date,
    acctSvcrRef: reference,
    ntryRef: reference,
    family: 'RCDT',
    subFamily: 'DMCT',
    batch: true,
    details,
    info: 'Claim payments',
  };
}

function acquirerDeposit(date: string, unordered: AcquirerSettlementItem[]): CamtEntryInput {
  // Reports arrive in any order; the deposit lists them by time, then id, so a file is reproducible.
  const items = [...unordered].sort((a, b) => a.at.localeCompare(b.at) || a.id.localeCompare(b.id));
  const details: CamtTxDetailInput[] = items.map((item) => ({
    amount: item.amount,
    cdtDbt: item.kind === 'capture' ? 'CRDT' : 'DBIT',
    txId: item.id,
    unstructured: item.kind === 'refund' ? `Refund of ${item.authorization}` : `Capture ${item.id}`,
  }));
  const net = netOf(details);
  const reference = `ACQ-${compact(date)}`;
  return {
    amount: Math.abs(net),
    cdtDbt: net < 0 ? 'DBIT' : 'CRDT',
    bookingDate: date,
    valueDate: date,
    acctSvcrRef: reference,
    ntryRef: reference,
    family: 'CCRD',
    subFamily: 'POSD',
    batch: true,
    details,
    info: 'Card acquirer settlement',
  };
}

function payoutDebit(date: string, n: number, p: Pain001Payout): CamtEntryInput {
  return {
    amount: p.amount,
    cdtDbt: 'DBIT',
    bookingDate: date,
    valueDate: date,
    acctSvcrRef: `PAY-${compact(date)}-${n}`,
    family: 'ICDT',
    subFamily: 'DMCT',
    details: [
      {
        amount: p.amount,
        cdtDbt: 'DBIT',
        pmtInfId: p.runId,
        endToEndId: p.payoutId,
        creditor: {
          name: p.creditorName,
          account: p.creditorAccount,
          ...(p.creditorId !== undefined && { id: p.creditorId }),
        },
        ...(p.remittance !== undefined && { unstructured: p.remittance }),
      },
    ],
  };
}

/**
 * Reads every complete payment file in `outbox/`. Payouts already booked (a file uploaded twice,
 * or a crash before the move) are skipped; a file that cannot be read is moved to
 * `outbox/rejected/` at once with a `.reason.txt` beside it.
 */
async function readOutbox(
  deps: DayCloserDeps,
  date: string,
): Promise<{ payouts: Pain001Payout[]; processed: string[]; rejected: string[] }> {
  const dir = path.join(deps.rootDir, 'outbox');
  await mkdir(dir, { recursive: true });
  const names = (await readdir(dir, { withFileTypes: true }))
    .filter((d) => d.isFile() && !isTemporaryName(d.name))
    .map((d) => d.name)
    .sort();
  const payouts: Pain001Payout[] = [];
  const seen = new Set<string>();
  const processed: string[] = [];
  const rejected: string[] = [];
  for (const name of names) {
    try {
      const file = readPain001(await readFile(path.join(dir, name), 'utf8'));
      if (file.debtorAccount !== deps.collectionAccount.account)
        throw new Error(`debits account ${file.debtorAccount}, not ${deps.collectionAccount.account}`);
      for (const p of file.payouts) {
        if (deps.account.isPayoutBooked(p.payoutId) || seen.has(p.payoutId)) continue;
        seen.add(p.payoutId);
        payouts.push(p);
      }
      processed.push(name);
    } catch (err) {
      const reason = err instanceof Error ? err.message : String(err);
      deps.log.warn({ file: name, reason }, 'simulated bank: payment file rejected');
      await moveAll(deps.rootDir, [name], 'rejected', date, reason);
      rejected.push(name);
    }
  }
  return { payouts, processed, rejected };
}

/** Moves outbox files to `outbox/{folder}/{date}_{name}` (with a reason file for rejections). */
async function moveAll(
  rootDir: string,
  names: string[],
  folder: 'processed' | 'rejected',
  date: string,
  reason?: string,
): Promise<void> {
  const target = path.join(rootDir, 'outbox', folder);
  await mkdir(target, { recursive: true });
  for (const name of names) {
    const moved = path.join(target, `${compact(date)}_${name}`);
    if (reason !== undefined) await writeFile(`${moved}.reason.txt`, `${reason}\n`);
    await rename(path.join(rootDir, 'outbox', name), moved);
  }
}
