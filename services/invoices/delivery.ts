import { XMLParser } from 'fast-xml-parser';
import type { Knex } from '../../db/knex';
import type { Scope } from '../../domain/scope';
import type { Logger } from '../../stack/logger';
import type { Mailer } from '../../adapters/mail/mailer';
import {
  AccessPointRefusal,
  parseParticipantId,
  type AccessPoints,
  type Transmission,
} from '../../adapters/access-point/access-point';
import { ApiError } from '../../domain/errors';
import { ID_PREFIX } from '../../domain/ids';
import { createInvoiceRepository } from '../../db/invoices';
import { recordEvents } from '../../db/event-batch';
import {
  createInvoiceDeliveryRepository,
  type DeliveredDocument,
  type DeliveryReason,
  type InvoiceDeliveryRow,
} from '../../db/invoice-deliveries';
import { renderReceiptEmail } from '../receipts';
import { presentCreditNote, presentInvoice } from './invoice-object';
import { receiptOfInvoice } from './receipt-mail';
import { creditNotePdf, invoicePdf } from './pdf';
import type { InvoiceService } from './invoices-service';

/** Where a delivery stands after a step: `pending` until the outcome is known, `gone` when there is none. */
export type DeliveryState = 'pending' | 'delivered' | 'failed' | 'gone';

// Values stay text: a kennitala's leading zero is part of the participant id.
const xml = new XMLParser({
  ignoreAttributes: false,
  attributeNamePrefix: '@',
  removeNSPrefix: true,
  parseTagValue: false,
  parseAttributeValue: false,
});

const pickMail = (m: { subject: string; text: string; html: string }) => ({
  subject: m.subject,
  text: m.text,
  html: m.html,
});

type XmlNode = { [name: string]: XmlNode | string | undefined };
const node = (v: XmlNode | string | undefined): XmlNode | undefined =>
  typeof v === 'object' ? v : undefined;

/** A credit note's id, else an invoice's: the one workflow delivers both (decision 0237). */
export const deliveredKind = (documentId: string): DeliveredDocument =>
  documentId.startsWith(`${ID_PREFIX.creditNote}_`) ? 'credit_note' : 'invoice';

/** A party's `EndpointID` as a participant id (`scheme:value`); undefined without one. */
function endpoint(doc: XmlNode | undefined, party: string): string | undefined {
  const e = node(node(node(doc?.[party])?.Party)?.EndpointID);
  const value = e?.['#text'];
  const scheme = e?.['@schemeID'];
  return typeof value === 'string' && typeof scheme === 'string' ? `${scheme}:${value}` : undefined;
}

/**
 * Sends an issued invoice the way its customer chose (decision 0217) and records the outcome with
 * its event, `invoice.delivery_succeeded` or `invoice.delivery_failed`, once:
 * - Peppol: the invoice's UBL (rendered as `/v1/invoices/{id}/ubl` renders it) to the environment's
 *   access point, from the seller's to the buyer's endpoint as the document names them; the access
 *   point validates it and delivers it or refuses it with the rule ids (decisions 0215, 0216);
 * - e-mail: the invoice PDF to the buyer's address.
 * Every step is idempotent by invoice id: the access point answers a repeated send with the first
 * transmission, and a delivery already finished is never finished again.
 */
