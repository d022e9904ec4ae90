import type { Skil, SkilEvent } from '@skil/sdk';
import type { Command } from 'commander';
import { clientOf, CliError, type GlobalOptions } from '../context';
import { printJson, spinner } from '../output';

const DAY = 86_400;
const SUCCESS_CARD = { number: '4242424242424242', exp_month: 12, exp_year: 2099, cvc: '123' };
/** A test payer's kennitala (docs/guides/testing.md, "The simulated bank"). */
const TEST_PAYER = '3108962099';
const DECLINING_CARD = { number: '4000000000000002', exp_month: 12, exp_year: 2099, cvc: '123' };

/** What a trigger made, and which object the awaited event is about. */
interface Made {
  objectId: string;
  note: string;
}

/**
 * Each trigger makes real test objects through the public API, so the event comes out of the same
 * code paths a merchant's own integration drives: nothing is written to the ledger directly.
 */
const TRIGGERS: Record<string, { about: string; run: (skil: Skil) => Promise<Made> }> = {
  'checkout.session.completed': {
    about: 'a checkout session paid with a test card',
    run: async (skil) => {
      const session = await paidCheckout(skil);
      return { objectId: session.id, note: `checkout session ${session.id}` };
    },
  },
  'payment_intent.captured': {
    about: 'a card payment through a checkout session',
    run: async (skil) => {
      const session = await paidCheckout(skil);
      return { objectId: session.payment_intent!, note: `payment ${session.payment_intent}` };
    },
  },
  'payment_intent.refunded': {
    about: 'a card payment, then its refund',
    run: async (skil) => {
      const session = await paidCheckout(skil);
      const refund = await skil.refunds.create({ payment_intent: session.payment_intent! });
      return { objectId: session.payment_intent!, note: `refund ${refund.id} of ${session.payment_intent}` };
    },
  },
  'subscription.renewed': {
    about: 'a monthly subscription on a test clock, advanced one period',
    run: (skil) => subscriptionOnClock(skil, SUCCESS_CARD, 0, 32 * DAY),
  },
  'subscription.payment_failed': {
    about: 'a subscription whose card declines when its trial ends, on a test clock',
    run: (skil) => subscriptionOnClock(skil, DECLINING_CARD, 7, 7 * DAY + DAY / 2),
  },
  'claim.paid': {
    about: 'a krafa issued at the test bank and paid there by the payer (needs your kennitala set)',
    run: async (skil) => {
      const due = new Date(Date.now() + 14 * DAY * 1000).toISOString().slice(0, 10);
      const claim = await skil.claims.create({ payer_kennitala: TEST_PAYER, amount: 2500, due_date: due });
      await skil.testHelpers.claims.pay(claim.id);
      return { objectId: claim.id, note: `krafa ${claim.id}` };
    },
  },
  'debug.check': {
    about: 'a test event to every enabled webhook endpoint (register one first)',
    run: async (skil) => {
      const sent = await skil.notificationChannels.sendTest({});
      return { objectId: sent.deliveries[0]!.channel, note: `${sent.deliveries.length} endpoint(s)` };
    },
  },
};

export function registerTrigger(program: Command, globals: () => GlobalOptions): void {
  program
    .command('trigger')
    .description('Make test objects that emit an event')
    .argument('<event>', `one of: ${Object.keys(TRIGGERS).join(', ')}`)
    .option('--timeout <seconds>', 'how long to wait for the event', '120')
    .addHelpText(
      'after',
      `\nEvents:\n${Object.entries(TRIGGERS)
        .map(([type, t]) => `  ${type.padEnd(30)} ${t.about}`)
        .join('\n')}\n`,
    )
    .action(async (type: string, opts: { timeout: string }) => {
      const g = globals();
      const trigger = TRIGGERS[type];
      if (!trigger) {
        throw new CliError(`No trigger for '${type}'. Choose one of: ${Object.keys(TRIGGERS).join(', ')}`);
      }
      const skil = clientOf(g);
      const since = new Date(Date.now() - 1000).toISOString();
      const wait = spinner(`Triggering ${type}: ${trigger.about}…`);
      try {
        const made = await trigger.run(skil);
        const event = await awaitEvent(skil, type, made.objectId, since, Number(opts.timeout) * 1000);
        wait.stop(`${type} ${event.id} (${made.note})`);
        if (g.json) printJson(event);
      } catch (err) {
        wait.stop();
        throw err;
      }
    });
}

async function paidCheckout(skil: Skil) {
  const session = await skil.checkout.sessions.create({
    amount: 1990,
    currency: 'ISK',
    success_url: 'http://localhost:4242/success',
  });
  return skil.testHelpers.checkout.sessions.complete(session.id, { card: SUCCESS_CARD });
}

async function subscriptionOnClock(
  skil: Skil,
  card: typeof SUCCESS_CARD,
  trialDays: number,
  advanceSeconds: number,
): Promise<Made> {
  const now = Math.floor(Date.now() / 1000);
  const clock = await skil.testHelpers.testClocks.create({ frozen_time: now, name: 'skil trigger' });
  const customer = await skil.customers.create({ name: 'Trigger customer', test_clock: clock.id });
  const pm = await skil.paymentMethods.create({ card, customer: customer.id });
  const product = await skil.products.create({ name: 'Trigger subscription', vat_rate: 24 });
  const price = await skil.prices.create({
    product: product.id,
    unit_amount: 2990,
    recurring: { interval: 'month' },
  });
  const sub = await skil.subscriptions.create({
    customer: customer.id,
    price: price.id,
    default_payment_method: pm.id,
    ...(trialDays > 0 && { trial_period_days: trialDays }),
  });
  await waitFor(
    () => skil.subscriptions.retrieve(sub.id),
    (s) => s.status === 'active' || s.status === 'trialing',
    60_000,
  );
  await skil.testHelpers.testClocks.advance(clock.id, { frozen_time: now + advanceSeconds });
  await waitFor(
    () => skil.testHelpers.testClocks.retrieve(clock.id),
    (c) => c.status === 'ready',
    120_000,
  );
  return { objectId: sub.id, note: `subscription ${sub.id} on test clock ${clock.id}` };
}

/** The event of this type about this object, made since the trigger started. */
async function awaitEvent(
  skil: Skil,
  type: string,
  objectId: string,
  since: string,
  timeoutMs: number,
): Promise<SkilEvent> {
  const found = await waitFor(
    async () => {
      for await (const e of skil.events.list({ type, after: since, limit: 100 })) {
        if ((e.data as { id?: string }).id === objectId) return e;
      }
      return null;
    },
    (e) => e !== null,
    timeoutMs,
  );
  return found!;
}

async function waitFor<T>(
  read: () => Promise<T>,
  done: (value: T) => boolean,
  timeoutMs: number,
): Promise<T> {
  const deadline = Date.now() + timeoutMs;
  for (;;) {
    const value = await read();
    if (done(value)) return value;
    if (Date.now() > deadline) throw new CliError('Timed out waiting; is the worker running (npm start)?');
    await new Promise((resolve) => setTimeout(resolve, 500));
  }
}
