import type { CreditNoteRow, InvoiceRow } from '../../db/invoices';
import { groupCategory, lineCategory } from '../../domain/invoices';
import type { VatCategory } from '../../domain/vat-category';

/**
 * What a rate alone does not say (decision 0234): zero rated, exempt (with why, Reg. 50/1993 asks
 * the invoice to say why no VAT is charged) or outside the scope. The standard rate says nothing more.
 */
const CATEGORY_LABEL: Record<VatCategory, string> = {
  S: '',
  Z: ' núllskattað / zero rated',
  E: ' undanþegið / exempt',
  O: ' utan gildissviðs VSK / outside the scope of VAT',
};

const kr = (n: number) => `${n.toLocaleString('is-IS').replace(/\u00a0/g, '.')} kr.`;
const day = (d: Date | string) => (typeof d === 'string' ? d : d.toISOString().slice(0, 10));

/**
 * The invoice as a PDF (pdfkit, its standard fonts: Latin-1 holds the Icelandic letters), with what an
 * Icelandic sales invoice must show (Act 50/1988 art. 20, Reg. 50/1993 ch. II; decision 0210): the
 * seller's name, kennitala, address and VAT number (or that it has none), the buyer (a consumer by
 * the name and e-mail it gave; a business with kennitala and address), the number, dates of issue and
 * supply, each line with quantity, unit price and VAT rate, that prices include VAT, VAT per rate and
 * the total. For a consumer this PDF is the invoice: no Peppol document is made for one. Rendered when
 * asked for, never stored.
 */
export async function invoicePdf(
  inv: InvoiceRow,
  credit?: { title: string; credits: string },
): Promise<Buffer> {
  // Loaded on the first PDF asked for: pdfkit and its font metrics are a quarter of a second of
  // start-up that a process which never renders an invoice need not pay.
  const { default: PDFDocument } = await import('pdfkit');
  const doc = new PDFDocument({
    size: 'A4',
    margin: 50,
    info: { Title: `${credit ? 'Kreditreikningur' : 'Reikningur'} ${inv.number}` },
  });
  const chunks: Buffer[] = [];
  doc.on('data', (c: Buffer) => chunks.push(c));
  const done = new Promise<Buffer>((resolve, reject) => {
    doc.on('end', () => resolve(Buffer.concat(chunks)));
    doc.on('error', reject);
  });
  const s = inv.seller;
  doc
    .font('Helvetica-Bold')
    .fontSize(18)
    .text(`${credit?.title ?? 'Reikningur / Invoice'} ${inv.number}`);
  doc.moveDown(0.5).font('Helvetica').fontSize(10);
  if (credit) doc.text(`Vegna reiknings / Credits invoice ${credit.credits}`);
  doc.text(s.name);
  doc.text(`Kennitala: ${s.kennitala ?? '-'}`);
  if (s.address)
    doc.text(`${s.address.street}, ${s.address.postalCode} ${s.address.city}, ${s.address.country}`);
  doc.text(
    s.vat_number === null
      ? 'Ekki á virðisaukaskattsskrá: enginn VSK innheimtur / Not registered for VAT: no VAT charged'
      : `VSK-númer / VAT number: ${s.vat_number}`,
  );
  doc.moveDown();
  const b = inv.buyer;
  doc.font('Helvetica-Bold').text('Kaupandi / Buyer');
  doc.font('Helvetica').text(b.name ?? b.email ?? '-');
  if (b.name && b.email) doc.text(b.email);
  if (b.kennitala) doc.text(`Kennitala: ${b.kennitala}`);
  if (b.address?.line1)
    doc.text(`${b.address.line1}, ${b.address.postal_code ?? ''} ${b.address.city ?? ''}`);
  doc.moveDown();
  doc.text(`Útgáfudagur / Date of issue: ${day(inv.issued_at)}`);
  if (!credit) doc.text(`Afhendingardagur / Date of supply: ${day(inv.supplied_at)}`);
  if (inv.due_date) doc.text(`Gjalddagi / Due date: ${inv.due_date}`);
  if (inv.final_due_date) doc.text(`Eindagi / Final due date: ${inv.final_due_date}`);
  if (!credit) doc.text(`Greiðslutilvísun / Payment reference: ${inv.payment_reference}`);
  doc.moveDown();
  doc.font('Helvetica-Bold').text('Línur / Lines');
  doc.font('Helvetica');
  // A seller without a VAT number says so once, above; its lines keep their rate as before.
  const label = (c: VatCategory) => (s.vat_number === null ? '' : CATEGORY_LABEL[c]);
  for (const l of inv.lines)
    doc.text(
      `${l.description} | ${l.quantity} x ${kr(l.unit_amount)} | VSK ${l.vat_rate}%${label(lineCategory(l, s))} | ${kr(l.amount)}`,
    );
  doc.text('Verð eru með virðisaukaskatti / Prices include VAT');
  doc.moveDown();
  doc.font('Helvetica-Bold').text('VSK / VAT');
  doc.font('Helvetica');
  for (const v of inv.vat) {
    const why = [v.exemption_reason, v.exemption_reason_code].filter(Boolean).join(', ');
    doc.text(
      `VSK ${v.rate}%${label(groupCategory(v, s))}: stofn / taxable ${kr(v.taxable_amount)}, VSK / VAT ${kr(v.vat_amount)}${why ? ` (${why})` : ''}`,
    );
  }
  doc.moveDown();
  doc.font('Helvetica-Bold').text(`Samtals / Total: ${kr(inv.total)}`);
  doc.font('Helvetica').text(`Þar af VSK / of which VAT: ${kr(inv.total_vat)}`);
  doc.end();
  return done;
}

/**
 * A credit note as a PDF, for its e-mail delivery (decision 0237): the invoice's seller and buyer
 * with the credit note's number, date, lines and VAT, naming the invoice it credits.
 */
export function creditNotePdf(note: CreditNoteRow, invoice: InvoiceRow): Promise<Buffer> {
  return invoicePdf(
    {
      ...invoice,
      number: note.number,
      issued_at: note.issued_at,
      due_date: null,
      final_due_date: null,
      lines: note.lines,
      vat: note.vat,
      total: note.total,
      total_vat: note.total_vat,
    },
    { title: 'Kreditreikningur / Credit note', credits: invoice.number },
  );
}
