import { checkKennitala } from './kennitala';

/**
 * Who may be sent a Peppol e-invoice, and what the document must then carry (decision 0210). TS-236
 * requires, when seller and buyer are Icelandic, the buyer's kennitala (IS-R-004) and its street and
 * postcode (IS-R-005); Peppol's code list of electronic-address schemes has no e-mail scheme
 * (PEPPOL-EN16931-CL008). A consumer at a checkout gives none of these, and Icelandic law lets a sale
 * to a consumer be documented by a receipt or a PDF invoice: consumers get those, never UBL.
 */

/** What the invoice holds of its buyer (the customer's fields when it was issued). */
export interface EInvoiceBuyer {
  name: string | null;
  email: string | null;
  kennitala: string | null;
  address: { line1: string | null; postal_code: string | null } | null;
  /** The merchant's mark that this customer buys as a business; absent on invoices issued before it. */
  business?: boolean;
  gln?: string | null;
  peppol_id?: string | null;
}

export interface EInvoiceSeller {
  kennitala: string | null;
  address: { street: string; postalCode: string } | null;
}

/** A legal entity's kennitala: its first two digits are the registration day plus 40. */
export function isLegalEntityKennitala(kennitala: string | null): boolean {
  if (kennitala === null) return false;
  const check = checkKennitala(kennitala);
  return check.ok && check.kennitala.kind === 'company';
}

/** A business buyer: marked so by the merchant, or identified by a legal entity's kennitala. */
export function isBusinessBuyer(buyer: EInvoiceBuyer): boolean {
  return buyer.business === true || isLegalEntityKennitala(buyer.kennitala);
}

/** GS1's check digit: weights 3 and 1 from the right over the first twelve digits. */
export function isGln(value: string): boolean {
  if (!/^\d{13}$/.test(value)) return false;
  const sum = [...value.slice(0, 12)].reduce((s, d, i) => s + Number(d) * (i % 2 === 0 ? 1 : 3), 0);
  return (10 - (sum % 10)) % 10 === Number(value[12]);
}

/**
 * A Peppol participant id as `scheme:identifier`, with a scheme of the electronic-address code list
 * that Icelandic buyers use: 0196 (kennitala) or 0088 (GLN).
 */
export function parsePeppolId(value: string): { scheme: '0196' | '0088'; id: string } | null {
  const m = /^(0196|0088):(\d+)$/.exec(value);
  if (!m) return null;
  const [, scheme, id] = m as unknown as [string, '0196' | '0088', string];
  if (scheme === '0196' && !checkKennitala(id).ok) return null;
  if (scheme === '0088' && !isGln(id)) return null;
  return { scheme, id };
}

/** The buyer's electronic address on the document: its Peppol id when it has one, else its kennitala. */
export function buyerEndpoint(buyer: EInvoiceBuyer): { scheme: string; id: string } | null {
  const peppol = buyer.peppol_id ? parsePeppolId(buyer.peppol_id) : null;
  if (peppol) return peppol;
  return buyer.kennitala ? { scheme: '0196', id: buyer.kennitala } : null;
}

/** The buyer's fields TS-236 requires of an Icelandic business buyer that it lacks, by API name. */
export function buyerIncomplete(buyer: EInvoiceBuyer): string[] {
  return [
    ...(buyer.kennitala ? [] : ['customer.kennitala']),
    ...(buyer.address?.line1 ? [] : ['customer.address.line1']),
    ...(buyer.address?.postal_code ? [] : ['customer.address.postal_code']),
  ];
}

export type EInvoiceRefusal =
  | { code: 'seller_incomplete'; params: string[]; message: string }
  | { code: 'buyer_is_consumer'; params: string[]; message: string }
  | { code: 'buyer_incomplete'; params: string[]; message: string };

/**
 * Why this invoice cannot be a Peppol document, or null when it can. The seller's fields are the
 * merchant profile's names (`kennitala`, `legal_address`), the buyer's the customer's.
 */
export function einvoiceRefusal(seller: EInvoiceSeller, buyer: EInvoiceBuyer): EInvoiceRefusal | null {
  const sellerMissing = [
    ...(seller.kennitala ? [] : ['kennitala']),
    ...(seller.address?.street && seller.address.postalCode ? [] : ['legal_address']),
  ];
  if (sellerMissing.length > 0)
    return {
      code: 'seller_incomplete',
      params: sellerMissing,
      message: `An e-invoice needs the seller's ${sellerMissing.join(' and ')} (TS-236: IS-R-002, IS-R-003), which the merchant profile did not have when this invoice was issued; the PDF invoice is available`,
    };
  if (!isBusinessBuyer(buyer))
    return {
      code: 'buyer_is_consumer',
      params: ['customer'],
      message:
        "The buyer is a consumer: Peppol e-invoices go to businesses (a customer marked business, or with a legal entity's kennitala), and a consumer's invoice is the PDF (GET /v1/invoices/{id}/pdf)",
    };
  const buyerMissing = buyerIncomplete(buyer);
  if (buyerMissing.length > 0)
    return {
      code: 'buyer_incomplete',
      params: buyerMissing,
      message: `An e-invoice to an Icelandic business needs the buyer's ${buyerMissing.join(', ')} (TS-236: IS-R-004, IS-R-005), which the customer did not have when this invoice was issued; the PDF invoice is available`,
    };
  return null;
}
