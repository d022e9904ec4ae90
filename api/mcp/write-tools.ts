import { z } from 'zod';
import { CheckoutSessionSchema } from '../../services/checkout/checkout-session-object';
import { PaymentLinkSchema } from '../../services/payment-links/payment-link-object';
import { CustomerSchema } from '../../services/customers/customer-object';
import { RefundSchema } from '../../services/payments/refund-object';
import { requestHash } from '../../services/idempotency';
import { refundNeedsConfirmation } from '../../domain/mcp-settings';
import { parseInput } from '../validation';
import { CreateSession } from '../routes/checkout-sessions';
import { CreateLink } from '../routes/payment-links';
import { CreateCustomer } from '../routes/customers';
import { CreateRefund } from '../routes/payment-intents';
import type { McpDeps } from './services';
import type { ToolDef } from './tool';
import { callOptions, createTool } from './write-tool';
import { derivedKey, idempotent, toolPath, withoutOptions } from './idempotent';

export const RefundPreviewSchema = z.object({
  object: z.literal('refund_preview'),
  status: z
    .enum(['dry_run', 'confirmation_required'])
    .describe('confirmation_required: nothing was refunded; call again with confirmation_token to refund'),
  dry_run: z.boolean(),
  payment_intent: z.string(),
  amount: z.number().describe('What the refund would refund, whole ISK'),
  amount_refundable: z.number().describe('What is left to refund of the payment'),
  currency: z.literal('ISK'),
  confirmation_required: z.boolean(),
  confirmation_token: z.string().nullable(),
  expires_at: z.number().nullable().describe('Unix time the confirmation_token expires'),
  refunds_today: z.object({
    count: z.number().describe("This key's refunds through the tools today"),
    amount: z.number(),
    daily_refund_count: z.number(),
    daily_refund_amount: z.number(),
  }),
  message: z.string(),
});

const RefundInput = CreateRefund.extend({
  ...callOptions,
  confirmation_token: z
    .string()
    .min(1)
    .max(100)
    .optional()
    .describe(
      "The token of this refund's preview. A live key always needs one (and a test key when the merchant asks): call first without it, show the preview to the person, and call again with the same arguments and the token.",
    ),
});

