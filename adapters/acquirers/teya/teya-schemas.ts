import { z } from 'zod';

/**
 * Teya's e-commerce payments API as its published OpenAPI reference describes it (online
 * transactions v3, capture, refunds v3, reversals v2, the OAuth2 token endpoint of Teya ID;
 * decision 0163). Written from the reference field by field, for the requests Skil sends and the
 * answers it reads: the adapter parses every answer with them, and the simulated peer checks every
 * request it receives and every answer it gives, so a drift on either side fails a test.
 *
 * Objects are strict where the reference lists every field Skil may send (a misspelt field is an
 * error, not ignored) and passthrough where Teya may add fields to an answer.
 */

const uuid = z.string().uuid();
const dateTime = z.string().datetime({ offset: true });

/** ISO 4217 minor units: ISK has none, so `value` is whole krónur. */
export const TeyaAmount = z
  .object({ currency: z.string().regex(/^[A-Z]{3}$/), value: z.number().int().min(0) })
  .strict();

/** The card fields of a payment method: strings, as the reference types them. */
export const TeyaCard = z
  .object({
    number: z.string().regex(/^\d{12,19}$/),
    expiry_month: z.string().regex(/^(0[1-9]|1[0-2])$/),
    expiry_year: z.string().regex(/^\d{4}$/),
    cvc: z.string().regex(/^\d{3,4}$/),
  })
  .strict();

export const TeyaApplePayData = z
  .object({
    application_primary_account_number: z.string().min(1),
    expiry_month: z.string().min(1),
    expiry_year: z.string().min(1),
    online_payment_cryptogram: z.string().min(1),
    eci_code: z.string().optional(),
  })
  .strict();

export const TeyaSavedToken = z
  .object({
    token_id: uuid,
    recurring_payment_type: z.enum(['CARD_ON_FILE', 'RECURRING', 'INSTALLMENT']),
  })
  .strict();

/** One payment method; the member named by `type` is required. */
export const TeyaPaymentMethod = z
  .object({
    type: z.enum(['CARD', 'TOKEN', 'APPLE_PAY']),
    card: TeyaCard.optional(),
    token: TeyaSavedToken.optional(),
    apple_pay_authentication_data: TeyaApplePayData.optional(),
  })
  .strict()
  .superRefine((m, ctx) => {
    const member = { CARD: 'card', TOKEN: 'token', APPLE_PAY: 'apple_pay_authentication_data' }[
      m.type
    ] as keyof typeof m;
    if (m[member] === undefined)
      ctx.addIssue({ code: 'custom', path: [member], message: `required for type ${m.type}` });
  });

/** `POST /v3/transactions/online` (ProcessTransactionRequestV2). */
export const TeyaProcessTransactionRequest = z
  .object({
    amount: TeyaAmount,
    initiator: z.enum(['CUSTOMER', 'MERCHANT']),
    payment_method: TeyaPaymentMethod,
    store_id: uuid,
    type: z.enum(['SALE', 'PRE_AUTHORISATION', 'ACCOUNT_VERIFICATION']),
    merchant_reference_id: z.string().max(60).optional(),
    redirect_url: z.string().url().optional(),
    store_payment_method: z.boolean().optional(),
    line_items: z
      .array(
        z
          .object({
            description: z.string(),
            quantity: z.number().int().min(1),
            unit_price: z.number().int(),
          })
          .strict(),
      )
      .optional(),
  })
  .strict();

export const TeyaIssuerResult = z
  .object({ approval_code: z.string().optional(), response_code: z.string().optional() })
  .passthrough();

