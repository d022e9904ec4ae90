import { z } from 'zod';
import { descriptionOf, examplesOf, operationKey } from './reference/index';
import { EVENT_DOCS } from './reference/events';

export const API_VERSION = '1.0.0';

export type HttpMethod = 'get' | 'post' | 'patch' | 'delete';

/**
 * Every tag of the document, with its description. The spec (§1) names the groups and most tags;
 * the tags it does not name are placed by decision 0109.
 */
export const TAGS = {
  'Checkout Sessions':
    'Hosted checkout: create a session and send the customer to its url (spec §2.1, §4.5).',
  'Payment Intents': 'Card payments through the API: create, confirm (3-D Secure), capture, cancel, refund.',
  'Payment Methods': "Customers' saved cards: tokenize a test card, attach, detach, set as default.",
  'Payment Links': 'Reusable links that open a new checkout session for each visitor.',
  Refunds: 'Refunds of captured card payments, whole or in part.',
  Invoices:
    'Invoices of every sale, numbered per merchant and environment without gaps, as JSON, PDF and UBL 2.1 e-invoice (Peppol BIS 3, TS-236).',
  'Credit Notes': 'Credit notes issued for refunds of invoiced payments, referencing the invoice.',
  Disputes:
    'Card disputes (chargebacks) the acquirer opened: evidence before the deadline, or accept; the amount is withdrawn in settlement and a won dispute paid back.',
  Customers: 'The people and companies a merchant sells to, with contact details and kennitala.',
  Subscriptions: 'Recurring billing of a price: trials, proration, dunning, cancellation.',
  'Billing Portal':
    'Single-use links to the customer portal, where a customer manages cards and subscriptions.',
  'Test Clocks':
    'Test mode: frozen clocks that customers and their subscriptions follow, advanced on demand.',
  Products: 'What a merchant sells, with variants and VAT rate.',
  Prices: 'What a product or variant sells for, once or per week, month or year, in ISK.',
  Coupons: 'Discounts: a percentage or an amount off, for a duration, with redemption limits.',
  'Promotion Codes': 'Codes customers type to redeem a coupon, with their own limits.',
  'Notification Channels':
    'Webhook and chat channels that receive events, and their deliveries with every attempt.',
  Claims: 'Bank claims (kröfur): issued to the payer’s online bank and settled through the bank.',
  Delivery:
    'Pickup-point delivery: carriers switched on per environment, their pickup points, and deliveries booked once a session is paid.',
  'Platform Connections':
    'WooCommerce and Shopify shops whose order webhooks (`POST /api/v1/<platform>/webhook/`, spec §4.7) become checkout sessions or kröfur.',
  'Settlement Runs':
    "Each banking day's settlement per merchant: lines, fees and the payout to the merchant's bank account.",
  SDK: 'The browser SDK for embedded checkout (`Skil.openCheckout(session.url, { onComplete })`).',
  Health: 'Liveness, readiness and Prometheus metrics, for operators; no key needed.',
  Meta: 'The API version and this OpenAPI document.',
  Merchant: 'The merchant of the API key: profile, application for live mode, checkout theme.',
  'Device Auth':
    'Device authorization for a CLI or AI agent to obtain a test key (no key needed; RFC 8628 style).',
  Events: 'The event ledger, oldest first: what webhooks deliver, readable by polling.',
  Reports:
    "A merchant's books: the VAT return's figures per period (boxes of RSK 10.01) with the documents behind them.",
  'Point of Sale':
    'The point of sale: registers, paired tills and card terminals, staff PINs, drawer shifts, sales, refunds, X- and Z-reports (403 pos_not_enabled while features.pos is false).',
} as const;

export type ApiTag = keyof typeof TAGS;

