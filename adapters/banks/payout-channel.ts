import type { BankConnection } from './bank-connections';
import { TransportError, type BankFileTransport } from './bank-file-transport';
import { createSftpTransport } from './sftp-transport';
import { pain001FileName, writePain001, type Pain001Payment } from './pain001';

/** What a payout channel is asked to pay: one payout of one settlement run, and its krafa refunds. */
export type PayoutInstruction = Omit<Pain001Payment, 'debtor'>;

/**
 * How payouts reach the bank. pain.001 over SFTP today; the banks' payments API (IOBWS 3.2) would
 * be a second implementation (decision 0093). `submit` must be idempotent by payout id: a retry of a
 * payout already handed over succeeds without paying twice.
 */
export interface PayoutChannel {
  /** Stored on the payout row (`payouts.channel`). */
  readonly name: string;
  submit(payout: PayoutInstruction): Promise<{ fileName: string }>;
}

/** The pain.001 file channel over a bank connection's SFTP outbox. */
export function createPain001SftpChannel(
  connection: BankConnection,
  opts: { debtorName?: string; transport?: () => BankFileTransport } = {},
): PayoutChannel {
  const open = opts.transport ?? (() => createSftpTransport(connection.sftp));
  return {
    name: 'pain001_sftp',
    async submit(payout) {
      const xml = writePain001({
        ...payout,
        debtor: { name: opts.debtorName ?? 'Skil', account: connection.collectionAccount.account },
      });
      const fileName = pain001FileName(payout.payoutId);
      const transport = open();
      try {
        await transport.upload(fileName, Buffer.from(xml, 'utf8'));
      } catch (err) {
        // The file name is the payout id, so an existing file is this payout's earlier upload
        // whose answer was lost: it is delivered, and uploading again would not be allowed anyway.
        if (!(err instanceof TransportError && err.kind === 'already_exists')) throw err;
      } finally {
        await transport.close().catch(() => undefined);
      }
      return { fileName };
    },
  };
}