/** Why a transaction, capture or refund failed (`status_reason`), as the reference enumerates it. */
export const TEYA_STATUS_REASONS = [
  'ACCOUNT_INVALID',
  'BLOCKED_CARD',
  'BLOCKED_CROSS_BORDER_TRANSACTION',
  'AMOUNT_TOO_SMALL',
  'CANNOT_VALIDATE_AUTHENTICATION',
  'CARD_COUNT_EXCEEDED',
  'CARD_DECLINED',
  'CARD_EXPIRED',
  'CARD_LIMIT_EXCEEDED',
  'CARD_NOT_ACTIVE',
  'DISABLED_ACCOUNT',
  'DO_NOT_HONOR',
  'ECOM_NEGATIVE_CARD_AUTHENTICATION_VERIFICATION',
  'EXCEEDS_AMOUNT_LIMIT',
  'FORMAT_ERROR',
  'INCORRECT_CARD_AUTHENTICATION',
  'INSUFFICIENT_FUNDS',
  'INVALID_CARD_NUMBER',
  'INVALID_TRANSACTION',
  'ISSUER_DECLINED',
  'LOST_OR_STOLEN',
  'MERCHANT_CONFIGURATION',
  'NEGATIVE_BALANCE',
  'NEGATIVE_BALANCE_LIMIT',
  'PIN_LIMIT_EXCEEDED',
  'PROCESSOR_UNAVAILABLE',
  'RESTRICTED_CARD',
  'SCA_PIN_REQUIRED',
  'SCA_REQUIRED',
  'SUSPECTED_FRAUD',
  'TEMPORARY_ISSUE_RETRY',
  'TIMEOUT',
  'TRANSACTION_NOT_ALLOWED',
  'UNABLE_TO_ROUTE_TRANSACTION',
  'UNSUPPORTED_ISSUER',
  'OTHER',
] as const;
export type TeyaStatusReason = (typeof TEYA_STATUS_REASONS)[number];
const StatusReason = z.enum(TEYA_STATUS_REASONS);
const Status = z.enum(['SUCCESS', 'FAILURE', 'PENDING']);

/** An online transaction (OnlineTransaction). */
export const TeyaOnlineTransaction = z
  .object({
    authentication_id: uuid,
    transaction_id: uuid,
    status: Status,
    status_reason: StatusReason.nullish(),
    created_at: dateTime,
    updated_at: dateTime,
    issuer_result: TeyaIssuerResult.optional(),
    token_response: z
      .object({
        token_status: z.enum(['SUCCESS', 'FAILED']),
        token_id: z.string().optional(),
        failure_reason: z.string().optional(),
      })
      .passthrough()
      .optional(),
  })
  .passthrough();

/** A transaction waiting for the cardholder's 3-D Secure challenge (RedirectTransactionResponse). */
export const TeyaRedirectTransaction = z
  .object({
    authentication_id: uuid,
    transaction_id: uuid,
    status: Status,
    redirect_html: z.string(),
    created_at: dateTime,
    updated_at: dateTime,
  })
  .passthrough();

/** The answer to `POST /v3/transactions/online` (ProcessTransactionResponseV2). */
export const TeyaProcessTransactionResponse = z
  .object({
    type: z.enum(['ONLINE_TRANSACTION', 'REDIRECT_TRANSACTION_RESPONSE']),
    online_transaction: TeyaOnlineTransaction.optional(),
    redirect_transaction_response: TeyaRedirectTransaction.optional(),
  })
  .passthrough()
  .superRefine((r, ctx) => {
    const member = r.type === 'ONLINE_TRANSACTION' ? 'online_transaction' : 'redirect_transaction_response';
    if (r[member] === undefined)
      ctx.addIssue({ code: 'custom', path: [member], message: `required for type ${r.type}` });
  });

/** `POST /v1/transactions/{id}/capture` (CaptureRequest / CaptureResponse). */
export const TeyaCaptureRequest = z.object({ amount: z.number().int().min(1) }).strict();
export const TeyaCaptureResponse = z
  .object({
    transaction_id: z.string().min(1),
    card_acceptor_id: z.string(),
    status: Status,
    status_reason: StatusReason.nullish(),
    issuer_result: TeyaIssuerResult.optional(),
    processed_at: dateTime.optional(),
  })
  .passthrough();

/** `POST /v3/refunds` (RefundRequest / RefundResponse). */
export const TeyaRefundRequest = z
  .object({
    transaction_id: z.string().min(1),
    amount: z.number().int().min(1),
    merchant_reference: z.string().min(1).max(30).optional(),
  })
  .strict();
