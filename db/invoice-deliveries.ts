import type { Db, Knex } from './knex';
import type { Scope } from '../domain/scope';
import { sqlArgs } from './event-batch';

export type InvoiceDeliveryMethod = 'peppol' | 'email';
export type InvoiceDeliveryStatus = 'pending' | 'sent' | 'delivered' | 'failed';
export interface DeliveryReason {
  rule: string;
  message: string;
}

/** What a delivery delivers: an invoice, or a credit note (decision 0237), each in its own table. */
export type DeliveredDocument = 'invoice' | 'credit_note';

export interface InvoiceDeliveryRow {
  /** The invoice's or credit note's id. */
  document_id: string;
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

const TABLES = {
  invoice: { table: 'invoice_deliveries', id: 'invoice_id' },
  credit_note: { table: 'credit_note_deliveries', id: 'credit_note_id' },
} as const;

/**
 * The queueing statement per kind: the customer's choice when the document is issued; a credit
 * note's customer is its invoice's.
 */
const QUEUE = {
  invoice: `insert into invoice_deliveries (invoice_id, merchant_id, livemode, method)
         select i.id, i.merchant_id, i.livemode, c.invoice_delivery
           from invoices i
           join customers c on c.id = i.customer_id and c.merchant_id = i.merchant_id and c.livemode = i.livemode
          where i.id = any(?::text[]) and c.invoice_delivery <> 'none'
         on conflict (invoice_id) do nothing
         returning *`,
  credit_note: `insert into credit_note_deliveries (credit_note_id, merchant_id, livemode, method)
         select n.id, n.merchant_id, n.livemode, c.invoice_delivery
           from credit_notes n
           join invoices i on i.id = n.invoice_id and i.merchant_id = n.merchant_id and i.livemode = n.livemode
           join customers c on c.id = i.customer_id and c.merchant_id = i.merchant_id and c.livemode = i.livemode
          where n.id = any(?::text[]) and c.invoice_delivery <> 'none'
         on conflict (credit_note_id) do nothing
         returning *`,
} as const;

/**
 * One delivery per document (decisions 0217, 0237): written with the invoice or credit note, moved
 * on by its workflow. Rows name the document `document_id` whatever the table's column.
 */
export function createInvoiceDeliveryRepository(db: Db, kind: DeliveredDocument = 'invoice') {
  const { table, id: idColumn } = TABLES[kind];
  const scoped = (scope: Scope, trx: Db = db) =>
    trx<Record<string, unknown>>(table).where({
      merchant_id: scope.merchantId,
      livemode: scope.livemode,
    });
  const row = (r: Record<string, unknown>): InvoiceDeliveryRow => {
    const { [idColumn]: id, ...rest } = r;
    return { ...(rest as Omit<InvoiceDeliveryRow, 'document_id'>), document_id: id as string };
  };
  const rowOrUndefined = (r: Record<string, unknown> | undefined) => (r ? row(r) : undefined);

  return {
    /**
     * The deliveries of newly issued documents whose customer chose Peppol or e-mail, in the issuing
     * transaction. A second call for the same documents writes nothing.
     */
    async queue(trx: Knex.Transaction, documentIds: readonly string[]): Promise<InvoiceDeliveryRow[]> {
      if (documentIds.length === 0) return [];
      const result = await trx.raw<{ rows: Record<string, unknown>[] }>(QUEUE[kind], sqlArgs(documentIds));
      return result.rows.map(row);
    },

    find: async (scope: Scope, documentId: string, trx: Db = db): Promise<InvoiceDeliveryRow | undefined> =>
      rowOrUndefined(
        await scoped(scope, trx)
          .where({ [idColumn]: documentId })
          .first(),
      ),

    async ofInvoices(scope: Scope, documentIds: readonly string[]): Promise<Map<string, InvoiceDeliveryRow>> {
      if (documentIds.length === 0) return new Map();
      const rows = (await scoped(scope).whereIn(idColumn, [...documentIds])).map(row);
      return new Map(rows.map((r) => [r.document_id, r]));
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
      const moved = await scoped(scope)
        .where({ [idColumn]: invoiceId, status: 'pending' })
        .update({
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
        .where({ [idColumn]: invoiceId, status: 'sent', method: 'email' })
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
      const [finished] = await scoped(scope, trx)
        .where({ [idColumn]: invoiceId })
        .whereIn('status', ['pending', 'sent'])
        .update({
          status: outcome.status,
          receiver: outcome.receiver,
          transmission_id: outcome.transmissionId,
          reasons: JSON.stringify(outcome.reasons),
          updated_at: trx.fn.now(),
          finished_at: trx.fn.now(),
        })
        .returning('*');
      return rowOrUndefined(finished);
    },

    /** Deliveries still open and older than `before`, across merchants: for the relay. */
    async openBefore(
      before: Date,
      limit: number,
    ): Promise<{ document_id: string; merchant_id: string; livemode: boolean }[]> {
      return db(table)
        .whereIn('status', ['pending', 'sent'])
        .where('created_at', '<', before)
        .orderBy('created_at')
        .limit(limit)
        .select(`${idColumn} as document_id`, 'merchant_id', 'livemode');
    },
  };
}

export type InvoiceDeliveryRepository = ReturnType<typeof createInvoiceDeliveryRepository>;
