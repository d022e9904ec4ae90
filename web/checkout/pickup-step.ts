import { html, type SafeHtml } from '../../html/html';
import type { Locale } from '../../domain/locale';
import { distanceMeters, type PickupPoint } from '../../domain/delivery';
import type { Strings } from './strings';

export type OfferedPoint = Omit<PickupPoint, 'kind'> & { kind: string; distance_m: number | null };

/** Web Mercator x and y of a point, each 0–1 across the world. */
function mercator(p: { latitude: number; longitude: number }) {
  const lat = (Math.max(-85, Math.min(85, p.latitude)) * Math.PI) / 180;
  return { x: (p.longitude + 180) / 360, y: (1 - Math.log(Math.tan(lat) + 1 / Math.cos(lat)) / Math.PI) / 2 };
}

/**
 * The points the coordinate view frames: those within this distance of the first listed (nearest
 * the buyer, or the first found), as a map zoomed there would; the list still holds them all.
 */
const FRAME_METERS = 30_000;

export function framed(points: readonly OfferedPoint[]): OfferedPoint[] {
  const first = points[0];
  return first ? points.filter((p) => distanceMeters(first, p) <= FRAME_METERS) : [];
}

/** The view is 100 × 60 units; points keep their true shape (one scale for x and y). */
const VIEW = { w: 100, h: 60, pad: 8 };

/**
 * Where each point sits on the coordinate view, as CSS (the page's CSP admits only its own nonce'd
 * stylesheet, so positions are classes, not style attributes).
 */
function layout(points: readonly OfferedPoint[]): string {
  if (points.length === 0) return '';
  const xy = points.map(mercator);
  const xs = xy.map((p) => p.x);
  const ys = xy.map((p) => p.y);
  const [minX, maxX, minY, maxY] = [Math.min(...xs), Math.max(...xs), Math.min(...ys), Math.max(...ys)];
  const spanX = Math.max(maxX - minX, 1e-6);
  const spanY = Math.max(maxY - minY, 1e-6);
  const scale = Math.min((VIEW.w - 2 * VIEW.pad) / spanX, (VIEW.h - 2 * VIEW.pad) / spanY);
  const midX = (minX + maxX) / 2;
  const midY = (minY + maxY) / 2;
  return xy
    .map((p, i) => {
      const left = VIEW.w / 2 + (p.x - midX) * scale;
      const top = ((VIEW.h / 2 + (p.y - midY) * scale) / VIEW.h) * 100;
      return `.pp-${i}{left:${left.toFixed(3)}%;top:${top.toFixed(3)}%}`;
    })
    .join('');
}

export const PICKUP_CSS = `
.pickup-map { position: relative; width: 100%; padding-top: 60%; background: #e8f1f8; border: 1px solid #9bb; border-radius: 6px; overflow: hidden; margin: .5rem 0; }
.pickup-map .pt { position: absolute; width: 1.6rem; height: 1.6rem; margin: -.8rem 0 0 -.8rem; border-radius: 50%; border: 2px solid #fff; background: var(--skil-primary, #2a5db0); color: #fff; font: 700 .7rem/1 sans-serif; padding: 0; cursor: pointer; }
.pickup-map .pt[aria-pressed="true"] { background: #a4161a; width: 2rem; height: 2rem; margin: -1rem 0 0 -1rem; z-index: 2; }
.pickup-list { list-style: none; padding: 0; margin: .4rem 0; }
.pickup-list li { display: flex; justify-content: space-between; gap: .5rem; align-items: center; border-bottom: 1px solid #ddd; padding: .4rem 0; }
.pickup-list .secondary { margin-top: 0; }
.pickup-chosen { background: #e3f4e8; border: 1px solid #2d6a4f; padding: .6rem; border-radius: 6px; }
`;

const km = (m: number, locale: Locale) =>
  m < 1000 ? `${m} m` : `${(m / 1000).toFixed(1).replace('.', locale === 'is' ? ',' : '.')} km`;

