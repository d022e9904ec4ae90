import { HttpClient, type RequestOptions, type SkilOptions } from './http';
import { list, listById, op, opById, opByIds, send, type QueryParams, type Result } from './operations';
import { constructEvent } from './webhooks';
import { SkilAuthenticationError } from './errors';

function resources(http: HttpClient) {
  return {
    checkout: {
      sessions: {
        create: op(http, 'post', '/v1/checkout/sessions/'),
        retrieve: opById(http, 'get', '/v1/checkout/sessions/{id}'),
        list: list(http, '/v1/checkout/sessions/'),
      },
    },
    paymentIntents: {
      create: op(http, 'post', '/v1/payment-intents'),
      retrieve: opById(http, 'get', '/v1/payment-intents/{id}'),
      list: list(http, '/v1/payment-intents'),
      confirm: opById(http, 'post', '/v1/payment-intents/{id}/confirm'),
      capture: opById(http, 'post', '/v1/payment-intents/{id}/capture'),
      cancel: opById(http, 'post', '/v1/payment-intents/{id}/cancel'),
      refund: opById(http, 'post', '/v1/payment-intents/{id}/refund'),
    },
    refunds: {
      create: op(http, 'post', '/v1/refunds'),
      retrieve: opById(http, 'get', '/v1/refunds/{id}'),
      list: list(http, '/v1/refunds'),
    },
    paymentMethods: {
      create: op(http, 'post', '/v1/payment-methods'),
      retrieve: opById(http, 'get', '/v1/payment-methods/{id}'),
      list: list(http, '/v1/payment-methods'),
      attach: opById(http, 'post', '/v1/payment-methods/{id}/attach'),
      detach: opById(http, 'post', '/v1/payment-methods/{id}/detach'),
    },
    paymentLinks: {
      create: op(http, 'post', '/v1/payment-links'),
      retrieve: opById(http, 'get', '/v1/payment-links/{id}'),
      update: opById(http, 'post', '/v1/payment-links/{id}'),
      del: opById(http, 'delete', '/v1/payment-links/{id}'),
      list: list(http, '/v1/payment-links'),
    },
    customers: {
      create: op(http, 'post', '/v1/customers'),
      retrieve: opById(http, 'get', '/v1/customers/{id}'),
      update: opById(http, 'patch', '/v1/customers/{id}'),
      del: opById(http, 'delete', '/v1/customers/{id}'),
      list: list(http, '/v1/customers'),
      setDefaultPaymentMethod: opById(http, 'post', '/v1/customers/{id}/default-payment-method'),
    },
    products: {
      create: op(http, 'post', '/v1/products'),
      retrieve: opById(http, 'get', '/v1/products/{id}'),
      update: opById(http, 'patch', '/v1/products/{id}'),
      del: opById(http, 'delete', '/v1/products/{id}'),
      list: list(http, '/v1/products'),
      variants: {
        create: opById(http, 'post', '/v1/products/{id}/variants'),
        retrieve: opByIds(http, 'get', '/v1/products/{id}/variants/{variant}'),
        update: opByIds(http, 'patch', '/v1/products/{id}/variants/{variant}'),
        del: opByIds(http, 'delete', '/v1/products/{id}/variants/{variant}'),
        list: listById(http, '/v1/products/{id}/variants'),
      },
    },
    prices: {
      create: op(http, 'post', '/v1/prices'),
      retrieve: opById(http, 'get', '/v1/prices/{id}'),
      update: opById(http, 'patch', '/v1/prices/{id}'),
      list: list(http, '/v1/prices'),
    },
    coupons: {
      create: op(http, 'post', '/v1/coupons'),
      retrieve: opById(http, 'get', '/v1/coupons/{id}'),
      update: opById(http, 'patch', '/v1/coupons/{id}'),
      del: opById(http, 'delete', '/v1/coupons/{id}'),
      list: list(http, '/v1/coupons'),
    },
    promotionCodes: {
      create: op(http, 'post', '/v1/promotion-codes'),
      retrieve: opById(http, 'get', '/v1/promotion-codes/{id}'),
      update: opById(http, 'patch', '/v1/promotion-codes/{id}'),
      list: list(http, '/v1/promotion-codes'),
    },
    subscriptions: {
      create: op(http, 'post', '/v1/subscriptions'),
      retrieve: opById(http, 'get', '/v1/subscriptions/{id}'),
      update: opById(http, 'post', '/v1/subscriptions/{id}'),
      cancel: opById(http, 'delete', '/v1/subscriptions/{id}'),
      list: list(http, '/v1/subscriptions'),
    },
    billingPortal: {
      sessions: { create: op(http, 'post', '/v1/billing_portal/sessions') },
    },
    claims: {
      create: op(http, 'post', '/v1/claims'),
      retrieve: opById(http, 'get', '/v1/claims/{id}'),
      update: opById(http, 'post', '/v1/claims/{id}'),
      cancel: opById(http, 'post', '/v1/claims/{id}/cancel'),
      list: list(http, '/v1/claims'),
    },
    notificationChannels: {
      create: op(http, 'post', '/v1/notification-channels'),
      retrieve: opById(http, 'get', '/v1/notification-channels/{id}'),
      update: opById(http, 'patch', '/v1/notification-channels/{id}'),
      del: opById(http, 'delete', '/v1/notification-channels/{id}'),
      list: list(http, '/v1/notification-channels'),
      /** Sends a `debug.check` event to the key's webhook channels (spec §4.6). */
      sendTest: op(http, 'post', '/v1/notification-channels/test-webhooks'),
      deliveries: {
        list: listById(http, '/v1/notification-channels/{id}/deliveries'),
        retrieve: opByIds(http, 'get', '/v1/notification-channels/{id}/deliveries/{delivery}'),
        resend: opByIds(http, 'post', '/v1/notification-channels/{id}/deliveries/{delivery}/resend'),
      },
    },
    events: {
      retrieve: opById(http, 'get', '/v1/events/{id}'),
      resend: opById(http, 'post', '/v1/events/{id}/resend'),
      list: list(http, '/v1/events'),
    },
    merchant: {
      retrieve: op(http, 'get', '/v1/merchant'),
      update: op(http, 'patch', '/v1/merchant'),
      submit: op(http, 'post', '/v1/merchant/submit'),
      registryLookup: op(http, 'post', '/v1/merchant/registry-lookup'),
      theme: {
        retrieve: op(http, 'get', '/v1/merchant/theme/'),
        update: op(http, 'patch', '/v1/merchant/theme/'),
      },
    },
    reports: {
      vat: {
        /** A VAT period's figures as the boxes of RSK 10.01: `{ period: '2027-01' }` or `{ period: '2027' }`. */
        retrieve: op(http, 'get', '/v1/reports/vat'),
        /** The documents behind a period's figures (`box` narrows to one box); auto-pages like any list. */
        documents: list(http, '/v1/reports/vat/documents'),
      },
      journal: {
        /** One page of a period's journal: `{ period, limit, page }`, `page` a list's `next_page`. */
        list: op(http, 'get', '/v1/reports/journal'),
        /** Every entry of a period, following `next_page` a page at a time. */
        async *entries(
          params: QueryParams<'/v1/reports/journal', 'get'> = {},
          opts?: RequestOptions,
        ): AsyncGenerator<Result<'/v1/reports/journal', 'get'>['data'][number]> {
          let page: string | undefined = params.page;
          for (;;) {
            const res = (await send(
              http,
              'get',
              '/v1/reports/journal',
              { ...params, ...(page && { page }) },
              opts,
            )) as Result<'/v1/reports/journal', 'get'>;
            yield* res.data;
            if (!res.has_more || !res.next_page) return;
            page = res.next_page;
          }
        },
      },
      periods: {
        /** Closes a period of the books (`'2027-01'`, `'2027'`); a closed one is answered again. */
        close: opById(http, 'post', '/v1/reports/periods/{period}/close'),
      },
      chartOfAccounts: {
        retrieve: op(http, 'get', '/v1/reports/chart_of_accounts'),
        /** `{ accounts: [{ role: 'sales_24', number: '3100', name?: 'Sala' }] }`. */
        update: op(http, 'post', '/v1/reports/chart_of_accounts'),
      },
    },
    settlementRuns: {
      retrieve: opById(http, 'get', '/v1/settlement-runs/{id}'),
      list: list(http, '/v1/settlement-runs'),
      lines: listById(http, '/v1/settlement-runs/{id}/lines'),
    },
    testHelpers: {
      claims: { pay: opById(http, 'post', '/v1/test_helpers/claims/{id}/pay') },
      checkout: {
        sessions: { complete: opById(http, 'post', '/v1/test_helpers/checkout/sessions/{id}/complete') },
      },
      testClocks: {
        create: op(http, 'post', '/v1/test_helpers/test_clocks'),
        retrieve: opById(http, 'get', '/v1/test_helpers/test_clocks/{id}'),
        del: opById(http, 'delete', '/v1/test_helpers/test_clocks/{id}'),
        list: list(http, '/v1/test_helpers/test_clocks'),
        advance: opById(http, 'post', '/v1/test_helpers/test_clocks/{id}/advance'),
      },
    },
  };
}

