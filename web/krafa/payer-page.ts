import { Router, type Response } from 'express';
import type { CollectionService } from '../../services/collection/collection-service';
import type { Locale } from '../../domain/locale';
import { formatIsk } from '../../domain/isk';
import { html, trusted, type SafeHtml } from '../../html/html';
import { newNonce, setPageSecurityHeaders } from '../../html/security-headers';
import { defineMessages } from '../messages';

/**
 * `/krafa/{claim_id}`: the payer's page of a krafa (decision 0246), linked from every collection
 * letter: what is owed today, broken down into principal, default interest and each cost, the steps
 * taken and what comes next. In Icelandic first (`?lang=en` for English). The krafa's id is the
 * payer's link (random, as a checkout session's is); the page shows nothing of other kröfur.
 */

const t = defineMessages({
  is: {
    title: 'Krafa nr. {n}',
    from: 'Kröfuhafi: {name}',
    owed: 'Staða {date}',
    principal: 'Höfuðstóll',
    interest: 'Dráttarvextir',
    total: 'Samtals',
    paid: 'Krafan er greidd.',
    cancelled: 'Krafan hefur verið felld niður.',
    handedOff: 'Krafan hefur verið send innheimtuaðila.',
    next: 'Verði krafan ekki greidd fer hún í næsta skref ({step}) {date}.',
    steps: 'Innheimtuaðgerðir',
    where: 'Greiða má kröfuna í netbanka greiðanda, þar sem hún birtist með þessari fjárhæð.',
    missing: 'Krafan fannst ekki.',
    kind_overdue: 'Krafa í vanskilum',
    kind_warning: 'Innheimtuviðvörun',
    kind_letter: 'Milliinnheimtubréf',
    kind_reminder: 'Ítrekun',
    kind_call: 'Símtal',
    kind_hand_off: 'Send innheimtuaðila',
    kind_close: 'Innheimtu lokið',
    withdrawn: 'fellt niður',
  },
  en: {
    title: 'Krafa no. {n}',
    from: 'Claimant: {name}',
    owed: 'Owed on {date}',
    principal: 'Principal',
    interest: 'Default interest',
    total: 'Total',
    paid: 'The krafa is paid.',
    cancelled: 'The krafa has been cancelled.',
    handedOff: 'The krafa has been handed to a collector.',
    next: 'If it stays unpaid its next step ({step}) is on {date}.',
    steps: 'Collection steps',
    where: 'Pay it in your online bank, where it shows this amount.',
    missing: 'No such krafa.',
    kind_overdue: 'Overdue',
    kind_warning: 'Collection warning',
    kind_letter: 'Interim letter',
    kind_reminder: 'Reminder',
    kind_call: 'Call',
    kind_hand_off: 'Handed to a collector',
    kind_close: 'Collection closed',
    withdrawn: 'withdrawn',
  },
});

const CSS = `
body { margin: 0; background: #f6f7f9; color: #1b1b1f; font-family: system-ui, sans-serif; }
main { max-width: 36rem; margin: 0 auto; padding: 1rem; line-height: 1.45; }
section { background: #fff; border: 1px solid #ccc; border-radius: 8px; padding: 1rem; margin: 1rem 0; }
table { width: 100%; border-collapse: collapse; } th, td { padding: .3rem 0; text-align: left; } td.num { text-align: right; }
tr.total th, tr.total td { border-top: 2px solid #1b1b1f; font-weight: 700; }
`;

function send(res: Response, locale: Locale, title: string, body: SafeHtml, status = 200): void {
  const nonce = newNonce();
  res.status(status);
  setPageSecurityHeaders(res, { nonce });
  res.type('html').send(
    html`<!doctype html>
      <html lang="${locale}">
        <head>
          <meta charset="utf-8" />
          <meta name="viewport" content="width=device-width, initial-scale=1" />
          <title>${title}</title>
          <style nonce="${nonce}">
            ${trusted(CSS)}
          </style>
        </head>
        <body>
          <main>${body}</main>
        </body>
      </html>`.value,
  );
}

export function krafaPayerPages(deps: { collection: CollectionService }): Router {
  const router = Router();
  router.get('/krafa/:id', async (req, res) => {
    const l: Locale = req.query.lang === 'en' ? 'en' : 'is';
    const id = String(req.params.id);
    const found = /^clm_[A-Za-z0-9]{1,40}$/.test(id) ? await deps.collection.forPayer(id) : null;
    if (!found) {
      send(res, l, t(l, 'missing'), html`<h1>${t(l, 'missing')}</h1>`, 404);
      return;
    }
    const { claim, collection: c, costs, merchantName } = found;
    const kr = (n: number) => formatIsk(n, l);
    const kind = (k: string) => t(l, `kind_${k}` as 'kind_overdue');
    const status =
      claim.status === 'paid'
        ? t(l, 'paid')
        : claim.status === 'cancelled' || claim.status === 'expired'
          ? t(l, 'cancelled')
          : c.state === 'handed_off'
            ? t(l, 'handedOff')
            : null;
    const open = claim.status === 'issued' || claim.status === 'partially_paid';
    const title = t(l, 'title', { n: String(claim.claim_number) });
    const body = html`<h1>${title}</h1>
      <p>${t(l, 'from', { name: merchantName })}</p>
      ${status ? html`<p role="status" data-state="${claim.status}">${status}</p>` : ''}
      ${
        open
          ? html`<section aria-labelledby="owed">
              <h2 id="owed">${t(l, 'owed', { date: c.amount_owed.date })}</h2>
              <table data-breakdown>
                <tr data-part="principal">
                  <th scope="row">${t(l, 'principal')}</th>
                  <td class="num">${kr(c.amount_owed.principal)}</td>
                </tr>
                <tr data-part="interest">
                  <th scope="row">${t(l, 'interest')}</th>
                  <td class="num">${kr(c.amount_owed.interest)}</td>
                </tr>
                ${costs.map(
                  (x) =>
                    html`<tr data-part="cost">
                      <th scope="row">${x.label}</th>
                      <td class="num">${kr(x.amount)}</td>
                    </tr>`,
                )}
                <tr class="total" data-part="total">
                  <th scope="row">${t(l, 'total')}</th>
                  <td class="num" data-total="${c.amount_owed.total}">${kr(c.amount_owed.total)}</td>
                </tr>
              </table>
              <p>${t(l, 'where')}</p>
              ${c.next_step ? html`<p data-next="${c.next_step.kind}">${t(l, 'next', { step: kind(c.next_step.kind), date: c.next_step.on })}</p>` : ''}
            </section>`
          : ''
      }
      ${
        c.steps.length > 0
          ? html`<section aria-labelledby="steps">
              <h2 id="steps">${t(l, 'steps')}</h2>
              <ul>
                ${c.steps.map(
                  (s) =>
                    html`<li data-step="${s.kind}">
                      ${s.taken_on}:
                      ${kind(s.kind)}${s.cost > 0 ? ` (${kr(s.cost)})` : ''}${s.status === 'withdrawn' ? ` — ${t(l, 'withdrawn')}` : ''}
                    </li>`,
                )}
              </ul>
            </section>`
          : ''
      }`;
    send(res, l, title, body);
  });
  return router;
}
