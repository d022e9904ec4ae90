import { WorkflowExecutionAlreadyStartedError, WorkflowIdReusePolicy, type Client } from '@temporalio/client';
import {
  WorkflowType,
  invoiceDeliveryWorkflowId,
  type InvoiceDeliveryInput,
  type Workflows,
} from '../workflows/contract';

/**
 * Invoice deliveries ride on the wake-up list a transaction hands its caller for after commit
 * (decision 0217): `issueInvoices` adds one entry per delivery it queued, and the dispatcher that
 * wakes the notification channels starts these deliveries' workflows. Every path that issues
 * invoices (checkout, renewals, and any later one) already wakes that list after its commit.
 */
const PREFIX = 'invoice-delivery:';

export function invoiceDeliveryWake(d: {
  /** The invoice's or credit note's id (decision 0237). */
  document_id: string;
  merchant_id: string;
  livemode: boolean;
}): string {
  return `${PREFIX}${d.livemode ? 'live' : 'test'}:${d.merchant_id}:${d.document_id}`;
}

/** Splits a wake-up list into channel ids and invoice deliveries. */
export function splitWakes(ids: readonly string[]): {
  channels: string[];
  deliveries: InvoiceDeliveryInput[];
} {
  const channels: string[] = [];
  const deliveries: InvoiceDeliveryInput[] = [];
  for (const id of ids) {
    if (!id.startsWith(PREFIX)) {
      channels.push(id);
      continue;
    }
    const [mode, merchantId, invoiceId] = id.slice(PREFIX.length).split(':');
    if (merchantId && invoiceId) deliveries.push({ merchantId, livemode: mode === 'live', invoiceId });
  }
  return { channels, deliveries };
}

/**
 * Starts each delivery's workflow under the invoice's id. A delivery whose workflow runs or ran is
 * left alone, and one that completed is never run again; one that failed (its access point down
 * for a day) may be started again by the relay.
 */
export async function startInvoiceDeliveries(
  client: Client,
  taskQueue: string,
  deliveries: readonly InvoiceDeliveryInput[],
): Promise<void> {
  await Promise.all(
    deliveries.map(async (d) => {
      try {
        await client.workflow.start<Workflows['invoiceDelivery']>(WorkflowType.invoiceDelivery, {
          workflowId: invoiceDeliveryWorkflowId(d.invoiceId),
          taskQueue,
          args: [d],
          workflowIdReusePolicy: WorkflowIdReusePolicy.ALLOW_DUPLICATE_FAILED_ONLY,
        });
      } catch (err) {
        if (!(err instanceof WorkflowExecutionAlreadyStartedError)) throw err;
      }
    }),
  );
}
