import type { Buyer, CreditNoteRow, InvoiceRow, Seller } from '../../db/invoices';
import { groupCategory, lineCategory, type InvoiceLine, type VatPerRate } from '../../domain/invoices';
import type { VatCategory } from '../../domain/vat-category';
import { buyerEndpoint } from '../../domain/einvoice-parties';

/**
 * The e-invoice of Icelandic practice: UBL 2.1 following Peppol BIS Billing 3.0 as TS-236 adopts it
 * (decision 0139): the seller identified by kennitala (scheme 0196) as endpoint and legal entity,
 * its VAT number with the IS prefix, VAT per rate, and for a krafa the gjalddagi as due date and the
 * eindagi as the supporting document whose description is EINDAGI (TS-236, rules IS-R-008…010;
 * decision 0208). Rendered when first asked for, never stored.
 */
const CUSTOMIZATION = 'urn:cen.eu:en16931:2017#compliant#urn:fdc:peppol.eu:2017:poacc:billing:3.0';
const PROFILE = 'urn:fdc:peppol.eu:2017:poacc:billing:01:1.0';
const NS = [
  'xmlns:cac="urn:oasis:names:specification:ubl:schema:xsd:CommonAggregateComponents-2"',
  'xmlns:cbc="urn:oasis:names:specification:ubl:schema:xsd:CommonBasicComponents-2"',
].join(' ');

