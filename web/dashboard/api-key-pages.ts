import { Router, type Request, type Response } from 'express';
import { ApiError } from '../../domain/errors';
import { formatLocalTime } from '../../domain/local-time';
import { html, type SafeHtml } from '../../html/html';
import { defineMessages } from '../messages';
import { merchantView, requireAction, sendMerchantPage, table, viewPreferences } from './frame';
import { errorMessage, field, requireCsrf, requireUser, sessionOf, type WebContext } from './context';
import { requireRecentSignIn } from './reauth';

const t = defineMessages({
  en: {
    title: 'API keys',
    newKey: 'New key',
    test: 'Test',
    live: 'Live',
    afterApproval: '(after approval)',
    create: 'Create key',
    keys: 'Keys',
    mode: 'Mode',
    key: 'Key',
    created: 'Created',
    lastUsed: 'Last used',
    status: 'Status',
    actions: 'Actions',
    modeOf: '{mode, select, live {live} other {test}}',
    active: 'active',
    revokedAt: 'revoked {when}',
    roll: 'Roll',
    rollLabel: 'Roll key ending {last4}',
    revoke: 'Revoke',
    revokeLabel: 'Revoke key ending {last4}',
    none: 'No keys yet.',
    secret: 'Your new {mode, select, live {live} other {test}} key. Copy it now: it is shown only once.',
    rolled: 'The old key is revoked.',
    revoked: 'Key ending {last4} revoked.',
  },
  is: {
    title: 'API-lyklar',
    newKey: 'Nýr lykill',
    test: 'Prufuhamur',
    live: 'Raunhamur',
    afterApproval: '(eftir samþykki)',
    create: 'Búa til lykil',
    keys: 'Lyklar',
    mode: 'Hamur',
    key: 'Lykill',
    created: 'Stofnaður',
    lastUsed: 'Síðast notaður',
    status: 'Staða',
    actions: 'Aðgerðir',
    modeOf: '{mode, select, live {raunhamur} other {prufuhamur}}',
    active: 'virkur',
    revokedAt: 'afturkallaður {when}',
    roll: 'Endurnýja',
    rollLabel: 'Endurnýja lykil sem endar á {last4}',
    revoke: 'Afturkalla',
    revokeLabel: 'Afturkalla lykil sem endar á {last4}',
    none: 'Engir lyklar enn.',
    secret:
      'Nýi {mode, select, live {raunlykillinn} other {prufulykillinn}} þinn. Afritaðu hann núna: hann birtist aðeins einu sinni.',
    rolled: 'Gamli lykillinn hefur verið afturkallaður.',
    revoked: 'Lykillinn sem endar á {last4} hefur verið afturkallaður.',
  },
});

