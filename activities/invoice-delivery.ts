import type { Client } from '@temporalio/client';
import type { InvoiceDelivery } from '../services/invoices/delivery';
import { startInvoiceDeliveries } from '../engine/invoice-delivery-starter';
import type { InvoiceDeliveryInput } from '../workflows/contract';

/** The steps of an invoice's delivery (decision 0217); each is idempotent by invoice id. */
export function createInvoiceDeliveryActivities(deps: {
  delivery: InvoiceDelivery;
  client: Client;
  taskQueue: string;
}) {
  const scope = (i: InvoiceDeliveryInput) => ({ merchantId: i.merchantId, livemode: i.livemode });
  return {
    sendInvoiceDelivery: (i: InvoiceDeliveryInput) => deps.delivery.send(scope(i), i.invoiceId),
    checkInvoiceDelivery: (i: InvoiceDeliveryInput) => deps.delivery.check(scope(i), i.invoiceId),
    giveUpInvoiceDelivery: (i: InvoiceDeliveryInput) => deps.delivery.giveUp(scope(i), i.invoiceId),

    /** Starts the workflows of deliveries open longer than `graceMs`; returns how many it found. */
    async startOpenInvoiceDeliveries(input: { graceMs: number; limit: number }): Promise<number> {
      const open = await deps.delivery.openBefore(new Date(Date.now() - input.graceMs), input.limit);
      await startInvoiceDeliveries(
        deps.client,
        deps.taskQueue,
        open.map((d) => ({ merchantId: d.merchant_id, livemode: d.livemode, invoiceId: d.document_id })),
      );
      return open.length;
    },
  };
}
