import { createServer } from 'node:net';

/**
 * Returns a TCP port that was free a moment ago on `host`.
 *
 * The OS picks it (listen on port 0), so it is racy by nature: another process may grab it before the caller binds.
 * Good enough for dev servers and tests, which bind within milliseconds.
 */
export async function freePort(host = '127.0.0.1'): Promise<number> {
  return new Promise<number>((resolve, reject) => {
    const server = createServer();
    server.unref();
    server.once('error', reject);
    server.listen(0, host, () => {
      const address = server.address();
      if (address === null || typeof address === 'string') {
        server.close();
        reject(new Error(`could not read the port of a socket listening on ${host}`));
        return;
      }
      server.close((err) => (err ? reject(err) : resolve(address.port)));
    });
  });
}