const esc = (s: string) =>
  s.replace(/&/g, '&amp;').replace(/</g, '&lt;').replace(/>/g, '&gt;').replace(/"/g, '&quot;');
const day = (d: Date) => d.toISOString().slice(0, 10);
const amt = (tag: string, n: number) => `<cbc:${tag} currencyID="ISK">${n}</cbc:${tag}>`;

/**
 * A VAT category (decision 0234): its rate, except outside the scope of VAT, which has none
 * (BR-O-05); on a VAT breakdown, for E and O, why no VAT is charged — the lines' reason or VATEX
 * code (BR-E-10), and for O without one the standard text (BR-O-10).
 */
function taxCategory(
  tag: 'TaxCategory' | 'ClassifiedTaxCategory',
  id: VatCategory,
  rate: number,
  exemption?: { reason: string | null; code: string | null; sellerRegistered: boolean },
) {
  let why = '';
  if (exemption && (id === 'E' || id === 'O')) {
    const reason =
      exemption.reason ??
      (id === 'O' && !exemption.code
        ? exemption.sellerRegistered
          ? 'Not subject to VAT'
          : 'Not registered for VAT'
        : null);
    why = `${exemption.code ? `<cbc:TaxExemptionReasonCode>${esc(exemption.code)}</cbc:TaxExemptionReasonCode>` : ''}${
      reason ? `<cbc:TaxExemptionReason>${esc(reason)}</cbc:TaxExemptionReason>` : ''
    }`;
  }
  return `<cac:${tag}><cbc:ID>${id}</cbc:ID>${id === 'O' ? '' : `<cbc:Percent>${rate}</cbc:Percent>`}${why}<cac:TaxScheme><cbc:ID>VAT</cbc:ID></cac:TaxScheme></cac:${tag}>`;
}

/**
 * The seller. Its VAT number is left out of a document whose lines are outside the scope of VAT
 * (BR-O-02); Skil never mixes those with others on one sale (BR-O-11, decision 0234).
 */
function sellerParty(s: Seller, outsideScope = false): string {
  const a = s.address;
  return `<cac:AccountingSupplierParty><cac:Party>
<cbc:EndpointID schemeID="0196">${esc(s.kennitala ?? '')}</cbc:EndpointID>
<cac:PartyName><cbc:Name>${esc(s.name)}</cbc:Name></cac:PartyName>
<cac:PostalAddress>${a ? `<cbc:StreetName>${esc(a.street)}</cbc:StreetName><cbc:CityName>${esc(a.city)}</cbc:CityName><cbc:PostalZone>${esc(a.postalCode)}</cbc:PostalZone>` : ''}<cac:Country><cbc:IdentificationCode>${esc(countryCode(a?.country))}</cbc:IdentificationCode></cac:Country></cac:PostalAddress>
${s.vat_number === null || outsideScope ? '' : `<cac:PartyTaxScheme><cbc:CompanyID>IS${esc(s.vat_number)}</cbc:CompanyID><cac:TaxScheme><cbc:ID>VAT</cbc:ID></cac:TaxScheme></cac:PartyTaxScheme>`}
<cac:PartyLegalEntity><cbc:RegistrationName>${esc(s.name)}</cbc:RegistrationName>${s.kennitala ? `<cbc:CompanyID schemeID="0196">${esc(s.kennitala)}</cbc:CompanyID>` : ''}</cac:PartyLegalEntity>
</cac:Party></cac:AccountingSupplierParty>`;
}

/** ISO 3166-1 alpha-2 from what the profile holds ("IS", "Iceland", "Ísland"). */
function countryCode(country: string | null | undefined): string {
  if (!country) return 'IS';
  if (/^[A-Za-z]{2}$/.test(country)) return country.toUpperCase();
  return /^(iceland|ísland)$/i.test(country.trim()) ? 'IS' : country.slice(0, 2).toUpperCase();
}

/**
 * The buyer of a business invoice (decision 0210): its Peppol id as electronic address (else its
 * kennitala, scheme 0196), its GLN as party identification (scheme 0088), its kennitala as legal id.
 * Only called for a buyer `einvoiceRefusal` accepts, so kennitala and address are there.
 */
function buyerParty(b: Buyer): string {
  const a = b.address;
  const endpoint = buyerEndpoint(b);
  const name = esc(b.name ?? b.email ?? 'Buyer');
  return `<cac:AccountingCustomerParty><cac:Party>
${endpoint ? `<cbc:EndpointID schemeID="${endpoint.scheme}">${esc(endpoint.id)}</cbc:EndpointID>` : ''}
${b.gln ? `<cac:PartyIdentification><cbc:ID schemeID="0088">${esc(b.gln)}</cbc:ID></cac:PartyIdentification>` : ''}
<cac:PartyName><cbc:Name>${name}</cbc:Name></cac:PartyName>
<cac:PostalAddress>${a?.line1 ? `<cbc:StreetName>${esc(a.line1)}</cbc:StreetName>` : ''}${a?.city ? `<cbc:CityName>${esc(a.city)}</cbc:CityName>` : ''}${a?.postal_code ? `<cbc:PostalZone>${esc(a.postal_code)}</cbc:PostalZone>` : ''}<cac:Country><cbc:IdentificationCode>${esc(a?.country ?? 'IS')}</cbc:IdentificationCode></cac:Country></cac:PostalAddress>
<cac:PartyLegalEntity><cbc:RegistrationName>${name}</cbc:RegistrationName>${b.kennitala ? `<cbc:CompanyID schemeID="0196">${esc(b.kennitala)}</cbc:CompanyID>` : ''}</cac:PartyLegalEntity>
</cac:Party></cac:AccountingCustomerParty>`;
}

function taxTotal(seller: Seller, vat: readonly VatPerRate[], total: number): string {
  const subtotals = vat
    .map(
      (v) =>
        `<cac:TaxSubtotal>${amt('TaxableAmount', v.taxable_amount)}${amt('TaxAmount', v.vat_amount)}${taxCategory(
          'TaxCategory',
          groupCategory(v, seller),
          v.rate,
          {
            reason: v.exemption_reason ?? null,
            code: v.exemption_reason_code ?? null,
            sellerRegistered: seller.vat_number !== null,
          },
        )}</cac:TaxSubtotal>`,
    )
    .join('\n');
  return `<cac:TaxTotal>${amt('TaxAmount', total)}\n${subtotals}\n</cac:TaxTotal>`;
}

function monetaryTotal(lines: readonly InvoiceLine[], total: number): string {
  const net = lines.reduce((s, l) => s + l.net_amount, 0);
  return `<cac:LegalMonetaryTotal>${amt('LineExtensionAmount', net)}${amt('TaxExclusiveAmount', net)}${amt('TaxInclusiveAmount', total)}${amt('PayableAmount', total)}</cac:LegalMonetaryTotal>`;
}

/**
 * A line: a negative amount (a discount) is a negative quantity at a positive price (BR-27), and a
 * net amount that the quantity does not divide is priced per the whole quantity (BaseQuantity), so
 * quantity × price = line amount exactly (PEPPOL-EN16931-R120).
 */
function line(tag: 'InvoiceLine' | 'CreditNoteLine', seller: Seller, l: InvoiceLine, i: number): string {
  const qtyTag = tag === 'InvoiceLine' ? 'InvoicedQuantity' : 'CreditedQuantity';
  const sign = l.net_amount < 0 || l.amount < 0 ? -1 : 1;
  const abs = Math.abs(l.net_amount);
  const divisible = abs % l.quantity === 0;
  const price = divisible
    ? `<cac:Price>${amt('PriceAmount', abs / l.quantity)}</cac:Price>`
    : `<cac:Price>${amt('PriceAmount', abs)}<cbc:BaseQuantity unitCode="C62">${l.quantity}</cbc:BaseQuantity></cac:Price>`;
  return `<cac:${tag}><cbc:ID>${i + 1}</cbc:ID><cbc:${qtyTag} unitCode="C62">${sign * l.quantity}</cbc:${qtyTag}>${amt('LineExtensionAmount', l.net_amount)}
<cac:Item><cbc:Name>${esc(l.description)}</cbc:Name>${taxCategory('ClassifiedTaxCategory', lineCategory(l, seller), l.vat_rate)}</cac:Item>${price}</cac:${tag}>`;
}

const outsideScope = (lines: readonly InvoiceLine[], seller: Seller) =>
  lines.some((l) => lineCategory(l, seller) === 'O');

const buyerReference = (inv: InvoiceRow) => inv.customer_id ?? inv.payment_intent_id ?? inv.claim_id ?? '';

/**
 * How the invoice is paid: a krafa is payment means 9 with its 12-digit account (bank, ledger 66,
 * claim number) as the payee account (TS-236 IS-R-006; decision 0211); a card payment already made
 * is 48 (bank card).
 */
function paymentMeans(inv: InvoiceRow): string {
  if (inv.claim_account)
    return `<cac:PaymentMeans><cbc:PaymentMeansCode>9</cbc:PaymentMeansCode><cbc:PaymentID>${esc(inv.payment_reference)}</cbc:PaymentID><cac:PayeeFinancialAccount><cbc:ID>${esc(inv.claim_account)}</cbc:ID></cac:PayeeFinancialAccount></cac:PaymentMeans>`;
  return `<cac:PaymentMeans><cbc:PaymentMeansCode>${inv.due_date ? '1' : '48'}</cbc:PaymentMeansCode><cbc:PaymentID>${esc(inv.payment_reference)}</cbc:PaymentID></cac:PaymentMeans>`;
}

export function invoiceUbl(inv: InvoiceRow): string {
  const eindagi = inv.final_due_date
    ? `<cac:AdditionalDocumentReference><cbc:ID>${inv.final_due_date}</cbc:ID><cbc:DocumentDescription>EINDAGI</cbc:DocumentDescription></cac:AdditionalDocumentReference>`
    : '';
  return `<?xml version="1.0" encoding="UTF-8"?>
<Invoice xmlns="urn:oasis:names:specification:ubl:schema:xsd:Invoice-2" ${NS}>
<cbc:CustomizationID>${CUSTOMIZATION}</cbc:CustomizationID>
<cbc:ProfileID>${PROFILE}</cbc:ProfileID>
<cbc:ID>${esc(inv.number)}</cbc:ID>
<cbc:IssueDate>${day(inv.issued_at)}</cbc:IssueDate>
${inv.due_date ? `<cbc:DueDate>${inv.due_date}</cbc:DueDate>` : ''}
<cbc:InvoiceTypeCode>380</cbc:InvoiceTypeCode>
<cbc:DocumentCurrencyCode>ISK</cbc:DocumentCurrencyCode>
<cbc:BuyerReference>${esc(buyerReference(inv))}</cbc:BuyerReference>
${eindagi}
${sellerParty(inv.seller, outsideScope(inv.lines, inv.seller))}
${buyerParty(inv.buyer)}
<cac:Delivery><cbc:ActualDeliveryDate>${day(inv.supplied_at)}</cbc:ActualDeliveryDate></cac:Delivery>
${paymentMeans(inv)}
${taxTotal(inv.seller, inv.vat, inv.total_vat)}
${monetaryTotal(inv.lines, inv.total)}
${inv.lines.map((l, i) => line('InvoiceLine', inv.seller, l, i)).join('\n')}
</Invoice>
`;
}

export function creditNoteUbl(note: CreditNoteRow, inv: InvoiceRow): string {
  return `<?xml version="1.0" encoding="UTF-8"?>
<CreditNote xmlns="urn:oasis:names:specification:ubl:schema:xsd:CreditNote-2" ${NS}>
<cbc:CustomizationID>${CUSTOMIZATION}</cbc:CustomizationID>
<cbc:ProfileID>${PROFILE}</cbc:ProfileID>
<cbc:ID>${esc(note.number)}</cbc:ID>
<cbc:IssueDate>${day(note.issued_at)}</cbc:IssueDate>
<cbc:CreditNoteTypeCode>381</cbc:CreditNoteTypeCode>
<cbc:DocumentCurrencyCode>ISK</cbc:DocumentCurrencyCode>
<cbc:BuyerReference>${esc(buyerReference(inv))}</cbc:BuyerReference>
<cac:BillingReference><cac:InvoiceDocumentReference><cbc:ID>${esc(inv.number)}</cbc:ID><cbc:IssueDate>${day(inv.issued_at)}</cbc:IssueDate></cac:InvoiceDocumentReference></cac:BillingReference>
${sellerParty(inv.seller, outsideScope(note.lines, inv.seller))}
${buyerParty(inv.buyer)}
${taxTotal(inv.seller, note.vat, note.total_vat)}
${monetaryTotal(note.lines, note.total)}
${note.lines.map((l, i) => line('CreditNoteLine', inv.seller, l, i)).join('\n')}
</CreditNote>
`;
}