/** API keys: list, create (live after approval), roll and revoke; a new secret is shown once. */
export function apiKeyPages(ctx: WebContext): Router {
  const router = Router();
  const { accounts, keys } = ctx.services;
  router.use(
    '/dashboard/api-keys',
    requireUser('merchant'),
    requireCsrf(ctx),
    viewPreferences(ctx),
    requireAction('manage_keys'),
  );
  const merchantIdOf = (res: Response) => sessionOf(res).user.merchant_id!;

  async function keysPage(
    req: Request,
    res: Response,
    opts: {
      secret?: { value: string; livemode: boolean };
      error?: string;
      ok?: string;
      status?: number;
    } = {},
  ) {
    const view = merchantView(req, res);
    const l = view.locale;
    const merchant = await accounts.load(merchantIdOf(res));
    const approved = merchant.application_status === 'approved';
    const rows = await keys.list(merchant.id);
    const mode = (livemode: boolean) => (livemode ? 'live' : 'test');
    const keyRows: SafeHtml[] = rows.map(
      (k) =>
        html`<tr>
          <td>${t(l, 'modeOf', { mode: mode(k.livemode) })}</td>
          <td><code>sk_${mode(k.livemode)}_…${k.last4}</code></td>
          <td>${formatLocalTime(k.created_at, l)}</td>
          <td>${formatLocalTime(k.last_used_at, l)}</td>
          <td>
            ${k.revoked_at ? t(l, 'revokedAt', { when: formatLocalTime(k.revoked_at, l) }) : t(l, 'active')}
          </td>
          <td>
            ${
              k.revoked_at
                ? ''
                : html`<form class="inline" method="post" action="/dashboard/api-keys/${k.id}/roll">
                      ${view.csrf}<button
                        type="submit"
                        class="secondary"
                        aria-label="${t(l, 'rollLabel', { last4: k.last4 })}"
                      >
                        ${t(l, 'roll')}
                      </button>
                    </form>
                    <form class="inline" method="post" action="/dashboard/api-keys/${k.id}/revoke">
                      ${view.csrf}<button
                        type="submit"
                        class="danger"
                        aria-label="${t(l, 'revokeLabel', { last4: k.last4 })}"
                      >
                        ${t(l, 'revoke')}
                      </button>
                    </form>`
            }
          </td>
        </tr>`,
    );
    const body = html`${
        opts.secret
          ? html`<div class="notice ok" role="status">
              <p>${t(l, 'secret', { mode: mode(opts.secret.livemode) })}</p>
              <code class="secret" data-testid="new-secret" tabindex="0">${opts.secret.value}</code>
            </div>`
          : ''
      }
      <form method="post" action="/dashboard/api-keys">
        ${view.csrf}
        <label for="mode">${t(l, 'newKey')}</label>
        <select id="mode" name="mode">
          <option value="test">${t(l, 'test')}</option>
          <option value="live" ${approved ? '' : 'disabled'}>
            ${t(l, 'live')}${approved ? '' : ` ${t(l, 'afterApproval')}`}
          </option>
        </select>
        <button type="submit">${t(l, 'create')}</button>
      </form>
      <h2>${t(l, 'keys')}</h2>
      ${table(
        t(l, 'keys'),
        [t(l, 'mode'), t(l, 'key'), t(l, 'created'), t(l, 'lastUsed'), t(l, 'status'), t(l, 'actions')],
        keyRows,
        t(l, 'none'),
      )}`;
    sendMerchantPage(res, view, body, {
      title: t(l, 'title'),
      status: opts.status ?? 200,
      error: opts.error,
      ok: opts.ok,
    });
  }

  router.get('/dashboard/api-keys', (req, res) => keysPage(req, res));

  // A new live secret, made or rolled, asks for a recent sign-in (decision 0222).
  const newLiveKey = requireRecentSignIn(ctx, (req) => field(req, 'mode') === 'live');
  const liveKeyRolled = requireRecentSignIn(ctx, async (req, res) => {
    const all = await keys.list(merchantIdOf(res));
    return all.some((k) => k.id === String(req.params.id) && k.livemode);
  });

  router.post('/dashboard/api-keys', newLiveKey, async (req, res) => {
    const livemode = field(req, 'mode') === 'live';
    try {
      const { secret } = await keys.create(merchantIdOf(res), livemode);
      await keysPage(req, res, { secret: { value: secret, livemode } });
    } catch (err) {
      await keysPage(req, res, {
        error: errorMessage(err),
        status: err instanceof ApiError ? err.status : 500,
      });
    }
  });

  router.post('/dashboard/api-keys/:id/roll', liveKeyRolled, async (req, res) => {
    try {
      const { row, secret } = await keys.roll(merchantIdOf(res), String(req.params.id));
      await keysPage(req, res, {
        secret: { value: secret, livemode: row.livemode },
        ok: t(merchantView(req, res).locale, 'rolled'),
      });
    } catch (err) {
      await keysPage(req, res, {
        error: errorMessage(err),
        status: err instanceof ApiError ? err.status : 500,
      });
    }
  });

  router.post('/dashboard/api-keys/:id/revoke', async (req, res) => {
    try {
      const row = await keys.revoke(merchantIdOf(res), String(req.params.id));
      await keysPage(req, res, { ok: t(merchantView(req, res).locale, 'revoked', { last4: row.last4 }) });
    } catch (err) {
      await keysPage(req, res, {
        error: errorMessage(err),
        status: err instanceof ApiError ? err.status : 500,
      });
    }
  });

  return router;
}