export const TeyaRefundResponse = z
  .object({
    transaction_id: z.string().min(1),
    status: Status,
    status_reason: StatusReason.nullish(),
    issuer_result: TeyaIssuerResult,
    refund_amount: z.object({ amount: z.number().int(), currency: z.string() }).passthrough(),
    card_acceptor_id: z.string(),
    created_at: dateTime.optional(),
  })
  .passthrough();

/** `POST /v2/reversals` (ReversalRequest / ReversalResponse). */
export const TeyaReversalRequest = z
  .object({
    transaction_id: z.string().min(1).optional(),
    idempotency_key: z.string().min(1).max(64).optional(),
    reversal_reason: z.enum(['CARD_REVERSAL', 'CARD_REMOVED', 'COMMUNICATION_REVERSAL']),
  })
  .strict();
export const TeyaReversalResponse = z
  .object({
    status: z.enum(['SUCCESS', 'FAILURE', 'PENDING', 'ACKNOWLEDGED']),
    reversal_amount: z
      .object({ amount: z.number().int().min(1), currency: z.string().regex(/^[A-Z]{3}$/) })
      .passthrough(),
  })
  .passthrough();

/** Teya's error body (`code`, `description`, optional `invalid_params`). */
export const TeyaError = z
  .object({
    code: z.string(),
    description: z.string(),
    invalid_params: z.array(z.object({ field: z.string(), reason: z.string() })).optional(),
  })
  .passthrough();

/** Teya ID's token endpoint: a form-encoded client-credentials request and its JSON answer. */
export const TeyaTokenRequest = z
  .object({
    grant_type: z.literal('client_credentials'),
    client_id: z.string().min(1),
    client_secret: z.string().min(1),
    scope: z.string().min(1).optional(),
  })
  .strict();
export const TeyaTokenResponse = z
  .object({
    access_token: z.string().min(1),
    token_type: z.string().regex(/^bearer$/i),
    expires_in: z.number().int().min(1),
    scope: z.string().optional(),
  })
  .passthrough();

/** The scopes Skil's token asks for: one per operation it uses. */
export const TEYA_SCOPES = [
  'transactions/online/create',
  'transactions/online/id/get',
  'captures/create',
  'refunds/create',
] as const;

/**
 * Every operation Skil uses: its request schema and the answer schema per status. The simulated
 * peer holds each exchange to this table; the adapter reads answers by it.
 */
export const TEYA_OPERATIONS = [
  {
    name: 'process_online_transaction',
    method: 'POST',
    path: /^\/v3\/transactions\/online$/,
    idempotencyKey: 'required',
    request: TeyaProcessTransactionRequest,
    responses: { 201: TeyaProcessTransactionResponse, 202: TeyaProcessTransactionResponse },
  },
  {
    name: 'get_online_transaction',
    method: 'GET',
    path: /^\/v2\/transactions\/online\/[0-9a-f-]{36}$/,
    idempotencyKey: 'none',
    request: null,
    responses: { 200: TeyaOnlineTransaction },
  },
  {
    name: 'capture',
    method: 'POST',
    path: /^\/v1\/transactions\/[^/]{1,64}\/capture$/,
    idempotencyKey: 'optional',
    request: TeyaCaptureRequest,
    responses: { 201: TeyaCaptureResponse, 202: TeyaCaptureResponse },
  },
  {
    name: 'refund',
    method: 'POST',
    path: /^\/v3\/refunds$/,
    idempotencyKey: 'optional',
    request: TeyaRefundRequest,
    // 202 ("Refund processing") has no body in the reference.
    responses: { 201: TeyaRefundResponse, 202: null },
  },
  {
    name: 'reversal',
    method: 'POST',
    path: /^\/v2\/reversals$/,
    // The reversal names the transaction (or its key) in the body; the reference has no header.
    idempotencyKey: 'none',
    request: TeyaReversalRequest,
    responses: { 200: TeyaReversalResponse, 202: TeyaReversalResponse },
  },
] as const;

export type TeyaOperation = (typeof TEYA_OPERATIONS)[number];

/** The operation a request is for, or undefined when Skil has no business sending it. */
export function teyaOperation(method: string, pathname: string): TeyaOperation | undefined {
  return TEYA_OPERATIONS.find((op) => op.method === method && op.path.test(pathname));
}