/** Spec §1's groups with its tags first, then the tags it does not name (decision 0109). */
export const TAG_GROUPS: readonly { name: string; tags: readonly ApiTag[] }[] = [
  {
    name: 'Payments',
    tags: [
      'Checkout Sessions',
      'Payment Intents',
      'Payment Methods',
      'Payment Links',
      'Refunds',
      'Invoices',
      'Credit Notes',
      'Disputes',
      'Point of Sale',
    ],
  },
  { name: 'Customers', tags: ['Customers', 'Subscriptions', 'Billing Portal', 'Test Clocks'] },
  { name: 'Catalog', tags: ['Products', 'Coupons', 'Promotion Codes', 'Prices'] },
  {
    name: 'Platform',
    tags: ['Notification Channels', 'Claims', 'Delivery', 'Platform Connections', 'Settlement Runs'],
  },
  { name: 'System', tags: ['SDK', 'Health', 'Meta'] },
  { name: 'Merchant', tags: ['Merchant'] },
  { name: 'Books', tags: ['Reports'] },
  { name: 'Device Auth', tags: ['Device Auth'] },
  { name: 'Events', tags: ['Events'] },
];

export interface OperationDoc {
  method: HttpMethod;
  /** Express path, e.g. `/v1/notification-channels/:id`. */
  path: string;
  summary: string;
  tag: ApiTag;
  auth: boolean;
  body?: z.ZodType;
  query?: z.ZodType;
  response: z.ZodType;
  status: number;
  /** The success response's media type; default application/json. */
  contentType?: string;
  /** Error statuses beyond those the operation's shape implies (see errorStatuses). */
  errors?: readonly ErrorStatus[];
}

/** The error statuses the document names one by one; anything else (5xx) is `default`. */
const ERROR_RESPONSES = {
  400: [
    'BadRequest',
    'A parameter is missing or invalid (named in `param`), an id in the body or query names nothing (`resource_missing`), the body is unreadable, or an Idempotency-Key was reused with other parameters.',
  ],
  401: ['Unauthorized', 'No API key, or one that is unknown or revoked.'],
  402: ['PaymentRequired', 'The card was not accepted (`card_declined`): nothing was charged or recorded.'],
  403: ['Forbidden', 'The key is valid but may not do this.'],
  404: [
    'NotFound',
    'An id in the path names nothing in this merchant and mode (`resource_missing`, `param` names it).',
  ],
  409: [
    'Conflict',
    'The object is not in a state that allows this, or a request with the same Idempotency-Key is still in flight.',
  ],
  413: ['PayloadTooLarge', 'The body is larger than the limit (`body_too_large`).'],
  415: ['UnsupportedMediaType', 'The body is not JSON, form-encoded, multipart or plain-text JSON.'],
  422: [
    'Unprocessable',
    'Well formed, but the object is not ready for it; `params` names every field at fault.',
  ],
  429: [
    'TooManyRequests',
    'Over the rate limit of the API key or the client address (`rate_limit_error`); `Retry-After` says when to try again.',
  ],
  503: [
    'ServiceUnavailable',
    'A service this operation needs (the database, the bank, Temporal) is busy or not available (`database_busy` with `Retry-After`); retry later with the same Idempotency-Key.',
  ],
} as const;

export type ErrorStatus = keyof typeof ERROR_RESPONSES;

/**
 * The error statuses of an operation: those its shape implies (a key, a body, a query, a path id,
 * idempotent writes) and those its route declares.
 */
export function errorStatuses(op: OperationDoc): ErrorStatus[] {
  const statuses = new Set<ErrorStatus>(op.errors ?? []);
  // Every keyed request counts against its key's rate limit (decision 0110) and reads the database,
  // which may be too busy to answer in time (decision 0160).
  if (op.auth) [401, 429, 503].forEach((s) => statuses.add(s as ErrorStatus));
  if (op.body || op.query) statuses.add(400);
  if (op.body) [413, 415].forEach((s) => statuses.add(s as ErrorStatus));
  if (/:\w+/.test(op.path)) statuses.add(404);
  // Idempotency-Key: reused with other parameters (400) or still in flight (409).
  if (op.auth && (op.method === 'post' || op.method === 'patch'))
    [400, 409].forEach((s) => statuses.add(s as ErrorStatus));
  // A delete is refused while other objects depend on the object, or in a state that forbids it.
  if (op.auth && op.method === 'delete') statuses.add(409);
  return [...statuses].sort((a, b) => a - b);
}

