import { randomUUID } from 'node:crypto';
import express, { type Request, type Response, type Router } from 'express';
import { formatIsk } from '../../domain/isk';
import { checkKennitala } from '../../domain/kennitala';
import type { Locale } from '../../domain/locale';
import { html, trusted, type SafeHtml } from '../../html/html';
import { notice } from '../../html/notice';
import { newNonce, setPageSecurityHeaders } from '../../html/security-headers';
import { ClaimRuleError, type ClaimsLedger, type StoredClaim } from './claims-ledger';
import { formatAccount } from './payer-accounts';
import { testCompanyName } from '../../domain/company-registry';

type ClaimantName = (kennitala: string) => string | null;

/** A kennitala as Icelanders write it: `kt. 471008-0280`. */
const ktText = (kt: string) => (/^\d{10}$/.test(kt) ? `kt. ${kt.slice(0, 6)}-${kt.slice(6)}` : `kt. ${kt}`);

/**
 * The simulated bank's online bank for payers (netbanki): "log in" with a kennitala, see unpaid
 * kröfur with what is due today, pay one, all, or part of one where the claim allows it. Plain
 * server-rendered forms, Icelandic or English, no script (the CSP forbids any). There is no real
 * login: this is a test bank (decision 0076).
 */

const STRINGS = {
  is: {
    title: 'Netbanki — ógreiddir reikningar',
    bank: 'Hermibanki',
    kennitala: 'Kennitala',
    show: 'Sýna kröfur',
    invalid: 'Kennitalan er ekki gild.',
    none: 'Engar ógreiddar kröfur.',
    claimant: 'Kröfuhafi',
    dueDate: 'Gjalddagi',
    finalDueDate: 'Eindagi',
    principal: 'Höfuðstóll',
    costs: 'Kostnaður og vextir',
    discount: 'Afsláttur',
    dueToday: 'Til greiðslu í dag',
    pay: 'Greiða',
    payAll: 'Greiða allar',
    payPart: 'Greiða hluta',
    partAmount: 'Upphæð',
    paid: (n: number) => `Greitt: ${n} ${n === 1 ? 'krafa' : 'kröfur'}.`,
    other: 'English',
    change: 'Önnur kennitala',
    fromAccount: 'Greitt af reikningi',
  },
  en: {
    title: 'Online bank — unpaid bills',
    bank: 'Simulated bank',
    kennitala: 'Kennitala',
    show: 'Show claims',
    invalid: 'That kennitala is not valid.',
    none: 'No unpaid claims.',
    claimant: 'Claimant',
    dueDate: 'Due date',
    finalDueDate: 'Final due date',
    principal: 'Principal',
    costs: 'Costs and interest',
    discount: 'Discount',
    dueToday: 'Due today',
    pay: 'Pay',
    payAll: 'Pay all',
    payPart: 'Pay part',
    partAmount: 'Amount',
    paid: (n: number) => `Paid: ${n} ${n === 1 ? 'claim' : 'claims'}.`,
    other: 'Íslenska',
    change: 'Another kennitala',
    fromAccount: 'Paid from account',
  },
};

const CSS = `
:root { font-family: system-ui, sans-serif; line-height: 1.45; }
body { margin: 0; background: #f4f6f4; color: #1b1b1f; }
header { padding: .75rem 1.5rem; background: #1d4d3a; color: #fff; display: flex; gap: 1rem; align-items: center; }
header a { color: #fff; margin-left: auto; }
main { padding: 1.5rem; max-width: 64rem; }
table { border-collapse: collapse; width: 100%; background: #fff; }
th, td { text-align: left; padding: .4rem .6rem; border-bottom: 1px solid #ddd; vertical-align: top; }
td.num { text-align: right; white-space: nowrap; }
input { font: inherit; padding: .35rem; border: 1px solid #888; border-radius: 4px; }
button { font: inherit; padding: .4rem .9rem; border-radius: 4px; border: 1px solid #1d4d3a; background: #1d4d3a; color: #fff; cursor: pointer; }
.notice { padding: .75rem 1rem; border-radius: 4px; margin: 1rem 0; }
.notice.error { background: #fde2e2; border: 1px solid #a4161a; }
.notice.ok { background: #e3f4e1; border: 1px solid #2d6a4f; }
:focus-visible { outline: 3px solid #ffb703; outline-offset: 2px; }
form.inline { display: inline; }
`;

