import type { Knex } from '../../db/knex';
import type { Scope } from '../../domain/scope';
import type { PosRegisterRow } from '../../db/pos-registers';
import type { CardToken } from '../../adapters/acquirers/card-acquirer';
import { TerminalUnavailableError } from '../../adapters/terminal/pos-terminal';
import { ApiError, ConflictError, ServiceUnavailableError } from '../../domain/errors';
import type { TillDeps } from './till-deps';

/** A card the terminal could not read or the acquirer declined: the sale is not made (402). */
export class PosCardDeclinedError extends ApiError {
  constructor(message: string, declineCode: string) {
    super(402, 'invalid_request_error', message, 'card_declined', 'payments');
    this.declineCode = declineCode;
  }
  readonly declineCode: string;
}

/**
 * The card part of a sale (decision 0129): first read on the register's terminal, outside any
 * transaction because a buyer may take seconds; then, in the sale's transaction, authorized and
 * captured as a payment intent of channel `pos` (0.8 %).
 */
export function createSaleCard(deps: Pick<TillDeps, 'pos' | 'terminal' | 'payments'>) {
  const { pos } = deps;
  return {
    /** The card's token from the register's terminal; a card it could not read makes no sale. */
    async read(scope: Scope, registerId: string, saleId: string, amount: number) {
      const terminal = await pos.terminals.ofRegister(scope, registerId);
      if (!terminal)
        throw new ConflictError('No card terminal is paired to this register', 'pos_no_terminal', 'payments');
      let read;
      try {
        read = await deps.terminal.collect(terminal.url, terminal.secret, {
          amount,
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
        throw new PosCardDeclinedError(`The card was not accepted: ${read.message || read.code}`, read.code);
      return read.card;
    },

    /**
     * Authorizes and captures the card part in the sale's transaction: the captured intent's id, or
     * the decline (the failed intent and its event stay, decision 0129).
     */
    async charge(
      scope: Scope,
      reg: PosRegisterRow,
      saleId: string,
      card: { amount: number; token: CardToken },
      trx: Knex.Transaction,
      wake: string[],
    ) {
      const pm = await deps.payments.methods.create(scope, card.token, null, trx);
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
      return { intentId: created.id };
    },
  };
}
