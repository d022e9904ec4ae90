import type { Scope } from '../../domain/scope';
import type { PosSetupDeps } from './pos-setup';
import { TerminalPairingError, TerminalUnavailableError } from '../../adapters/terminal/pos-terminal';
import { type PageOptions } from '../../db/tenant';
import { ConflictError, InvalidRequestError, ServiceUnavailableError } from '../../domain/errors';
import { ID_PREFIX, newId } from '../../domain/ids';
import { normalizeCode, TERMINAL_ANNOUNCEMENT_HOURS } from '../../domain/pos';
import { findOr404, missingReference } from '../lookup';
import { newTerminalSecret, type PosActor } from './access';
import { presentTerminal, presentTerminalAnnouncement } from './terminal-object';

/**
 * Card terminals: a terminal announces the code it shows, and a register pairs it by that code
 * (decision 0131).
 */
export function createTerminalSetup(deps: Pick<PosSetupDeps, 'knex' | 'pos' | 'access' | 'terminal'>) {
  const { pos, access } = deps;

  return {
    /** A terminal shows its registration code and tells Skil where it listens (no key; decision 0131). */
    async announceTerminal(body: {
      registration_code: string;
      url: string;
      device_type: 'simulated_reader' | 'tap_to_pay';
    }) {
      const expires = new Date(Date.now() + TERMINAL_ANNOUNCEMENT_HOURS * 3_600_000);
      const code = normalizeCode(body.registration_code);
      await pos.terminals.announce({
        registration_code: code,
        url: body.url,
        device_type: body.device_type,
        expires_at: expires,
      });
      return presentTerminalAnnouncement(code, expires);
    },

    /** Pairs the terminal showing `registration_code` to a register, the Stripe Terminal way. */
    async pairTerminal(
      scope: Scope,
      actor: PosActor,
      body: { register: string; registration_code: string; label?: string | null | undefined },
    ) {
      await access.assertEnabled(scope);
      access.assertApiKey(actor);
      const reg = await pos.registers.find(scope, body.register);
      if (!reg) throw missingReference('pos.register', body.register, 'register');
      const code = normalizeCode(body.registration_code);
      return deps.knex.transaction(async (trx) => {
        const found = await pos.terminals.takeAnnouncement(code, trx);
        if (!found)
          throw new InvalidRequestError('No terminal shows this registration code', {
            code: 'pos_registration_code_invalid',
            param: 'registration_code',
          });
        if (scope.livemode && found.device_type !== 'tap_to_pay' && !found.url.startsWith('https://'))
          throw new ConflictError(
            'A live terminal must be reached over https',
            'pos_terminal_insecure',
            'registration_code',
          );
        const id = newId(ID_PREFIX.posTerminal);
        const secret = newTerminalSecret();
        try {
          await deps.terminal.pair(found.url, { registration_code: code, terminal: id, secret });
        } catch (err) {
          if (err instanceof TerminalPairingError)
            throw new InvalidRequestError(`The terminal refused to pair: ${err.message}`, {
              code: 'pos_registration_code_invalid',
              param: 'registration_code',
            });
          if (err instanceof TerminalUnavailableError)
            throw new ServiceUnavailableError(
              'The terminal did not answer; try again',
              'pos_terminal_unavailable',
            );
          throw err;
        }
        return presentTerminal(
          await pos.terminals.insert(
            scope,
            {
              id,
              register_id: reg.id,
              label: body.label ?? null,
              device_type: found.device_type,
              url: found.url,
              secret,
            },
            trx,
          ),
        );
      });
    },
    async listTerminals(scope: Scope, opts: PageOptions & { registerId?: string | undefined }) {
      await access.assertEnabled(scope);
      if (opts.registerId !== undefined && !(await pos.registers.find(scope, opts.registerId)))
        throw missingReference('pos.register', opts.registerId, 'register');
      const page = await pos.terminals.list(scope, {
        ...opts,
        ...(opts.registerId !== undefined && { registerId: opts.registerId }),
      });
      return { data: page.data.map(presentTerminal), hasMore: page.hasMore };
    },
    async retrieveTerminal(scope: Scope, id: string) {
      await access.assertEnabled(scope);
      return presentTerminal(
        await findOr404(
          'pos.terminal',
          scope,
          id,
          () => pos.terminals.find(scope, id),
          () => pos.terminals.otherMode(scope, id),
        ),
      );
    },
  };
}
