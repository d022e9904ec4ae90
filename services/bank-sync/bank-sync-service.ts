import type { Client } from '@temporalio/client';
import type { Knex } from '../../db/knex';
import type { Logger } from '../../stack/logger';
import type { WorkerMetrics } from '../../stack/worker-metrics';
import type { BankConnection } from '../../adapters/banks/bank-connections';
import type { BankFileTransport } from '../../adapters/banks/bank-file-transport';
import type { RawFileStore } from '../../adapters/object-store/raw-file-store';
import { createSftpTransport } from '../../adapters/banks/sftp-transport';
import type { BankFileOutcome } from './bank-file-outcome';
import { processingOrder } from './processing-order';
import { syncBankFile } from './sync-bank-file';
import { StepFailure } from '../step-failure';
import { FailureType } from '../../workflows/contract';

export type { BankFileOutcome } from './bank-file-outcome';

/**
 * Bank sync (decision 0092): reads a bank connection's SFTP inbox and takes each file through store,
 * parse, ingest and matching. Built once by the worker; the bank sync activities call it.
 */
export interface BankSyncServiceDeps {
  knex: Knex;
  /** Tells settlement workflows about payouts the bank has debited. */
  client: Client;
  log: Logger;
  /** The worker's Prometheus metrics; unset: nothing is counted (tests, benchmarks). */
  metrics?: WorkerMetrics;
  bankConnections: BankConnection[];
  /** Where raw files are kept, by their sha256, for every worker to read (decision 0145). */
  rawFiles: RawFileStore;
  /** A local folder for a download in progress; the system's temporary folder by default. */
  scratchDir?: string;
  /** Opens the connection's file transport; the SFTP client unless a test or bench says otherwise. */
  openTransport?: (connection: BankConnection) => BankFileTransport;
  /** Parser worker threads per file (BANK_SYNC_PARSE_WORKERS; 0: parse on the caller's thread). */
  parseWorkers?: number;
  /** Wakes notification channels after a file's events committed; unset, the webhook relay finds them. */
  wakeChannels?: (ids: string[]) => Promise<void>;
}

/** Told while a file is processed, so that a long file can show it is still being worked on. */
export type Heartbeat = (details: { file: string; entries?: number }) => void;

export function createBankSyncService(deps: BankSyncServiceDeps) {
  const connectionOf = (id: string): BankConnection => {
    const c = deps.bankConnections.find((x) => x.id === id);
    // Not configured on this worker: asking again cannot help.
    if (!c) throw new StepFailure(`no bank connection ${id} is configured`, FailureType.NoBankConnection);
    return c;
  };
  const withTransport = async <T>(
    c: BankConnection,
    work: (t: BankFileTransport) => Promise<T>,
  ): Promise<T> => {
    const t = (deps.openTransport ?? ((x: BankConnection) => createSftpTransport(x.sftp)))(c);
    try {
      return await work(t);
    } finally {
      await t.close().catch(() => undefined);
    }
  };

  return {
    /** The complete files waiting in the connection's inbox, in the order they should be processed. */
    async listInbox(connection: string): Promise<string[]> {
      const c = connectionOf(connection);
      const files = await withTransport(c, (t) => t.listInbox());
      return processingOrder(files.map((f) => f.name));
    },

    /** Receives one inbox file (see syncBankFile); safe to run again at any point. */
    async syncFile(
      input: { connection: string; name: string },
      heartbeat: Heartbeat = () => undefined,
    ): Promise<BankFileOutcome> {
      const c = connectionOf(input.connection);
      return withTransport(c, (transport) => syncBankFile(deps, c, transport, input.name, heartbeat));
    },
  };
}

export type BankSyncService = ReturnType<typeof createBankSyncService>;
