import type { AccessPoints } from '../adapters/access-point/access-point';
import { httpAccessPoint } from '../adapters/access-point/http-access-point';
import { SIMULATED_ACCESS_POINT_TOKEN } from '../simulators/access-point/service';
import type { Config } from './config';

/**
 * The Peppol access point of each environment (decision 0215): test mode sends to the simulated
 * access point at SIMULATED_ACCESS_POINT_URL. No live access point adapter exists yet, so live
 * Peppol deliveries fail saying so, never reach the simulator.
 */
export function accessPointsFromConfig(config: Pick<Config, 'SIMULATED_ACCESS_POINT_URL'>): AccessPoints {
  return config.SIMULATED_ACCESS_POINT_URL
    ? {
        test: httpAccessPoint({
          baseUrl: config.SIMULATED_ACCESS_POINT_URL,
          token: SIMULATED_ACCESS_POINT_TOKEN,
        }),
      }
    : {};
}