/** An operationId from method and path: `getV1CheckoutSessionsId`. */
function operationIdOf(method: HttpMethod, path: string): string {
  return `${method}${path.replace(/[{}]/g, '').replace(/[^A-Za-z0-9]+(.)?/g, (_m, c: string | undefined) => (c ? c.toUpperCase() : ''))}`;
}

const ErrorEnvelope = z.object({
  error: z.object({
    type: z.enum([
      'invalid_request_error',
      'authentication_error',
      'permission_error',
      'idempotency_error',
      'rate_limit_error',
      'api_error',
    ]),
    message: z.string(),
    code: z.string().optional(),
    param: z.string().optional(),
    params: z.array(z.string()).optional().describe('422: every field at fault'),
  }),
});

function jsonSchema(schema: z.ZodType, io: 'input' | 'output'): unknown {
  return z.toJSONSchema(schema, {
    io,
    unrepresentable: 'any',
    target: 'draft-2020-12',
    override: (ctx) => {
      numberBounds(ctx);
      portablePattern(ctx.jsonSchema);
      homogeneousTuple(ctx.jsonSchema);
    },
  });
}

/**
 * A JSON Schema `pattern` is not always compiled with the `u` flag (Spectral's example check is
 * not), and without it `\p{Cc}` reads as the letters p, C, c: the control characters' code points
 * (U+0000–U+001F, U+007F–U+009F, which are exactly Cc) say the same in either mode (decision 0255).
 */
function portablePattern(schema: Record<string, unknown>): void {
  if (typeof schema.pattern === 'string')
    schema.pattern = schema.pattern.replaceAll('\\p{Cc}', '\\u0000-\\u001f\\u007f-\\u009f');
}

/**
 * A tuple of one kind (`z.tuple([zIsk, zIsk, zIsk, zIsk])`) written as an array of that kind with
 * its length fixed: the same values, in the form OpenAPI tools read (Spectral's `array-items` asks
 * every array for a schema of its `items`, and zod writes a tuple's as `false`; decision 0255).
 */
function homogeneousTuple(schema: Record<string, unknown>): void {
  const prefix = schema.prefixItems;
  if (!Array.isArray(prefix) || prefix.length === 0 || schema.items !== false) return;
  if (schema.minItems !== prefix.length || schema.maxItems !== prefix.length) return;
  const first = JSON.stringify(prefix[0]);
  if (!prefix.every((p) => JSON.stringify(p) === first)) return;
  schema.items = prefix[0];
  delete schema.prefixItems;
}

/**
 * An integer field that also takes its digits as text (`zInt().pipe(z.number().min(1).max(12))`)
 * is documented by its input side, which knows nothing of the bounds the pipe's number applies.
 * This puts them on the integer alternative, so a generator (or the fuzz test) sends values the
 * API accepts; the text alternative keeps its pattern.
 */
function numberBounds(ctx: { zodSchema: unknown; jsonSchema: Record<string, unknown> }): void {
  const def = (ctx.zodSchema as { _zod: { def: { type: string; out?: unknown } } })._zod.def;
  if (def.type !== 'pipe' || !(def.out instanceof z.ZodNumber)) return;
  const { minValue, maxValue } = def.out;
  const branches = (ctx.jsonSchema.anyOf as Record<string, unknown>[] | undefined) ?? [ctx.jsonSchema];
  for (const branch of branches) {
    if (branch.type !== 'integer' && branch.type !== 'number') continue;
    if (minValue !== null && minValue > ((branch.minimum as number | undefined) ?? -Infinity))
      branch.minimum = minValue;
    if (maxValue !== null && maxValue < ((branch.maximum as number | undefined) ?? Infinity))
      branch.maximum = maxValue;
  }
}

/**
 * The OpenAPI 3.1 document, generated from the same zod schemas that validate each request, so
 * the document cannot drift from what the API accepts.
 */
