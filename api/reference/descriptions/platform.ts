/**
 * Descriptions of the platform operations (decision 0252): settlement runs, pickup-point delivery
 * and the WooCommerce and Shopify connections.
 */
export const PLATFORM_DESCRIPTIONS: Record<string, string> = {
  'GET /v1/settlement-runs':
    'Lists settlement runs newest first: one per banking day, gathering the day’s captured payments, refunds, fees and disputes into one payout to the merchant’s bank account. Filter by `status` (`open`, `pending_review`, `approved`, `submitted`, `paid`, `failed`) or `settlement_date`. A run waiting for an operator’s review is `pending_review`.',
  'GET /v1/settlement-runs/{id}':
    'Retrieves a settlement run with its totals and its payout. 404 for an unknown id.',
  'GET /v1/settlement-runs/{id}/lines':
    'Lists a run’s lines in the order they were gathered: each payment, refund, fee or dispute with its amount, so the payout can be traced to its sources. Page with `starting_after` set to the last line’s id.',
  'GET /v1/settlement-runs/{id}/lines.csv':
    'The same lines as CSV with a header row, amounts in whole ISK, for a spreadsheet or the accountant. 404 for an unknown run.',
  'GET /v1/delivery/carriers':
    'Lists the pickup-point carriers Skil knows (Dropp and Pósturinn) and whether each is switched on in this environment, so checkout can offer its pickup points.',
  'POST /v1/delivery/carriers/{id}':
    'Switches a carrier on or off for this environment (`delivery.<carrier>` in the merchant’s `enabled_capabilities`). 400 `carrier_unavailable` (param `active`) when no carrier contract is configured for this mode; 404 for an unknown carrier.',
  'GET /v1/delivery/pickup-points':
    'Searches the pickup points of the active carriers by `postcode`, by part of the name or address (`q`), or nearest to `latitude` and `longitude` (with `distance_m`): for your own checkout page. 400 for `latitude` without `longitude` or the other way round; 503 `carrier_unavailable` when a carrier does not answer.',
  'GET /v1/deliveries':
    'Lists deliveries newest first; `checkout_session` finds the one of a session. A delivery is booked with its carrier once the session is paid.',
  'GET /v1/deliveries/{id}':
    'Retrieves a delivery with its pickup point, tracking and status (`pending`, `booked`, `in_transit`, `ready_for_pickup`, `collected`, `returned`, `canceled`), read from the carrier.',
  'POST /v1/deliveries/{id}/cancel':
    'Cancels a delivery the carrier does not have yet (`pending` or `booked`), for an order that will not ship. 409 `delivery_not_cancelable` once the parcel is on its way or the carrier refuses; 503 `carrier_unavailable` when the carrier does not answer.',
  'POST /v1/test_helpers/deliveries/{id}/advance':
    'Test mode only: the simulated carrier moves the parcel one step on (`to: next`) or back to the merchant (`returned`), and Skil reads it at once, so the delivery events can be tested. 400 `livemode_mismatch` for a live key; 409 `delivery_not_booked` or `delivery_not_movable`; 503 `carrier_unavailable` when no simulated carrier runs.',
  'POST /v1/platform-connections':
    'Connects a WooCommerce or Shopify shop: give its address and the webhook secret, then point the shop’s order webhook at the answer’s `webhook_url`. Orders paid by card become checkout sessions, and those paid by a method in `claim_payment_methods` kröfur to the order’s kennitala. 409 `platform_connection_exists` when the shop is connected already.',
  'GET /v1/platform-connections': 'Lists connected shops newest first; secrets are never shown.',
  'GET /v1/platform-connections/{id}':
    'Retrieves a connection with its `webhook_url`. 404 for an unknown id.',
  'DELETE /v1/platform-connections/{id}':
    'Disconnects a shop: its webhooks are refused from now on. Sessions and kröfur it created stay.',
};
