import type { Knex } from '../../db/knex';
import type { Scope } from '../../domain/scope';
import type { PosActor } from './access';
import type { TillService } from './till';
import { createMerchantRepository } from '../../db/merchants';
import type { Mailer } from '../../adapters/mail/mailer';
import { InvalidRequestError, ServiceUnavailableError } from '../../domain/errors';
import { buildReceipt, renderReceiptEmail, type ReceiptInput } from '../receipts';
import { presentReceipt } from './receipt-object';

/** An address a receipt may go to: one plain address, no display name or list. */
const EMAIL = /^[^\s@<>,;"]{1,64}@[^\s@<>,;"]{1,189}\.[^\s@<>,;"]{2,}$/;

/**
 * A sale's receipt through the one receipt service: its lines, VAT per rate, how it was paid; as the
 * printable page, or emailed to the buyer with the service's mail (decision 0150).
 */
export function createSaleReceipts(deps: { knex: Knex; till: TillService; mailer?: Mailer | undefined }) {
  const merchants = createMerchantRepository(deps.knex);
  return {
    async input(scope: Scope, actor: PosActor, saleId: string, locale: 'is' | 'en'): Promise<ReceiptInput> {
      const { sale, lines, payments, register, staff } = await deps.till.saleRow(scope, actor, saleId);
      const merchant = (await merchants.findById(scope.merchantId))!;
      const address = merchant.legal_address
        ? `${merchant.legal_address.street}, ${merchant.legal_address.postalCode} ${merchant.legal_address.city}`
        : null;
      return {
        kind: 'receipt',
        number: `${register.name}-${sale.number}`,
        issuedAt: sale.created_at,
        locale,
        seller: { name: merchant.name, kennitala: merchant.kennitala, address },
        buyer: sale.email ? { email: sale.email } : null,
        lines: lines.map((l) => ({
          description: l.description,
          quantity: l.quantity,
          unitAmount: l.unit_amount,
          discountAmount: l.discount_amount,
          vatRate: l.vat_rate,
          vatCategory: l.vat_category,
        })),
        payments: payments.map((p) => ({ method: p.method, amount: p.amount, tendered: p.tendered })),
        notes: [`${register.name} · ${staff.name}`, ...(scope.livemode ? [] : ['TEST'])],
      };
    },
    /** Emails the sale's receipt to `to`; the till reads the address from the buyer. */
    async email(scope: Scope, actor: PosActor, saleId: string, to: string, locale: 'is' | 'en') {
      const address = to.trim();
      if (address.length > 254 || !EMAIL.test(address))
        throw new InvalidRequestError('Give one email address for the receipt', {
          code: 'email_invalid',
          param: 'email',
        });
      const input = await this.input(scope, actor, saleId, locale);
      if (!deps.mailer) throw new ServiceUnavailableError('This server sends no mail', 'mail_not_configured');
      const mail = renderReceiptEmail({ ...input, buyer: { ...input.buyer, email: address } });
      await deps.mailer.send({ to: address, subject: mail.subject, text: mail.text, html: mail.html });
      return { sale: saleId, sent_to: address };
    },
    async receipt(scope: Scope, actor: PosActor, saleId: string, locale: 'is' | 'en') {
      const input = await this.input(scope, actor, saleId, locale);
      const r = buildReceipt(input);
      const mail = renderReceiptEmail(r);
      return presentReceipt(saleId, r, mail);
    },
  };
}

export type SaleReceipts = ReturnType<typeof createSaleReceipts>;
