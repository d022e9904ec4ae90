import { z } from 'zod';
import eventExamples from './event-examples.json';
import { EVENT_TYPES, type EventType } from '../../domain/event-types';
import { CheckoutSessionSchema } from '../../services/checkout/checkout-session-object';
import { PaymentIntentSchema } from '../../services/payments/payment-intent-object';
import { RefundSchema } from '../../services/payments/refund-object';
import { ClaimSchema } from '../../services/claims/claim-object';
import { SubscriptionSchema } from '../../services/subscriptions/subscription-object';
import { CreditNoteSchema, InvoiceSchema } from '../../services/invoices/invoice-object';
import { DeliverySchema } from '../../services/delivery/delivery-object';
import { DisputeSchema } from '../../services/disputes/dispute-object';
import { ChannelSchema } from '../../services/channels/notification-channel-object';
import { CollectionStepSchema } from '../../services/collection/collection-object';

/**
 * The webhook events of the OpenAPI document (decision 0250): for each type, the schema of its
 * `data` — the object a GET of it returns, since webhooks carry what a GET would (the webhook-data
 * test) — a sentence on when it is sent, and an example of `data` (event-examples.json), which
 * the docs test validates against the schema.
 */
const DebugCheck = z.object({
  id: z.string(),
  object: z.literal('notification_channel'),
  url: z.string(),
  message: z.string(),
});

const DATA: Record<string, z.ZodType> = {
  'checkout.session': CheckoutSessionSchema,
  payment_intent: PaymentIntentSchema,
  claim: ClaimSchema,
  subscription: SubscriptionSchema,
  refund: RefundSchema,
  invoice: InvoiceSchema,
  credit_note: CreditNoteSchema,
  delivery: DeliverySchema,
  dispute: DisputeSchema,
  notification_channel: ChannelSchema,
  debug: DebugCheck,
};

/** Event types whose `data` is not the object their prefix names: a collection step (decision 0246). */
const DATA_OF_TYPE: Partial<Record<EventType, z.ZodType>> = {
  'claim.overdue': CollectionStepSchema,
  'claim.collection_step_taken': CollectionStepSchema,
  'claim.handed_off': CollectionStepSchema,
};

const WHEN: Record<EventType, string> = {
  'checkout.session.completed':
    'A checkout session was paid (card or a krafa accepted by the bank). Fulfil the order on this event, not on the buyer’s return to your success URL.',
  'payment_intent.captured': 'A card payment was captured: the money will be in the next settlement.',
  'payment_intent.failed': 'A card payment failed: declined, or 3-D Secure was not completed.',
  'payment_intent.refunded': 'A captured payment was refunded, in whole or in part (`amount_refunded`).',
  'claim.created': 'A krafa was created; the next claim batch issues it at the bank.',
  'claim.paid': 'The payer paid a krafa in full, as read from the bank.',
  'claim.failed': 'A krafa ended unpaid: it expired or the bank refused it.',
  'claim.overdue':
    'A krafa passed its eindagi unpaid (after the grace to the next banking day); `data` is the collection step, with what is owed.',
  'claim.collection_step_taken':
    'A collection step was taken on an overdue krafa (warning, letter, reminder, call or closing): its cost and what is owed after it.',
  'claim.handed_off': 'An overdue krafa was handed to the merchant’s collector; `data` is the hand-off step.',
  'subscription.created': 'A subscription was created.',
  'subscription.activated':
    'A subscription’s first payment succeeded, or its trial began with a card on file.',
  'subscription.updated':
    'A subscription changed: price, quantity, card, coupon, or cancellation at period end.',
  'subscription.canceled': 'A subscription ended: canceled now, at period end, or after dunning ran out.',
  'subscription.renewed': 'A new period was charged.',
  'subscription.trial_ended': 'A trial ended and the first paid period began (or failed to).',
  'subscription.payment_failed': 'A renewal payment failed; dunning retries follow.',
  'subscription.payment_retry_failed': 'A dunning retry failed too.',
  'subscription.payment_recovered': 'A retry (or a new card) paid the overdue renewal.',
  'debug.check': 'A test event sent by `POST /v1/notification-channels/test-webhooks`.',
  'notification_channel.disabled':
    'Skil disabled a channel after its deliveries kept failing; sent to the merchant’s other channels.',
  'refund.updated': 'A refund’s status changed after it was made (a krafa refund’s transfer was booked).',
  'invoice.finalized': 'An invoice was issued with its number; it never changes from then on.',
  'credit_note.created': 'A credit note was issued for a refund, or for a krafa cancelled unpaid.',
  'invoice.paid': 'An open invoice collected by krafa was paid.',
  'invoice.delivery_succeeded': 'An invoice reached the buyer the way its customer chose (Peppol or email).',
  'invoice.delivery_failed':
    'An invoice could not be delivered: the access point refused it (with the rule ids) or it was undeliverable.',
  'credit_note.delivery_succeeded':
    'A credit note reached the buyer the way its invoice did (Peppol or email).',
  'credit_note.delivery_failed':
    'A credit note could not be delivered: the access point refused it (with the rule ids) or it was undeliverable.',
  'delivery.booked': 'A parcel was booked with the carrier.',
  'delivery.shipped': 'The carrier has the parcel.',
  'delivery.arrived': 'The parcel is at the pickup point.',
  'delivery.collected': 'The buyer collected the parcel.',
  'delivery.returned': 'The parcel went back to the merchant uncollected.',
  'delivery.canceled': 'The delivery was cancelled before the carrier had it.',
  'dispute.created': 'The acquirer opened a dispute (chargeback); the amount is withdrawn in settlement.',
  'dispute.updated': 'A dispute changed: evidence was submitted.',
  'dispute.closed': 'A dispute was closed, won (the amount is paid back) or lost.',
};

export interface EventDoc {
  type: EventType;
  description: string;
  data: z.ZodType;
  example: unknown;
}

export function dataSchemaOf(type: string): z.ZodType | undefined {
  const own = DATA_OF_TYPE[type as EventType];
  if (own) return own;
  const prefix = type.startsWith('checkout.session.') ? 'checkout.session' : type.split('.')[0]!;
  return DATA[prefix];
}

export const EVENT_DOCS: readonly EventDoc[] = EVENT_TYPES.map((type) => ({
  type,
  description: WHEN[type],
  data: dataSchemaOf(type) ?? z.record(z.string(), z.unknown()),
  example: (eventExamples as Record<string, unknown>)[type],
}));
