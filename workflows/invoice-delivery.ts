import { proxyActivities, sleep } from '@temporalio/workflow';
import type { createInvoiceDeliveryActivities } from '../activities/invoice-delivery';
import type { InvoiceDeliveryInput } from './contract';

type Activities = ReturnType<typeof createInvoiceDeliveryActivities>;

// An access point that is down is asked again, for up to a day, before the step gives up.
const { sendInvoiceDelivery, checkInvoiceDelivery, giveUpInvoiceDelivery } = proxyActivities<Activities>({
  startToCloseTimeout: '2 minutes',
  retry: { initialInterval: '2 seconds', maximumInterval: '10 minutes', backoffCoefficient: 2 },
  scheduleToCloseTimeout: '1 day',
});
const { startOpenInvoiceDeliveries } = proxyActivities<Activities>({
  startToCloseTimeout: '1 minute',
  retry: { maximumAttempts: 3 },
});

/** How long the access point is given to deliver or refuse: first answers in seconds, then less often. */
const FIRST_CHECK_MS = 1_000;
const LONGEST_CHECK_MS = 15 * 60_000;
const CHECKS = 40;

/**
 * One issued invoice's delivery (decision 0217): send it the way its customer chose, then ask the
 * access point until it has delivered or refused it (about twelve hours at most), and record the
 * outcome with its event. Started after the issuing transaction commits, under the invoice's id.
 */
export async function invoiceDelivery(input: InvoiceDeliveryInput): Promise<string> {
  let state = await sendInvoiceDelivery(input);
  let wait = FIRST_CHECK_MS;
  for (let i = 0; state === 'pending' && i < CHECKS; i++) {
    await sleep(wait);
    wait = Math.min(wait * 2, LONGEST_CHECK_MS);
    state = await checkInvoiceDelivery(input);
  }
  if (state === 'pending') state = await giveUpInvoiceDelivery(input);
  return state;
}

/**
 * Run by a Temporal schedule: starts the workflows of deliveries still open after `graceMs`. A
 * workflow started after commit normally has them; if the process stopped in between, this does.
 */
export async function invoiceDeliveryRelay(input: { graceMs: number }): Promise<number> {
  return startOpenInvoiceDeliveries({ graceMs: input.graceMs, limit: 1000 });
}
