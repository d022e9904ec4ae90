import { TransportError, type TransportErrorKind } from './bank-file-transport';

/** Retrying helps only when the network or the server was briefly unavailable. */
const RETRYABLE: Readonly<Record<TransportErrorKind, boolean>> = {
  host_key_mismatch: false, // someone else answers for the bank: never retry into it
  authentication_failed: false, // retrying a wrong credential can lock the account
  connection_failed: true,
  timeout: true,
  not_found: false,
  already_exists: false,
  permission_denied: false,
  incomplete_transfer: true,
  protocol_error: false,
};

// errno names from the socket, wrapped by ssh2-sftp-client with the same `code`.
const CODES: Readonly<Record<string, TransportErrorKind>> = {
  ECONNREFUSED: 'connection_failed',
  ECONNRESET: 'connection_failed',
  ECONNABORTED: 'connection_failed',
  EHOSTUNREACH: 'connection_failed',
  ENETUNREACH: 'connection_failed',
  EPIPE: 'connection_failed',
  EAI_AGAIN: 'connection_failed',
  ENOTFOUND: 'connection_failed',
  ERR_NOT_CONNECTED: 'connection_failed',
  ETIMEDOUT: 'timeout',
  ENOENT: 'not_found',
  EACCES: 'permission_denied',
  ERR_BAD_AUTH: 'authentication_failed',
};

// SFTP v3 status codes as ssh2 reports them (`err.code` is the number).
const SFTP_STATUS: Readonly<Record<number, TransportErrorKind>> = {
  2: 'not_found', // SSH_FX_NO_SUCH_FILE
  3: 'permission_denied', // SSH_FX_PERMISSION_DENIED
  4: 'protocol_error', // SSH_FX_FAILURE: the server gives no reason
  6: 'connection_failed', // SSH_FX_NO_CONNECTION
  7: 'connection_failed', // SSH_FX_CONNECTION_LOST
  8: 'protocol_error', // SSH_FX_OP_UNSUPPORTED
};

// ssh2 reports handshake and auth outcomes by message and `level`, which ssh2-sftp-client drops
// when it rewraps the error, so the message is all that is left to read.
const MESSAGES: ReadonlyArray<[RegExp, TransportErrorKind]> = [
  [/host denied|verification failed|host key/i, 'host_key_mismatch'],
  [/authentication methods failed|authentication failed|permission denied \(/i, 'authentication_failed'],
  [/timed out|timeout/i, 'timeout'],
  [/refused|reset|not connected|no sftp connection|connection lost|socket/i, 'connection_failed'],
  [/no such file|does not exist/i, 'not_found'],
  [/already exists/i, 'already_exists'],
  [/permission denied/i, 'permission_denied'],
];

/**
 * Classifies any error thrown while talking to the bank (socket, SSH handshake, SFTP status, or
 * ssh2-sftp-client's rewrapped errors) into one TransportError with a retry decision. This is the
 * one place that reads low-level error shapes; an already classified error passes through.
 */
export function toTransportError(raw: unknown): TransportError {
  if (raw instanceof TransportError) return raw;
  const error = raw as { message?: unknown; code?: unknown; level?: unknown } | null | undefined;
  const message = typeof error?.message === 'string' ? error.message : String(raw);
  const code = typeof error?.code === 'string' || typeof error?.code === 'number' ? error.code : undefined;
  const kind = classify(message, code, error?.level);
  return new TransportError(kind, message, RETRYABLE[kind], code);
}

function classify(message: string, code: string | number | undefined, level: unknown): TransportErrorKind {
  if (level === 'client-authentication') return 'authentication_failed';
  if (level === 'client-timeout') return 'timeout';
  if (typeof code === 'number' && SFTP_STATUS[code] !== undefined) {
    // SSH_FX_FAILURE on a rename usually means the target exists (SFTP v3 rename never overwrites).
    if (code === 4 && /already exists/i.test(message)) return 'already_exists';
    return SFTP_STATUS[code];
  }
  if (typeof code === 'string' && CODES[code] !== undefined) return CODES[code];
  for (const [pattern, kind] of MESSAGES) if (pattern.test(message)) return kind;
  return 'protocol_error';
}
