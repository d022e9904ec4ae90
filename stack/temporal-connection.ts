import { readFileSync } from 'node:fs';
import type { Config } from './config';

/** TLS to the Temporal frontend, in the shape both Temporal SDK connections take. */
export interface TemporalTls {
  serverRootCACertificate?: Buffer;
  clientCertPair?: { crt: Buffer; key: Buffer };
  serverNameOverride?: string;
}

/** Everything the API's client and the worker's native connection need to reach Temporal. */
export interface TemporalConnectionOptions {
  address: string;
  /** Unset: plaintext (the dev server); `{}`: TLS with the system's CAs. */
  tls?: TemporalTls;
  /** Temporal Cloud API key; the SDK sends it as `Authorization: Bearer`. */
  apiKey?: string;
}

/**
 * The connection options of the configuration: TLS when asked for, or implied by a CA, a client
 * certificate or an API key (Temporal Cloud takes API keys over TLS only). Files are read once, at
 * start-up, so a missing certificate stops the process with its path instead of failing later.
 */
export function temporalConnectionOptions(
  config: Pick<
    Config,
    | 'TEMPORAL_TLS'
    | 'TEMPORAL_TLS_CA_PATH'
    | 'TEMPORAL_TLS_CERT_PATH'
    | 'TEMPORAL_TLS_KEY_PATH'
    | 'TEMPORAL_TLS_SERVER_NAME'
    | 'TEMPORAL_API_KEY'
  >,
  address: string,
): TemporalConnectionOptions {
  const read = (file: string, what: string): Buffer => {
    try {
      return readFileSync(file);
    } catch (err) {
      throw new Error(`cannot read ${what} at ${file}: ${(err as Error).message}`, { cause: err });
    }
  };
  const wantsTls =
    config.TEMPORAL_TLS === 'true' ||
    config.TEMPORAL_TLS_CA_PATH !== undefined ||
    config.TEMPORAL_TLS_CERT_PATH !== undefined ||
    config.TEMPORAL_TLS_SERVER_NAME !== undefined ||
    config.TEMPORAL_API_KEY !== undefined;
  if (!wantsTls) return { address };
  const tls: TemporalTls = {};
  if (config.TEMPORAL_TLS_CA_PATH)
    tls.serverRootCACertificate = read(config.TEMPORAL_TLS_CA_PATH, 'the Temporal server CA');
  if (config.TEMPORAL_TLS_CERT_PATH && config.TEMPORAL_TLS_KEY_PATH)
    tls.clientCertPair = {
      crt: read(config.TEMPORAL_TLS_CERT_PATH, 'the Temporal client certificate'),
      key: read(config.TEMPORAL_TLS_KEY_PATH, 'the Temporal client key'),
    };
  if (config.TEMPORAL_TLS_SERVER_NAME) tls.serverNameOverride = config.TEMPORAL_TLS_SERVER_NAME;
  return { address, tls, ...(config.TEMPORAL_API_KEY !== undefined && { apiKey: config.TEMPORAL_API_KEY }) };
}