export function buildOpenApi(
  operations: readonly OperationDoc[],
  serverUrl: string,
): Record<string, unknown> {
  const paths: Record<string, Record<string, unknown>> = {};
  const operationIds = new Set<string>();
  const usedErrors = new Set<ErrorStatus>();
  for (const op of operations) {
    const params = [...op.path.matchAll(/:(\w+)/g)].map((m) => m[1]!);
    const path = op.path.replace(/:(\w+)/g, '{$1}');
    const query = op.query
      ? (jsonSchema(op.query, 'input') as { properties?: Record<string, unknown>; required?: string[] })
      : undefined;
    const bodySchema = op.body ? jsonSchema(op.body, 'input') : undefined;
    const operationId = operationIdOf(op.method, path);
    // Client generators refuse a document with two operations of one id (decision 0109).
    if (operationIds.has(operationId)) throw new Error(`Two operations share the operationId ${operationId}`);
    operationIds.add(operationId);
    const errors = errorStatuses(op);
    errors.forEach((s) => usedErrors.add(s));
    const key = operationKey(op.method, path);
    const description = descriptionOf(key);
    const examples = examplesOf(key);
    (paths[path] ??= {})[op.method] = {
      summary: op.summary,
      ...(description !== undefined && { description }),
      tags: [op.tag],
      operationId,
      // One scheme, HTTP bearer (spec §5.1), declared on each operation that takes the key; the
      // rest (system endpoints, device flow, signed platform webhooks, the SDK script) declare none.
      security: op.auth ? [{ bearerAuth: [] }] : [],
      parameters: [
        ...params.map((name) => ({ name, in: 'path', required: true, schema: { type: 'string' } })),
        ...Object.entries(query?.properties ?? {}).map(([name, schema]) => ({
          name,
          in: 'query',
          required: query?.required?.includes(name) ?? false,
          schema,
        })),
        ...(op.method === 'post' || op.method === 'patch'
          ? [
              {
                name: 'Idempotency-Key',
                in: 'header',
                required: false,
                schema: { type: 'string', maxLength: 255 },
              },
            ]
          : []),
      ],
      ...(bodySchema !== undefined && {
        requestBody: {
          required: false,
          content: Object.fromEntries(
            [
              'application/json',
              'application/x-www-form-urlencoded',
              'multipart/form-data',
              'text/plain',
            ].map((t) => [
              t,
              // One example, on JSON: the other encodings carry the same fields.
              {
                schema: bodySchema,
                ...(t === 'application/json' &&
                  examples.request !== undefined && { example: examples.request }),
              },
            ]),
          ),
        },
      }),
      responses: {
        [String(op.status)]: {
          description: 'OK',
          content: {
            [op.contentType ?? 'application/json']: {
              schema: jsonSchema(op.response, 'output'),
              ...(examples.response !== undefined && { example: examples.response }),
            },
          },
        },
        ...Object.fromEntries(
          errors.map((s) => [String(s), { $ref: `#/components/responses/${ERROR_RESPONSES[s][0]}` }]),
        ),
        default: {
          description: 'Any other error, among them 500 `api_error` (with the request id)',
          content: { 'application/json': { schema: { $ref: '#/components/schemas/Error' } } },
        },
      },
    };
  }
  const usedTags = new Set<string>(operations.map((op) => op.tag));
  const responses = Object.fromEntries(
    [...usedErrors]
      .sort((a, b) => a - b)
      .map((s) => {
        const [name, description] = ERROR_RESPONSES[s];
        return [
          name,
          {
            description,
            content: { 'application/json': { schema: { $ref: '#/components/schemas/Error' } } },
          },
        ];
      }),
  );
  return {
    openapi: '3.1.0',
    info: {
      title: 'Skil API',
      version: API_VERSION,
      description: 'Payments, subscriptions and Icelandic bank claims (kröfur). Amounts are integer ISK.',
      // Spectral's info-contact: who answers for the API (decision 0250).
      contact: { name: 'Skil', url: `${serverUrl}/docs` },
      license: { name: 'Apache-2.0', identifier: 'Apache-2.0' },
    },
    servers: [{ url: serverUrl }],
    security: [{ bearerAuth: [] }],
    components: {
      // The spec declares HTTP bearer alone (§5.1); the `x-api-key` header the typed SDK sends
      // (§5.3) is accepted as the same key and named here rather than as a second scheme (decision 0204).
      securitySchemes: {
        bearerAuth: {
          type: 'http',
          scheme: 'bearer',
          description:
            'An API key, sk_test_… or sk_live_…, as `Authorization: Bearer <API_KEY>`. The same key is also accepted in an `x-api-key: <API_KEY>` header, as the typed server SDK sends it.',
        },
      },
      schemas: { Error: jsonSchema(ErrorEnvelope, 'output') },
      responses,
    },
    // Every tag, with the Delivery tag the spec groups (it has no operations yet: decision 0109).
    tags: (Object.keys(TAGS) as ApiTag[])
      .filter((t) => usedTags.has(t) || t === 'Delivery')
      .map((name) => ({ name, description: TAGS[name] })),
    'x-tagGroups': TAG_GROUPS.map((g) => ({
      name: g.name,
      tags: g.tags.filter((t) => usedTags.has(t) || t === 'Delivery'),
    })).filter((g) => g.tags.length > 0),
    paths,
    // The events Skil sends to notification channels, each with an example of its `data` (decision 0250).
    webhooks: webhooks(),
  };
}

