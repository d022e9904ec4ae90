/**
 * The bank file exchange capability: a bank publishes statement and notification files in an inbox,
 * we fetch and archive them, and we deliver payout files to an outbox. SFTP is the one protocol
 * today (sftp-transport.ts); the simulated bank serves the same protocol, so tests run this
 * interface's real implementation against it.
 */

/** A file in the inbox that is complete and may be downloaded. */
export interface InboxFile {
  name: string;
  size: number;
  /** Last modification, milliseconds since the epoch, as the server reports it. */
  modifiedAt: number;
}

/** What a download wrote locally; the hash is the file's identity for store-once deduplication. */
export interface DownloadedFile {
  name: string;
  localPath: string;
  bytes: number;
  sha256: string;
}

export interface BankFileTransport {
  /**
   * Lists inbox files that are complete: files still being written are left out (temporary names,
   * and files whose size or time changed while we looked; see the implementation's convention).
   */
  listInbox(): Promise<InboxFile[]>;
  /** Downloads an inbox file to `localPath`, streaming, and returns its size and sha256. */
  download(name: string, localPath: string): Promise<DownloadedFile>;
  /** Moves a processed inbox file to the archive folder so it is not listed again. */
  archive(name: string): Promise<void>;
  /**
   * Uploads to the outbox under a temporary name and renames it to `name` once complete, so the bank
   * never picks up a partial file. Refuses to replace an existing file of that name.
   */
  upload(name: string, content: Buffer | NodeJS.ReadableStream): Promise<void>;
  /** Closes the connection. */
  close(): Promise<void>;
}

/** Why a transport operation failed; `retryable` tells callers whether trying again can help. */
export type TransportErrorKind =
  | 'host_key_mismatch'
  | 'authentication_failed'
  | 'connection_failed'
  | 'timeout'
  | 'not_found'
  | 'already_exists'
  | 'permission_denied'
  | 'incomplete_transfer'
  | 'protocol_error';

/** A failed transport operation, classified once by toTransportError. */
export class TransportError extends Error {
  override readonly name = 'TransportError';
  constructor(
    readonly kind: TransportErrorKind,
    message: string,
    readonly retryable: boolean,
    /** The low-level code (errno name or SFTP status) the classification was made from. */
    readonly code?: string | number,
  ) {
    super(message);
  }
}
