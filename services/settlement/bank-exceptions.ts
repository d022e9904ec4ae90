import type { Knex } from '../../db/knex';
import { recordAudit, type AuditActor } from '../../db/audit-log';
import {
  closeBankException,
  findPaymentOfEnvironment,
  lockBankException,
  type BankExceptionRow,
} from '../../db/bank-exceptions';
import { InvalidRequestError, NotFoundError } from '../../domain/errors';

/**
 * The finance operators' work on the bank exceptions queue: resolve an exception by naming the
 * payment it belongs to, or mark it handled (decision 0094). Each action is one transaction that
 * locks the exception, changes it only while it is open, and writes the audit record beside it, so
 * a double-submitted form changes nothing twice and the log never disagrees with the row.
 */

export type { BankExceptionRow };

export const NOTE_MAX = 1000;

function checkNote(note: string): string {
  const trimmed = note.trim();
  if (trimmed.length < 1 || trimmed.length > NOTE_MAX)
    throw new InvalidRequestError(`A note of 1 to ${NOTE_MAX} characters is required`, {
      code: 'parameter_invalid',
      param: 'note',
    });
  return trimmed;
}

async function lockOpen(trx: Knex.Transaction, livemode: boolean, id: string): Promise<BankExceptionRow> {
  const row = await lockBankException(trx, livemode, id);
  if (!row) throw new NotFoundError(`No such bank exception: ${id}`, 'id');
  if (row.status !== 'open')
    throw new InvalidRequestError(`The exception is already ${row.status}`, {
      status: 409,
      code: 'exception_not_open',
    });
  return row;
}

export function createBankExceptionService(deps: { knex: Knex }) {
  const { knex } = deps;
  return {
    /** Matches an open exception to a payment of the same environment. */
    async resolve(
      livemode: boolean,
      id: string,
      input: { paymentIntentId: string; note: string },
      actor: AuditActor,
    ): Promise<BankExceptionRow> {
      const note = checkNote(input.note);
      const paymentIntentId = input.paymentIntentId.trim();
      return knex.transaction(async (trx) => {
        const before = await lockOpen(trx, livemode, id);
        const payment = /^pi_[0-9A-Za-z]{1,64}$/.test(paymentIntentId)
          ? await findPaymentOfEnvironment(trx, livemode, paymentIntentId)
          : undefined;
        if (!payment)
          throw new InvalidRequestError(
            `No payment ${paymentIntentId || '(empty)'} in the ${livemode ? 'live' : 'test'} environment`,
            { code: 'resource_missing', param: 'payment_intent' },
          );
        const row = await closeBankException(trx, livemode, id, {
          status: 'resolved',
          note,
          paymentIntentId: payment.id,
          resolvedBy: actor.name,
        });
        await recordAudit(trx, {
          actor,
          action: 'bank_exception.resolved',
          objectType: 'bank_exception',
          objectId: id,
          livemode,
          merchantId: payment.merchant_id,
          data: { kind: before.kind, bank_file: before.bank_file_id, payment_intent: payment.id, note },
        });
        return row!;
      });
    },

    /** Closes an open exception that needs no match (explained, refunded outside Skil, …). */
    async markHandled(
      livemode: boolean,
      id: string,
      input: { note: string },
      actor: AuditActor,
    ): Promise<BankExceptionRow> {
      const note = checkNote(input.note);
      return knex.transaction(async (trx) => {
        const before = await lockOpen(trx, livemode, id);
        const row = await closeBankException(trx, livemode, id, {
          status: 'handled',
          note,
          resolvedBy: actor.name,
        });
        await recordAudit(trx, {
          actor,
          action: 'bank_exception.handled',
          objectType: 'bank_exception',
          objectId: id,
          livemode,
          data: { kind: before.kind, bank_file: before.bank_file_id, note },
        });
        return row!;
      });
    },
  };
}

export type BankExceptionService = ReturnType<typeof createBankExceptionService>;
