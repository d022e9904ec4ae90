/**
 * Descriptions of the system, device, events, notification-channel and merchant operations
 * (decision 0252): what each does, when to use it, and the errors it answers beyond the
 * ones every keyed operation shares (listed in the reference's Errors section).
 */
export const SYSTEM_DESCRIPTIONS: Record<string, string> = {
  'GET /health':
    'Answers 200 while the API process runs, with the API version. For a load balancer or an orchestrator: it checks nothing beyond the process, so it stays up while the database is away. Never rate limited.',
  'GET /ready':
    'Answers 200 `ok` when PostgreSQL and Temporal both answer, and 503 `degraded` naming which does not. Use it to take an instance out of rotation; it is what `npm start` waits for.',
  'GET /metrics':
    'Request counts and latencies by route template and status, the database pool and workflow starts, in the Prometheus text format. For a scraper on the operator’s network.',
  'GET /v1':
    'The API’s name, its version and where its documentation is (this reference, at `/docs`). A client may call it first to check it reached Skil.',
  'GET /v1/openapi.json':
    'The OpenAPI 3.1 document of every operation and webhook event, generated from the schemas that validate each request, so it cannot drift from what the API accepts. Feed it to a client generator or a linter.',
  'POST /v1/device/authorize':
    'Starts the device flow a CLI or an agent uses to get a test key without copying one: answers a `device_code` to poll with and a `user_code` and `verification_uri` for a person to approve in the dashboard. Limited to 10 a minute per client address (429).',
  'GET /v1/device/token':
    'Poll with the `device_code` at the `interval` given: 400 `authorization_pending` until a person approves, `slow_down` when polled too often, `access_denied` when refused, `expired_token` after ten minutes; then 200 with a test API key, once.',
  'POST /v1/pos/devices':
    'A till pairs itself to a register with the single-use pairing code made on the dashboard or by `POST /v1/pos/registers/{id}/pairing_codes`, and receives its device credential once. 400 `pos_pairing_code_invalid` for a wrong, used or expired code; 403 `pos_not_enabled` when the point of sale is off for the merchant.',
  'POST /v1/pos/terminal_announcements':
    'A card terminal announces the registration code on its screen and the address where the register reaches it, so `POST /v1/pos/terminals` can pair it by that code. Called by the terminal, not by an integration.',
  'POST /api/v1/{platform}/webhook/':
    'Where a connected WooCommerce or Shopify shop sends its order webhooks (`platform` is `woocommerce` or `shopify`): a paid-by-card order becomes a checkout session and a pay-later order a krafa. The platform signs the raw body with the connection’s secret; 401 when the signature does not match, 404 when no connection has that source.',
  'GET /v1/events':
    'Lists the event ledger oldest first: what webhooks deliver, for a client that polls instead. Filter by `type`; poll with `after` set to the last `created_at` you saw, which misses nothing because an event is listed only once no earlier one can still commit.',
  'GET /v1/events/{id}':
    'Retrieves one event as webhooks deliver it. Use it to check a webhook you received really came from Skil: fetch it by its id. 404 for an id of the other environment.',
  'POST /v1/notification-channels':
    'Creates a webhook or chat channel that receives the event types it subscribes to (or `*`); the answer holds the signing secret. 400 `url_invalid`, `url_insecure` (a live channel needs https) or `url_not_public` (a private or loopback address, unless allowed for test channels).',
  'GET /v1/notification-channels': 'Lists the channels of this environment, newest first, with their status.',
  'POST /v1/notification-channels/test-webhooks':
    'Sends a `debug.check` event to one channel (`channel`) or to every enabled one, to test a receiver end to end. 400 `no_enabled_channel` when there is none to send to, or the one named is disabled.',
  'GET /v1/notification-channels/{id}': 'Retrieves a channel with its configuration and signing secret.',
  'PATCH /v1/notification-channels/{id}':
    'Changes a channel’s URL, subscriptions, description or metadata, or re-enables one Skil disabled after failing deliveries (`status: enabled`), after which pending deliveries resume. The URL is checked as on create (400).',
  'DELETE /v1/notification-channels/{id}':
    'Deletes a channel; deliveries still pending to it are given up. Events stay in `GET /v1/events`.',
  'POST /v1/notification-channels/{id}/rotate-secret':
    'Makes a new signing secret. The new one signs `X-Service-Signature` at once; the old one keeps signing `X-Service-Signature-Previous` for `previous_secret_expires_in` seconds (0 to 604800, default a day), so a receiver can switch without losing a delivery.',
  'GET /v1/notification-channels/{id}/deliveries':
    'Lists a channel’s deliveries newest first, with their status: to see what a receiver got and what failed.',
  'GET /v1/notification-channels/{id}/deliveries/{delivery}':
    'Retrieves a delivery with every attempt: when, the HTTP status, the latency and the error. 404 when the delivery is not the channel’s.',
  'POST /v1/notification-channels/{id}/deliveries/{delivery}/resend':
    'Attempts a finished delivery once more, now, for a receiver that was down. 409 `delivery_pending` while the delivery is still being retried on its own schedule, `channel_disabled` while the channel is disabled.',
  'POST /v1/events/{id}/resend':
    'Sends an event to a channel now: once more, or for the first time when the channel was made later or does not subscribe to its type. 400 `resource_missing` when `channel` names nothing; 409 `channel_disabled` until the channel is enabled again.',
  'GET /v1/merchant':
    'The merchant of the API key: profile, application status, capabilities (`card_payments`, `claims`, carriers) and features. Use it to check what the key may do before offering it.',
  'PATCH /v1/merchant':
    'Updates profile fields; only those sent change. 409 `profile_field_locked` for the kennitala and legal name once the application is approved; the payout account is changed only through the dashboard’s guarded flow.',
  'POST /v1/merchant/submit':
    'Submits the live application for review. 422 names every field still missing (`kennitala`, `phone`, `business_description`); 403 `email_not_verified` before the email address is confirmed; 409 `application_already_submitted` or `application_already_approved`.',
  'POST /v1/merchant/registry-lookup':
    'Looks a company up in the national company registry by kennitala, to fill a profile or a customer. 404 when the registry has no such company; 503 when the registry does not answer.',
  'GET /v1/merchant/theme/':
    'The checkout theme of the key’s environment: colours, fonts, logo and texts the hosted checkout uses.',
  'PATCH /v1/merchant/theme/':
    'Updates the checkout theme; `null` clears a field. A live key takes over the test theme. 422 `logo_url_unusable` when the logo cannot be fetched or is not an image.',
};