/**
 * The pickup-point step of the hosted checkout (decision 0134): the carriers' points on a plain
 * coordinate view (no map tiles) and as a list, nearest first once the buyer's place is known;
 * choosing one posts `action=pickup:<id>`, so it works without script.
 */
export function pickupStep(
  points: readonly OfferedPoint[],
  chosen: PickupPoint | null,
  t: Strings,
  locale: Locale,
  v: Record<string, string>,
  error: boolean,
): { html: SafeHtml; css: string } {
  const pressed = (p: OfferedPoint) => (chosen?.id === p.id ? 'true' : 'false');
  const onMap = framed(points);
  const number = new Map(points.map((p, i) => [p.id, i + 1]));
  const body = html`<h2 id="pickup-title">${t.pickupTitle}</h2>
    ${error ? html`<div class="error" role="alert" data-testid="pickup-error">${t.pickupRequired}</div>` : ''}
    ${
      chosen
        ? html`<p class="pickup-chosen" data-testid="pickup-chosen">
            ${t.chosen}: <strong>${chosen.name}</strong>, ${chosen.address.line1},
            ${chosen.address.postal_code} ${chosen.address.city}
          </p>`
        : ''
    }
    <div class="promo">
      <div>
        <label for="pickup-q">${t.pickupSearch}</label>
        <input id="pickup-q" name="pickup_q" value="${v.pickup_q ?? ''}" autocomplete="postal-code" />
      </div>
      <button type="submit" class="secondary" name="action" value="pickup_search">${t.search}</button>
    </div>
    <input type="hidden" id="pickup-lat" name="pickup_lat" value="${v.pickup_lat ?? ''}" />
    <input type="hidden" id="pickup-lng" name="pickup_lng" value="${v.pickup_lng ?? ''}" />
    <button type="button" class="secondary" id="pickup-near">${t.nearMe}</button>
    <div class="pickup-map" role="group" aria-label="${t.pickupMap}" data-testid="pickup-map">
      ${onMap.map(
        (p, i) =>
          html`<button
            type="submit"
            class="pt pp-${String(i)}"
            name="action"
            value="pickup:${p.id}"
            aria-pressed="${pressed(p)}"
            aria-label="${p.name}"
            title="${p.name}"
            data-testid="map-point-${p.id}"
          >
            ${String(number.get(p.id))}
          </button>`,
      )}
    </div>
    ${
      points.length === 0
        ? html`<p>${t.noPoints}</p>`
        : html`<ol class="pickup-list" data-testid="pickup-list">
            ${points.map(
              (p, i) =>
                html`<li data-testid="pickup-item" data-point="${p.id}">
                  <span
                    >${String(i + 1)}. <strong>${p.name}</strong><br />${p.address.line1},
                    ${p.address.postal_code}
                    ${p.address.city}${p.distance_m !== null ? html` · ${km(p.distance_m, locale)}` : ''}<br /><span
                      class="vat"
                      >${p.opening_hours.join(' · ')}</span
                    ></span
                  >
                  <button
                    type="submit"
                    class="secondary"
                    name="action"
                    value="pickup:${p.id}"
                    aria-pressed="${pressed(p)}"
                    aria-label="${t.choose}: ${p.name}"
                  >
                    ${t.choose}
                  </button>
                </li>`,
            )}
          </ol>`
    }`;
  return { html: body, css: layout(onMap) };
}

/** The buyer's place as the page's script set it, when both halves read as coordinates. */
export function nearOf(v: Record<string, string>): { latitude: number; longitude: number } | undefined {
  const lat = Number(v.pickup_lat);
  const lng = Number(v.pickup_lng);
  if (!v.pickup_lat || !v.pickup_lng || !Number.isFinite(lat) || !Number.isFinite(lng)) return undefined;
  if (Math.abs(lat) > 90 || Math.abs(lng) > 180) return undefined;
  return { latitude: lat, longitude: lng };
}
