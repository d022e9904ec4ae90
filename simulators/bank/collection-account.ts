import { mkdir, readFile, rename, writeFile } from 'node:fs/promises';
import path from 'node:path';

/**
 * The simulated bank's book of Skil's collection account (decision 0090): its running booked
 * balance, the statement and notification sequence numbers, the acquirer's reported captures and
 * refunds waiting for the day's deposit, and what each closed day booked, so that nothing is booked
 * twice. Kept in memory and, with a `dataDir`, in `collection-account.json` there (as the claims
 * ledger is, decision 0074). Amounts are whole ISK in JS numbers, checked to stay safe integers.
 */

/** One capture or refund the acquirer reported; `id` is its business key (idempotency). */
export interface AcquirerSettlementItem {
  /** The authorization id for a capture, the refund id for a refund. */
  id: string;
  kind: 'capture' | 'refund';
  /** The authorization a refund belongs to (captures: the same as `id`). */
  authorization: string;
  /** Whole ISK, positive. */
  amount: number;
  /** When the acquirer captured or refunded (ISO 8601). */
  at: string;
  /** The banking day the bank received it (Iceland date); it is deposited when that day closes. */
  receivedDay: string;
  /** The day whose deposit (ACQ-{yyyymmdd}) carried it. */
  settledDay?: string;
}

/** One day's close: what it published and the balances it moved between. */
export interface ClosedDay {
  date: string;
  statementSeq: number;
  notificationSeq?: number;
  files: string[];
  openingBalance: number;
  closingBalance: number;
}

export interface CollectionAccountState {
  /** Signed booked balance in whole ISK (positive: in credit). */
  balance: number;
  /** Last `ElctrncSeqNb` of a camt.053 statement, and of a camt.054 notification. */
  statementSeq: number;
  notificationSeq: number;
  closedDays: ClosedDay[];
  acquirerItems: AcquirerSettlementItem[];
  /** Claim transactions already credited (see claimTransactionKey). */
  bookedClaimTransactions: string[];
  /** Payout ids (pain.001 EndToEndId) already debited. */
  bookedPayouts: string[];
}

const STATE_FILE = 'collection-account.json';

function emptyState(): CollectionAccountState {
  return {
    balance: 0,
    statementSeq: 0,
    notificationSeq: 0,
    closedDays: [],
    acquirerItems: [],
    bookedClaimTransactions: [],
    bookedPayouts: [],
  };
}

export class CollectionAccount {
  private state: CollectionAccountState = emptyState();
  private readonly itemIds = new Set<string>();
  private readonly claimKeys = new Set<string>();
  private readonly payoutIds = new Set<string>();
  // Saves run one after another so a later state never loses to an earlier, slower write.
  private saving: Promise<void> = Promise.resolve();
  // The write that has not begun yet, which a save asked for now joins.
  private queued: Promise<void> | null = null;

  private constructor(private readonly file: string | undefined) {}

  /** The book kept in `dataDir` (loaded if it exists), or in memory only without one. */
  static async open(dataDir: string | undefined): Promise<CollectionAccount> {
    if (dataDir === undefined) return new CollectionAccount(undefined);
    await mkdir(dataDir, { recursive: true });
    const book = new CollectionAccount(path.join(dataDir, STATE_FILE));
    const text = await readFile(book.file!, 'utf8').catch((err: NodeJS.ErrnoException) => {
      if (err.code === 'ENOENT') return null;
      throw err;
    });
    if (text) book.restore({ ...emptyState(), ...(JSON.parse(text) as Partial<CollectionAccountState>) });
    return book;
  }

  private restore(state: CollectionAccountState): void {
    this.state = state;
    for (const item of state.acquirerItems) this.itemIds.add(item.id);
    for (const key of state.bookedClaimTransactions) this.claimKeys.add(key);
    for (const id of state.bookedPayouts) this.payoutIds.add(id);
  }

  get balance(): number {
    return this.state.balance;
  }

  get lastClosedDay(): ClosedDay | undefined {
    return this.state.closedDays[this.state.closedDays.length - 1];
  }

  closedDay(date: string): ClosedDay | undefined {
    return this.state.closedDays.find((d) => d.date === date);
  }

  /** Records a reported capture or refund; false when its id was reported before (a retry). */
  addAcquirerItem(item: Omit<AcquirerSettlementItem, 'settledDay'>): boolean {
    if (this.itemIds.has(item.id)) return false;
    this.itemIds.add(item.id);
    this.state.acquirerItems.push({ ...item });
    return true;
  }

  /** Reported items not yet deposited, received on or before `date`. */
  unsettledAcquirerItems(date: string): AcquirerSettlementItem[] {
    return this.state.acquirerItems.filter((i) => i.settledDay === undefined && i.receivedDay <= date);
  }

  acquirerItems(): readonly AcquirerSettlementItem[] {
    return this.state.acquirerItems;
  }

  isClaimTransactionBooked(key: string): boolean {
    return this.claimKeys.has(key);
  }

  isPayoutBooked(payoutId: string): boolean {
    return this.payoutIds.has(payoutId);
  }

  /**
   * Books one closed day in memory: the balance moves by `net`, the items, claim transactions and
   * payouts it carried are marked, and the sequence numbers advance. Call `save()` after.
   */
  recordClose(close: {
    day: ClosedDay;
    net: number;
    acquirerItemIds: string[];
    claimTransactionKeys: string[];
    payoutIds: string[];
  }): void {
    const balance = this.state.balance + close.net;
    if (!Number.isSafeInteger(balance)) throw new RangeError('collection account balance out of range');
    this.state.balance = balance;
    this.state.statementSeq = close.day.statementSeq;
    if (close.day.notificationSeq !== undefined) this.state.notificationSeq = close.day.notificationSeq;
    this.state.closedDays.push(close.day);
    const ids = new Set(close.acquirerItemIds);
    for (const item of this.state.acquirerItems) if (ids.has(item.id)) item.settledDay = close.day.date;
    for (const key of close.claimTransactionKeys) {
      this.claimKeys.add(key);
      this.state.bookedClaimTransactions.push(key);
    }
    for (const id of close.payoutIds) {
      this.payoutIds.add(id);
      this.state.bookedPayouts.push(id);
    }
  }

  nextStatementSeq(): number {
    return this.state.statementSeq + 1;
  }

  nextNotificationSeq(): number {
    return this.state.notificationSeq + 1;
  }

  /**
   * Writes the book to its file (temporary name, then rename); no-op in memory. Resolves once a write
   * that began after this call is on disk. Calls made while a write waits to begin share it: the book
   * is serialised when the write begins, so it holds every change made before, and thousands of
   * reports at once are a few writes instead of a copy of the whole book each.
   */
  save(): Promise<void> {
    const file = this.file;
    if (file === undefined) return Promise.resolve();
    if (this.queued !== null) return this.queued;
    const write = this.saving
      .catch(() => undefined)
      .then(async () => {
        this.queued = null;
        await writeFile(`${file}.tmp`, JSON.stringify(this.state));
        await rename(`${file}.tmp`, file);
      });
    this.queued = write;
    this.saving = write;
    return write;
  }
}
