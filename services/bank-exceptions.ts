import type { Knex } from '../db/knex';
import { recordAudit, type AuditActor } from '../db/audit-log';
import { InvalidRequestError, NotFoundError } from '../domain/errors';

/**
 * The finance operators' work on the bank exceptions queue: resolve an exception by naming the
 * payment it belongs to, or mark it handled (decision 0094). Each action is one transaction that
 * locks the exception, changes it only while it is open, and writes the audit record beside it, so
 * a double-submitted form changes nothing twice and the log never disagrees with the row.
 */

export interface BankExceptionRow {
  id: string;
  livemode: boolean;
  bank_file_id: string;
  bank_entry_id: number | null;
  kind: string;
  status: 'open' | 'resolved' | 'handled';
  resolution_note: string | null;
  resolved_payment_intent_id: string | null;
  resolved_by: string | null;
  resolved_at: Date | null;
}

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
  const row = await trx<BankExceptionRow>('bank_exceptions').where({ id, livemode }).forUpdate().first();
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
          ? await trx('payment_intents')
              .where({ id: paymentIntentId, livemode })
              .first<{ id: string; merchant_id: string } | undefined>('id', 'merchant_id')
          : undefined;
        if (!payment)
          throw new InvalidRequestError(
            `No payment ${paymentIntentId || '(empty)'} in the ${livemode ? 'live' : 'test'} environment`,
            { code: 'resource_missing', param: 'payment_intent' },
          );
        const [row] = await trx<BankExceptionRow>('bank_exceptions')
          .where({ id, livemode, status: 'open' })
          .update({
            status: 'resolved',
            resolution_note: note,
            resolved_payment_intent_id: payment.id,
            resolved_by: actor.name,
            resolved_at: trx.fn.now(),
          })
          .returning('*');
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
        const [row] = await trx<BankExceptionRow>('bank_exceptions')
          .where({ id, livemode, status: 'open' })
          .update({
            status: 'handled',
            resolution_note: note,
            resolved_by: actor.name,
            resolved_at: trx.fn.now(),
          })
          .returning('*');
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
