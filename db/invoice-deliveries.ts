import type { Db, Knex } from './knex';
import type { Scope } from '../domain/scope';
import { sqlArgs } from './event-batch';

export type InvoiceDeliveryMethod = 'peppol' | 'email';
export type InvoiceDeliveryStatus = 'pending' | 'sent' | 'delivered' | 'failed';
export interface DeliveryReason {
  rule: string;
  message: string;
}

export interface InvoiceDeliveryRow {
  invoice_id: string;
  merchant_id: string;
  livemode: boolean;
  method: InvoiceDeliveryMethod;
  status: InvoiceDeliveryStatus;
  receiver: string | null;
  transmission_id: string | null;
  reasons: DeliveryReason[];
  created_at: Date;
  updated_at: Date;
  finished_at: Date | null;
}

/** One delivery per invoice (decision 0217): written with the invoice, moved on by its workflow. */
export function createInvoiceDeliveryRepository(db: Db) {
  const scoped = (scope: Scope, trx: Db = db) =>
    trx<InvoiceDeliveryRow>('invoice_deliveries').where({
      merchant_id: scope.merchantId,
      livemode: scope.livemode,
    });

  return {
    /**
     * The deliveries of newly issued invoices whose customer chose Peppol or e-mail, in the issuing
     * transaction. A second call for the same invoices writes nothing.
     */
    async queue(trx: Knex.Transaction, invoiceIds: readonly string[]): Promise<InvoiceDeliveryRow[]> {
      if (invoiceIds.length === 0) return [];
      const result = await trx.raw<{ rows: InvoiceDeliveryRow[] }>(
        `insert into invoice_deliveries (invoice_id, merchant_id, livemode, method)
         select i.id, i.merchant_id, i.livemode, c.invoice_delivery
           from invoices i
           join customers c on c.id = i.customer_id and c.merchant_id = i.merchant_id and c.livemode = i.livemode
          where i.id = any(?::text[]) and c.invoice_delivery <> 'none'
         on conflict (invoice_id) do nothing
         returning *`,
        sqlArgs(invoiceIds),
      );
      return result.rows;
    },

    find: (scope: Scope, invoiceId: string, trx: Db = db): Promise<InvoiceDeliveryRow | undefined> =>
      scoped(scope, trx).where({ invoice_id: invoiceId }).first(),

    async ofInvoices(scope: Scope, invoiceIds: readonly string[]): Promise<Map<string, InvoiceDeliveryRow>> {
      if (invoiceIds.length === 0) return new Map();
      const rows = await scoped(scope).whereIn('invoice_id', [...invoiceIds]);
      return new Map(rows.map((r) => [r.invoice_id, r]));
    },

    /**
     * The document is on its way (the access point has it, or the mail is being sent); only a
     * pending delivery moves, so of concurrent senders one gets true.
     */
    async markSent(
      scope: Scope,
      invoiceId: string,
      sent: { receiver: string; transmissionId: string | null },
    ): Promise<boolean> {
      const moved = await scoped(scope).where({ invoice_id: invoiceId, status: 'pending' }).update({
        status: 'sent',
        receiver: sent.receiver,
        transmission_id: sent.transmissionId,
        updated_at: db.fn.now(),
      });
      return moved > 0;
    },

    /** An e-mail the server did not take goes back to pending, to be sent by the next try. */
    async release(scope: Scope, invoiceId: string): Promise<void> {
      await scoped(scope)
        .where({ invoice_id: invoiceId, status: 'sent', method: 'email' })
        .update({ status: 'pending', updated_at: db.fn.now() });
    },

    /**
     * The final outcome, once: a delivery already delivered or failed is left as it is and undefined
     * is returned, so its event is written once however often this runs.
     */
    async finish(
      trx: Knex.Transaction,
      scope: Scope,
      invoiceId: string,
      outcome: {
        status: 'delivered' | 'failed';
        receiver: string | null;
        transmissionId: string | null;
        reasons: DeliveryReason[];
      },
    ): Promise<InvoiceDeliveryRow | undefined> {
      const [row] = await scoped(scope, trx)
        .where({ invoice_id: invoiceId })
        .whereIn('status', ['pending', 'sent'])
        .update({
          status: outcome.status,
          receiver: outcome.receiver,
          transmission_id: outcome.transmissionId,
          reasons: JSON.stringify(outcome.reasons) as unknown as DeliveryReason[],
          updated_at: trx.fn.now(),
          finished_at: trx.fn.now(),
        })
        .returning('*');
      return row;
    },

    /** Deliveries still open and older than `before`, across merchants: for the relay. */
    async openBefore(
      before: Date,
      limit: number,
    ): Promise<{ invoice_id: string; merchant_id: string; livemode: boolean }[]> {
      return db('invoice_deliveries')
        .whereIn('status', ['pending', 'sent'])
        .where('created_at', '<', before)
        .orderBy('created_at')
        .limit(limit)
        .select('invoice_id', 'merchant_id', 'livemode');
    },
  };
}

export type InvoiceDeliveryRepository = ReturnType<typeof createInvoiceDeliveryRepository>;
