import type { z } from 'zod';
import { SubscriptionSchema } from '../../services/subscriptions/subscription-object';
import type { Scope } from '../../domain/scope';
import { listOf, listResponse } from '../list';
import { pageOptions } from '../fields';
import {
  CancelSubscription,
  CreateSubscription,
  SubscriptionListQuery,
  UpdateSubscription,
  createInputOf,
  updateInputOf,
} from '../routes/subscriptions';
import type { McpDeps } from './services';
import { LIST_NOTE, idInput, readTool, type ToolContext, type ToolDef } from './tool';
import { writeTool } from './write-tool';

type Subscription = z.output<typeof SubscriptionSchema>;

/** What a subscription on `priceId` × `quantity` charges each period, and how often, in words. */
async function perPeriod(deps: McpDeps, ctx: ToolContext, priceId: string, quantity: number) {
  const price = await deps.services.prices.retrieve(ctx.scope, priceId);
  const r = price.recurring;
  const every = r ? (r.interval_count === 1 ? r.interval : `${r.interval_count} ${r.interval}s`) : 'period';
  return { amount: price.unit_amount * quantity, every };
}

const live = (scope: Scope) => scope.livemode;

/** An update changes what is charged or whether it is (not only metadata or the reason noted). */
const UPDATE_MONEY_FIELDS = [
  'price',
  'quantity',
  'default_payment_method',
  'cancel_at_period_end',
  'coupon',
  'promotion_code',
  'dunning',
] as const;

const CONFIRM_NOTE =
  'With a live key the first call changes nothing: it answers status confirmation_required with a preview, a message and a confirmation_token good for 5 minutes; show the message to the person and, once they agree, call again with the same arguments plus confirmation_token.';

