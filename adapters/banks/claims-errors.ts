import type { ClaimResultCode } from './claims-api';

/**
 * Typed errors of the IOBWS claims service, one class per family (stripe-node's Error.ts is the
 * model). `retryable` is the one retry classification: network faults, 408, 409 (the same
 * idempotency key still in flight, TS 316), 429 and 5xx are transient; any other 4xx and every
 * claim rejection is final and must not be retried.
 */
export class BankError extends Error {
  override readonly name: string = 'BankError';
  constructor(
    message: string,
    readonly retryable: boolean,
    readonly status: number | null,
    /** The bank's machine code: MessageCode4xx, a claim result code, or an OAuth2 error. */
    readonly code: string | null,
    readonly requestId: string | null = null,
  ) {
    super(message);
  }
}
export class BankNetworkError extends BankError {
  override readonly name = 'BankNetworkError';
}
export class BankServerError extends BankError {
  override readonly name = 'BankServerError';
}
export class BankRateLimitError extends BankError {
  override readonly name = 'BankRateLimitError';
}
/** 409: an earlier request with the same idempotency key has not finished (TS 316). */
export class BankConflictError extends BankError {
  override readonly name = 'BankConflictError';
}
export class BankAuthenticationError extends BankError {
  override readonly name = 'BankAuthenticationError';
}
export class BankPermissionError extends BankError {
  override readonly name = 'BankPermissionError';
}
export class BankNotFoundError extends BankError {
  override readonly name = 'BankNotFoundError';
}
export class BankInvalidRequestError extends BankError {
  override readonly name = 'BankInvalidRequestError';
}
/** The bank refused the claim itself: CLAIM_EXISTS, CLAIM_IS_PAID, … */
export class ClaimRejectedError extends BankError {
  override readonly name = 'ClaimRejectedError';
  constructor(
    message: string,
    readonly resultCode: ClaimResultCode,
    status: number | null,
    requestId: string | null = null,
  ) {
    super(message, false, status, resultCode, requestId);
  }
}

/** What came back, or did not: an HTTP status with its parsed body, or a network failure. */
export interface RawBankFailure {
  status?: number | null;
  body?: unknown;
  networkError?: unknown;
  requestId?: string | null;
}

const RESULT_CODES: ReadonlySet<string> = new Set<ClaimResultCode>([
  'CLAIM_EXISTS',
  'CLAIM_IS_PAID',
  'CLAIM_NOT_FOUND',
  'CLAIM_IS_CANCELLED',
  'CLAIM_NOT_IN_SECONDARY_STATE',
  'CLAIM_OTHERS',
]);

/** The URN Skil's simulated bank (and, by decision 0073, the client) reads a claim result code from. */
export const CLAIM_PROBLEM_TYPE_PREFIX = 'urn:iobws:claims:';

function asRecord(v: unknown): Record<string, unknown> | null {
  return typeof v === 'object' && v !== null && !Array.isArray(v) ? (v as Record<string, unknown>) : null;
}

function str(v: unknown): string | null {
  return typeof v === 'string' && v.length > 0 ? v : null;
}

/** Finds a claim result code in any of the shapes the standard allows. */
function resultCodeOf(body: Record<string, unknown>): ClaimResultCode | null {
  const candidates = [
    body.resultCode,
    asRecord(body.error)?.resultCode,
    typeof body.type === 'string' && body.type.startsWith(CLAIM_PROBLEM_TYPE_PREFIX)
      ? body.type.slice(CLAIM_PROBLEM_TYPE_PREFIX.length)
      : null,
  ];
  for (const c of candidates) if (typeof c === 'string' && RESULT_CODES.has(c)) return c as ClaimResultCode;
  return null;
}

/** Code and text of an RFC 7807 body (`Error4xx`), an IOBWS `messages[]` body, or an OAuth2 error. */
function codeAndText(body: Record<string, unknown> | null): { code: string | null; text: string | null } {
  if (!body) return { code: null, text: null };
  if (str(body.code)) return { code: str(body.code), text: str(body.detail) ?? str(body.title) };
  const first = Array.isArray(body.messages) ? asRecord(body.messages[0]) : null;
  if (first) return { code: str(first.code), text: str(first.text) };
  if (str(body.error)) return { code: str(body.error), text: str(body.error_description) ?? str(body.error) };
  return { code: null, text: null };
}

/** Maps whatever the bank answered (or the network failure) to one typed error. */
export function toBankError(raw: RawBankFailure): BankError {
  const requestId = raw.requestId ?? null;
  if (raw.networkError !== undefined || raw.status === undefined || raw.status === null) {
    const cause = raw.networkError instanceof Error ? raw.networkError.message : String(raw.networkError);
    return new BankNetworkError(`bank unreachable: ${cause}`, true, null, null, requestId);
  }
  const status = raw.status;
  const body = asRecord(raw.body);
  const resultCode = body ? resultCodeOf(body) : null;
  const { code, text } = codeAndText(body);
  const message = text ?? code ?? `HTTP ${status}`;

  if (resultCode && status < 500)
    return new ClaimRejectedError(
      str(body?.resultMessage) ?? str(asRecord(body?.error)?.resultMessage) ?? message,
      resultCode,
      status,
      requestId,
    );
  if (status === 401) return new BankAuthenticationError(message, false, status, code, requestId);
  if (status === 403) return new BankPermissionError(message, false, status, code, requestId);
  if (status === 404) return new BankNotFoundError(message, false, status, code, requestId);
  if (status === 408) return new BankNetworkError(message, true, status, code, requestId);
  if (status === 409) return new BankConflictError(message, true, status, code, requestId);
  if (status === 429) return new BankRateLimitError(message, true, status, code, requestId);
  if (status >= 500) return new BankServerError(message, true, status, code, requestId);
  // OAuth2 token endpoint errors (RFC 6749 §5.2) come as 400 with `error`.
  if (code && ['invalid_client', 'invalid_grant', 'unauthorized_client'].includes(code))
    return new BankAuthenticationError(message, false, status, code, requestId);
  return new BankInvalidRequestError(message, false, status, code, requestId);
}