function langOf(req: Request): Locale {
  const q: unknown = req.query.lang ?? (req.body as Record<string, unknown> | undefined)?.lang;
  return q === 'en' ? 'en' : 'is';
}

function sendPage(res: Response, lang: Locale, body: SafeHtml, switchHref: string, status = 200): void {
  const nonce = newNonce();
  const t = STRINGS[lang];
  res.status(status);
  setPageSecurityHeaders(res, { nonce });
  res.type('html').send(
    html`<!doctype html>
      <html lang="${lang}">
        <head>
          <meta charset="utf-8" />
          <meta name="viewport" content="width=device-width, initial-scale=1" />
          <title>${t.title} · ${t.bank}</title>
          <style nonce="${nonce}">
            ${trusted(CSS)}
          </style>
        </head>
        <body>
          <header><strong>${t.bank}</strong><a href="${switchHref}">${t.other}</a></header>
          <main id="main">
            <h1>${t.title}</h1>
            ${body}
          </main>
        </body>
      </html>`.value,
  );
}

function claimRow(
  ledger: ClaimsLedger,
  c: StoredClaim,
  kt: string,
  lang: Locale,
  claimantName: ClaimantName,
): SafeHtml {
  const t = STRINGS[lang];
  const due = ledger.amountDue(c);
  const costs =
    due.noticeFee + due.otherCosts + due.otherDefaultCosts + due.defaultCharge + due.defaultInterest;
  const hidden = html`<input type="hidden" name="kt" value="${kt}" /><input
      type="hidden"
      name="lang"
      value="${lang}"
    /><input type="hidden" name="claimId" value="${c.claimId}" />`;
  const part = c.claim.isPartialPaymentAllowed
    ? html`<form class="inline" method="post" action="/bank/pay">
        ${hidden}
        <label
          >${t.partAmount}
          <input
            name="amount"
            inputmode="numeric"
            size="8"
            aria-label="${t.partAmount} ${c.claimId}" /></label
        ><button type="submit">${t.payPart}</button>
      </form>`
    : '';
  return html`<tr data-claim-id="${c.claimId}">
    <td>${claimantCell(c.claim.claimKey.claimantId, claimantName)}<br /><small>${c.claimId}</small></td>
    <td>${c.claim.claimKey.dueDate}</td>
    <td>${c.claim.finalDueDate}</td>
    <td class="num">${formatIsk(due.principal, lang)}</td>
    <td class="num">${formatIsk(costs, lang)}</td>
    <td class="num">${due.discount ? formatIsk(due.discount, lang) : ''}</td>
    <td class="num" data-amount-due="${due.total}"><strong>${formatIsk(due.total, lang)}</strong></td>
    <td>
      <form class="inline" method="post" action="/bank/pay">
        ${hidden}<button type="submit" aria-label="${t.pay} ${c.claimId}">${t.pay}</button>
      </form>
      ${part}
    </td>
  </tr>`;
}

/** The payer pages, mounted at `/bank`. */
/** The claimant by name, its kennitala in the title; a claimant the bank cannot name by kennitala. */
function claimantCell(claimantId: string, claimantName: ClaimantName): SafeHtml {
  const name = claimantName(claimantId);
  return name
    ? html`<span data-claimant title="${ktText(claimantId)}">${name}</span>`
    : html`<span data-claimant>${ktText(claimantId)}</span>`;
}

