/**
 * The card acquirer capability: tokenize a card, authorize, capture, void and refund. A real
 * acquirer's adapter implements this; so does the HTTP client of the simulated acquirer used in
 * test mode. Request and response shapes keep the wire names (snake_case), as stripe-node's do.
 */

export type CardBrand = 'visa' | 'mastercard' | 'unknown';
export type Wallet = 'apple_pay' | 'google_pay';

export interface TokenizeRequest {
  number: string;
  exp_month: number;
  exp_year: number;
  cvc: string;
  /** Set when the card came from a mobile wallet (a wallet-tokenized card payment). */
  wallet?: Wallet | null;
  /**
   * The environment the card is for; an environment router sends live cards to the live acquirer
   * (decision 0165). Not sent on the wire.
   */
  livemode?: boolean;
}

export interface CardToken {
  token: string;
  brand: CardBrand;
  last4: string;
  exp_month: number;
  exp_year: number;
  wallet: Wallet | null;
}

export interface AuthorizeRequest {
  token: string;
  amount: number;
  currency: 'ISK';
  merchant: string;
  /** Where the cardholder returns after a 3-D Secure challenge. */
  return_url: string;
  idempotency_key: string;
}

export type AuthorizationStatus = 'authorized' | 'requires_action' | 'declined' | 'voided' | 'captured';

export interface Authorization {
  id: string;
  status: AuthorizationStatus;
  amount: number;
  amount_captured: number;
  amount_refunded: number;
  /** The 3-D Secure challenge page, when status is requires_action. */
  action_url: string | null;
  decline_code: DeclineCode | null;
  /**
   * The acquirer's fee on the capture in whole ISK, once captured (null before, or when the
   * acquirer reports fees elsewhere). Skil records it as a cost added on top (decision 0113).
   */
  fee?: number | null;
}

export type DeclineCode =
  'generic_decline' | 'insufficient_funds' | 'expired_card' | 'incorrect_cvc' | 'authentication_failed';

export interface CaptureRequest {
  authorization: string;
  amount: number;
  idempotency_key: string;
}

export interface RefundRequest {
  authorization: string;
  amount: number;
  idempotency_key: string;
}

export interface AcquirerRefund {
  id: string;
  authorization: string;
  amount: number;
}

/** Why the cardholder's bank disputes a payment (Stripe's reason names). */
export type DisputeReason = 'fraudulent' | 'product_not_received' | 'duplicate' | 'general';

export type AcquirerDisputeStatus = 'needs_response' | 'under_review' | 'won' | 'lost';

/** A dispute (chargeback) the acquirer opened on a captured authorization. */
export interface AcquirerDispute {
  id: string;
  authorization: string;
  amount: number;
  reason: DisputeReason;
  status: AcquirerDisputeStatus;
  /** ISO 8601: the acquirer takes evidence until then. */
  evidence_due_by: string;
  created_at: string;
}

/** What the acquirer tells the merchant about a dispute; the same id when it delivers it again. */
export interface DisputeNotification {
  id: string;
  type: 'dispute.created' | 'dispute.updated' | 'dispute.closed';
  dispute: AcquirerDispute;
}

/** Evidence as the acquirer takes it: named text fields, forwarded to the cardholder's bank. */
export type DisputeEvidence = Record<string, string>;

/** What the live acquirer takes (decision 0165): the checkout offers only these wallets live. */
export interface LiveCardSupport {
  wallets: readonly Wallet[];
}

