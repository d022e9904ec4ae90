import { z } from 'zod';

export const API_VERSION = '1.0.0';

export type HttpMethod = 'get' | 'post' | 'patch' | 'delete';

export interface OperationDoc {
  method: HttpMethod;
  /** Express path, e.g. `/v1/notification-channels/:id`. */
  path: string;
  summary: string;
  tag: string;
  auth: boolean;
  body?: z.ZodType;
  query?: z.ZodType;
  response: z.ZodType;
  status: number;
}

const ErrorEnvelope = z.object({
  error: z.object({
    type: z.enum([
      'invalid_request_error',
      'authentication_error',
      'permission_error',
      'idempotency_error',
      'rate_limit_error',
      'api_error',
    ]),
    message: z.string(),
    code: z.string().optional(),
    param: z.string().optional(),
  }),
});

function jsonSchema(schema: z.ZodType, io: 'input' | 'output'): unknown {
  return z.toJSONSchema(schema, { io, unrepresentable: 'any', target: 'draft-2020-12' });
}

/**
 * The OpenAPI 3.1 document, generated from the same zod schemas that validate each request, so
 * the document cannot drift from what the API accepts.
 */
export function buildOpenApi(
  operations: readonly OperationDoc[],
  serverUrl: string,
): Record<string, unknown> {
  const paths: Record<string, Record<string, unknown>> = {};
  for (const op of operations) {
    const params = [...op.path.matchAll(/:(\w+)/g)].map((m) => m[1]!);
    const path = op.path.replace(/:(\w+)/g, '{$1}');
    const query = op.query
      ? (jsonSchema(op.query, 'input') as { properties?: Record<string, unknown>; required?: string[] })
      : undefined;
    const bodySchema = op.body ? jsonSchema(op.body, 'input') : undefined;
    (paths[path] ??= {})[op.method] = {
      summary: op.summary,
      tags: [op.tag],
      operationId: `${op.method}${path.replace(/[{}]/g, '').replace(/[^A-Za-z0-9]+(.)?/g, (_m, c: string | undefined) => (c ? c.toUpperCase() : ''))}`,
      ...(op.auth ? {} : { security: [] }),
      parameters: [
        ...params.map((name) => ({ name, in: 'path', required: true, schema: { type: 'string' } })),
        ...Object.entries(query?.properties ?? {}).map(([name, schema]) => ({
          name,
          in: 'query',
          required: query?.required?.includes(name) ?? false,
          schema,
        })),
        ...(op.method === 'post' || op.method === 'patch'
          ? [
              {
                name: 'Idempotency-Key',
                in: 'header',
                required: false,
                schema: { type: 'string', maxLength: 255 },
              },
            ]
          : []),
      ],
      ...(bodySchema !== undefined && {
        requestBody: {
          required: false,
          content: Object.fromEntries(
            [
              'application/json',
              'application/x-www-form-urlencoded',
              'multipart/form-data',
              'text/plain',
            ].map((t) => [t, { schema: bodySchema }]),
          ),
        },
      }),
      responses: {
        [String(op.status)]: {
          description: 'OK',
          content: { 'application/json': { schema: jsonSchema(op.response, 'output') } },
        },
        default: {
          description: 'Error',
          content: { 'application/json': { schema: { $ref: '#/components/schemas/Error' } } },
        },
      },
    };
  }
  return {
    openapi: '3.1.0',
    info: {
      title: 'Skil API',
      version: API_VERSION,
      description: 'Payments, subscriptions and Icelandic bank claims (kröfur). Amounts are integer ISK.',
    },
    servers: [{ url: serverUrl }],
    security: [{ bearerAuth: [] }, { apiKeyHeader: [] }],
    components: {
      securitySchemes: {
        bearerAuth: { type: 'http', scheme: 'bearer', description: 'sk_test_… or sk_live_…' },
        apiKeyHeader: { type: 'apiKey', in: 'header', name: 'x-api-key' },
      },
      schemas: { Error: jsonSchema(ErrorEnvelope, 'output') },
    },
    paths,
  };
}
