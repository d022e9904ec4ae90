/** The API's error envelope (spec §7): `{ error: { type, message, code?, param? } }`. */
export interface ErrorBody {
  type: string;
  message: string;
  code?: string;
  param?: string;
}

/**
 * Every failure the client raises. `type` is the API's error type; the subclasses let callers catch
 * one kind (`err instanceof SkilRateLimitError`) the way stripe-node's errors do.
 */
export class SkilError extends Error {
  readonly type: string;
  readonly code: string | undefined;
  readonly param: string | undefined;
  /** HTTP status; undefined when no answer arrived (network failure, timeout). */
  readonly statusCode: number | undefined;
  /** The API's `Request-Id`, to quote when asking for help. */
  readonly requestId: string | undefined;
  readonly headers: Headers | undefined;

  constructor(body: ErrorBody, statusCode?: number, headers?: Headers) {
    super(body.message);
    this.name = new.target.name;
    this.type = body.type;
    this.code = body.code;
    this.param = body.param;
    this.statusCode = statusCode;
    this.headers = headers;
    this.requestId = headers?.get('request-id') ?? undefined;
  }
}

export class SkilInvalidRequestError extends SkilError {}
export class SkilAuthenticationError extends SkilError {}
export class SkilPermissionError extends SkilError {}
export class SkilIdempotencyError extends SkilError {}
export class SkilRateLimitError extends SkilError {}
export class SkilApiError extends SkilError {}
/** No answer: the connection failed or the request timed out. Safe to retry with the same key. */
export class SkilConnectionError extends SkilError {}
/** A webhook whose `X-Service-Signature` is missing or does not match (spec §6.3). */
export class SkilSignatureVerificationError extends SkilError {}

const BY_TYPE: Record<string, new (body: ErrorBody, status?: number, headers?: Headers) => SkilError> = {
  invalid_request_error: SkilInvalidRequestError,
  authentication_error: SkilAuthenticationError,
  permission_error: SkilPermissionError,
  idempotency_error: SkilIdempotencyError,
  rate_limit_error: SkilRateLimitError,
  api_error: SkilApiError,
};

/** The typed error for an API answer; an answer without the envelope becomes an `api_error`. */
export function errorFromResponse(status: number, headers: Headers, payload: unknown): SkilError {
  const body = (payload as { error?: Partial<ErrorBody> } | null)?.error;
  if (body && typeof body.type === 'string' && typeof body.message === 'string') {
    const Kind = BY_TYPE[body.type] ?? SkilError;
    return new Kind(body as ErrorBody, status, headers);
  }
  return new SkilApiError(
    { type: 'api_error', message: `Unexpected answer (HTTP ${status})` },
    status,
    headers,
  );
}