export function createPayerRouter(
  ledger: ClaimsLedger,
  claimantName: ClaimantName = testCompanyName,
): Router {
  const router = express.Router();
  router.use(express.urlencoded({ extended: false, limit: '16kb' }));

  router.get('/', (req: Request, res: Response) => {
    const lang = langOf(req);
    const t = STRINGS[lang];
    sendPage(
      res,
      lang,
      html`<form method="get" action="/bank/payor">
        <input type="hidden" name="lang" value="${lang}" />
        <label for="kt">${t.kennitala}</label>
        <input id="kt" name="kt" inputmode="numeric" autocomplete="off" required />
        <button type="submit">${t.show}</button>
      </form>`,
      `/bank?lang=${lang === 'is' ? 'en' : 'is'}`,
    );
  });

  router.get('/payor', (req: Request, res: Response) => {
    const lang = langOf(req);
    const t = STRINGS[lang];
    const rawKt = typeof req.query.kt === 'string' ? req.query.kt : '';
    const checked = checkKennitala(rawKt.trim());
    const other = `/bank/payor?kt=${encodeURIComponent(rawKt)}&lang=${lang === 'is' ? 'en' : 'is'}`;
    if (!checked.ok)
      return void sendPage(
        res,
        lang,
        html`${notice('error', t.invalid)}<a href="/bank?lang=${lang}">${t.change}</a>`,
        other,
        400,
      );
    const kt = checked.kennitala.value;
    const claims = ledger.unpaidFor(kt);
    const paid = Number(req.query.paid);
    const error = typeof req.query.error === 'string' ? req.query.error : null;
    const table = claims.length
      ? html`<table>
            <caption>
              ${t.kennitala} ${kt}
            </caption>
            <thead>
              <tr>
                <th>${t.claimant}</th>
                <th>${t.dueDate}</th>
                <th>${t.finalDueDate}</th>
                <th>${t.principal}</th>
                <th>${t.costs}</th>
                <th>${t.discount}</th>
                <th>${t.dueToday}</th>
                <th></th>
              </tr>
            </thead>
            <tbody>
              ${claims.map((c) => claimRow(ledger, c, kt, lang, claimantName))}
            </tbody>
          </table>
          <form method="post" action="/bank/pay">
            <input type="hidden" name="kt" value="${kt}" /><input type="hidden" name="lang" value="${lang}" />
            <input type="hidden" name="claimId" value="all" />
            <p><button type="submit">${t.payAll}</button></p>
          </form>`
      : html`<p>${t.none}</p>`;
    sendPage(
      res,
      lang,
      html`${paid > 0 ? notice('ok', t.paid(paid)) : ''}${error ? notice('error', error) : ''}${table}
        <p>${t.fromAccount} ${formatAccount(ledger.payerAccount(kt))}</p>
        <p><a href="/bank?lang=${lang}">${t.change}</a></p>`,
      other,
    );
  });

  router.post('/pay', (req: Request, res: Response) => {
    const form = req.body as Record<string, string | undefined>;
    const lang = langOf(req);
    const checked = checkKennitala(String(form.kt ?? ''));
    if (!checked.ok) return void res.redirect(303, `/bank?lang=${lang}`);
    const kt = checked.kennitala.value;
    const back = (q: string) => res.redirect(303, `/bank/payor?kt=${kt}&lang=${lang}&${q}`);
    const own = (id: string) => ledger.find(id)?.claim.payorId === kt;
    try {
      if (form.claimId === 'all') {
        const claims = ledger.unpaidFor(kt);
        const batchId = randomUUID();
        for (const c of claims) ledger.pay(c.claimId, { batchId });
        return void back(`paid=${claims.length}`);
      }
      const claimId = String(form.claimId ?? '');
      if (!own(claimId)) return void back(`error=${encodeURIComponent('Unknown claim')}`);
      const raw = String(form.amount ?? '').replace(/[.\s]/g, '');
      const amount = raw === '' ? undefined : Number(raw);
      ledger.pay(claimId, amount === undefined ? {} : { amount });
      back('paid=1');
    } catch (err) {
      if (!(err instanceof ClaimRuleError)) throw err;
      back(`error=${encodeURIComponent(err.message)}`);
    }
  });

  return router;
}