/** Subscriptions, as `/v1/subscriptions` makes and reads them; live changes need confirmation (decision 0202). */
export function subscriptionTools(deps: McpDeps): ToolDef[] {
  const s = deps.services;
  return [
    writeTool(deps, {
      name: 'create_subscription',
      title: 'Start a subscription',
      description: `Subscribe a customer (cus_…) to a recurring price (price_…), × quantity. Moves money: the first period is charged at once to the customer's card (default_payment_method, or the customer's default), or at the end of a trial (trial_period_days or trial_end; a trial needs no card), and every period after that until cancelled. collection_method "claim" collects each period by a krafa in the customer's online bank instead (needs their kennitala). ${CONFIRM_NOTE} Follow with get_subscription: status becomes active once the first charge succeeds.`,
      input: CreateSubscription,
      output: SubscriptionSchema,
      annotations: { readOnlyHint: false, destructiveHint: false, idempotentHint: true, openWorldHint: true },
      dryRunNote: 'Nothing was created or charged; the id shown is not kept.',
      run: (services, ctx, body) => services.subscriptions.create(ctx.scope, createInputOf(body)),
      confirm: {
        needed: live,
        async about(ctx, body, preview: Subscription) {
          const { amount, every } = await perPeriod(deps, ctx, body.price, body.quantity);
          const first =
            preview.trial_end !== null
              ? `first at the trial's end (${new Date(preview.trial_end * 1000).toISOString().slice(0, 10)})`
              : 'the first period now';
          const how =
            preview.collection_method === 'claim'
              ? 'by krafa to the customer'
              : `to card ${preview.default_payment_method}`;
          return {
            objectId: body.customer,
            amount,
            summary: `This subscribes ${body.customer} to ${body.price}: ${amount} ISK every ${every}, charged ${how}, ${first}, until cancelled.`,
          };
        },
      },
    }),
    writeTool(deps, {
      name: 'update_subscription',
      title: 'Change a subscription',
      description: `Change a subscription (sub_…): price (from the next period; proration_behavior "create_prorations": now, the difference to the day added to the next renewal), quantity, default_payment_method (a past-due subscription retries at once), cancel_at_period_end (true: it ends when the paid period ends, no further charge; false undoes that), coupon or promotion_code (null coupon removes the discount), dunning.claim_fallback, metadata. With a live key a change of what is charged or whether (anything but metadata and cancellation_reason) needs confirmation. ${CONFIRM_NOTE}`,
      input: idInput('subscription', 'sub').extend(UpdateSubscription.shape),
      output: SubscriptionSchema,
      annotations: { readOnlyHint: false, destructiveHint: true, idempotentHint: true, openWorldHint: true },
      dryRunNote: 'Nothing was changed; this is the subscription as the call would leave it.',
      run: (services, ctx, { id, ...body }) =>
        services.subscriptions.update(ctx.scope, id, updateInputOf(body)),
      confirm: {
        needed: (scope, body) => scope.livemode && UPDATE_MONEY_FIELDS.some((f) => body[f] !== undefined),
        async about(ctx, { id }, after: Subscription) {
          const { amount, every } = await perPeriod(
            deps,
            ctx,
            after.pending_update?.price ?? after.price,
            after.quantity,
          );
          const ending = after.cancel_at_period_end
            ? `; it ends when the current period ends (${new Date(after.current_period_end * 1000).toISOString().slice(0, 10)}) and is not charged again`
            : '';
          return {
            objectId: id,
            amount,
            summary: `This changes ${id}: ${amount} ISK every ${every} from the next period${after.proration_amount !== 0 ? `, ${after.proration_amount} ISK proration on the next renewal` : ''}${ending}.`,
          };
        },
      },
    }),
    writeTool(deps, {
      name: 'cancel_subscription',
      title: 'Cancel a subscription now',
      description: `Cancel a subscription (sub_…) at once: no further renewals are charged and the customer loses it now (nothing already paid is refunded; refund_payment does that). To end it when the paid period ends instead, use update_subscription with cancel_at_period_end true. Withholds money: the renewals it would have charged. ${CONFIRM_NOTE}`,
      input: idInput('subscription', 'sub').extend(CancelSubscription.shape),
      output: SubscriptionSchema,
      annotations: { readOnlyHint: false, destructiveHint: true, idempotentHint: true, openWorldHint: false },
      dryRunNote: 'Nothing was cancelled; this is the subscription as the call would leave it.',
      run: (services, ctx, { id, cancellation_reason }) =>
        services.subscriptions.cancel(ctx.scope, id, cancellation_reason ?? null),
      confirm: {
        needed: live,
        async about(ctx, { id }) {
          const now = await s.subscriptions.retrieve(ctx.scope, id);
          const { amount, every } = await perPeriod(deps, ctx, now.price, now.quantity);
          return {
            objectId: id,
            amount,
            summary: `This cancels ${id} (${now.status}, customer ${now.customer}) now: its renewals of ${amount} ISK every ${every} stop, and nothing already paid is refunded.`,
          };
        },
      },
    }),
    readTool({
      name: 'list_subscriptions',
      title: 'List subscriptions',
      description: `List subscriptions (sub_…): customer, price, quantity, status (trialing, incomplete, active, past_due, unpaid, paused, canceled, …), current period and cancel_at_period_end. Filter by customer, status or price. ${LIST_NOTE}`,
      input: SubscriptionListQuery,
      output: listOf(SubscriptionSchema),
      run: async (ctx, query) => {
        const { customer, status, price } = query;
        const page = await s.subscriptions.list(ctx.scope, {
          ...pageOptions(query),
          customer,
          status,
          price,
        });
        return listResponse('/v1/subscriptions', page.data, page.hasMore);
      },
    }),
    readTool({
      name: 'get_subscription',
      title: 'Get a subscription',
      description:
        'Read one subscription (sub_…): its status, price and quantity, current period (Unix times), trial, pending price change, discount, dunning state and whether it ends at the period end. Its charges are in list_invoices (subscription) and list_payment_intents.',
      input: idInput('subscription', 'sub'),
      output: SubscriptionSchema,
      run: (ctx, { id }) => s.subscriptions.retrieve(ctx.scope, id),
    }),
  ];
}
