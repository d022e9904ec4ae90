import type { Knex } from '../../db/knex';
import type { Mailer } from '../../adapters/mail/mailer';
import type { Logger } from '../../stack/logger';
import type { Locale } from '../../domain/locale';
import {
  createPayoutAccountChangeRepository,
  type PayoutAccountChangeRow,
} from '../../db/payout-account-changes';
import { createUserRepository } from '../../db/users';
import { createMerchantRepository } from '../../db/merchants';
import { currentAuditDraft } from '../../stack/audit-context';
import { formatLocalTime } from '../../domain/local-time';
import { message } from '../accounts/account-mail';

/** How long payouts to a changed account wait unless an owner confirms it (decision 0228). */
export const PAYOUT_ACCOUNT_HOLD_DAYS = 3;

/** An account number as mail shows it: enough to recognise, not the whole number. */
export function maskedAccount(account: string | null): string {
  if (!account) return '—';
  const digits = account.replace(/\D/g, '');
  return `…${digits.slice(-4)}`;
}

/** Who made a change, as the mail says it. */
export type PayoutAccountActor = 'test_key' | 'live_key' | 'dashboard';

function changeMail(
  locale: Locale,
  to: string,
  link: string,
  c: { merchantName: string; row: PayoutAccountChangeRow; actor: PayoutAccountActor; held: boolean },
) {
  const when = formatLocalTime(c.row.created_at, locale);
  const until = formatLocalTime(c.row.held_until, locale);
  const from = maskedAccount(c.row.previous_account);
  const next = maskedAccount(c.row.new_account);
  const where = c.row.client_address ?? '—';
  if (locale === 'is') {
    const how = {
      dashboard: 'í stjórnborðinu',
      live_key: 'með raunlykli (API)',
      test_key: 'með prófunarlykli (API)',
    }[c.actor];
    return message(
      to,
      `Greiðslureikningi ${c.merchantName} var breytt`,
      [
        `Bankareikningi sem ${c.merchantName} fær útborgað á var breytt ${how} ${when} frá vistfanginu ${where}: úr ${from} í ${next}.`,
        c.held
          ? `Útborganir á nýja reikninginn bíða til ${until} nema eigandi staðfesti breytinguna með hlekknum hér fyrir neðan.`
          : 'Staðfestu breytinguna ef þú gerðir hana.',
        'Ef þú kannast ekki við breytinguna skaltu ekki staðfesta hana: skráðu þig inn, breyttu reikningnum til baka, skiptu um lykilorð og afturkallaðu API-lykla.',
      ],
      link,
      'Staðfesta breytinguna',
    );
  }
  const how = {
    dashboard: 'in the dashboard',
    live_key: 'with a live API key',
    test_key: 'with a test API key',
  }[c.actor];
  return message(
    to,
    `${c.merchantName}'s payout account was changed`,
    [
      `The bank account ${c.merchantName} is paid out to was changed ${how} at ${when} from the address ${where}: from ${from} to ${next}.`,
      c.held
        ? `Payouts to the new account wait until ${until} unless an owner confirms the change with the link below.`
        : 'Confirm the change if you made it.',
      'If you do not recognise this change, do not confirm it: sign in, change the account back, change your password and revoke API keys.',
    ],
    link,
    'Confirm the change',
  );
}

/**
 * Guards the payout bank account (decision 0228): a change is recorded in the transaction that
 * makes it, every owner is emailed after the commit with a link to confirm it, and payouts to the
 * new account are held for PAYOUT_ACCOUNT_HOLD_DAYS unless confirmed. The first account a merchant
 * sets is not held (there is nothing to divert from), but its owners are told all the same.
 */
export function createPayoutAccountGuard(deps: {
  knex: Knex;
  mailer: Mailer;
  publicBaseUrl: string;
  log: Logger;
  /** Wakes the merchant's approved runs once a hold is lifted (settlement's payout path). */
  wakeHeldRuns?: (merchantId: string) => Promise<void>;
}) {
  const changes = createPayoutAccountChangeRepository(deps.knex);
  const inspect = async (token: string): Promise<PayoutAccountChangeRow | undefined> =>
    /^[0-9A-Za-z]{43}$/.test(token) ? changes.findByToken(token) : undefined;

  return {
    /**
     * Records a change of the account inside the change's transaction; returns what to send once
     * it has committed.
     */
    async changed(
      trx: Knex.Transaction,
      input: { merchantId: string; previous: string | null; next: string; actor: PayoutAccountActor },
    ): Promise<() => Promise<void>> {
      const held = input.previous !== null || (await changes.hasHistory(input.merchantId, trx));
      const draft = currentAuditDraft();
      const { row, token } = await changes.create(
        {
          merchantId: input.merchantId,
          previousAccount: input.previous,
          newAccount: input.next,
          changedBy: draft ? `${draft.actorType}:${draft.actorId}` : input.actor,
          clientAddress: draft?.clientAddress ?? null,
          holdDays: held ? PAYOUT_ACCOUNT_HOLD_DAYS : 0,
        },
        trx,
      );
      return async () => {
        const merchant = await createMerchantRepository(deps.knex).findById(input.merchantId);
        const owners = (await createUserRepository(deps.knex).listMembers(input.merchantId)).filter(
          (u) => u.role === 'owner',
        );
        const link = `${deps.publicBaseUrl}/dashboard/payout-account/confirm?token=${token}`;
        for (const owner of owners) {
          try {
            await deps.mailer.send(
              changeMail(owner.locale ?? 'is', owner.email, link, {
                merchantName: merchant?.name ?? input.merchantId,
                row,
                actor: input.actor,
                held,
              }),
            );
          } catch (err) {
            deps.log.error({ err, change: row.id, owner: owner.id }, 'payout account change email not sent');
          }
        }
      };
    },

    /** The change a confirmation link names, if the link is good. */
    inspect,

    /** Confirms the change of a link and wakes the merchant's held payouts; undefined for a bad link. */
    async confirm(token: string): Promise<PayoutAccountChangeRow | undefined> {
      const change = await inspect(token);
      if (!change) return undefined;
      const confirmed = (await changes.confirm(change.id)) ?? change;
      await deps
        .wakeHeldRuns?.(change.merchant_id)
        .catch((err: unknown) =>
          deps.log.warn({ err, change: change.id }, 'held payouts not woken; the hourly re-check will'),
        );
      return confirmed;
    },

    /** The hold on the merchant's payouts to its current account, if any (the dashboard shows it). */
    async holdOf(merchantId: string, account: string | null): Promise<PayoutAccountChangeRow | undefined> {
      return account === null ? undefined : changes.holdOn(merchantId, account);
    },
  };
}

export type PayoutAccountGuard = ReturnType<typeof createPayoutAccountGuard>;

/** A recorded change of the payout account, as the pages show it. */
export type PayoutAccountChange = PayoutAccountChangeRow;