type Resources = ReturnType<typeof resources>;

/**
 * The Skil API client, shaped like stripe-node:
 *
 *     const skil = new Skil(process.env.SKIL_API_KEY!, { baseUrl: 'http://localhost:3000' });
 *     const session = await skil.checkout.sessions.create({ amount: 4990, currency: 'ISK', success_url });
 *     for await (const customer of skil.customers.list()) console.log(customer.id);
 */
// eslint-disable-next-line @typescript-eslint/no-unsafe-declaration-merging -- its resources' types, below
export class Skil {
  /** Verifies a webhook's `X-Service-Signature` and returns the event (spec §6.3). */
  static readonly webhooks = { constructEvent };
  readonly webhooks = { constructEvent };

  /**
   * The device flow (spec §4.2), which needs no key: `authorize` gives the code to show, `token` is
   * polled every `poll_interval` seconds and answers 400 `authorization_pending` until approved.
   */
  static deviceAuthorization(options: SkilOptions = {}) {
    const http = new HttpClient(null, options);
    return {
      authorize: op(http, 'post', '/v1/device/authorize'),
      token: op(http, 'get', '/v1/device/token'),
    };
  }

  private readonly http: HttpClient;

  constructor(key: string, options: SkilOptions = {}) {
    if (typeof key !== 'string' || key.length === 0) {
      throw new SkilAuthenticationError({
        type: 'authentication_error',
        message: 'An API key is required: new Skil(key)',
      });
    }
    this.http = new HttpClient(key, options);
    Object.assign(this, resources(this.http));
  }

  /**
   * Any operation by method and path, untyped: for tools that pass fields through (the CLI's
   * `-d field=value`), and for operations newer than this SDK. Same key, retries and idempotency.
   */
  rawRequest<T = unknown>(
    method: 'get' | 'post' | 'patch' | 'delete',
    path: string,
    params?: Record<string, unknown>,
    opts?: RequestOptions,
  ): Promise<T> {
    return send(this.http, method, path, params, opts) as Promise<T>;
  }
}

// The resources are assigned in the constructor; the interface gives them their types.
// eslint-disable-next-line @typescript-eslint/no-empty-object-type
export interface Skil extends Resources {}
