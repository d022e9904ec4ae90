import { Router } from 'express';
import { z } from 'zod';
import type { ReadinessCheck } from '../../services/system/readiness';
import type { Metrics } from '../metrics';
import type { ApiTag, OperationDoc } from '../openapi';
import { API_VERSION } from '../openapi';
import { context } from '../../stack/request-context';

export interface SystemDeps {
  checkReadiness: ReadinessCheck;
  metrics: Metrics;
  publicBaseUrl: string;
  /** The OpenAPI document, built once when first asked for (api/app.ts). */
  openApiDocument: () => Record<string, unknown>;
}

/** `/health`, `/ready`, `/metrics`, `GET /v1` and the OpenAPI document (spec §4.1); no key needed. */
export function systemRouter(deps: SystemDeps, docs: OperationDoc[]): Router {
  const router = Router();
  const declared = new Map<string, OperationDoc>();
  const doc = (tag: ApiTag, path: string, summary: string, response: z.ZodType, contentType?: string) => {
    const op: OperationDoc = {
      method: 'get',
      path,
      summary,
      tag,
      auth: false,
      response,
      status: 200,
      ...(contentType && { contentType }),
    };
    declared.set(path, op);
    docs.push(op);
  };
  // Names the route for logs and metrics, and declares it, so its JSON is held to its schema too.
  const named =
    (path: string) => (_req: unknown, res: Parameters<Parameters<Router['get']>[1]>[1], next: () => void) => {
      context(res).route = path;
      const op = declared.get(path);
      if (op) context(res).declared = op;
      next();
    };

  doc(
    'Health',
    '/health',
    'Liveness',
    z.object({ status: z.literal('ok'), timestamp: z.string(), version: z.string() }),
  );
  router.get('/health', named('/health'), (_req, res) => {
    res.json({ status: 'ok', timestamp: new Date().toISOString(), version: API_VERSION });
  });

  doc(
    'Health',
    '/ready',
    'Readiness: PostgreSQL and Temporal both answer (503 degraded otherwise)',
    z.object({
      status: z.enum(['ok', 'degraded']),
      db: z.boolean(),
      temporal: z.boolean(),
      timestamp: z.string(),
    }),
  );
  router.get('/ready', named('/ready'), async (_req, res) => {
    const { db, temporal } = await deps.checkReadiness();
    const ok = db && temporal;
    res
      .status(ok ? 200 : 503)
      .json({ status: ok ? 'ok' : 'degraded', db, temporal, timestamp: new Date().toISOString() });
  });

  doc('Health', '/metrics', 'Prometheus metrics (text exposition format)', z.string(), 'text/plain');
  router.get('/metrics', named('/metrics'), async (_req, res) => {
    res.setHeader('Content-Type', deps.metrics.registry.contentType);
    res.send(await deps.metrics.registry.metrics());
  });

  doc(
    'Meta',
    '/v1',
    'API name, version and documentation',
    z.object({ name: z.string(), version: z.string(), documentation: z.string() }),
  );
  router.get('/v1', named('/v1'), (_req, res) => {
    res.json({ name: 'skil', version: API_VERSION, documentation: `${deps.publicBaseUrl}/docs` });
  });

  doc('Meta', '/v1/openapi.json', 'This OpenAPI 3.1 document', z.record(z.string(), z.unknown()));
  router.get('/v1/openapi.json', named('/v1/openapi.json'), (_req, res) => {
    res.json(deps.openApiDocument());
  });

  return router;
}
