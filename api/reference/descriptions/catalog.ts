/**
 * Descriptions of the catalog and customer operations (decision 0252): products and their
 * variants, prices, customers, coupons, promotion codes, invoices and credit notes, disputes, test
 * clocks, the billing portal and the browser SDK.
 */
export const CATALOG_DESCRIPTIONS: Record<string, string> = {
  'POST /v1/products':
    'Creates a product: what you sell, with its VAT rate (0, 11 or 24, default 24) and category; `default_price_data` creates its first price at once. Create products before checkout sessions, payment links or subscriptions that sell them. 400 `parameter_invalid` names the field at fault, such as a VAT category that does not go with the rate (`vat_category`).',
  'GET /v1/products':
    'Lists products newest first; `active=true` leaves the archived ones out. Page with `starting_after`.',
  'GET /v1/products/{id}':
    'Retrieves a product with its default price, images and VAT treatment. 404 for an unknown id.',
  'PATCH /v1/products/{id}':
    'Updates the fields sent. `default_price` picks another active price of the product; `default_price_data` makes a new one and archives the old default. 400 `parameter_invalid` for both at once, or a `default_price` that is not an active price of this product (variant prices excluded).',
  'DELETE /v1/products/{id}':
    'Deletes a product that never had a price. One with prices is referred to by past or future sales, so it is refused with 409 `product_has_prices`: archive it with `active: false` instead.',
  'POST /v1/products/{id}/variants':
    'Adds a variant (a size, a colour) to a product, with its own price and optionally its stock; a sale of a variant counts down its stock, and checkout refuses more than is left (`out_of_stock`). 404 for an unknown product.',
  'GET /v1/products/{id}/variants':
    'Lists a product’s variants newest first; `active=true` leaves archived ones out.',
  'GET /v1/products/{id}/variants/{variant}':
    'Retrieves a variant with its price and stock. 404 when the variant is not the product’s.',
  'PATCH /v1/products/{id}/variants/{variant}':
    'Updates a variant’s name, stock, active flag or metadata; a new `unit_amount` archives its price and gives it a new one, so past sales keep the price they were made at. 404 when the variant is not the product’s.',
  'DELETE /v1/products/{id}/variants/{variant}':
    'Deletes a variant; its price is archived and past sales keep referring to both.',
  'POST /v1/prices':
    'Creates a price for a product: a VAT-inclusive amount in ISK, once or recurring (every so many weeks, months or years). A price never changes its amount; sell at a new amount with a new price. 400 `resource_missing` (param `product`) for an unknown product.',
  'GET /v1/prices':
    'Lists prices newest first; filter by `product`, `variant`, `active` or `type` (`one_time`, `recurring`).',
  'GET /v1/prices/{id}': 'Retrieves a price. 404 for an unknown id.',
  'PATCH /v1/prices/{id}':
    'Changes a price’s nickname, active flag or metadata in place. A new `unit_amount` replaces the price: the answer is the new price, and this one is archived. 400 `parameter_invalid` (param `active`) for `active` together with a new amount.',
  'POST /v1/customers':
    'Creates a customer: a person or company with contact details, kennitala, and how their invoices are delivered. Customers are what subscriptions, saved cards and kröfur belong to. 400 `parameter_invalid` for delivery by email without `email`, by Peppol without `peppol_id` or kennitala, or for `test_clock` with a live key.',
  'GET /v1/customers':
    'Lists customers newest first; search with `email` (exact, any letter case) or `kennitala`.',
  'GET /v1/customers/{id}': 'Retrieves a customer. 404 for an unknown or deleted id.',
  'PATCH /v1/customers/{id}':
    'Updates the fields sent; `null` clears a field. The same checks as on create apply to the result (400 `parameter_invalid` for a delivery method without its address).',
  'DELETE /v1/customers/{id}':
    'Deletes a customer: no longer listed or retrievable, but payments, invoices and redemptions keep referring to it.',
  'POST /v1/coupons':
    'Creates a coupon: `percent_off` or `amount_off`, for `once`, `forever` or `repeating` periods, optionally limited to products, a number of redemptions or a date. Customers redeem it through a promotion code, or you apply it to a subscription or session. 400 names the field at fault (both or neither of `percent_off` and `amount_off`, a repeating coupon without its duration).',
  'GET /v1/coupons': 'Lists coupons newest first, with how often each was redeemed.',
  'GET /v1/coupons/{id}': 'Retrieves a coupon. 404 for an unknown or deleted id.',
  'PATCH /v1/coupons/{id}':
    'Changes a coupon’s name or metadata. Its terms never change: discounts already given must stay explainable, so make a new coupon for new terms.',
  'DELETE /v1/coupons/{id}':
    'Deletes a coupon: it cannot be redeemed from now on, and its promotion codes stop working; discounts already applied to subscriptions continue.',
  'POST /v1/promotion-codes':
    'Creates a code customers type at checkout to redeem a coupon, with its own limits (one customer, first purchase only, a minimum amount, an expiry). 400 `parameter_invalid` (param `expires_at`) for an expiry in the past or after the coupon’s `redeem_by`; 400 (param `coupon`) `coupon_deleted`, `coupon_expired` or `coupon_max_redemptions` for a coupon that can no longer be redeemed; `resource_missing` for an unknown coupon or customer.',
  'GET /v1/promotion-codes':
    'Lists promotion codes newest first; filter by `code` (any letter case), `coupon`, `customer` or `active`.',
  'GET /v1/promotion-codes/{id}': 'Retrieves a promotion code with its coupon. 404 for an unknown id.',
  'PATCH /v1/promotion-codes/{id}':
    'Deactivates or reactivates a code, or changes its metadata. A deactivated code’s text may be used by a new code. 409 `coupon_deleted` when reactivating a code whose coupon was deleted.',
  'GET /v1/invoices':
    'Lists invoices newest first. Every sale is invoiced in the transaction that records it, numbered per merchant and environment without gaps; filter by `customer` or `subscription`.',
  'GET /v1/invoices/{id}':
    'Retrieves an invoice with its lines, VAT per rate and the payment it records. Invoices never change; a refund issues a credit note instead.',
  'GET /v1/invoices/{id}/pdf':
    'The invoice as a PDF, the document to send a consumer or print. 404 for an unknown id.',
  'GET /v1/invoices/{id}/ubl':
    'The invoice as a UBL 2.1 e-invoice (Peppol BIS Billing 3.0 with the Icelandic TS-236 rules), for a business buyer’s accounting system. 422 `buyer_is_consumer` for a consumer’s invoice (the PDF is theirs), `seller_incomplete` or `buyer_incomplete` naming the kennitala or address the profile or customer lacked when the invoice was issued.',
  'GET /v1/credit-notes':
    'Lists credit notes newest first, or those of one `invoice`: one is issued for each refund of an invoiced payment, referencing its invoice.',
  'GET /v1/credit-notes/{id}': 'Retrieves a credit note with its lines and the invoice it credits.',
  'GET /v1/credit-notes/{id}/ubl':
    'The credit note as a UBL 2.1 CreditNote (Peppol BIS Billing 3.0, TS-236). 422 as for the invoice’s e-invoice: `buyer_is_consumer`, `seller_incomplete`, `buyer_incomplete`.',
  'GET /v1/disputes':
    'Lists card disputes (chargebacks) newest first, with their status and evidence deadline. The disputed amount is withdrawn in settlement while a dispute is open; `dispute.created` announces each. Filter by `payment_intent`.',
  'GET /v1/disputes/{id}': 'Retrieves a dispute with its reason, amount, evidence and deadline.',
  'POST /v1/disputes/{id}':
    'Submits evidence (receipts, shipping records, the customer’s communication) to the card acquirer before `evidence_details.due_by`; the dispute goes under review. 400 `dispute_not_open` once it is decided or under review, `dispute_evidence_past_due` after the deadline, `dispute_<reason>` when the acquirer refuses the evidence.',
  'POST /v1/disputes/{id}/close':
    'Accepts a dispute: it closes as lost and the withdrawn amount stays withdrawn. Use it when the customer is right, to stop the process early. 400 `dispute_not_open` once it is under review or won; accepting a lost one again answers it unchanged.',
  'POST /v1/test_helpers/test_clocks':
    'Test mode only: creates a clock frozen at `frozen_time`. Customers created with `test_clock` follow it, and so do their subscriptions, so a year of renewals can be tested in seconds. 400 `livemode_mismatch` for a live key.',
  'GET /v1/test_helpers/test_clocks': 'Lists test clocks newest first, with their frozen time and status.',
  'GET /v1/test_helpers/test_clocks/{id}':
    'Retrieves a test clock; its `status` is `advancing` until everything due by its new time has run.',
  'DELETE /v1/test_helpers/test_clocks/{id}':
    'Deletes a test clock and cancels the subscriptions bound to it. 409 `test_clock_advancing` while it advances.',
  'POST /v1/test_helpers/test_clocks/{id}/advance':
    'Moves the clock to `frozen_time`; renewals, trials ending, dunning retries and due dates up to then run in time order. Poll the clock until `status` is `ready` again. 400 `parameter_invalid` for a time not after the current one or more than two years ahead; 409 `test_clock_advancing` while it advances; 503 `workflow_engine_unavailable` when the workflow engine does not answer.',
  'POST /v1/billing_portal/sessions':
    'Creates a single-use link (valid 30 minutes) to the customer portal, where the customer changes their card, switches among `allowed_prices`, or cancels a subscription; then they return to `return_url`. Make one each time the customer clicks “manage subscription”. 400 `parameter_invalid` (param `allowed_prices.<i>`) for a price that is not an active recurring one; `resource_missing` for an unknown customer.',
  'GET /v1/skil.js':
    'The browser SDK, served by Skil itself (no CDN). Load it on your page and call `Skil.openCheckout(session.url, { onComplete })` to open the hosted checkout over your page instead of leaving it. Needs no key; limited per client address (429).',
};
