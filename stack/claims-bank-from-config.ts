import { readFileSync } from 'node:fs';
import { IobwsClaimsClient } from '../adapters/banks/iobws-claims-client';
import { SIMULATED_BANK_CLIENT } from '../simulators/bank/claims-bank';
import type { Config } from './config';

/** The claims bank of each environment; an environment without one leaves its claims pending. */
export interface ClaimsBanks {
  test?: IobwsClaimsClient | undefined;
  live?: IobwsClaimsClient | undefined;
}

type BankSettings = Pick<
  Config,
  | 'SIMULATED_BANK_URL'
  | 'BANK_CLAIMS_LIVE_URL'
  | 'BANK_CLAIMS_LIVE_TOKEN_URL'
  | 'BANK_CLAIMS_LIVE_CLIENT_ID'
  | 'BANK_CLAIMS_LIVE_CLIENT_SECRET'
  | 'BANK_CLAIMS_LIVE_CLIENT_SECRET_PATH'
  | 'BANK_CLAIMS_LIVE_SCOPE'
  | 'BANK_CLAIMS_LIVE_TLS_CERT_PATH'
  | 'BANK_CLAIMS_LIVE_TLS_KEY_PATH'
  | 'BANK_CLAIMS_LIVE_TLS_CA_PATH'
>;

/** A file the configuration names, read at start-up; a missing one stops the process naming its variable. */
function readConfigured(variable: string, file: string): string {
  try {
    return readFileSync(file, 'utf8');
  } catch (err) {
    throw new Error(`${variable}: cannot read ${file} (${(err as NodeJS.ErrnoException).code ?? 'error'})`, {
      cause: err,
    });
  }
}

/**
 * The claims banks of the configuration (decision 0177): test mode talks to the simulated bank at
 * SIMULATED_BANK_URL; live mode to the bank at BANK_CLAIMS_LIVE_URL with its OAuth2 client and,
 * when configured, the device certificate over mutual TLS. Files are read now, so a wrong path
 * stops the process at start-up instead of failing the first live krafa.
 */
export function claimsBanksFromConfig(config: Partial<BankSettings>): ClaimsBanks {
  const banks: ClaimsBanks = {};
  if (config.SIMULATED_BANK_URL)
    banks.test = new IobwsClaimsClient({
      baseUrl: config.SIMULATED_BANK_URL,
      clientId: SIMULATED_BANK_CLIENT.clientId,
      clientSecret: SIMULATED_BANK_CLIENT.clientSecret,
    });
  const url = config.BANK_CLAIMS_LIVE_URL;
  if (url === undefined) return banks;
  const secretPath = config.BANK_CLAIMS_LIVE_CLIENT_SECRET_PATH;
  const secret =
    secretPath !== undefined
      ? readConfigured('BANK_CLAIMS_LIVE_CLIENT_SECRET_PATH', secretPath).replace(/[\r\n]+$/, '')
      : config.BANK_CLAIMS_LIVE_CLIENT_SECRET;
  const certPath = config.BANK_CLAIMS_LIVE_TLS_CERT_PATH;
  const keyPath = config.BANK_CLAIMS_LIVE_TLS_KEY_PATH;
  const caPath = config.BANK_CLAIMS_LIVE_TLS_CA_PATH;
  if (certPath !== undefined) readConfigured('BANK_CLAIMS_LIVE_TLS_CERT_PATH', certPath);
  if (keyPath !== undefined) readConfigured('BANK_CLAIMS_LIVE_TLS_KEY_PATH', keyPath);
  if (caPath !== undefined) readConfigured('BANK_CLAIMS_LIVE_TLS_CA_PATH', caPath);
  banks.live = new IobwsClaimsClient({
    baseUrl: url,
    clientId: config.BANK_CLAIMS_LIVE_CLIENT_ID!,
    ...(secret !== undefined && { clientSecret: secret }),
    ...(config.BANK_CLAIMS_LIVE_TOKEN_URL !== undefined && { tokenUrl: config.BANK_CLAIMS_LIVE_TOKEN_URL }),
    ...(config.BANK_CLAIMS_LIVE_SCOPE !== undefined && { scope: config.BANK_CLAIMS_LIVE_SCOPE }),
    ...((certPath !== undefined || caPath !== undefined) && {
      tls: {
        ...(certPath !== undefined && { certPath }),
        ...(keyPath !== undefined && { keyPath }),
        ...(caPath !== undefined && { caPath }),
      },
    }),
  });
  return banks;
}
