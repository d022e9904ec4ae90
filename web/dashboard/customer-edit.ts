import { Router, type Request, type Response } from 'express';
import { isGln, parsePeppolId } from '../../domain/einvoice-parties';
import { checkKennitala } from '../../domain/kennitala';
import { ApiError } from '../../domain/errors';
import type { Locale } from '../../domain/locale';
import { html, type SafeHtml } from '../../html/html';
import type { Customer } from '../../services/customers/customer-object';
import type { CustomerInput } from '../../services/customers/customers';
import { defineMessages } from '../messages';
import { field, type WebContext } from './context';
import { loadOrSendFailure, merchantView, requireAction, sendMerchantPage } from './frame';

const t = defineMessages({
  en: {
    title: 'Edit customer {name}',
    intro:
      'What its invoices carry and how they reach it. A business with kennitala, street and postcode gets Peppol e-invoices; others get the PDF.',
    business: 'Buys as a business (its invoices are e-invoices)',
    kennitala: 'Kennitala',
    line1: 'Street and number',
    postal_code: 'Postcode',
    city: 'Town',
    gln: 'GLN (optional)',
    glnHint: '13 digits (GS1 Global Location Number)',
    peppol_id: 'Peppol participant id (optional)',
    peppolHint: "'0196:' and a kennitala, or '0088:' and a GLN",
    delivery: 'Invoice delivery',
    delivery_peppol: 'Peppol e-invoice',
    delivery_email: 'E-mail with PDF',
    delivery_none: 'None (the merchant hands the invoice over)',
    save: 'Save',
    cancel: 'Back to the customer',
    saved: 'Saved.',
    fix: 'Some fields need fixing; see below.',
    error_kennitala: 'Write a kennitala: ten digits, the first six a date.',
    error_gln: 'Write a GLN: 13 digits with a valid check digit.',
    error_peppol_id: "Write '0196:' and a kennitala or '0088:' and a GLN.",
    error_postal_code: 'Write a postcode of up to 20 characters.',
    error_line: 'At most 200 characters.',
    error_delivery_peppol: 'Delivery by Peppol needs a kennitala or a Peppol id.',
    error_delivery_email: 'Delivery by e-mail needs the customer’s e-mail address.',
    error_delivery: 'Choose one of the delivery methods.',
  },
  is: {
    title: 'Breyta viðskiptavini {name}',
    intro:
      'Það sem reikningar hans bera og hvernig þeir berast honum. Fyrirtæki með kennitölu, götu og póstnúmer fær rafræna reikninga (Peppol); aðrir fá PDF-skjalið.',
    business: 'Kaupir sem fyrirtæki (reikningar hans eru rafrænir)',
    kennitala: 'Kennitala',
    line1: 'Gata og húsnúmer',
    postal_code: 'Póstnúmer',
    city: 'Staður',
    gln: 'GLN (valfrjálst)',
    glnHint: '13 tölustafir (GS1 staðsetningarnúmer)',
    peppol_id: 'Peppol-auðkenni (valfrjálst)',
    peppolHint: "'0196:' og kennitala, eða '0088:' og GLN",
    delivery: 'Sending reikninga',
    delivery_peppol: 'Rafrænn reikningur (Peppol)',
    delivery_email: 'Tölvupóstur með PDF',
    delivery_none: 'Engin (seljandinn afhendir reikninginn)',
    save: 'Vista',
    cancel: 'Aftur til viðskiptavinar',
    saved: 'Vistað.',
    fix: 'Laga þarf suma reiti; sjá hér fyrir neðan.',
    error_kennitala: 'Skrifaðu kennitölu: tíu tölustafi, þá fyrstu sex dagsetningu.',
    error_gln: 'Skrifaðu GLN: 13 tölustafi með réttri vartölu.',
    error_peppol_id: "Skrifaðu '0196:' og kennitölu eða '0088:' og GLN.",
    error_postal_code: 'Skrifaðu póstnúmer, mest 20 stafi.',
    error_line: 'Mest 200 stafir.',
    error_delivery_peppol: 'Sending með Peppol þarf kennitölu eða Peppol-auðkenni.',
    error_delivery_email: 'Sending í tölvupósti þarf netfang viðskiptavinarins.',
    error_delivery: 'Veldu eina sendingarleið.',
  },
});

type Param = 'kennitala' | 'line1' | 'postal_code' | 'city' | 'gln' | 'peppol_id' | 'delivery';
type IssueKey =
  | 'error_kennitala'
  | 'error_gln'
  | 'error_peppol_id'
  | 'error_postal_code'
  | 'error_line'
  | 'error_delivery'
  | 'error_delivery_peppol'
  | 'error_delivery_email';
