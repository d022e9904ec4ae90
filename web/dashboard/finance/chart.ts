import { tableFrame } from '../../layout';
import { formatIsk } from '../../../domain/isk';
import type { Locale } from '../../../domain/locale';
import { html, type SafeHtml } from '../../../html/html';
import type { DailyTotal } from '../../../services/finance/runs';
import type { FinanceStrings } from './strings';

/**
 * Daily gross, fees and net as an inline SVG bar chart, drawn on the server: the CSP admits no
 * script, and a chart library would be a dependency for ninety groups of three rectangles. Colours
 * are presentation attributes (inline style attributes would be blocked by the CSP). The same
 * figures follow as a table, for screen readers and for anyone who wants the numbers.
 */

export const CHART_DAYS = 90;

const SERIES = [
  { key: 'gross', colour: '#1f4fd1' },
  { key: 'fee', colour: '#a4161a' },
  { key: 'net', colour: '#2d6a4f' },
] as const;

const WIDTH = 900;
const HEIGHT = 260;
const LEFT = 110;
const RIGHT = 10;
const TOP = 30;
const BOTTOM = 30;

/** The `CHART_DAYS` calendar dates ending with `to` (yyyy-mm-dd), oldest first. */
export function chartDates(to: string): string[] {
  const end = Date.parse(`${to}T00:00:00Z`);
  return Array.from({ length: CHART_DAYS }, (_, i) =>
    new Date(end - (CHART_DAYS - 1 - i) * 86_400_000).toISOString().slice(0, 10),
  );
}

/** Every chart date with its totals, zero where no run settled. */
export function fillDays(dates: string[], totals: DailyTotal[]): DailyTotal[] {
  const byDate = new Map(totals.map((t) => [t.date, t]));
  return dates.map((date) => byDate.get(date) ?? { date, gross: 0, fee: 0, net: 0, runs: 0 });
}

/** `subject` (a merchant's name, when the page is filtered) follows the chart's title. */
export function dailyChart(days: DailyTotal[], lang: Locale, t: FinanceStrings, subject?: string): SafeHtml {
  const title = subject ? `${t.chartTitle}: ${subject}` : t.chartTitle;
  const sum = (k: 'gross' | 'fee' | 'net') => days.reduce((acc, d) => acc + BigInt(d[k]), 0n);
  const first = days[0]?.date ?? '';
  const last = days[days.length - 1]?.date ?? '';
  const top = Math.max(1, ...days.map((d) => Math.max(d.gross, d.fee, d.net)));
  const bottom = Math.min(0, ...days.map((d) => Math.min(d.gross, d.fee, d.net)));
  const plotW = WIDTH - LEFT - RIGHT;
  const plotH = HEIGHT - TOP - BOTTOM;
  // Pixel positions only; the amounts shown as text are never derived from them.
  const y = (v: number) => TOP + ((top - v) / (top - bottom)) * plotH;
  const slot = plotW / Math.max(1, days.length);
  const bar = (slot * 0.8) / SERIES.length;
  const zero = y(0);
  const groups = days.map((d, i) => {
    const x0 = LEFT + i * slot + slot * 0.1;
    const label = `${d.date}: ${t.gross} ${formatIsk(d.gross, lang)}, ${t.fees} ${formatIsk(d.fee, lang)}, ${t.net} ${formatIsk(d.net, lang)}`;
    return html`<g class="day" data-date="${d.date}">
      <title>${label}</title>
      ${SERIES.map((s, j) => {
        const v = d[s.key];
        const yy = Math.min(y(v), zero);
        const h = Math.abs(zero - y(v));
        return html`<rect
          x="${(x0 + j * bar).toFixed(2)}"
          y="${yy.toFixed(2)}"
          width="${bar.toFixed(2)}"
          height="${h.toFixed(2)}"
          fill="${s.colour}"
        />`;
      })}
    </g>`;
  });
  const legendNames = { gross: t.gross, fee: t.fees, net: t.net };
  const legend = SERIES.map(
    (s, j) =>
      html`<rect x="${LEFT + j * 120}" y="6" width="12" height="12" fill="${s.colour}" /><text
          x="${LEFT + j * 120 + 18}"
          y="17"
          font-size="12"
        >
          ${legendNames[s.key]}
        </text>`,
  );
  const svg = html`<svg
    class="chart"
    role="img"
    aria-labelledby="chart-title chart-desc"
    viewBox="0 0 ${WIDTH} ${HEIGHT}"
    width="100%"
    data-days="${days.length}"
    xmlns="http://www.w3.org/2000/svg"
  >
    <title id="chart-title">${title}</title>
    <desc id="chart-desc">
      ${t.chartDesc(first, last, formatIsk(sum('gross'), lang), formatIsk(sum('fee'), lang), formatIsk(sum('net'), lang))}
    </desc>
    ${legend}
    <line x1="${LEFT}" x2="${WIDTH - RIGHT}" y1="${zero.toFixed(2)}" y2="${zero.toFixed(2)}" stroke="#888" />
    <text x="${LEFT - 6}" y="${(y(top) + 4).toFixed(2)}" font-size="11" text-anchor="end">
      ${formatIsk(top, lang)}
    </text>
    <text x="${LEFT - 6}" y="${(zero + 4).toFixed(2)}" font-size="11" text-anchor="end">
      ${formatIsk(0, lang)}
    </text>
    <text x="${LEFT}" y="${HEIGHT - 8}" font-size="11">${first}</text>
    <text x="${WIDTH - RIGHT}" y="${HEIGHT - 8}" font-size="11" text-anchor="end">${last}</text>
    ${groups}
  </svg>`;
  const table = html`<details>
    <summary>${t.dataTable}</summary>
    ${tableFrame(
      title,
      html`<table class="chart-data">
        <caption>
          ${title}
        </caption>
        <thead>
          <tr>
            <th scope="col">${t.date}</th>
            <th scope="col" class="num">${t.gross}</th>
            <th scope="col" class="num">${t.fees}</th>
            <th scope="col" class="num">${t.net}</th>
            <th scope="col" class="num">${t.count}</th>
          </tr>
        </thead>
        <tbody>
          ${days.map(
            (d) =>
              html`<tr>
                <th scope="row">${d.date}</th>
                <td class="num">${formatIsk(d.gross, lang)}</td>
                <td class="num">${formatIsk(d.fee, lang)}</td>
                <td class="num">${formatIsk(d.net, lang)}</td>
                <td class="num">${d.runs}</td>
              </tr>`,
          )}
        </tbody>
      </table>`,
    )}
  </details>`;
  return html`<figure>${svg}${table}</figure>`;
}