export function createInvoiceDelivery(deps: {
  knex: Knex;
  invoices: InvoiceService;
  accessPoints: AccessPoints;
  mailer?: Mailer | undefined;
  log: Logger;
  wakeChannels: (ids: string[]) => Promise<void>;
}) {
  const repositories = {
    invoice: createInvoiceDeliveryRepository(deps.knex, 'invoice'),
    credit_note: createInvoiceDeliveryRepository(deps.knex, 'credit_note'),
  };
  const deliveriesOf = (documentId: string) => repositories[deliveredKind(documentId)];
  const invoiceRows = createInvoiceRepository(deps.knex);

  /** The document with its delivery as its object presents it, and the event names of its kind. */
  async function presented(scope: Scope, documentId: string, row: InvoiceDeliveryRow, trx: Knex.Transaction) {
    if (deliveredKind(documentId) === 'invoice') {
      const invoice = (await invoiceRows.findById(scope, documentId, trx))!;
      return { object: 'invoice', data: presentInvoice(invoice, row) } as const;
    }
    const note = (await invoiceRows.findCreditNote(scope, documentId, trx))!;
    const invoice = (await invoiceRows.findById(scope, note.invoice_id, trx))!;
    return { object: 'credit_note', data: presentCreditNote(note, invoice.seller, row) } as const;
  }

  async function finish(
    scope: Scope,
    invoiceId: string,
    outcome: {
      status: 'delivered' | 'failed';
      receiver: string | null;
      transmissionId: string | null;
      reasons: DeliveryReason[];
    },
  ): Promise<DeliveryState> {
    const channels = await deps.knex.transaction(async (trx) => {
      const row = await deliveriesOf(invoiceId).finish(trx, scope, invoiceId, outcome);
      if (!row) return [];
      const { object, data } = await presented(scope, invoiceId, row, trx);
      return recordEvents(trx, [
        {
          merchantId: scope.merchantId,
          livemode: scope.livemode,
          type: row.status === 'delivered' ? `${object}.delivery_succeeded` : `${object}.delivery_failed`,
          data,
        },
      ]);
    });
    await deps.wakeChannels(channels);
    deps.log.info(
      { invoiceId, status: outcome.status, rules: outcome.reasons.map((r) => r.rule) },
      'invoice delivery finished',
    );
    const now = await deliveriesOf(invoiceId).find(scope, invoiceId);
    return now?.status === 'delivered' ? 'delivered' : 'failed';
  }

  const failed = (scope: Scope, d: InvoiceDeliveryRow, reasons: DeliveryReason[], receiver = d.receiver) =>
    finish(scope, d.document_id, { status: 'failed', receiver, transmissionId: d.transmission_id, reasons });

  async function outcomeOf(scope: Scope, d: InvoiceDeliveryRow, t: Transmission): Promise<DeliveryState> {
    if (t.state === 'pending') return 'pending';
    return finish(scope, d.document_id, {
      status: t.state,
      receiver: d.receiver,
      transmissionId: t.id,
      reasons: t.state === 'failed' ? t.reasons : [],
    });
  }

  async function sendPeppol(scope: Scope, d: InvoiceDeliveryRow): Promise<DeliveryState> {
    let document: string;
    try {
      // Exactly what the API answers for the document's UBL (an invoice or a credit note).
      document =
        deliveredKind(d.document_id) === 'invoice'
          ? await deps.invoices.ubl(scope, d.document_id)
          : await deps.invoices.creditNoteUbl(scope, d.document_id);
    } catch (err) {
      // The invoice has no e-invoice (a consumer's, a seller without the fields it needs): say why.
      if (err instanceof ApiError)
        return failed(scope, d, [{ rule: err.code ?? 'ubl_unavailable', message: err.message }]);
      throw err;
    }
    const root = xml.parse(document) as XmlNode;
    const doc = node(root.Invoice) ?? node(root.CreditNote);
    const sender = endpoint(doc, 'AccountingSupplierParty');
    const receiver = endpoint(doc, 'AccountingCustomerParty');
    if (!receiver || !parseParticipantId(receiver))
      return failed(
        scope,
        d,
        [
          {
            rule: 'receiver_not_a_participant',
            message: `The buyer's endpoint (${receiver ?? 'none'}) is not a Peppol participant id: the customer needs a kennitala or GLN`,
          },
        ],
        receiver ?? null,
      );
    if (!sender || !parseParticipantId(sender))
      return failed(
        scope,
        d,
        [
          {
            rule: 'sender_not_a_participant',
            message: "The seller's endpoint is not a Peppol participant id",
          },
        ],
        receiver,
      );
    const accessPoint = scope.livemode ? deps.accessPoints.live : deps.accessPoints.test;
    if (!accessPoint)
      return failed(
        scope,
        d,
        [
          {
            rule: 'no_access_point',
            message: `No Peppol access point is configured for ${scope.livemode ? 'live' : 'test'} mode`,
          },
        ],
        receiver,
      );
    let t: Transmission;
    try {
      t = await accessPoint.send({
        reference: d.document_id,
        kind: deliveredKind(d.document_id),
        sender,
        receiver,
        xml: document,
      });
    } catch (err) {
      if (err instanceof AccessPointRefusal)
        return failed(scope, d, [{ rule: 'access_point_refused', message: err.message }], receiver);
      throw err;
    }
    await deliveriesOf(d.document_id).markSent(scope, d.document_id, { receiver, transmissionId: t.id });
    return outcomeOf(scope, { ...d, receiver, transmission_id: t.id }, t);
  }

  async function sendEmail(scope: Scope, d: InvoiceDeliveryRow): Promise<DeliveryState> {
    const note =
      deliveredKind(d.document_id) === 'credit_note'
        ? (await invoiceRows.findCreditNote(scope, d.document_id))!
        : null;
    const invoice = (await invoiceRows.findById(scope, note?.invoice_id ?? d.document_id))!;
    const to = invoice.buyer.email;
    if (!to)
      return failed(scope, d, [{ rule: 'no_email', message: 'The buyer has no e-mail address' }], null);
    if (!deps.mailer)
      return failed(scope, d, [{ rule: 'no_mail_server', message: 'No mail server is configured' }], to);
    // Mail cannot be taken back or deduplicated by the receiver: of concurrent senders only the one
    // that moves the delivery to `sent` mails, so a buyer gets it at most once.
    if (
      !(await deliveriesOf(d.document_id).markSent(scope, d.document_id, {
        receiver: to,
        transmissionId: null,
      }))
    )
      return 'pending';
    try {
      await deps.mailer.send(
        note
          ? {
              to,
              subject: `Kreditreikningur ${note.number} / Credit note ${note.number}`,
              text: `${invoice.seller.name}: kreditreikningur ${note.number} vegna reiknings ${invoice.number} fylgir sem PDF.\nCredit note ${note.number} for invoice ${invoice.number} is attached as a PDF.\n`,
              attachments: [
                {
                  filename: `${note.number}.pdf`,
                  content: await creditNotePdf(note, invoice),
                  contentType: 'application/pdf',
                },
              ],
            }
          : {
              to,
              ...pickMail(renderReceiptEmail(receiptOfInvoice(invoice, 'is'))),
              attachments: [
                {
                  filename: `${invoice.number}.pdf`,
                  content: await invoicePdf(invoice),
                  contentType: 'application/pdf',
                },
              ],
            },
      );
    } catch (err) {
      // The server did not take it: back to pending, for the activity's retry to send it.
      await deliveriesOf(d.document_id).release(scope, d.document_id);
      throw err;
    }
    return finish(scope, d.document_id, {
      status: 'delivered',
      receiver: to,
      transmissionId: null,
      reasons: [],
    });
  }

  /** Asks the access point how a sent invoice fared, and records a final answer. */
  async function check(scope: Scope, invoiceId: string): Promise<DeliveryState> {
    const d = await deliveriesOf(invoiceId).find(scope, invoiceId);
    if (!d) return 'gone';
    if (d.status === 'delivered' || d.status === 'failed') return d.status;
    // An e-mail being sent, or a document not yet handed over: its sender records the outcome.
    if (d.status === 'pending' || !d.transmission_id) return 'pending';
    const accessPoint = scope.livemode ? deps.accessPoints.live : deps.accessPoints.test;
    if (!accessPoint) return failed(scope, d, [{ rule: 'no_access_point', message: 'No access point' }]);
    return outcomeOf(scope, d, await accessPoint.status(d.transmission_id));
  }

  return {
    /** Sends the document unless it was sent already; what is known of the outcome right after. */
    async send(scope: Scope, invoiceId: string): Promise<DeliveryState> {
      const d = await deliveriesOf(invoiceId).find(scope, invoiceId);
      if (!d) return 'gone';
      if (d.status === 'delivered' || d.status === 'failed') return d.status;
      if (d.status === 'sent') return check(scope, invoiceId);
      return d.method === 'peppol' ? sendPeppol(scope, d) : sendEmail(scope, d);
    },

    check,

    /** The access point never answered: the delivery is failed, for the merchant to follow up. */
    async giveUp(scope: Scope, invoiceId: string): Promise<DeliveryState> {
      const d = await deliveriesOf(invoiceId).find(scope, invoiceId);
      if (!d) return 'gone';
      if (d.status === 'delivered' || d.status === 'failed') return d.status;
      return failed(scope, d, [
        { rule: 'no_answer', message: 'The access point did not report an outcome in time' },
      ]);
    },

    /** Deliveries of both kinds still open after `graceMs`, for the relay to start their workflows again. */
    openBefore: async (before: Date, limit: number) => [
      ...(await repositories.invoice.openBefore(before, limit)),
      ...(await repositories.credit_note.openBefore(before, limit)),
    ],
  };
}

export type InvoiceDelivery = ReturnType<typeof createInvoiceDelivery>;
