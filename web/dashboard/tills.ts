import { Router, type Request, type Response } from 'express';
import { html } from '../../html/html';
import { ApiError } from '../../domain/errors';
import { defineMessages } from '../messages';
import type { WebContext } from './context';
import { failure, merchantView, requireAction, sendMerchantPage, table, when } from './frame';

const t = defineMessages({
  en: {
    title: 'Tills',
    intro:
      'A till (a tablet at /pos) is paired to one register with a single-use code made here; it then holds a credential of its own for that register only, never an API key.',
    off: 'The point of sale is not switched on for this account. Ask Skil to switch it on.',
    register: 'Register',
    location: 'Location',
    created: 'Created',
    actions: 'Actions',
    none: 'No register yet. Create one with the API (POST /v1/pos/registers).',
    pair: 'Pair a till with {name}',
    code: 'Type this code on the till at /pos within 10 minutes (until {until}):',
    codeLabel: 'Pairing code',
  },
  is: {
    title: 'Kassar',
    intro:
      'Afgreiðslukassi (spjaldtölva á /pos) er paraður við einn kassa með einnota kóða sem er búinn til hér; hann fær þá eigið auðkenni fyrir þann kassa eingöngu, aldrei API-lykil.',
    off: 'Afgreiðslukassinn er ekki virkur fyrir þennan aðgang. Hafðu samband við Skil til að virkja hann.',
    register: 'Kassi',
    location: 'Staðsetning',
    created: 'Stofnaður',
    actions: 'Aðgerðir',
    none: 'Enginn kassi enn. Stofnaðu kassa með API-inu (POST /v1/pos/registers).',
    pair: 'Para spjaldtölvu við {name}',
    code: 'Sláðu þennan kóða inn á spjaldtölvunni á /pos innan 10 mínútna (til {until}):',
    codeLabel: 'Pörunarkóði',
  },
});

/**
 * `/dashboard/tills`: the merchant's registers and the approval of a till's pairing (decision 0150):
 * a member who may manage credentials makes the single-use code the tablet types, through the same
 * pairing-code operation as `POST /v1/pos/registers/{id}/pairing_codes`.
 */
export function tillPages(ctx: WebContext): Router {
  const router = Router();
  const { pos } = ctx.services;
  const merchant = { kind: 'api_key' } as const;

  async function listPage(
    req: Request,
    res: Response,
    opts: { ok?: string; error?: string; status?: number; code?: { value: string; until: number } },
  ) {
    const view = merchantView(req, res);
    const l = view.locale;
    let registers;
    try {
      registers = await pos.setup.listRegisters(view.scope, { limit: 100 });
    } catch (err) {
      if (err instanceof ApiError && err.code === 'pos_not_enabled')
        return sendMerchantPage(res, view, html`<p>${t(l, 'off')}</p>`, { title: t(l, 'title') });
      throw err;
    }
    const rows = registers.data.map(
      (r) =>
        html`<tr>
          <td>${r.name}</td>
          <td>${r.location ?? '—'}</td>
          <td>${when(r.created_at, l)}</td>
          <td>
            <form method="post" action="/dashboard/tills/${r.id}/pairing-codes">
              ${view.csrf}
              <button type="submit">${t(l, 'pair', { name: r.name })}</button>
            </form>
          </td>
        </tr>`,
    );
    sendMerchantPage(
      res,
      view,
      html`<p>${t(l, 'intro')}</p>
        ${
          opts.code
            ? html`<p class="notice ok" role="status">
                ${t(l, 'code', { until: when(opts.code.until, l) })}
                <code class="secret" aria-label="${t(l, 'codeLabel')}" data-testid="pairing-code"
                  >${opts.code.value}</code
                >
              </p>`
            : ''
        }
        ${table(t(l, 'title'), [t(l, 'register'), t(l, 'location'), t(l, 'created'), t(l, 'actions')], rows, t(l, 'none'))}`,
      { title: t(l, 'title'), ...opts },
    );
  }

  router.get('/dashboard/tills', (req, res) => listPage(req, res, {}));
  router.post('/dashboard/tills/:id/pairing-codes', requireAction('manage_keys'), async (req, res) => {
    const view = merchantView(req, res);
    try {
      const code = await pos.setup.createPairingCode(view.scope, merchant, String(req.params.id));
      await listPage(req, res, { code: { value: code.code, until: code.expires_at } });
    } catch (err) {
      const f = failure(err);
      await listPage(req, res, { status: f.status, error: f.message });
    }
  });
  return router;
}
