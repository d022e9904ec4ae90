import http from 'node:http';
import type { AddressInfo } from 'node:net';
import type { z } from 'zod';
import { RskCompany, RskError } from '../../adapters/registry/rsk-company-registry';

/**
 * A local stand-in for Skatturinn's company registry REST interface (decision 0166), for tests:
 * `GET /{kennitala}` from a table, 404 in the registry's error shape when absent. It checks what
 * the adapter sends (a GET, `Accept: application/json`, the X-Road client header when one is
 * expected) and holds its own answers to the schema; anything off is recorded in `violations`.
 */
export interface RskRegistryPeer {
  url: string;
  violations: string[];
  requests: { path: string; xroadClient: string | null }[];
  /** Answer every request with this status from now on (a failing registry); null: normal. */
  failWith(status: number | null): void;
  stop(): Promise<void>;
}

export async function startRskRegistryPeer(opts: {
  companies: z.input<typeof RskCompany>[];
  xroadClient?: string;
}): Promise<RskRegistryPeer> {
  const violations: string[] = [];
  const requests: RskRegistryPeer['requests'] = [];
  let failing: number | null = null;
  const byId = new Map(opts.companies.map((c) => [c.kennitala, c]));

  const send = (res: http.ServerResponse, status: number, body: unknown, schema: z.ZodTypeAny) => {
    const checked = schema.safeParse(body);
    if (!checked.success) violations.push(`answer ${status}: ${checked.error.message}`);
    const text = JSON.stringify(body);
    res
      .writeHead(status, { 'content-type': 'application/json', 'content-length': Buffer.byteLength(text) })
      .end(text);
  };
  const notFound = (instance: string) => ({ code: 404, message: 'Not found', type: 'NotFound', instance });

  const server = http.createServer((req, res) => {
    const path = new URL(req.url ?? '/', 'http://peer').pathname;
    const client = typeof req.headers['x-road-client'] === 'string' ? req.headers['x-road-client'] : null;
    requests.push({ path, xroadClient: client });
    if (req.method !== 'GET') violations.push(`${req.method} ${path}: the interface is read with GET`);
    if (!/application\/json/.test(req.headers.accept ?? ''))
      violations.push(`${path}: Accept is not application/json`);
    if (opts.xroadClient !== undefined && client !== opts.xroadClient)
      violations.push(`${path}: X-Road-Client ${client ?? '(none)'}, expected ${opts.xroadClient}`);
    if (failing !== null)
      return send(
        res,
        failing,
        { code: failing, message: 'Unexpected error', type: 'Error', instance: path },
        RskError,
      );
    const m = /^\/(\d{10})$/.exec(path);
    if (!m) return send(res, 404, notFound(path), RskError);
    const company = byId.get(m[1]!);
    if (!company) return send(res, 404, notFound(path), RskError);
    send(res, 200, company, RskCompany);
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  return {
    url: `http://127.0.0.1:${(server.address() as AddressInfo).port}`,
    violations,
    requests,
    failWith: (status) => {
      failing = status;
    },
    stop: () =>
      new Promise<void>((resolve) => {
        server.closeAllConnections();
        server.close(() => resolve());
      }),
  };
}
