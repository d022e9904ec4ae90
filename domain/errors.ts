/**
 * The API's error vocabulary (architecture, "API conventions"), one class per status family in the
 * manner of stripe-node's Error.ts. Handlers throw these; one middleware renders the envelope
 * `{ error: { type, message, code?, param? } }`.
 */
export type ErrorType =
  | 'invalid_request_error'
  | 'authentication_error'
  | 'permission_error'
  | 'idempotency_error'
  | 'rate_limit_error'
  | 'api_error';

export interface ErrorBody {
  type: ErrorType;
  message: string;
  code?: string;
  param?: string;
}

/** Base of every error that is meant to reach the client as an envelope. */
export class ApiError extends Error {
  constructor(
    readonly status: number,
    readonly type: ErrorType,
    message: string,
    readonly code?: string,
    readonly param?: string,
  ) {
    super(message);
    this.name = new.target.name;
  }

  toBody(): ErrorBody {
    return {
      type: this.type,
      message: this.message,
      ...(this.code !== undefined && { code: this.code }),
      ...(this.param !== undefined && { param: this.param }),
    };
  }
}

/** 400: the request itself is wrong (a parameter, the body, the encoding). */
export class InvalidRequestError extends ApiError {
  constructor(
    message: string,
    opts: { code?: string; param?: string; status?: 400 | 404 | 409 | 413 | 415 | 422 } = {},
  ) {
    super(opts.status ?? 400, 'invalid_request_error', message, opts.code, opts.param);
  }
}

/** 404: no such object in the caller's merchant and environment. */
export class NotFoundError extends InvalidRequestError {
  constructor(message: string, param?: string) {
    super(message, { status: 404, code: 'resource_missing', ...(param !== undefined && { param }) });
  }
}

/** 409: the object is not in a state that allows the request. */
export class ConflictError extends InvalidRequestError {
  constructor(message: string, code: string, param?: string) {
    super(message, { status: 409, code, ...(param !== undefined && { param }) });
  }
}

/** 401: no key, an unknown key or a revoked key. */
export class AuthenticationError extends ApiError {
  constructor(message: string, code = 'invalid_api_key') {
    super(401, 'authentication_error', message, code);
  }
}

/** 403: the key is valid but may not do this. */
export class PermissionError extends ApiError {
  constructor(message: string, code: string) {
    super(403, 'permission_error', message, code);
  }
}

/** 400 or 409: an Idempotency-Key was reused with other parameters, or is still in flight. */
export class IdempotencyError extends ApiError {
  constructor(status: 400 | 409, message: string, code: string, param = 'Idempotency-Key') {
    super(status, 'idempotency_error', message, code, param);
  }
}

/**
 * 422: the request is well formed but the object is not ready for it, e.g. submitting an
 * application with required fields unset. `params` names every field at fault, `param` the first.
 */
export class UnprocessableError extends ApiError {
  constructor(
    message: string,
    code: string,
    readonly params: string[] = [],
  ) {
    super(422, 'invalid_request_error', message, code, params[0]);
  }

  override toBody(): ErrorBody & { params?: string[] } {
    return { ...super.toBody(), ...(this.params.length > 0 && { params: this.params }) };
  }
}

/** 429: too many requests for this key or client address in the current window (decision 0110). */
export class RateLimitError extends ApiError {
  constructor(message: string) {
    super(429, 'rate_limit_error', message, 'rate_limited');
  }
}

/** 503: a service we depend on is not available or not configured; retrying later may work. */
export class ServiceUnavailableError extends ApiError {
  constructor(message: string, code: string) {
    super(503, 'api_error', message, code);
  }
}
