import { formatIsk } from '../../domain/isk';
import { html, trusted, type SafeHtml } from '../../html/html';
import { buildReceipt, type Receipt, type ReceiptInput } from './receipt';

const LABELS = {
  is: {
    receipt: 'Kvittun',
    refund: 'Endurgreiðsla',
    invoice: 'Reikningur',
    number: 'Nr.',
    date: 'Dags.',
    kennitala: 'Kt.',
    vatNumber: 'VSK-nr.',
    buyer: 'Kaupandi',
    subtotal: 'Samtals fyrir afslátt',
    discount: 'Afsláttur',
    total: 'Samtals',
    vatHeading: 'Virðisaukaskattur',
    vatRate: 'VSK',
    net: 'Án VSK',
    vat: 'VSK',
    gross: 'Með VSK',
    vatTotal: 'VSK alls',
    paid: 'Greitt',
    cash: 'Reiðufé',
    card: 'Kort',
    bank_claim: 'Krafa',
    bank_transfer: 'Millifærsla',
    tendered: 'Móttekið',
    change: 'Til baka',
    thanks: 'Takk fyrir viðskiptin',
    Z: 'núllskattað',
    E: 'undanþegið',
    O: 'utan gildissviðs VSK',
  },
  en: {
    receipt: 'Receipt',
    refund: 'Refund',
    invoice: 'Invoice',
    number: 'No.',
    date: 'Date',
    kennitala: 'Reg. no.',
    vatNumber: 'VAT no.',
    buyer: 'Buyer',
    subtotal: 'Subtotal before discount',
    discount: 'Discount',
    total: 'Total',
    vatHeading: 'Value added tax',
    vatRate: 'VAT',
    net: 'Net',
    vat: 'VAT',
    gross: 'Gross',
    vatTotal: 'Total VAT',
    paid: 'Paid',
    cash: 'Cash',
    card: 'Card',
    bank_claim: 'Bank claim',
    bank_transfer: 'Bank transfer',
    tendered: 'Tendered',
    change: 'Change',
    thanks: 'Thank you',
    Z: 'zero rated',
    E: 'exempt',
    O: 'outside the scope of VAT',
  },
} as const;

/**
 * A rate with what it alone does not say (decision 0234): `0% undanþegið` / `0% exempt`, so zero
 * rated, exempt and outside-the-scope takings read apart; the standard rate says nothing more.
 */
const rateText = (t: (typeof LABELS)['is' | 'en'], rate: number, category: 'S' | 'Z' | 'E' | 'O') =>
  category === 'S' ? `${rate}%` : `${rate}% ${t[category]}`;

/** Date and time in Reykjavik (UTC all year), as printed on a receipt. */
function when(d: Date): string {
  return d.toISOString().slice(0, 16).replace('T', ' ');
}

/** The text lines of a receipt: the same content for the printed page and the email. */
function sections(r: Receipt) {
  const t = LABELS[r.locale];
  const money = (n: number) => formatIsk(n, r.locale, { negative: 'typographic' });
  const head = [
    r.seller.name,
    ...(r.seller.address ? [r.seller.address] : []),
    ...(r.seller.kennitala ? [`${t.kennitala} ${r.seller.kennitala}`] : []),
    ...(r.seller.vatNumber ? [`${t.vatNumber} ${r.seller.vatNumber}`] : []),
  ];
  const meta = [`${t[r.kind]} ${t.number} ${r.number}`, `${t.date} ${when(r.issuedAt)}`];
  if (r.buyer?.name || r.buyer?.kennitala)
    meta.push(`${t.buyer}: ${[r.buyer.name, r.buyer.kennitala].filter(Boolean).join(', ')}`);
  const lines = r.lines.map((l) => ({
    text: `${l.quantity} × ${l.description}`,
    detail: `${money(l.unitAmount)} · ${t.vatRate} ${rateText(t, l.vatRate, l.vatCategory)}`,
    amount: money(l.amount),
    discount: l.discountAmount > 0 ? `${t.discount} −${money(l.discountAmount)}` : null,
  }));
  const payments = (r.payments ?? []).map((p) => ({
    label: p.method === 'card' && p.cardLast4 ? `${t.card} •••• ${p.cardLast4}` : t[p.method],
    amount: money(p.amount),
    tendered: p.method === 'cash' && p.tendered && p.tendered > p.amount ? money(p.tendered) : null,
  }));
  return { t, money, head, meta, lines, payments };
}

