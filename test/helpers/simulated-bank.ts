import { execFileSync } from 'node:child_process';
import { mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { createLogger } from '../../stack/logger';
import {
  SIMULATED_BANK_CLIENT,
  startSimulatedBank,
  type ObservedExchange,
  type SimulatedBank,
  type SimulatedBankOptions,
} from '../../bank-adapters/simulated-bank/claims-bank';
import { IobwsClaimsClient, type IobwsClaimsClientConfig } from '../../bank-adapters/iobws-claims-client';
import { loadIobwsValidator, type OpenApiValidator } from './iobws-openapi';

let validator: OpenApiValidator | null = null;

export interface ValidatedBank {
  bank: SimulatedBank;
  exchanges: ObservedExchange[];
  /** Every problem the OpenAPI document finds in the traffic so far (requests and responses). */
  problems(opts?: { requests?: boolean }): string[];
  /** The real client pointed at this bank with the default test credentials. */
  client(extra?: Partial<IobwsClaimsClientConfig>): IobwsClaimsClient;
}

/** The simulated bank with every /v1 exchange recorded for validation against IOBWS-Claims3.1.yaml. */
export async function startValidatedBank(opts: Partial<SimulatedBankOptions> = {}): Promise<ValidatedBank> {
  validator ??= loadIobwsValidator();
  const v = validator;
  const exchanges: ObservedExchange[] = [];
  const bank = await startSimulatedBank({
    log: createLogger('simulated-bank-test', process.env.TEST_LOG_LEVEL ?? 'silent'),
    ...opts,
    observe: (x) => exchanges.push(x),
  });
  return {
    bank,
    exchanges,
    problems({ requests = true } = {}) {
      return exchanges.flatMap((x) =>
        [...(requests ? v.request(x) : []), ...v.response(x)].map(
          (p) => `${x.method} ${x.path} ${x.status}: ${p}`,
        ),
      );
    },
    client(extra = {}) {
      return new IobwsClaimsClient({
        baseUrl: bank.url,
        clientId: SIMULATED_BANK_CLIENT.clientId,
        clientSecret: SIMULATED_BANK_CLIENT.clientSecret,
        baseDelayMs: 10,
        ...extra,
      });
    },
  };
}

export interface TestPki {
  dir: string;
  caCert: string;
  serverCert: string;
  serverKey: string;
  clientCert: string;
  clientKey: string;
}

/** A throwaway CA, a server certificate for 127.0.0.1 and a client certificate (CN = clientCn), via openssl. */
export function createTestPki(clientCn: string): TestPki {
  const dir = mkdtempSync(path.join(tmpdir(), 'skil-pki-'));
  const f = (name: string) => path.join(dir, name);
  const ssl = (...args: string[]) => execFileSync('openssl', args, { stdio: 'pipe' });
  const ec = ['-newkey', 'ec', '-pkeyopt', 'ec_paramgen_curve:prime256v1', '-nodes'];
  ssl(
    'req',
    '-x509',
    ...ec,
    '-keyout',
    f('ca.key'),
    '-out',
    f('ca.crt'),
    '-days',
    '1',
    '-subj',
    '/CN=Skil test CA',
  );
  writeFileSync(f('server.ext'), 'subjectAltName=IP:127.0.0.1\nextendedKeyUsage=serverAuth\n');
  writeFileSync(f('client.ext'), 'extendedKeyUsage=clientAuth\n');
  for (const [name, cn] of [
    ['server', '127.0.0.1'],
    ['client', clientCn],
  ] as const) {
    ssl('req', ...ec, '-keyout', f(`${name}.key`), '-out', f(`${name}.csr`), '-subj', `/CN=${cn}`);
    ssl(
      'x509',
      '-req',
      '-in',
      f(`${name}.csr`),
      '-CA',
      f('ca.crt'),
      '-CAkey',
      f('ca.key'),
      '-CAcreateserial',
      '-out',
      f(`${name}.crt`),
      '-days',
      '1',
      '-extfile',
      f(`${name}.ext`),
    );
  }
  return {
    dir,
    caCert: f('ca.crt'),
    serverCert: f('server.crt'),
    serverKey: f('server.key'),
    clientCert: f('client.crt'),
    clientKey: f('client.key'),
  };
}
