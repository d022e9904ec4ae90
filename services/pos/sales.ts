import type { Scope } from '../../domain/scope';
import type { PageOptions } from '../../db/tenant';
import type { PosSaleRow } from '../../db/pos-sales';
import type { PosStaffRow } from '../../db/pos-staff';
import type { CardToken } from '../../adapters/acquirers/card-acquirer';
import { ID_PREFIX, newId } from '../../domain/ids';
import { missingReference } from '../lookup';
import { InvalidRequestError } from '../../domain/errors';
import { isBusinessBuyer } from '../../domain/einvoice-parties';
import { createCustomerRepository } from '../../db/customers';
import { createInvoiceRepository } from '../../db/invoices';
import { issuePosSaleInvoice } from '../invoices/issue';
import type { PosActor } from './access';
import { createSaleCard, PosCardDeclinedError } from './sale-card';
import { createSaleLines, type SaleLineInput } from './sale-lines';
import { changeDue, checkPayments, type SalePaymentInput } from './sale-payments';
import { presentSale } from './sale-object';
import { createTillLookups, noShift, type TillDeps } from './till-deps';

export interface SaleInput {
  lines: SaleLineInput[];
  payments: SalePaymentInput[];
  email?: string | undefined;
  staff?: string | undefined;
  /** A business buyer: the sale is invoiced (decision 0235). */
  customer?: string | undefined;
}

/**
 * Sales at a till. A sale runs on the locked register row, so sale numbers are consecutive and a
 * Z-report sees every sale made before it.
 */
export function createSales(deps: TillDeps) {
  const { pos, access } = deps;
  const { registerOr404, saleOr404 } = createTillLookups(deps);
  const priceSaleLines = createSaleLines(deps);
  const card = createSaleCard(deps);
  const customers = createCustomerRepository(deps.knex);
  const invoices = createInvoiceRepository(deps.knex);

  async function presentSales(rows: PosSaleRow[]) {
    const { lines, payments } = await pos.sales.parts(rows.map((r) => r.id));
    const invoiced = await invoices.ofPosSales(rows.filter((r) => r.customer_id).map((r) => r.id));
    return rows.map((s) =>
      presentSale(
        s,
        lines.filter((x) => x.sale_id === s.id),
        payments.filter((x) => x.sale_id === s.id),
        invoiced.get(s.id) ?? null,
      ),
    );
  }

  /**
   * The buyer a till names for an invoice: a customer of the merchant that is a business (decision
   * 0210); a consumer keeps the receipt, so naming one is refused rather than ignored.
   */
  async function businessBuyer(scope: Scope, id: string | undefined) {
    if (id === undefined) return null;
    const customer = await customers.findById(scope, id);
    if (!customer) throw missingReference('customer', id, 'customer');
    if (!isBusinessBuyer(customer))
      throw new InvalidRequestError(
        'A till sale is invoiced only to a business (a customer marked business or with a company kennitala); a consumer gets the receipt',
        { code: 'customer_not_business', param: 'customer' },
      );
    return customer;
  }

  return {
    /**
     * A sale: lines priced, payments checked to sum to the total, the card part (if any) pushed to
     * the register's terminal and authorized and captured as a payment intent of channel `pos`
     * (0.8 %), then the sale recorded with the next number. A declined card makes no sale (402).
     */
    async createSale(scope: Scope, actor: PosActor, registerId: string, body: SaleInput) {
      await access.assertEnabled(scope);
      const reg = await registerOr404(scope, actor, registerId);
      const staff: PosStaffRow = await access.actingStaff(scope, actor, body.staff);
      const lines = await priceSaleLines(scope, body.lines);
      const buyer = await businessBuyer(scope, body.customer);
      const total = lines.reduce((s, l) => s + l.amount, 0);
      checkPayments(total, body.payments);
      if (!(await pos.shifts.openOf(scope, reg.id))) throw noShift();
      const saleId = newId(ID_PREFIX.posSale);
      const cardPart = body.payments.find((p) => p.method === 'card');
      let token: CardToken | null = null;
      if (cardPart) token = await card.read(scope, reg.id, saleId, cardPart.amount);
      const wake: string[] = [];
      const outcome = await deps.knex.transaction(async (trx) => {
        await pos.registers.lock(scope, reg.id, trx);
        const shift = await pos.shifts.openOf(scope, reg.id, trx);
        if (!shift) throw noShift();
        let intentId: string | null = null;
        if (cardPart && token) {
          const charged = await card.charge(
            scope,
            reg,
            saleId,
            { amount: cardPart.amount, token },
            trx,
            wake,
          );
          if (charged.intentId === undefined) return charged;
          intentId = charged.intentId;
        }
        const number = await pos.registers.takeSaleNumber(reg.id, trx);
        const sale = await pos.sales.insert(
          scope,
          {
            id: saleId,
            register_id: reg.id,
            shift_id: shift.id,
            staff_id: staff.id,
            number,
            total,
            discount: lines.reduce((s, l) => s + l.discount_amount, 0),
            change_due: changeDue(body.payments),
            email: body.email ?? null,
            customer_id: buyer?.id ?? null,
          },
          lines,
          body.payments.map((p, i) => ({
            position: i,
            method: p.method,
            amount: p.amount,
            tendered: p.method === 'cash' ? (p.tendered ?? null) : null,
            payment_intent_id: p.method === 'card' ? intentId : null,
          })),
          trx,
        );
        // The invoice with the sale, from the merchant's one sequence: the sale and its invoice
        // commit together or not at all (decision 0235).
        wake.push(...(await issuePosSaleInvoice(trx, sale.id)));
        return { sale };
      });
      await deps.dispatcher.wake(wake);
      if (!('sale' in outcome)) {
        const code = outcome.declined?.decline_code ?? 'generic_decline';
        throw new PosCardDeclinedError(
          `${outcome.declined?.message ?? 'The card was declined.'} (${outcome.intent})`,
          code,
        );
      }
      return (await presentSales([outcome.sale]))[0]!;
    },

    async retrieveSale(scope: Scope, actor: PosActor, id: string) {
      await access.assertEnabled(scope);
      return (await presentSales([await saleOr404(scope, actor, id)]))[0]!;
    },

    /** The sale's rows with its register and staff member, for its receipt. */
    async saleRow(scope: Scope, actor: PosActor, id: string) {
      await access.assertEnabled(scope);
      const sale = await saleOr404(scope, actor, id);
      const { lines, payments } = await pos.sales.parts([sale.id]);
      return {
        sale,
        lines,
        payments,
        register: (await pos.registers.find(scope, sale.register_id))!,
        staff: (await pos.staff.find(scope, sale.staff_id))!,
      };
    },

    async listSales(scope: Scope, actor: PosActor, opts: PageOptions & { registerId?: string | undefined }) {
      await access.assertEnabled(scope);
      const registerId = actor.kind === 'device' ? actor.registerId : opts.registerId;
      if (registerId !== undefined && !(await pos.registers.find(scope, registerId)))
        throw missingReference('pos.register', registerId, 'register');
      const page = await pos.sales.list(scope, { ...opts, ...(registerId !== undefined && { registerId }) });
      return { data: await presentSales(page.data), hasMore: page.hasMore };
    },
  };
}
