import { ID_PREFIX } from '../../../domain/ids';
import { html, type SafeHtml } from '../../../html/html';
import type { FinanceView } from './frame';
import type { FinanceRunService, MerchantOption } from '../../../services/finance/runs';

/**
 * The runs page's merchant filter: `?merchant=acct_…`, chosen from a select submitted by GET (no
 * script). A parameter that names no merchant shows a message and no figures, never all merchants'
 * figures under a filter the operator believes applied.
 */

const MERCHANT_ID = new RegExp(`^${ID_PREFIX.merchant}_[0-9A-Za-z]{1,64}$`);
// An operator picks from a list, not a search: beyond this many merchants the list is cut.
const MAX_OPTIONS = 1000;

export interface MerchantFilter {
  /** The merchant shown; unset for all merchants. */
  merchant?: MerchantOption;
  /** The parameter names no merchant: the page shows this instead of figures. */
  error?: { status: number; message: string };
  /** The select's options: the environment's merchants with runs, and the chosen one. */
  options: MerchantOption[];
}

/** Reads `merchant` from the query; malformed is 400, well-formed but unknown an empty 200. */
export async function readMerchantFilter(
  runs: FinanceRunService,
  view: FinanceView,
  raw: unknown,
): Promise<MerchantFilter> {
  const options = await runs.merchantsWithRuns(view.livemode, MAX_OPTIONS);
  if (raw === undefined || raw === '') return { options };
  // A repeated or nested parameter (`merchant=a&merchant=b`) is malformed too.
  if (typeof raw !== 'string' || !MERCHANT_ID.test(raw))
    return { options, error: { status: 400, message: view.t.merchantInvalid } };
  const merchant = options.find((m) => m.id === raw) ?? (await runs.findMerchant(raw));
  if (!merchant) return { options, error: { status: 200, message: view.t.merchantUnknown(raw) } };
  // A merchant with no runs in this environment (say, after switching it) stays chosen.
  return { merchant, options: options.some((m) => m.id === merchant.id) ? options : [merchant, ...options] };
}

export function merchantFilterForm(view: FinanceView, filter: MerchantFilter): SafeHtml {
  const { t } = view;
  const named = new Map<string, number>();
  for (const m of filter.options) named.set(m.name, (named.get(m.name) ?? 0) + 1);
  // Two merchants of the same name are told apart by id.
  const label = (m: MerchantOption) => ((named.get(m.name) ?? 0) > 1 ? `${m.name} (${m.id})` : m.name);
  const chosen = filter.error ? undefined : filter.merchant?.id;
  return html`<form method="get" action="/dashboard/finance" class="merchant-filter" role="search">
    <input type="hidden" name="env" value="${view.env}" />
    <label for="merchant-filter">${t.merchant}</label>
    <select id="merchant-filter" name="merchant">
      <option value="" ${chosen ? '' : html`selected`}>${t.allMerchants}</option>
      ${filter.options.map(
        (m) => html`<option value="${m.id}" ${m.id === chosen ? html`selected` : ''}>${label(m)}</option>`,
      )}
    </select>
    <button type="submit">${t.show}</button>
  </form>`;
}