type Issues = Partial<Record<Param, IssueKey>>;
type Values = Record<Exclude<Param, 'delivery'>, string> & { business: boolean; delivery: string };

const DELIVERY = ['peppol', 'email', 'none'] as const;
type Delivery = (typeof DELIVERY)[number];
const isDelivery = (v: string): v is Delivery => (DELIVERY as readonly string[]).includes(v);

const valuesOf = (c: Customer): Values => ({
  business: c.business,
  kennitala: c.kennitala ?? '',
  line1: c.address?.line1 ?? '',
  postal_code: c.address?.postal_code ?? '',
  city: c.address?.city ?? '',
  gln: c.gln ?? '',
  peppol_id: c.peppol_id ?? '',
  delivery: c.invoice_settings.delivery_method,
});

/**
 * The form's fields as the customer update takes them, checked by the same rules the API's schema
 * applies (domain's kennitala, GLN and participant-id checks): an empty field clears it.
 */
function readForm(req: Request, current: Customer): { values: Values; issues: Issues; input: CustomerInput } {
  const text = (name: string) => field(req, name).trim();
  const values: Values = {
    business: field(req, 'business') === 'on',
    kennitala: text('kennitala').replace(/[\s-]/g, ''),
    line1: text('line1'),
    postal_code: text('postal_code'),
    city: text('city'),
    gln: text('gln').replace(/\s/g, ''),
    peppol_id: text('peppol_id').replace(/\s/g, ''),
    delivery: text('delivery'),
  };
  const issues: Issues = {};
  // As the API: structure is checked, a failed check digit is only a warning (domain/kennitala.ts).
  if (values.kennitala && !(/^\d{10}$/.test(values.kennitala) && checkKennitala(values.kennitala).ok))
    issues.kennitala = 'error_kennitala';
  if (values.gln && !isGln(values.gln)) issues.gln = 'error_gln';
  if (values.peppol_id && !parsePeppolId(values.peppol_id)) issues.peppol_id = 'error_peppol_id';
  if (values.line1.length > 200) issues.line1 = 'error_line';
  if (values.city.length > 100) issues.city = 'error_line';
  if (values.postal_code.length > 20) issues.postal_code = 'error_postal_code';
  if (!isDelivery(values.delivery)) issues.delivery = 'error_delivery';
  const hasAddress = values.line1 || values.postal_code || values.city;
  const input: CustomerInput = {
    business: values.business,
    kennitala: values.kennitala || null,
    // The rest of the address (line 2, country) is kept as it is; Iceland when there was none.
    address: hasAddress
      ? {
          line1: values.line1 || null,
          line2: current.address?.line2 ?? null,
          postal_code: values.postal_code || null,
          city: values.city || null,
          country: current.address?.country ?? 'IS',
        }
      : null,
    gln: values.gln || null,
    peppol_id: values.peppol_id || null,
    ...(isDelivery(values.delivery) && { invoice_settings: { delivery_method: values.delivery } }),
  };
  return { values, issues, input };
}

/** An input with its label, hint and issue tied to it (aria-describedby, aria-invalid). */
function input(
  l: Locale,
  name: Exclude<Param, 'delivery'>,
  value: string,
  issues: Issues,
  opts: { hint?: string; inputmode?: string; autocomplete?: string; maxlength: number },
): SafeHtml {
  const issue = issues[name];
  const described = [opts.hint ? `f-${name}-hint` : '', issue ? `f-${name}-error` : '']
    .filter(Boolean)
    .join(' ');
  return html`<label for="f-${name}">${t(l, name)}</label>
    ${opts.hint ? html`<small class="hint" id="f-${name}-hint">${opts.hint}</small>` : ''}
    <input
      id="f-${name}"
      name="${name}"
      value="${value}"
      maxlength="${opts.maxlength}"
      ${opts.inputmode ? html`inputmode="${opts.inputmode}"` : ''}
      ${opts.autocomplete ? html`autocomplete="${opts.autocomplete}"` : ''}
      ${described ? html`aria-describedby="${described}"` : ''}
      ${issue ? html`aria-invalid="true"` : ''}
    />
    ${issue ? html`<p class="field-error" id="f-${name}-error" data-error="${name}">${t(l, issue)}</p>` : ''}`;
}