/** The browser SDK, served by the checkout pages (web/) and documented here with the API. */
export const SDK_SCRIPT_DOC: OperationDoc = {
  method: 'get',
  path: '/v1/skil.js',
  summary:
    'The browser SDK: load it, then call Skil.openCheckout(session.url, { onComplete }) for embedded checkout',
  tag: 'SDK',
  auth: false,
  response: z.string(),
  status: 200,
  contentType: 'application/javascript',
  // A page: limited per client address (decision 0110).
  errors: [429],
};

/**
 * The webhook events (OpenAPI 3.1 `webhooks`): what Skil POSTs to a notification channel for each
 * type, the body's `data` held to the object's schema, with an example of a whole event.
 */
function webhooks(): Record<string, unknown> {
  return Object.fromEntries(
    EVENT_DOCS.map((e) => {
      const envelope = z.object({
        id: z.string().describe('evt_…; the same id in every delivery of this event'),
        type: z.literal(e.type),
        created_at: z.string().describe('ISO 8601 with milliseconds, UTC'),
        data: e.data,
        merchant_id: z.string(),
        environment: z.enum(['live', 'test']),
      });
      return [
        e.type,
        {
          post: {
            summary: e.type,
            description: e.description,
            operationId: `webhook${operationIdOf('post', `/${e.type}`).slice(4)}`,
            tags: ['Events'],
            security: [],
            parameters: [
              {
                name: 'X-Service-Signature',
                in: 'header',
                required: true,
                description: '`sha256=` and the hex HMAC-SHA256 of the raw body with the channel’s secret',
                schema: { type: 'string' },
              },
              {
                name: 'X-Service-Event',
                in: 'header',
                required: true,
                description: 'The event type',
                schema: { type: 'string' },
              },
              {
                name: 'X-Service-Delivery-Id',
                in: 'header',
                required: true,
                description: 'The delivery; the same on every attempt of it',
                schema: { type: 'string' },
              },
            ],
            requestBody: {
              required: true,
              content: {
                'application/json': {
                  schema: jsonSchema(envelope, 'output'),
                  ...(e.example !== undefined && {
                    example: {
                      id: 'evt_0VckA4Gr756MjgLXJFwxbdXp',
                      type: e.type,
                      created_at: '2026-12-02T17:05:00.000Z',
                      data: e.example,
                      merchant_id: 'mer_0Vck9wZc1xRj7TnP0bWs9eKq',
                      environment: 'test',
                    },
                  }),
                },
              },
            },
            responses: {
              '200': {
                description:
                  'Any 2xx answered within 30 seconds acknowledges the delivery; anything else is retried.',
              },
            },
          },
        },
      ];
    }),
  );
}
