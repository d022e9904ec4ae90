import type { Knex } from '../../db/knex';
import type { Scope } from '../../domain/scope';
import type { PosRepository, PosSaleRow, PosStaffRow } from '../../db/pos';
import type { PosTerminal } from '../../adapters/terminal/pos-terminal';
import { TerminalUnavailableError } from '../../adapters/terminal/pos-terminal';
import type { PaymentService } from '../payments/card-payments';
import type { RefundService } from '../payments/refunds';
import type { WebhookDispatcher } from '../../engine/webhook-dispatch';
import type { PageOptions } from '../../db/tenant';
import type { VatRate } from '../../domain/vat';
import { createProductRepository } from '../../db/products';
import { createVariantRepository, type VariantRow } from '../../db/product-variants';
import { priceLine, type LineSource } from '../../domain/line-pricing';
import { createPriceRepository } from '../../db/prices';
import { ApiError, ConflictError, InvalidRequestError, ServiceUnavailableError } from '../../domain/errors';
import { ID_PREFIX, newId } from '../../domain/ids';
import { reportTotals } from '../../domain/pos';
import { unix } from '../../domain/unix-time';
import { findOr404, missingReference } from '../lookup';
import { buildReceipt } from '../receipts';
import type { PosAccess, PosActor } from './access';
import { presentRefund, presentSale, presentShift, presentZReport } from './pos-objects';

export type SaleLineInput =
  | { product: string; variant?: string | undefined; quantity: number; discount_amount?: number | undefined }
  | {
      description: string;
      unit_amount: number;
      vat_rate: VatRate;
      quantity: number;
      discount_amount?: number | undefined;
    };

export type SalePaymentInput =
  { method: 'cash'; amount: number; tendered?: number | undefined } | { method: 'card'; amount: number };

export interface SaleInput {
  lines: SaleLineInput[];
  payments: SalePaymentInput[];
  email?: string | undefined;
  staff?: string | undefined;
}

/** A card the terminal could not read or the acquirer declined: the sale is not made (402). */
export class PosCardDeclinedError extends ApiError {
  constructor(message: string, declineCode: string) {
    super(402, 'invalid_request_error', message, 'card_declined', 'payments');
    this.declineCode = declineCode;
  }
  readonly declineCode: string;
}

export interface TillDeps {
  knex: Knex;
  pos: PosRepository;
  access: PosAccess;
  terminal: PosTerminal;
  payments: PaymentService;
  refunds: RefundService;
  dispatcher: WebhookDispatcher;
}

/**
 * What happens at a till (issue 19): the drawer shift, sales paid by cash, card or both, refunds, and
 * the X and Z reports. A sale or Z-report runs on the locked register row, so sale numbers and
 * report numbers are consecutive and a Z-report sees every sale made before it.
 */
