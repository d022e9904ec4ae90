import { Client, Connection } from '@temporalio/client';
import type { TemporalConnectionOptions } from '../stack/temporal-connection';
import { requestIdClientInterceptor } from './request-id-interceptor';

/**
 * Connects a Temporal client (TLS and API key as configured; stack/temporal-connection.ts) that
 * sends the current request's id on (decision 0178); the connection is lazy-retrying, so this waits
 * for the server.
 */
export async function connectTemporal(
  options: TemporalConnectionOptions,
  namespace: string,
): Promise<{ client: Client; connection: Connection }> {
  const connection = await Connection.connect(options);
  return {
    client: new Client({ connection, namespace, interceptors: { workflow: [requestIdClientInterceptor()] } }),
    connection,
  };
}
