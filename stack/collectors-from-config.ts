import type { Config } from './config';
import { createHttpCollector, type Collector } from '../adapters/collectors/collector';
import { SIMULATED_COLLECTOR_TOKEN } from '../simulators/collector/service';

/**
 * Each environment's collector (decision 0248): test mode's at SIMULATED_COLLECTOR_URL (npm start
 * runs the simulated one), live mode's at COLLECTOR_LIVE_URL with its token. Unset: that
 * environment's hand-offs wait for one.
 */
export function collectorsFromConfig(
  config: Pick<Config, 'SIMULATED_COLLECTOR_URL' | 'COLLECTOR_LIVE_URL' | 'COLLECTOR_LIVE_TOKEN'>,
): { collector?: Collector; liveCollector?: Collector } {
  return {
    ...(config.SIMULATED_COLLECTOR_URL !== undefined && {
      collector: createHttpCollector({
        baseUrl: config.SIMULATED_COLLECTOR_URL,
        token: SIMULATED_COLLECTOR_TOKEN,
      }),
    }),
    ...(config.COLLECTOR_LIVE_URL !== undefined &&
      config.COLLECTOR_LIVE_TOKEN !== undefined && {
        liveCollector: createHttpCollector({
          baseUrl: config.COLLECTOR_LIVE_URL,
          token: config.COLLECTOR_LIVE_TOKEN,
        }),
      }),
  };
}