/** The receipt as a printable page 80 mm wide (thermal roll paper), VAT per rate under the total. */
export function renderReceiptPage(
  input: ReceiptInput | Receipt,
  opts: { title?: string; nonce?: string } = {},
): SafeHtml {
  const r = 'vat' in input ? input : buildReceipt(input);
  const { t, money, head, meta, lines, payments } = sections(r);
  return html`<!doctype html>
    <html lang="${r.locale}">
      <head>
        <meta charset="utf-8" />
        <title>${opts.title ?? `${t[r.kind]} ${r.number}`}</title>
        <style ${opts.nonce ? html`nonce="${opts.nonce}"` : ''}>
          ${trusted(`@page { size: 80mm auto; margin: 3mm; }
body { width: 74mm; margin: 0 auto; font: 12px/1.35 ui-monospace, Menlo, Consolas, monospace; color: #000; }
h1 { font-size: 14px; text-align: center; margin: 0 0 2mm; }
p { margin: 0; }
.c { text-align: center; }
table { width: 100%; border-collapse: collapse; }
td, th { padding: 0.4mm 0; vertical-align: top; font-weight: normal; text-align: left; }
td.n, th.n { text-align: right; white-space: nowrap; }
.rule { border-top: 1px dashed #000; margin: 2mm 0; }
.total td { font-weight: bold; font-size: 14px; }
.small { font-size: 10px; }`)}
        </style>
      </head>
      <body class="receipt" data-receipt="${r.number}">
        <header class="c">${head.map((h, i) => (i === 0 ? html`<h1>${h}</h1>` : html`<p>${h}</p>`))}</header>
        <div class="rule"></div>
        ${meta.map((m) => html`<p>${m}</p>`)}
        <div class="rule"></div>
        <table class="lines">
          ${lines.map(
            (l) =>
              html`<tr>
                <td>
                  ${l.text}<br /><span class="small">${l.detail}</span
                  >${l.discount ? html`<br /><span class="small">${l.discount}</span>` : ''}
                </td>
                <td class="n">${l.amount}</td>
              </tr>`,
          )}
        </table>
        <div class="rule"></div>
        <table class="totals">
          ${
            r.discount > 0
              ? html`<tr>
                    <td>${t.subtotal}</td>
                    <td class="n">${money(r.subtotal)}</td>
                  </tr>
                  <tr>
                    <td>${t.discount}</td>
                    <td class="n">−${money(r.discount)}</td>
                  </tr>`
              : ''
          }
          <tr class="total">
            <td>${t.total}</td>
            <td class="n" data-total="${r.total}">${money(r.total)}</td>
          </tr>
        </table>
        <div class="rule"></div>
        <table class="vat" aria-label="${t.vatHeading}">
          <tr>
            <th>${t.vatRate}</th>
            <th class="n">${t.net}</th>
            <th class="n">${t.vat}</th>
            <th class="n">${t.gross}</th>
          </tr>
          ${r.vat.map(
            (v) =>
              html`<tr data-vat-rate="${v.rate}" data-vat-category="${v.category}">
                <td>${rateText(t, v.rate, v.category)}</td>
                <td class="n">${money(v.net)}</td>
                <td class="n" data-vat="${v.vat}">${money(v.vat)}</td>
                <td class="n">${money(v.gross)}</td>
              </tr>`,
          )}
          <tr>
            <td>${t.vatTotal}</td>
            <td></td>
            <td class="n">${money(r.vatTotal)}</td>
            <td></td>
          </tr>
        </table>
        ${
          payments.length
            ? html`<div class="rule"></div>
                <table class="payments">
                  ${payments.map(
                    (p) =>
                      html`<tr>
                          <td>${p.label}</td>
                          <td class="n">${p.amount}</td>
                        </tr>
                        ${
                          p.tendered
                            ? html`<tr>
                                <td>${t.tendered}</td>
                                <td class="n">${p.tendered}</td>
                              </tr>`
                            : ''
                        }`,
                  )}
                  ${
                    r.change > 0
                      ? html`<tr>
                          <td>${t.change}</td>
                          <td class="n" data-change="${r.change}">${money(r.change)}</td>
                        </tr>`
                      : ''
                  }
                </table>`
            : ''
        }
        ${
          (r.notes ?? []).length
            ? html`<div class="rule"></div>
                ${r.notes!.map((n) => html`<p class="small">${n}</p>`)}`
            : ''
        }
        <div class="rule"></div>
        <p class="c">${t.thanks}</p>
      </body>
    </html>`;
}

/** The receipt as an email: a subject, a plain-text body and an HTML body, VAT per rate in both. */
export function renderReceiptEmail(input: ReceiptInput | Receipt): {
  subject: string;
  text: string;
  html: string;
} {
  const r = 'vat' in input ? input : buildReceipt(input);
  const { t, money, head, meta, lines, payments } = sections(r);
  const text = [
    ...head,
    '',
    ...meta,
    '',
    ...lines.flatMap((l) => [
      `${l.text}  ${l.amount}`,
      `   ${l.detail}`,
      ...(l.discount ? [`   ${l.discount}`] : []),
    ]),
    '',
    ...(r.discount > 0
      ? [`${t.subtotal}: ${money(r.subtotal)}`, `${t.discount}: −${money(r.discount)}`]
      : []),
    `${t.total}: ${money(r.total)}`,
    '',
    `${t.vatHeading}:`,
    ...r.vat.map(
      (v) =>
        `${t.vatRate} ${rateText(t, v.rate, v.category)}: ${t.net} ${money(v.net)}, ${t.vat} ${money(v.vat)}, ${t.gross} ${money(v.gross)}`,
    ),
    `${t.vatTotal}: ${money(r.vatTotal)}`,
    ...(payments.length ? ['', ...payments.map((p) => `${t.paid} (${p.label}): ${p.amount}`)] : []),
    ...(r.change > 0 ? [`${t.change}: ${money(r.change)}`] : []),
    ...(r.notes?.length ? ['', ...r.notes] : []),
    '',
    t.thanks,
  ].join('\n');
  return {
    subject: `${t[r.kind]} ${r.number} — ${r.seller.name}`,
    text,
    html: renderReceiptPage(r).value,
  };
}
