import type { Knex } from '../../db/knex';
import type { Scope } from '../../domain/scope';
import { createMerchantRepository } from '../../db/merchants';
import type { CarrierConnections } from '../../adapters/carriers/carriers';
import type { CarrierApi } from '../../adapters/carriers/carrier-api';
import {
  CARRIERS,
  isCarrier,
  searchPickupPoints,
  type Carrier,
  type PickupPoint,
  type PickupPointQuery,
} from '../../domain/delivery';
import { InvalidRequestError, NotFoundError, ServiceUnavailableError } from '../../domain/errors';
import { deliveryCarriersOf } from '../merchant/onboarding';
import { presentCarrier, presentPickupPoint } from './delivery-object';

/** How long a carrier's list of pickup points is reused: they change monthly, not hourly. */
const POINTS_TTL_MS = 10 * 60 * 1000;

/** The carriers a merchant switches on per environment, and the search over their pickup points. */
export function createCarrierService(deps: { knex: Knex; carriers: CarrierConnections }) {
  const merchants = createMerchantRepository(deps.knex);
  const cache = new Map<CarrierApi, { at: number; points: PickupPoint[] }>();

  const directory = (livemode: boolean) => deps.carriers[livemode ? 'live' : 'test'];

  async function activeCarriers(scope: Scope): Promise<Carrier[]> {
    const row = await merchants.findById(scope.merchantId);
    const list = deliveryCarriersOf(row?.delivery_carriers)[scope.livemode ? 'live' : 'test'];
    return list.filter(isCarrier);
  }

  /** The carrier's adapter for the scope's environment. */
  function api(scope: Scope, carrier: Carrier): CarrierApi {
    const found = directory(scope.livemode)[carrier];
    if (!found)
      throw new ServiceUnavailableError(
        `${carrier} is not available in this environment`,
        'carrier_unavailable',
      );
    return found;
  }

  async function pointsOf(scope: Scope, carrier: Carrier): Promise<PickupPoint[]> {
    const client = api(scope, carrier);
    const hit = cache.get(client);
    if (hit && Date.now() - hit.at < POINTS_TTL_MS) return hit.points;
    let points: PickupPoint[];
    try {
      points = await client.pickupPoints();
    } catch {
      throw new ServiceUnavailableError(
        `${carrier} did not answer; try again shortly`,
        'carrier_unavailable',
      );
    }
    cache.set(client, { at: Date.now(), points });
    return points;
  }

  async function requireActive(scope: Scope, carriers: readonly string[], param: string): Promise<Carrier[]> {
    const active = await activeCarriers(scope);
    for (const c of carriers)
      if (!isCarrier(c) || !active.includes(c))
        throw new InvalidRequestError(`The carrier ${c} is not active in this environment`, {
          code: 'carrier_not_active',
          param,
        });
    return carriers as Carrier[];
  }

  return {
    activeCarriers,
    api,
    requireActive,

    async list(scope: Scope) {
      const active = await activeCarriers(scope);
      return CARRIERS.map((c) =>
        presentCarrier(c, scope.livemode, active.includes(c), directory(scope.livemode)[c] !== undefined),
      );
    },

    /** Switches a carrier on or off for the key's environment; `delivery.<carrier>` follows. */
    async setActive(scope: Scope, carrier: string, active: boolean) {
      if (!isCarrier(carrier)) throw new NotFoundError(`No such carrier: '${carrier.slice(0, 64)}'`, 'id');
      if (active && !directory(scope.livemode)[carrier])
        throw new InvalidRequestError(
          `${carrier} cannot be switched on in ${scope.livemode ? 'live' : 'test'} mode: no carrier contract is configured`,
          { code: 'carrier_unavailable', param: 'active' },
        );
      await deps.knex.transaction(async (trx) => {
        const row = await merchants.findForUpdate(scope.merchantId, trx);
        const now = deliveryCarriersOf(row?.delivery_carriers);
        const env = scope.livemode ? 'live' : 'test';
        const rest = now[env].filter((c) => c !== carrier);
        now[env] = active ? [...rest, carrier].sort() : rest;
        await merchants.update(scope.merchantId, { delivery_carriers: now }, trx);
      });
      return presentCarrier(
        carrier,
        scope.livemode,
        active,
        directory(scope.livemode)[carrier] !== undefined,
      );
    },

    /** Pickup points of the active carriers (or of the one named), found and ordered (decision 0136). */
    async search(scope: Scope, query: PickupPointQuery & { carrier?: string | undefined }) {
      const carriers = query.carrier
        ? await requireActive(scope, [query.carrier], 'carrier')
        : await activeCarriers(scope);
      const all = (await Promise.all(carriers.map((c) => pointsOf(scope, c)))).flat();
      return searchPickupPoints(all, query).map((p) => ({
        ...presentPickupPoint(p),
        distance_m: p.distance_m,
      }));
    },

    /** A pickup point by id among the given carriers, or a 400 naming `param`. */
    async point(scope: Scope, id: string, carriers: readonly Carrier[], param: string): Promise<PickupPoint> {
      const carrier = id.split(':')[0];
      const found =
        isCarrier(carrier) && carriers.includes(carrier)
          ? (await pointsOf(scope, carrier)).find((p) => p.id === id)
          : undefined;
      if (!found)
        throw new InvalidRequestError(`No such pickup point: '${id.slice(0, 80)}'`, {
          code: 'resource_missing',
          param,
        });
      return found;
    },
  };
}

export type CarrierService = ReturnType<typeof createCarrierService>;
