import { IobwsClaimsClient } from '../bank-adapters/iobws-claims-client';
import { SIMULATED_BANK_CLIENT } from '../simulators/bank/claims-bank';

/** The claims bank of the configuration: the simulated bank's API when SIMULATED_BANK_URL is set, else none. */
export function claimsApiFromConfig(config: {
  SIMULATED_BANK_URL?: string | undefined;
}): IobwsClaimsClient | undefined {
  if (!config.SIMULATED_BANK_URL) return undefined;
  return new IobwsClaimsClient({
    baseUrl: config.SIMULATED_BANK_URL,
    clientId: SIMULATED_BANK_CLIENT.clientId,
    clientSecret: SIMULATED_BANK_CLIENT.clientSecret,
  });
}