export function createTillService(deps: TillDeps) {
  const { pos, access } = deps;
  const products = createProductRepository(deps.knex);
  const variants = createVariantRepository(deps.knex);
  const prices = createPriceRepository(deps.knex);

  const registerOr404 = async (scope: Scope, actor: PosActor, id: string) => {
    const row = await findOr404(
      'pos.register',
      scope,
      id,
      () => pos.register(scope, id),
      () => pos.otherMode('pos_registers', scope, id),
    );
    access.assertRegister(actor, row.id);
    return row;
  };
  const saleOr404 = async (scope: Scope, actor: PosActor, id: string) => {
    const row = await findOr404(
      'pos.sale',
      scope,
      id,
      () => pos.sale(scope, id),
      () => pos.otherMode('pos_sales', scope, id),
    );
    access.assertRegister(actor, row.register_id);
    return row;
  };
  const noShift = () =>
    new ConflictError('The register has no open shift; open one with a float first', 'pos_no_open_shift');

  async function presentSales(rows: PosSaleRow[]) {
    const { lines, payments } = await pos.saleParts(rows.map((r) => r.id));
    return rows.map((s) => {
      const l = lines.filter((x) => x.sale_id === s.id);
      const receipt = buildReceipt({
        kind: 'receipt',
        number: String(s.number),
        issuedAt: s.created_at,
        locale: 'is',
        seller: { name: '' },
        lines: l.map((x) => ({
          description: x.description,
          quantity: x.quantity,
          unitAmount: x.unit_amount,
          discountAmount: x.discount_amount,
          vatRate: x.vat_rate,
        })),
      });
      return presentSale(
        s,
        l,
        payments.filter((x) => x.sale_id === s.id),
        receipt.vat,
      );
    });
  }

  /** Lines priced from the catalogue (a product's default price or a variant's), or given ad hoc. */
  async function priceLines(scope: Scope, lines: SaleLineInput[]) {
    return Promise.all(
      lines.map(async (line, i) => {
        const discount = line.discount_amount ?? 0;
        let source: LineSource;
        if ('product' in line) {
          const product = await products.findById(scope, line.product);
          if (!product || product.deleted_at || !product.active)
            throw missingReference('product', line.product, `lines.${i}.product`);
          let priceId = product.default_price_id;
          let variant: VariantRow | undefined;
          if (line.variant !== undefined) {
            variant = await variants.findById(scope, product.id, line.variant);
            if (!variant || variant.deleted_at || !variant.active)
              throw missingReference('variant', line.variant, `lines.${i}.variant`);
            priceId = variant.price_id;
          }
          const price = priceId ? await prices.findById(scope, priceId) : undefined;
          if (!price || price.type !== 'one_time')
            throw new InvalidRequestError('This product has no one-time price to sell it at', {
              code: 'parameter_invalid',
              param: `lines.${i}.product`,
            });
          source = { product, variant, unitAmount: price.unit_amount };
        } else {
          source = { description: line.description, unitAmount: line.unit_amount, vatRate: line.vat_rate };
        }
        const priced = priceLine(source, line.quantity, discount);
        if (!Number.isSafeInteger(priced.gross) || discount > priced.gross)
          throw new InvalidRequestError('A line discount cannot exceed the line', {
            code: 'parameter_invalid',
            param: `lines.${i}.discount_amount`,
          });
        return {
          product_id: priced.product_id,
          variant_id: priced.variant_id,
          description: priced.description,
          unit_amount: priced.unit_amount,
          vat_rate: priced.vat_rate,
          position: i,
          quantity: priced.quantity,
          discount_amount: priced.discount_amount,
          amount: priced.amount,
        };
      }),
    );
  }

  /** A split payment's parts must sum to the sale; cash tendered covers its part (decision 0129). */
  function checkPayments(total: number, payments: SalePaymentInput[]) {
    const sum = payments.reduce((s, p) => s + p.amount, 0);
    if (sum !== total)
      throw new InvalidRequestError(`The payments sum to ${sum} ISK but the sale is ${total} ISK`, {
        code: 'pos_payments_mismatch',
        param: 'payments',
      });
    if (payments.filter((p) => p.method === 'card').length > 1)
      throw new InvalidRequestError('A sale takes at most one card payment', {
        code: 'parameter_invalid',
        param: 'payments',
      });
    payments.forEach((p, i) => {
      if (p.method === 'cash' && p.tendered !== undefined && p.tendered < p.amount)
        throw new InvalidRequestError('Cash tendered is less than the cash part', {
          code: 'parameter_invalid',
          param: `payments.${i}.tendered`,
        });
    });
  }

  /** A fresh report source: what the register did since its last Z-report (or in one shift of it). */
  async function totalsOf(
    scope: Scope,
    registerId: string,
    trx: Knex.Transaction | Knex = deps.knex,
    shiftId?: string,
  ) {
    const all = await pos.unreported(scope, registerId, trx);
    const mine = <T extends { shift_id: string }>(rows: T[]) =>
      shiftId ? rows.filter((r) => r.shift_id === shiftId) : rows;
    const src = {
      sales: mine(all.sales),
      refunds: mine(all.refunds),
      drawer: mine(all.drawer),
      shifts: shiftId ? all.shifts.filter((s) => s.id === shiftId) : all.shifts,
    };
    const { lines, payments } = await pos.saleParts(
      src.sales.map((s) => s.id),
      trx,
    );
    const staffIds = [
      ...new Set([...src.sales.map((s) => s.staff_id), ...src.refunds.map((r) => r.staff_id)]),
    ];
    const totals = reportTotals({
      sales: src.sales.map((s) => ({
        id: s.id,
        staff_id: s.staff_id,
        total: s.total,
        discount: s.discount,
        lines: lines.filter((l) => l.sale_id === s.id),
        payments: payments.filter((p) => p.sale_id === s.id),
      })),
      refunds: src.refunds,
      drawer: src.drawer,
      shifts: src.shifts,
      staffNames: await pos.staffNames(scope, staffIds, trx),
    });
    const last = await pos.lastZReport(scope, registerId, trx);
    return { totals, last };
  }

  return {
    async currentShift(scope: Scope, actor: PosActor, registerId: string) {
      await access.assertEnabled(scope);
      const reg = await registerOr404(scope, actor, registerId);
      const shift = await pos.openShift(scope, reg.id);
      if (!shift) throw noShift();
      return presentShift(shift);
    },

    async openShift(
      scope: Scope,
      actor: PosActor,
      registerId: string,
      body: { opening_float: number; staff?: string | undefined },
    ) {
      await access.assertEnabled(scope);
      const reg = await registerOr404(scope, actor, registerId);
      const staff = await access.actingStaff(scope, actor, body.staff);
      return deps.knex.transaction(async (trx) => {
        await pos.lockRegister(scope, reg.id, trx);
        if (await pos.openShift(scope, reg.id, trx))
          throw new ConflictError('The register already has an open shift', 'pos_shift_open');
        return presentShift(
          await pos.insertShift(
            scope,
            {
              id: newId(ID_PREFIX.posShift),
              register_id: reg.id,
              opened_by: staff.id,
              opening_float: body.opening_float,
            },
            trx,
          ),
        );
      });
    },

    /** Closes the shift with the cash counted; expected cash is computed, the difference kept. */
    async closeShift(
      scope: Scope,
      actor: PosActor,
      registerId: string,
      body: { counted_cash: number; staff?: string | undefined },
    ) {
      await access.assertEnabled(scope);
      const reg = await registerOr404(scope, actor, registerId);
      const staff = await access.actingStaff(scope, actor, body.staff);
      return deps.knex.transaction(async (trx) => {
        await pos.lockRegister(scope, reg.id, trx);
        const shift = await pos.openShift(scope, reg.id, trx);
        if (!shift) throw noShift();
        const { totals } = await totalsOf(scope, reg.id, trx, shift.id);
        const expected = totals.cash.expected;
        return presentShift(
          await pos.closeShift(
            scope,
            shift.id,
            { closed_by: staff.id, counted_cash: body.counted_cash, expected_cash: expected },
            trx,
          ),
        );
      });
    },

    /** Paid in, paid out (manager), or the drawer opened without a sale. */
    async drawerEvent(
      scope: Scope,
      actor: PosActor,
      registerId: string,
      body: {
        kind: 'paid_in' | 'paid_out' | 'no_sale';
        amount?: number | undefined;
        reason?: string | undefined;
        staff?: string | undefined;
      },
    ) {
      await access.assertEnabled(scope);
      const reg = await registerOr404(scope, actor, registerId);
      const staff = await access.actingStaff(
        scope,
        actor,
        body.staff,
        body.kind === 'paid_out' ? 'manager' : 'cashier',
      );
      const amount = body.kind === 'no_sale' ? 0 : (body.amount ?? 0);
      if (body.kind !== 'no_sale' && amount < 1)
        throw new InvalidRequestError('Paid in and paid out need an amount', {
          code: 'parameter_missing',
          param: 'amount',
        });
      const shift = await pos.openShift(scope, reg.id);
      if (!shift) throw noShift();
      const row = await pos.insertDrawerEvent(
        scope,
        {
          id: newId(ID_PREFIX.posDrawerEvent),
          shift_id: shift.id,
          staff_id: staff.id,
          kind: body.kind,
          amount,
          reason: body.reason ?? null,
        },
        deps.knex,
      );
      return {
        id: row.id,
        object: 'pos.drawer_event' as const,
        shift: row.shift_id,
        staff: row.staff_id,
        kind: row.kind,
        amount: row.amount,
        reason: row.reason,
        created_at: unix(row.created_at),
      };
    },

    /**
     * A sale: lines priced, payments checked to sum to the total, the card part (if any) pushed to
     * the register's terminal and authorized and captured as a payment intent of channel `pos`
     * (0.8 %), then the sale recorded with the next number. A declined card makes no sale (402).
     */
    async createSale(scope: Scope, actor: PosActor, registerId: string, body: SaleInput) {
      await access.assertEnabled(scope);
      const reg = await registerOr404(scope, actor, registerId);
      const staff: PosStaffRow = await access.actingStaff(scope, actor, body.staff);
      const lines = await priceLines(scope, body.lines);
      const total = lines.reduce((s, l) => s + l.amount, 0);
      checkPayments(total, body.payments);
      if (!(await pos.openShift(scope, reg.id))) throw noShift();
      const saleId = newId(ID_PREFIX.posSale);
      const card = body.payments.find((p) => p.method === 'card');
      let token = null;
      if (card) {
        const terminal = await pos.terminalOfRegister(scope, reg.id);
        if (!terminal)
          throw new ConflictError(
            'No card terminal is paired to this register',
            'pos_no_terminal',
            'payments',
          );
        let read;
        try {
          read = await deps.terminal.collect(terminal.url, terminal.secret, {
            amount: card.amount,
            currency: 'ISK',
            reference: saleId,
          });
        } catch (err) {
          if (err instanceof TerminalUnavailableError)
            throw new ServiceUnavailableError(
              'The card terminal did not answer; nothing was charged',
              'pos_terminal_unavailable',
            );
          throw err;
        }
        if (read.status === 'failed')
          throw new PosCardDeclinedError(
            `The card was not accepted: ${read.message || read.code}`,
            read.code,
          );
        token = read.card;
      }
      const wake: string[] = [];
      const outcome = await deps.knex.transaction(async (trx) => {
        await pos.lockRegister(scope, reg.id, trx);
        const shift = await pos.openShift(scope, reg.id, trx);
        if (!shift) throw noShift();
        let intentId: string | null = null;
        if (card && token) {
          const pm = await deps.payments.methods.create(scope, token, null, trx);
          const created = await deps.payments.intents.create(
            scope,
            {
              amount: card.amount,
              captureMethod: 'automatic',
              channel: 'pos',
              paymentMethodId: pm.id,
              description: `${reg.name} #${saleId}`,
              metadata: { pos_sale: saleId, pos_register: reg.id },
            },
            trx,
          );
          const locked = (await deps.payments.intents.lock(scope, created.id, trx))!;
          const attempt = await deps.payments.attempt(scope, locked, pm, 'https://pos.invalid/', trx, wake);
          if (attempt.kind !== 'authorized')
            return { declined: attempt.kind === 'declined' ? attempt.error : null, intent: created.id };
          await deps.payments.capture(scope, attempt.intent, card.amount, trx, wake);
          intentId = created.id;
        }
        const number = await pos.takeSaleNumber(reg.id, trx);
        const change = body.payments.reduce(
          (s, p) => s + (p.method === 'cash' && p.tendered ? p.tendered - p.amount : 0),
          0,
        );
        const sale = await pos.insertSale(
          scope,
          {
            id: saleId,
            register_id: reg.id,
            shift_id: shift.id,
            staff_id: staff.id,
            number,
            total,
            discount: lines.reduce((s, l) => s + l.discount_amount, 0),
            change_due: change,
            email: body.email ?? null,
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
      return (await presentSales([outcome.sale!]))[0]!;
    },

    async retrieveSale(scope: Scope, actor: PosActor, id: string) {
      await access.assertEnabled(scope);
      return (await presentSales([await saleOr404(scope, actor, id)]))[0]!;
    },
    async saleRow(scope: Scope, actor: PosActor, id: string) {
      await access.assertEnabled(scope);
      const sale = await saleOr404(scope, actor, id);
      const { lines, payments } = await pos.saleParts([sale.id]);
      return {
        sale,
        lines,
        payments,
        register: (await pos.register(scope, sale.register_id))!,
        staff: (await pos.staff(scope, sale.staff_id))!,
      };
    },
    async listSales(scope: Scope, actor: PosActor, opts: PageOptions & { registerId?: string | undefined }) {
      await access.assertEnabled(scope);
      const registerId = actor.kind === 'device' ? actor.registerId : opts.registerId;
      if (registerId !== undefined && !(await pos.register(scope, registerId)))
        throw missingReference('pos.register', registerId, 'register');
      const page = await pos.sales(scope, { ...opts, ...(registerId !== undefined && { registerId }) });
      return { data: await presentSales(page.data), hasMore: page.hasMore };
    },

    /** A refund (manager) to cash from the drawer, or to the card the sale was paid with. */
    async refundSale(
      scope: Scope,
      actor: PosActor,
      saleId: string,
      body: { method: 'cash' | 'card'; amount?: number | undefined; staff?: string | undefined },
      idempotencyKey: string | undefined,
    ) {
      await access.assertEnabled(scope);
      const found = await saleOr404(scope, actor, saleId);
      const staff = await access.actingStaff(scope, actor, body.staff, 'manager');
      const key = idempotencyKey ?? newId(ID_PREFIX.posRefund);
      const row = await deps.knex.transaction(async (trx) => {
        const sale = (await pos.lockSale(scope, found.id, trx))!;
        const again = await pos.findRefundByKey(sale.id, key, trx);
        if (again) return again;
        const shift = await pos.openShift(scope, sale.register_id, trx);
        if (!shift) throw noShift();
        const left = sale.total - sale.amount_refunded;
        const amount = body.amount ?? left;
        if (left === 0)
          throw new ConflictError('This sale has been refunded in full', 'charge_already_refunded');
        if (amount > left)
          throw new InvalidRequestError(
            `Refund amount (${amount} ISK) is greater than the unrefunded amount (${left} ISK)`,
            {
              code: 'amount_too_large',
              param: 'amount',
            },
          );
        let refundId: string | null = null;
        if (body.method === 'card') {
          const { payments } = await pos.saleParts([sale.id], trx);
          const cardPart = payments.find((p) => p.method === 'card');
          if (!cardPart?.payment_intent_id)
            throw new InvalidRequestError('This sale was not paid by card; refund it in cash', {
              code: 'parameter_invalid',
              param: 'method',
            });
          const refundedToCard = (await pos.refundsOfSale(sale.id, trx))
            .filter((r) => r.method === 'card')
            .reduce((s, r) => s + r.amount, 0);
          if (amount > cardPart.amount - refundedToCard)
            throw new InvalidRequestError('More than the card paid would go back to the card', {
              code: 'amount_too_large',
              param: 'amount',
            });
          const refund = await deps.refunds.create(scope, cardPart.payment_intent_id, {
            amount,
            idempotencyKey: `pos:${sale.id}:${key}`,
          });
          refundId = refund.id;
        }
        return pos.insertRefund(
          scope,
          {
            id: newId(ID_PREFIX.posRefund),
            sale_id: sale.id,
            register_id: sale.register_id,
            shift_id: shift.id,
            staff_id: staff.id,
            method: body.method,
            amount,
            refund_id: refundId,
            idempotency_key: key,
          },
          trx,
        );
      });
      return presentRefund(row);
    },

    /** The running figures since the last Z-report; nothing is closed or reset. */
    async xReport(scope: Scope, actor: PosActor, registerId: string) {
      await access.assertEnabled(scope);
      const reg = await registerOr404(scope, actor, registerId);
      const { totals, last } = await totalsOf(scope, reg.id);
      return {
        ...totals,
        object: 'pos.x_report' as const,
        register: reg.id,
        period_start: last ? unix(last.period_end) : null,
        generated_at: unix(new Date()),
        grand_total: (last?.grand_total ?? 0) + totals.net_sales,
      };
    },

    /** Closes the register's day: the next consecutive Z-report, immutable once made (decision 0128). */
    async makeZReport(
      scope: Scope,
      actor: PosActor,
      registerId: string,
      body: { staff?: string | undefined },
    ) {
      await access.assertEnabled(scope);
      const reg = await registerOr404(scope, actor, registerId);
      const staff = await access.actingStaff(scope, actor, body.staff, 'manager');
      return deps.knex.transaction(async (trx) => {
        await pos.lockRegister(scope, reg.id, trx);
        if (await pos.openShift(scope, reg.id, trx))
          throw new ConflictError(
            'Close the open shift (count the drawer) before the Z-report',
            'pos_shift_open',
          );
        const { totals, last } = await totalsOf(scope, reg.id, trx);
        const row = await pos.insertZReport(
          scope,
          {
            id: newId(ID_PREFIX.posZReport),
            register_id: reg.id,
            number: (last?.number ?? 0) + 1,
            period_start: last?.period_end ?? null,
            period_end: new Date(),
            grand_total: (last?.grand_total ?? 0) + totals.net_sales,
            report: totals as unknown as Record<string, unknown>,
            made_by: staff.id,
          },
          trx,
        );
        return presentZReport(row);
      });
    },
    async retrieveZReport(scope: Scope, actor: PosActor, id: string) {
      await access.assertEnabled(scope);
      const row = await findOr404(
        'pos.z_report',
        scope,
        id,
        () => pos.zReport(scope, id),
        () => pos.otherMode('pos_z_reports', scope, id),
      );
      access.assertRegister(actor, row.register_id);
      return presentZReport(row);
    },
    async listZReports(
      scope: Scope,
      actor: PosActor,
      opts: PageOptions & { registerId?: string | undefined },
    ) {
      await access.assertEnabled(scope);
      const registerId = actor.kind === 'device' ? actor.registerId : opts.registerId;
      if (registerId !== undefined && !(await pos.register(scope, registerId)))
        throw missingReference('pos.register', registerId, 'register');
      const page = await pos.zReports(scope, { ...opts, ...(registerId !== undefined && { registerId }) });
      return { data: page.data.map(presentZReport), hasMore: page.hasMore };
    },
  };
}

export type TillService = ReturnType<typeof createTillService>;
