import type { Carrier } from '../../domain/delivery';
import type { CarrierApi } from './carrier-api';
import { droppClient } from './dropp';
import { posturinnClient } from './posturinn';

/** The carriers of one environment, by name; a carrier absent here cannot be switched on there. */
export type CarrierDirectory = Partial<Record<Carrier, CarrierApi>>;

export interface CarrierConnections {
  test: CarrierDirectory;
  live: CarrierDirectory;
  /** The simulated carriers' courier side (test mode: moves a parcel on); null without them. */
  simulatorUrl: string | null;
}

/**
 * The simulated carriers for test mode (decision 0137). Live carriers need the operator's contract
 * credentials, which no configuration names yet, so live has none.
 */
export function simulatedCarrierConnections(sim: { url: string }): CarrierConnections {
  return {
    test: {
      dropp: droppClient(`${sim.url}/dropp/api/v1`, Buffer.from('simulated:test').toString('base64')),
      posturinn: posturinnClient(`${sim.url}/wscm/v1`, 'simulated-test-key'),
    },
    live: {},
    simulatorUrl: sim.url,
  };
}
