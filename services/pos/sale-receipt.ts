import type { Knex } from '../../db/knex';
import type { Scope } from '../../domain/scope';
import type { PosActor } from './access';
import type { TillService } from './till';
import { createMerchantRepository } from '../../db/merchants';
import { buildReceipt, renderReceiptEmail, type ReceiptInput } from '../receipts';

/** A sale's receipt through the one receipt service: its lines, VAT per rate, how it was paid. */
export function createSaleReceipts(deps: { knex: Knex; till: TillService }) {
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
        })),
        payments: payments.map((p) => ({ method: p.method, amount: p.amount, tendered: p.tendered })),
        notes: [`${register.name} · ${staff.name}`, ...(scope.livemode ? [] : ['TEST'])],
      };
    },
    async receipt(scope: Scope, actor: PosActor, saleId: string, locale: 'is' | 'en') {
      const input = await this.input(scope, actor, saleId, locale);
      const r = buildReceipt(input);
      const mail = renderReceiptEmail(r);
      return {
        object: 'pos.receipt' as const,
        sale: saleId,
        number: r.number,
        total: r.total,
        vat: r.vat,
        subject: mail.subject,
        text: mail.text,
        html: mail.html,
      };
    },
  };
}

export type SaleReceipts = ReturnType<typeof createSaleReceipts>;
