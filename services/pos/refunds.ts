import type { Scope } from '../../domain/scope';
import { ConflictError, InvalidRequestError } from '../../domain/errors';
import { ID_PREFIX, newId } from '../../domain/ids';
import type { PosActor } from './access';
import { presentRefund } from './refund-object';
import { createTillLookups, noShift, type TillDeps } from './till-deps';
import { creditPosRefund } from '../invoices/issue';

/**
 * Refunds at a till (a manager): to cash from the drawer, or to the card the sale was paid with
 * through the one refund service, never more than was paid or was paid by card (decision 0129).
 * They run on the locked sale row, so two refunds of one sale never both take its last krónur.
 */
export function createRefunds(deps: Pick<TillDeps, 'knex' | 'pos' | 'access' | 'refunds' | 'dispatcher'>) {
  const { pos, access } = deps;
  const { saleOr404 } = createTillLookups(deps);
  return {
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
      const wake: string[] = [];
      const row = await deps.knex.transaction(async (trx) => {
        const sale = (await pos.sales.lock(scope, found.id, trx))!;
        const again = await pos.refunds.findByKey(sale.id, key, trx);
        if (again) return again;
        const shift = await pos.shifts.openOf(scope, sale.register_id, trx);
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
          const { payments } = await pos.sales.parts([sale.id], trx);
          const cardPart = payments.find((p) => p.method === 'card');
          if (!cardPart?.payment_intent_id)
            throw new InvalidRequestError('This sale was not paid by card; refund it in cash', {
              code: 'parameter_invalid',
              param: 'method',
            });
          const refundedToCard = (await pos.refunds.ofSale(sale.id, trx))
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
        const refund = await pos.refunds.insert(
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
        // An invoiced sale's refund is credited with it, from the same sequence (decision 0235).
        wake.push(...(await creditPosRefund(trx, refund)));
        return refund;
      });
      await deps.dispatcher.wake(wake);
      return presentRefund(row);
    },
  };
}
