// Type-checked by `npm test` (tsgo --noEmit, tools/checks.mjs) and never run: each @ts-expect-error
// line is a misuse of the SDK that must not compile. Should the SDK's types loosen, the directive is
// unused and the type check fails.
import { Skil } from '@skil/sdk';

export async function misuse(skil: Skil): Promise<void> {
  // @ts-expect-error a field the API does not have
  await skil.customers.create({ nme: 'Jón' });
  // @ts-expect-error payment_intent is required for a refund
  await skil.refunds.create({ amount: 100 });
  // @ts-expect-error an interval the API does not bill
  await skil.prices.create({ product: 'prod_1', unit_amount: 100, recurring: { interval: 'fortnight' } });
  // @ts-expect-error retrieve needs the object's id
  await skil.customers.retrieve();
  // @ts-expect-error customers cannot be captured
  await skil.customers.capture('cus_1');
  // @ts-expect-error an event type is a string, the list's items are events
  const n: number = (await skil.events.list()).data[0]!.type;
  void n;
  // @ts-expect-error a key is required
  new Skil();
}