/**
 * `/dashboard/customers/{id}/edit`: a customer's buyer data for e-invoices (decision 0236) —
 * business mark, kennitala, address, GLN, Peppol id and delivery choice (decisions 0210, 0217) —
 * saved through the customer service the API's update uses, so its rules (a delivery method needs
 * its field) hold here too. Changing how a customer is invoiced is billing (decision 0236).
 */
export function customerEditPages(ctx: WebContext): Router {
  const router = Router();
  const { data } = ctx.services;

  function formPage(
    req: Request,
    res: Response,
    c: Customer,
    values: Values,
    opts: { issues?: Issues; ok?: string; status?: number },
  ) {
    const view = merchantView(req, res);
    const l = view.locale;
    const issues = opts.issues ?? {};
    const deliveryIssue = issues.delivery;
    const body = html`<p>${t(l, 'intro')}</p>
      <form method="post" action="/dashboard/customers/${c.id}/edit" data-testid="customer-edit">
        ${view.csrf}
        <p>
          <input type="checkbox" id="f-business" name="business" ${values.business ? 'checked' : ''} />
          <label for="f-business" class="inline">${t(l, 'business')}</label>
        </p>
        ${input(l, 'kennitala', values.kennitala, issues, { inputmode: 'numeric', maxlength: 11 })}
        ${input(l, 'line1', values.line1, issues, { autocomplete: 'street-address', maxlength: 200 })}
        ${input(l, 'postal_code', values.postal_code, issues, {
          inputmode: 'numeric',
          autocomplete: 'postal-code',
          maxlength: 20,
        })}
        ${input(l, 'city', values.city, issues, { autocomplete: 'address-level2', maxlength: 100 })}
        ${input(l, 'gln', values.gln, issues, { hint: t(l, 'glnHint'), inputmode: 'numeric', maxlength: 13 })}
        ${input(l, 'peppol_id', values.peppol_id, issues, { hint: t(l, 'peppolHint'), maxlength: 30 })}
        <fieldset ${deliveryIssue ? html`aria-describedby="f-delivery-error"` : ''}>
          <legend>${t(l, 'delivery')}</legend>
          ${DELIVERY.map(
            (d) =>
              html`<p>
                <input
                  type="radio"
                  id="f-delivery-${d}"
                  name="delivery"
                  value="${d}"
                  ${values.delivery === d ? 'checked' : ''}
                />
                <label for="f-delivery-${d}" class="inline">${t(l, `delivery_${d}`)}</label>
              </p>`,
          )}
          ${
            deliveryIssue
              ? html`<p class="field-error" id="f-delivery-error" data-error="delivery">
                  ${t(l, deliveryIssue)}
                </p>`
              : ''
          }
        </fieldset>
        <p>
          <button type="submit">${t(l, 'save')}</button>
          <a href="/dashboard/customers/${c.id}">${t(l, 'cancel')}</a>
        </p>
      </form>`;
    const hasIssues = Object.keys(issues).length > 0;
    sendMerchantPage(res, view, body, {
      title: t(l, 'title', { name: c.name ?? c.id }),
      status: opts.status ?? 200,
      ok: opts.ok,
      error: hasIssues ? t(l, 'fix') : undefined,
    });
  }

  const load = (req: Request, res: Response) => {
    const view = merchantView(req, res);
    return loadOrSendFailure(res, view, t(view.locale, 'title', { name: '' }), () =>
      data.customers.retrieve(view.scope, String(req.params.id)),
    );
  };

  router.get('/dashboard/customers/:id/edit', requireAction('write_billing'), async (req, res) => {
    const c = await load(req, res);
    if (c) formPage(req, res, c, valuesOf(c), {});
  });

  router.post('/dashboard/customers/:id/edit', requireAction('write_billing'), async (req, res) => {
    const view = merchantView(req, res);
    const c = await load(req, res);
    if (!c) return;
    const { values, issues, input: update } = readForm(req, c);
    if (Object.keys(issues).length > 0) return formPage(req, res, c, values, { issues, status: 400 });
    try {
      const saved = await data.customers.update(view.scope, c.id, update);
      formPage(req, res, saved, valuesOf(saved), { ok: t(view.locale, 'saved') });
    } catch (err) {
      // The service's delivery rule (decision 0217) names its parameter: shown beside the choice.
      if (err instanceof ApiError && err.param === 'invoice_settings[delivery_method]')
        return formPage(req, res, c, values, {
          issues: {
            delivery: values.delivery === 'email' ? 'error_delivery_email' : 'error_delivery_peppol',
          },
          status: err.status,
        });
      throw err;
    }
  });

  return router;
}
