import type { Db, Knex } from './knex';
import { withoutJit } from './knex';
import { newId } from '../domain/ids';

/**
 * Bank files received over SFTP (decision 0090). They belong to the service's collection account,
 * so they are scoped by environment and bank connection, never by merchant.
 */
export interface BankScope {
  readonly livemode: boolean;
  readonly connection: string;
}

export type BankFileStatus = 'received' | 'processed' | 'duplicate' | 'quarantined';

export interface BankFileRow {
  id: string;
  livemode: boolean;
  connection: string;
  name: string;
  sha256: string;
  size: number;
  storage_path: string;
  status: BankFileStatus;
  message_type: 'camt.053' | 'camt.054' | null;
  message_version: string | null;
  message_id: string | null;
  quarantine_reason: string | null;
  entry_count: number;
  received_at: Date;
  processed_at: Date | null;
  archived_at: Date | null;
}

/** A file as the finance dashboard lists it: its row with the number of exceptions still open. */
export interface BankFileSummary extends BankFileRow {
  open_exceptions: number;
}

export interface ReceivedFile {
  name: string;
  sha256: string;
  size: number;
  storagePath: string;
}

/** What the parse found out about a good file. */
export interface ProcessedFileInfo {
  messageType: 'camt.053' | 'camt.054';
  messageVersion: string;
  messageId: string;
  entryCount: number;
}

export function createBankFileRepository(db: Db) {
  const scoped = (scope: BankScope, trx: Db = db) =>
    trx<BankFileRow>('bank_files').where({ livemode: scope.livemode, connection: scope.connection });

  return {
    /**
     * Records a downloaded file once per (environment, connection, sha256). `created` is false when
     * the same bytes were received before (under this or another name): the earlier row is returned.
     */
    async receive(
      scope: BankScope,
      file: ReceivedFile,
      trx: Db = db,
    ): Promise<{ row: BankFileRow; created: boolean }> {
      const [inserted] = await trx<BankFileRow>('bank_files')
        .insert({
          id: newId('bf'),
          livemode: scope.livemode,
          connection: scope.connection,
          name: file.name,
          sha256: file.sha256,
          size: file.size,
          storage_path: file.storagePath,
        })
        .onConflict(['livemode', 'connection', 'sha256'])
        .ignore()
        .returning('*');
      if (inserted) return { row: inserted, created: true };
      const existing = await scoped(scope, trx).where({ sha256: file.sha256 }).first();
      if (!existing) throw new Error(`bank file ${file.sha256} vanished between insert and read`);
      return { row: existing, created: false };
    },

    async get(scope: BankScope, id: string, trx: Db = db): Promise<BankFileRow | undefined> {
      return scoped(scope, trx).where({ id }).first();
    },

    /**
     * Runs `work` in one transaction holding the file's row, if the file is still `received`, so two
     * workers given the same file cannot both process it; undefined when it is not. JIT is off for
     * the transaction (see withoutJit): matching a file is many short statements.
     */
    async processReceived<T>(
      scope: BankScope,
      id: string,
      work: (trx: Knex.Transaction) => Promise<T>,
    ): Promise<T | undefined> {
      return db.transaction(async (trx) => {
        await withoutJit(trx);
        const locked: { id: string } | undefined = await scoped(scope, trx)
          .where({ id, status: 'received' })
          .forUpdate()
          .first('id');
        if (!locked) return undefined;
        return work(trx);
      });
    },

    /** Only a file still `received` changes state: a finished file is never finished twice. */
    async markProcessed(
      scope: BankScope,
      id: string,
      info: ProcessedFileInfo,
      trx: Db = db,
    ): Promise<boolean> {
      const n = await scoped(scope, trx).where({ id, status: 'received' }).update({
        status: 'processed',
        message_type: info.messageType,
        message_version: info.messageVersion,
        message_id: info.messageId,
        entry_count: info.entryCount,
        processed_at: new Date(),
      });
      return n > 0;
    },

    async markRefused(
      scope: BankScope,
      id: string,
      status: 'quarantined' | 'duplicate',
      reason: string,
      trx: Db = db,
    ): Promise<boolean> {
      const n = await scoped(scope, trx)
        .where({ id, status: 'received' })
        .update({ status, quarantine_reason: reason, processed_at: new Date() });
      return n > 0;
    },

    async markArchived(scope: BankScope, id: string, trx: Db = db): Promise<void> {
      await scoped(scope, trx).where({ id }).whereNull('archived_at').update({ archived_at: new Date() });
    },
  };
}

export type BankFileRepository = ReturnType<typeof createBankFileRepository>;

/**
 * Files received on one day (Atlantic/Reykjavik is UTC), newest first, with their status, entry
 * count and open exceptions: the finance dashboard's "bank files" page.
 */
export async function listBankFilesByDay(
  db: Db,
  scope: { livemode: boolean },
  day: string,
): Promise<BankFileSummary[]> {
  const result = await db.raw<{ rows: BankFileSummary[] }>(
    `select f.*,
            (select count(*)::int from bank_exceptions x
              where x.bank_file_id = f.id and x.status = 'open') as open_exceptions
       from bank_files f
      where f.livemode = ? and f.received_at >= ?::date and f.received_at < ?::date + 1
      order by f.received_at desc, f.id desc`,
    [scope.livemode, day, day],
  );
  return result.rows;
}