/** refund_payment: refunds move money, so they are previewed, confirmed, limited per key and day. */
function refundTool(deps: McpDeps): ToolDef {
  const tool = 'refund_payment';
  const { refunds } = deps.services;
  return {
    name: tool,
    title: 'Refund a payment',
    description:
      "Refund all or part (`amount`, whole ISK; unset: all that is left) of a captured payment (pi_…), back to the payer. Never more than was captured. With a live key, and with a test key when the merchant turned that on, the first call refunds nothing: it answers a preview (status confirmation_required) with a confirmation_token good for 5 minutes; show the preview to the person and, once they agree, call again with the same arguments plus confirmation_token. Each API key may refund at most the merchant's daily_refund_count refunds and daily_refund_amount ISK a day through these tools; over that the call is refused.",
    input: RefundInput,
    output: z.union([RefundSchema, RefundPreviewSchema]),
    annotations: { readOnlyHint: false, destructiveHint: true, idempotentHint: true, openWorldHint: true },
    async call(ctx, args) {
      const input = parseInput(RefundInput, args, 'body');
      const { scope, apiKeyId } = ctx;
      const settings = await deps.safety.settings(scope);
      const needsConfirmation = refundNeedsConfirmation(scope.livemode, settings);
      // What a confirmation token stands for: the refund's own arguments.
      const confirms = requestHash(
        'MCP',
        toolPath(tool),
        withoutOptions(args, ['idempotency_key', 'dry_run', 'confirmation_token']),
      );

      const preview = async (status: 'dry_run' | 'confirmation_required') => {
        const p = await refunds.preview(scope, input.payment_intent, { amount: input.amount });
        await deps.safety.checkRefundLimits(apiKeyId, settings, p.amount);
        const usage = await deps.safety.refundUsage(apiKeyId);
        const token =
          status === 'confirmation_required'
            ? await deps.safety.issueConfirmation(scope, apiKeyId, {
                tool,
                requestHash: confirms,
                objectId: p.payment_intent,
                amount: p.amount,
              })
            : null;
        return {
          object: 'refund_preview' as const,
          status,
          dry_run: status === 'dry_run',
          ...p,
          confirmation_required: needsConfirmation,
          confirmation_token: token?.token ?? null,
          expires_at: token?.expiresAt ?? null,
          refunds_today: {
            count: usage.refund_count,
            amount: usage.refund_amount,
            daily_refund_count: settings.daily_refund_count,
            daily_refund_amount: settings.daily_refund_amount,
          },
          message: token
            ? `Nothing was refunded. Refunding ${p.amount} ISK of ${p.payment_intent} needs confirmation: show this to the person and, if they agree, call refund_payment again with the same arguments and confirmation_token (good for 5 minutes).`
            : `Dry run: nothing was refunded. The refund would refund ${p.amount} ISK of ${p.payment_intent}${needsConfirmation ? ', after confirmation' : ''}.`,
        };
      };

      if (input.dry_run) return preview('dry_run');
      if (needsConfirmation && input.confirmation_token === undefined)
        return preview('confirmation_required');

      const params = withoutOptions(args);
      const key = input.idempotency_key ?? derivedKey(ctx, tool, params);
      return idempotent(deps, ctx, { tool, key, params }, async () => {
        let amount = input.amount;
        // One refund per confirmation, however often (and under whichever keys) it is sent.
        let refundKey = key;
        if (input.confirmation_token !== undefined) {
          const confirmation = await deps.safety.confirmation(scope, apiKeyId, input.confirmation_token, {
            tool,
            requestHash: confirms,
          });
          amount = confirmation.amount;
          refundKey = `confirmation:${confirmation.id}`;
        }
        return refunds.create(scope, input.payment_intent, {
          amount,
          reason: input.reason,
          idempotencyKey: refundKey,
          withinLimits: deps.safety.refundLimits(scope, apiKeyId, settings),
        });
      });
    },
  };
}

/** The tools that write: checkout sessions, payment links, customers, and refunds. */
export function writeTools(deps: McpDeps): ToolDef[] {
  return [
    createTool(deps, {
      name: 'create_checkout_session',
      title: 'Create a checkout session',
      description:
        'Create a hosted checkout session (cs_…) and get its `url` (and short_url) to send the buyer to. Charge a fixed `amount` in whole ISK (1000 = 1.000 kr.), or sell `items` ({price} or {product, quantity}, or {description, unit_amount}); `mode` subscription signs up to a recurring price. The buyer pays by card or bank claim; payment_status "paid" (get_checkout_session) means the money arrived. Sessions expire after 24 hours.',
      input: CreateSession,
      output: CheckoutSessionSchema,
      run: (services, ctx, body) => {
        const { currency: _currency, ...input } = body;
        return services.checkout.create(ctx.scope, input);
      },
    }),
    createTool(deps, {
      name: 'create_payment_link',
      title: 'Create a payment link',
      description:
        'Create a payment link (plink_…): a reusable `url` that opens a new checkout for each visitor, for a fixed `amount` in whole ISK or for `items`. Share it by e-mail, SMS or a website. completed_sessions_limit stops it after that many payments.',
      input: CreateLink,
      output: PaymentLinkSchema,
      run: (services, ctx, body) => {
        const { currency: _currency, ...input } = body;
        return services.paymentLinks.create(ctx.scope, input);
      },
    }),
    createTool(deps, {
      name: 'create_customer',
      title: 'Create a customer',
      description:
        'Create a customer (cus_…) with name, email, phone, kennitala (10 digits), address and metadata, to prefill checkouts and find their payments. Look for an existing one first with list_customers (email or kennitala).',
      input: CreateCustomer,
      output: CustomerSchema,
      run: (services, ctx, body) => services.customers.create(ctx.scope, body),
    }),
    refundTool(deps),
  ];
}