/** What every acquirer adapter offers (architecture, "adapters"). */
export interface CardAcquirer {
  /**
   * Set when live-mode cards go through this acquirer (an environment router with a real
   * acquirer's adapter, decision 0165); absent or null: live card payments answer 503.
   */
  readonly live?: LiveCardSupport | null;
  /** Exchanges card details for a token; the number goes no further than the acquirer. */
  tokenize(req: TokenizeRequest): Promise<CardToken>;
  /** Places a hold; a declined card answers status `declined`, not an error. */
  authorize(req: AuthorizeRequest): Promise<Authorization>;
  /** The authorization's current state (after a 3-D Secure challenge). */
  retrieve(authorization: string): Promise<Authorization>;
  capture(req: CaptureRequest): Promise<Authorization>;
  void(authorization: string, idempotencyKey: string): Promise<Authorization>;
  refund(req: RefundRequest): Promise<AcquirerRefund>;
  /** Sends the merchant's evidence on a dispute; it goes under review. */
  submitDisputeEvidence(req: {
    dispute: string;
    evidence: DisputeEvidence;
    idempotency_key: string;
  }): Promise<AcquirerDispute>;
  /** The merchant accepts the dispute: it closes as lost. */
  acceptDispute(dispute: string, idempotencyKey: string): Promise<AcquirerDispute>;
  /**
   * Checks the signature of a dispute notification the acquirer posted and returns it; throws
   * AcquirerSignatureError when it is not the acquirer's (decision 0155).
   */
  parseNotification(body: Buffer, signature: string | undefined): DisputeNotification;
}

/** Base of acquirer failures; `retryable` tells the request function whether to try again. */
export class AcquirerError extends Error {
  constructor(
    message: string,
    readonly code: string,
    readonly retryable: boolean,
    readonly status: number | null,
  ) {
    super(message);
    this.name = new.target.name;
  }
}
/** The card was refused while tokenizing (bad number, expired, wrong CVC). Not retryable. */
export class AcquirerCardError extends AcquirerError {}
/** Our request was wrong (4xx). Not retryable. */
export class AcquirerInvalidRequestError extends AcquirerError {}
/** The acquirer failed or was unreachable (5xx, timeout, connection). Retryable with the same key. */
export class AcquirerUnavailableError extends AcquirerError {}
/** A request with the same idempotency key is still running (409). Retryable. */
export class AcquirerConflictError extends AcquirerError {}

/** A notification whose signature does not verify, or that is not a notification at all. */
export class AcquirerSignatureError extends AcquirerError {}

/** The raw outcome of one HTTP exchange, before classification. */
export interface RawAcquirerResponse {
  status: number | null;
  body?: unknown;
  /** A network-level failure (refused, reset, timeout). */
  networkError?: string;
}

/** Maps a failed exchange to one error class with its retry classification (table-tested). */
export function toAcquirerError(raw: RawAcquirerResponse): AcquirerError {
  const err = (raw.body as { error?: { code?: unknown; message?: unknown } } | undefined)?.error;
  const code = typeof err?.code === 'string' ? err.code : 'unknown';
  const message = typeof err?.message === 'string' ? err.message : `acquirer answered ${raw.status}`;
  if (raw.status === null)
    return new AcquirerUnavailableError(raw.networkError ?? 'network error', 'network_error', true, null);
  if (raw.status === 402) return new AcquirerCardError(message, code, false, 402);
  if (raw.status === 409) return new AcquirerConflictError(message, code, true, 409);
  if (raw.status === 429) return new AcquirerUnavailableError(message, code, true, 429);
  if (raw.status >= 500) return new AcquirerUnavailableError(message, code, true, raw.status);
  return new AcquirerInvalidRequestError(message, code, false, raw.status);
}

/**
 * The fee an acquirer reported on a capture, when it is one Skil can record: a whole ISK amount
 * above zero. Anything else (absent, zero, malformed) records no cost rather than failing a capture
 * the acquirer has already made.
 */
export function reportedFee(auth: Pick<Authorization, 'fee'>): number | null {
  const fee = auth.fee;
  return typeof fee === 'number' && Number.isSafeInteger(fee) && fee > 0 ? fee : null;
}

/** The brand of a card number by its leading digits (the two networks the spec names). */
export function cardBrand(number: string): CardBrand {
  if (/^4/.test(number)) return 'visa';
  if (/^(5[1-5]|2[2-7])/.test(number)) return 'mastercard';
  return 'unknown';
}
