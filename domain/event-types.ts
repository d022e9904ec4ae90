/**
 * Every event type of spec §6.1, and ours named the same way (architecture, "Event types"):
 * `notification_channel.disabled` (decision 0112), `refund.updated` (decision 0101). A channel
 * subscribes to a list of these, or to `*`.
 */
export const EVENT_TYPES = [
  'checkout.session.completed',
  'payment_intent.captured',
  'payment_intent.failed',
  'payment_intent.refunded',
  'claim.created',
  'claim.paid',
  'claim.failed',
  // A krafa passed its eindagi unpaid, a collection step was taken on it (warning, interim letter,
  // reminder, call, closing), it was handed to a collector (decision 0246).
  'claim.overdue',
  'claim.collection_step_taken',
  'claim.handed_off',
  'subscription.created',
  'subscription.activated',
  'subscription.updated',
  'subscription.canceled',
  'subscription.renewed',
  'subscription.trial_ended',
  'subscription.payment_failed',
  'subscription.payment_retry_failed',
  'subscription.payment_recovered',
  'debug.check',
  'notification_channel.disabled',
  // A refund's status changed after it was created: a krafa refund's transfer booked (decision 0101).
  'refund.updated',
  // An invoice was issued with its number (it is immutable from then on); a credit note was issued
  // for a refund or a krafa cancelled unpaid (decisions 0140, 0211).
  'invoice.finalized',
  'credit_note.created',
  // An open invoice, collected by krafa, was paid: the krafa was paid in full (decision 0211).
  'invoice.paid',
  // An issued invoice reached the buyer the way its customer chose, or did not: refused by the
  // access point with the rule ids, or undeliverable (decision 0218).
  'invoice.delivery_succeeded',
  'invoice.delivery_failed',
  // The same for a credit note, delivered as its invoice was (decision 0237).
  'credit_note.delivery_succeeded',
  'credit_note.delivery_failed',
  // A delivery's status changed (decision 0133; domain/delivery.ts DELIVERY_EVENTS).
  'delivery.booked',
  'delivery.shipped',
  'delivery.arrived',
  'delivery.collected',
  'delivery.returned',
  'delivery.canceled',
  // A card dispute was opened by the acquirer, changed (evidence submitted), or closed won or lost
  // (decision 0156).
  'dispute.created',
  'dispute.updated',
  'dispute.closed',
] as const;

export type EventType = (typeof EVENT_TYPES)[number];

/** Subscribing to `*` means every type, including ones added later. */
export const ALL_EVENTS = '*';

/** Whether a channel with these subscriptions wants an event of this type. */
export function isSubscribed(subscriptions: readonly string[], type: string): boolean {
  return subscriptions.includes(ALL_EVENTS) || subscriptions.includes(type);
}
