/**
 * Descriptions of the payment operations (decision 0252): checkout sessions, payment intents,
 * refunds, payment methods, payment links, kröfur and subscriptions.
 */
export const PAYMENT_DESCRIPTIONS: Record<string, string> = {
  'POST /v1/checkout/sessions/':
    'Creates a hosted checkout for an amount or for line items; send the buyer to its `url`. The buyer pays by card or, when offered, by krafa; fulfil on the `checkout.session.completed` webhook. 400 names the field at fault (`resource_missing` for an unknown price or customer, `out_of_stock`, `carrier_not_active` for a delivery option that is switched off).',
  'GET /v1/checkout/sessions/': 'Lists checkout sessions newest first, to reconcile orders with payments.',
  'GET /v1/checkout/sessions/{id}':
    'Retrieves a checkout session with its status, payment and the custom fields the buyer filled in. Read it when the buyer returns to your success URL, but fulfil on the webhook.',
  'POST /v1/test_helpers/checkout/sessions/{id}/complete':
    'Test mode only: pays an open session with a test card, as a buyer on the hosted page would, so a test reaches `checkout.session.completed` without a browser. 400 `checkout_session_not_open` for a session already paid or expired, `card_declined` (param `card`) for a declining test card; 400 too for a live key: test helpers work in test mode only.',
  'POST /v1/payment-intents':
    'Creates a card payment through the API, for when you build your own payment form; `confirm: true` confirms it at once with a payment method. 503 `card_payments_not_enabled` for a live key before the merchant’s card acquirer is activated; 402 `card_declined` when a confirmed card is declined.',
  'GET /v1/payment-intents':
    'Lists payment intents newest first, with their status, to reconcile card payments.',
  'GET /v1/payment-intents/{id}':
    'Retrieves a payment intent; one waiting for 3-D Secure is first brought up to date with the acquirer.',
  'POST /v1/payment-intents/{id}/confirm':
    'Confirms a payment intent with a payment method (or a test card in test mode). It may answer `requires_action` with the 3-D Secure URL to send the buyer to. 402 `card_declined`; 409 `payment_intent_unexpected_state` when it is not awaiting confirmation.',
  'POST /v1/payment-intents/{id}/capture':
    'Captures an authorized payment made with manual capture, all or part of it, once; the rest is released. 409 `payment_intent_unexpected_state` unless it is authorized and uncaptured.',
  'POST /v1/payment-intents/{id}/cancel':
    'Cancels a payment intent not yet captured; an authorization is released to the card holder. 409 `payment_intent_unexpected_state` once captured: refund instead.',
  'POST /v1/payment-intents/{id}/refund':
    'Refunds all or part of a captured payment; the same as `POST /v1/refunds` with this payment. 400 `amount_too_large` above what is left to refund; 409 `charge_already_refunded` when nothing is left.',
  'POST /v1/refunds':
    'Refunds all or part of a captured payment, never more than was captured in total. A refund of an invoiced sale issues a credit note. 400 `amount_too_large`; 409 `charge_already_refunded`.',
  'GET /v1/refunds': 'Lists refunds newest first, card and krafa refunds alike, with their status.',
  'GET /v1/refunds/{id}':
    'Retrieves a refund with its status; a krafa refund is pending until its transfer is booked.',
  'POST /v1/payment-methods':
    'Test mode only: turns a test card number into a payment method, optionally attached to a customer at once. Real card numbers never reach the API: in live mode cards are entered on the hosted checkout.',
  'GET /v1/payment-methods': 'Lists a customer’s saved payment methods; detached ones are left out.',
  'GET /v1/payment-methods/{id}': 'Retrieves a payment method: brand, last four digits, expiry.',
  'POST /v1/payment-methods/{id}/attach':
    'Attaches a payment method to a customer, so subscriptions and later payments can use it. 409 when it is attached to another customer or detached.',
  'POST /v1/payment-methods/{id}/detach':
    'Detaches a payment method from its customer; it can no longer be used.',
  'POST /v1/customers/{id}/default-payment-method':
    'Sets the card a customer’s subscriptions are charged to. 400 `payment_method_not_attached` for a card that is not the customer’s.',
  'POST /v1/payment-links':
    'Creates a reusable link that opens a new checkout session for each visitor, for a price or an amount; share it by email, QR code or social media. 400 names the field at fault.',
  'GET /v1/payment-links': 'Lists payment links newest first, active and deactivated alike.',
  'GET /v1/payment-links/{id}': 'Retrieves a payment link with its URL and how often it was paid.',
  'POST /v1/payment-links/{id}':
    'Switches a payment link on or off (`active`), changes its limit or metadata. A deactivated link shows the buyer that it is closed.',
  'DELETE /v1/payment-links/{id}':
    'Always refused with 409 `payment_link_not_deletable`: payment links are kept for the sessions they opened. Deactivate one with `active: false`.',
  'POST /v1/claims':
    'Creates a krafa (bank claim) to a payer’s kennitala; the next claim batch issues it, and it appears in the payer’s online bank. Paid kröfur are read from the bank and sent as `claim.paid`. 400 `claims_not_enabled` until the merchant may issue kröfur in this mode (always in test mode; in live mode once approved with the claims agreement signed), `merchant_kennitala_missing` while the profile has no kennitala to issue them under; 400 names any other field at fault.',
  'GET /v1/claims': 'Lists kröfur newest first, with their status at the bank and what was paid.',
  'GET /v1/claims/{id}': 'Retrieves a krafa with its status, its key at the bank and what was paid.',
  'POST /v1/claims/{id}':
    'Amends an unpaid krafa (amount, due dates), at the bank too once issued. 409 `claim_not_amendable` once paid, cancelled or expired.',
  'POST /v1/claims/{id}/cancel':
    'Cancels an unpaid krafa, at the bank too once issued. 409 `claim_not_cancellable` once paid or already ended.',
  'POST /v1/test_helpers/claims/{id}/pay':
    'Test mode only: the payer pays the krafa at the simulated bank (issued first if still pending), all that is due or `amount`; the bank sync then records it as a real payment would be. 409 `claim_not_payable` for a krafa that is paid, cancelled or expired.',
  'POST /v1/subscriptions':
    'Subscribes a customer to a recurring price: the first period is charged to the customer’s card now, or a trial begins. 400 `trial_missing_payment_method` for a trial that needs a card; 400 `claims_not_enabled` for collection by krafa before kröfur are enabled; 402 `card_declined` leaves it `incomplete`.',
  'GET /v1/subscriptions': 'Lists subscriptions newest first; filter by customer, status or price.',
  'GET /v1/subscriptions/{id}': 'Retrieves a subscription with its current period and its latest renewal.',
  'POST /v1/subscriptions/{id}':
    'Changes a subscription: the price (from the next period, or at once with proration), quantity, card, coupon, or `cancel_at_period_end`. 409 for a subscription that has ended.',
  'DELETE /v1/subscriptions/{id}':
    'Cancels a subscription now; nothing more is charged. To stop at the end of the paid period instead, set `cancel_at_period_end`. 409 when it has already ended.',
};
