import type { AddressInfo } from 'node:net';
import type { Server } from 'node:http';
import express from 'express';
import { z } from 'zod';
import { checkResponse, checkResponses, createRoutes, ResponseSchemaError } from '../../api/route';
import { requestContext } from '../../api/middleware/request-context';
import { errorHandler } from '../../api/middleware/errors';
import { context } from '../../stack/request-context';
import { createLogger } from '../../stack/logger';
import type { OperationDoc } from '../../api/openapi';
import type { Metrics } from '../../api/metrics';

const Thing = z.object({ id: z.string(), amount: z.number(), note: z.string().nullable() });
const route = { method: 'get', path: '/v1/things/:id', response: Thing };

describe('response schema check', () => {
  it('passes a response that matches its schema', () => {
    expect(() => checkResponse(route, { id: 'thg_1', amount: 5, note: null })).not.toThrow();
  });

  it.each([
    ['a field of the wrong type', { id: 'thg_1', amount: '5', note: null }],
    ['a missing field', { id: 'thg_1', amount: 5 }],
    ['an undeclared field', { id: 'thg_1', amount: 5, note: null, secret: 'x' }],
  ])('refuses %s', (_what, body) => {
    expect(() => checkResponse(route, body)).toThrow(ResponseSchemaError);
  });

  it('fails a deliberately wrong response through the route layer, loudly', async () => {
    const logged: unknown[] = [];
    const log = createLogger('response-check', 'silent');
    log.error = (obj: unknown) => void logged.push(obj);
    const metrics = {
      httpRequests: { inc: () => undefined },
      httpDuration: { observe: () => undefined },
    } as unknown as Metrics;
    const app = express();
    app.use(requestContext(log, metrics));
    app.use(checkResponses());
    app.use((_req, res, next) => {
      context(res).scope = { merchantId: 'acct_test', livemode: false };
      next();
    });
    const router = express.Router();
    const docs: OperationDoc[] = [];
    const define = createRoutes(router, docs);
    define({
      ...route,
      method: 'get',
      path: '/v1/things/:id',
      summary: 's',
      tag: 'Meta',
      handler: () => Promise.resolve({ id: 'thg_1', amount: 5, note: null, leaked: true }),
    });
    define({
      ...route,
      method: 'get',
      path: '/v1/good/:id',
      summary: 's',
      tag: 'Meta',
      handler: () => Promise.resolve({ id: 'thg_2', amount: 7, note: 'ok' }),
    });
    app.use(router);
    app.use(errorHandler(log));
    const server: Server = await new Promise((resolve) => {
      const s = app.listen(0, '127.0.0.1', () => resolve(s));
    });
    try {
      const base = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
      const bad = await fetch(`${base}/v1/things/thg_1`);
      expect(bad.status).toBe(500);
      expect(await bad.json()).toEqual({ error: expect.objectContaining({ type: 'api_error' }) });
      const err = (logged[0] as { err: Error }).err;
      expect(err).toBeInstanceOf(ResponseSchemaError);
      expect(err.message).toContain('GET /v1/things/:id does not match its declared schema');
      const good = await fetch(`${base}/v1/good/thg_2`);
      expect(good.status).toBe(200);
      expect(await good.json()).toEqual({ id: 'thg_2', amount: 7, note: 'ok' });
    } finally {
      await new Promise((r) => server.close(r));
    }
  });
});
