import { Client, Connection } from '@temporalio/client';

/** Connects a Temporal client; the connection is lazy-retrying, so this waits for the server. */
export async function connectTemporal(
  address: string,
  namespace: string,
): Promise<{ client: Client; connection: Connection }> {
  const connection = await Connection.connect({ address });
  return { client: new Client({ connection, namespace }), connection };
}
