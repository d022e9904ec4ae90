import { readFileSync } from 'node:fs';
import path from 'node:path';
import Ajv, { type ValidateFunction } from 'ajv';
import addFormats from 'ajv-formats';
import { parse } from 'yaml';

/**
 * Validates simulated-bank traffic against the standard's own OpenAPI 3.0.1 document
 * (a copy of `../shared/spec/iobws/IOBWS-Claims3.1.yaml` in `test/fixtures/iobws/`, so a clone anywhere can run the tests) with ajv (decision 0077). OpenAPI 3.0 schemas are
 * JSON Schema with a few extras; the conversion is small and stated here:
 * - `discriminator` + `mapping` over `oneOf` (batchInitiation) becomes an if/then per mapping
 *   entry: both branches declare `actionType` with the same two-value enum and neither requires
 *   anything, so a plain `oneOf` would match both and always fail;
 * - `example`/`examples` and other annotations are ignored (ajv `strict: false`);
 * - `format: url` is a URI reference and the document's `format: '[0-9]{4}'` is read as that pattern.
 */

export const IOBWS_CLAIMS_YAML = path.resolve(__dirname, '../fixtures/iobws/IOBWS-Claims3.1.yaml');

type Json = Record<string, any>;

export interface Exchange {
  method: string;
  /** Path without the query string. */
  path: string;
  query: Record<string, unknown>;
  requestHeaders: Record<string, string | string[] | undefined>;
  requestBody: unknown;
  status: number;
  responseHeaders: Record<string, unknown>;
  responseBody: unknown;
}

function convert(node: unknown): unknown {
  if (Array.isArray(node)) return node.map(convert);
  if (typeof node !== 'object' || node === null) return node;
  const obj = node as Json;
  if (obj.discriminator?.mapping && Array.isArray(obj.oneOf)) {
    const prop: string = obj.discriminator.propertyName;
    const mapping = obj.discriminator.mapping as Record<string, string>;
    return {
      type: 'object',
      required: [prop],
      properties: { [prop]: { enum: Object.keys(mapping) } },
      allOf: Object.entries(mapping).map(([value, ref]) => ({
        if: { properties: { [prop]: { const: value } } },
        then: { $ref: ref },
      })),
    };
  }
  const out: Json = {};
  for (const [k, v] of Object.entries(obj)) if (k !== 'example' && k !== 'examples') out[k] = convert(v);
  return out;
}

function pointer(parts: string[]): string {
  return '#/' + parts.map((p) => p.replaceAll('~', '~0').replaceAll('/', '~1')).join('/');
}

export interface OpenApiValidator {
  /** Problems with the request (empty when valid). */
  request(x: Exchange): string[];
  /** Problems with the response (empty when valid). */
  response(x: Exchange): string[];
}

export function loadIobwsValidator(file = IOBWS_CLAIMS_YAML): OpenApiValidator {
  const doc = convert(parse(readFileSync(file, 'utf8'))) as Json;
  const ajv = new Ajv({ strict: false, allErrors: true });
  addFormats(ajv);
  ajv.addFormat('url', true);
  ajv.addFormat('[0-9]{4}', /^[0-9]{4}$/);
  ajv.addSchema({ ...doc, $id: 'iobws' });

  const cache = new Map<string, ValidateFunction>();
  const compile = (ptr: string) => {
    let v = cache.get(ptr);
    if (!v) {
      v = ajv.compile({ $ref: `iobws${ptr}` });
      cache.set(ptr, v);
    }
    return v;
  };
  /** Follows `$ref`s of parameters, bodies and responses, keeping the pointer of the target. */
  const deref = (node: Json, ptr: string[]): { node: Json; ptr: string[] } => {
    while (node.$ref) {
      ptr = (node.$ref as string).replace(/^#\//, '').split('/');
      node = ptr.reduce<Json>((n, p) => n[p], doc);
    }
    return { node, ptr };
  };
  const templates = Object.keys(doc.paths as Json)
    .map((t) => ({
      t,
      params: (t.match(/\{/g) ?? []).length,
      re: new RegExp('^' + t.replace(/\{[^}]+\}/g, '([^/]+)') + '$'),
      names: [...t.matchAll(/\{([^}]+)\}/g)].map((m) => m[1]!),
    }))
    .sort((a, b) => a.params - b.params);

  const operation = (x: Exchange) => {
    for (const tpl of templates) {
      const m = tpl.re.exec(x.path);
      if (!m) continue;
      const op = (doc.paths as Json)[tpl.t][x.method.toLowerCase()] as Json | undefined;
      if (!op) continue;
      const pathParams = Object.fromEntries(tpl.names.map((n, i) => [n, decodeURIComponent(m[i + 1]!)]));
      return { op, opPtr: ['paths', tpl.t, x.method.toLowerCase()], pathParams };
    }
    return null;
  };
  const check = (v: ValidateFunction, value: unknown, where: string): string[] =>
    v(value) ? [] : (v.errors ?? []).map((e) => `${where}${e.instancePath} ${e.message ?? ''}`);

  return {
    request(x) {
      const found = operation(x);
      if (!found) return [`${x.method} ${x.path}: no such operation in the document`];
      const problems: string[] = [];
      (found.op.parameters as Json[] | undefined)?.forEach((p, i) => {
        const { node, ptr } = deref(p, [...found.opPtr, 'parameters', String(i)]);
        const value =
          node.in === 'path'
            ? found.pathParams[node.name]
            : node.in === 'query'
              ? x.query[node.name]
              : x.requestHeaders[String(node.name).toLowerCase()];
        if (value === undefined) {
          if (node.required) problems.push(`${node.in} parameter ${node.name} is required`);
          return;
        }
        // Query values arrive as strings; the document's query integers are coerced here.
        const typed = node.schema?.type === 'integer' && typeof value === 'string' ? Number(value) : value;
        problems.push(...check(compile(pointer([...ptr, 'schema'])), typed, `${node.in} ${node.name}`));
      });
      if (found.op.requestBody) {
        const { node, ptr } = deref(found.op.requestBody as Json, [...found.opPtr, 'requestBody']);
        if (x.requestBody === undefined) {
          if (node.required) problems.push('request body is required');
        } else {
          problems.push(
            ...check(
              compile(pointer([...ptr, 'content', 'application/json', 'schema'])),
              x.requestBody,
              'body',
            ),
          );
        }
      }
      return problems;
    },
    response(x) {
      const found = operation(x);
      if (!found) return [`${x.method} ${x.path}: no such operation in the document`];
      const responses = found.op.responses as Json;
      const entry = responses[String(x.status)] ?? responses.default;
      if (!entry) return [`status ${x.status} is not a documented response of ${x.method} ${x.path}`];
      const { node, ptr } = deref(entry as Json, [...found.opPtr, 'responses', String(x.status)]);
      const problems: string[] = [];
      for (const [name, h] of Object.entries((node.headers ?? {}) as Json)) {
        const { node: header, ptr: hPtr } = deref(h as Json, [...ptr, 'headers', name]);
        const value = x.responseHeaders[name.toLowerCase()];
        if (value === undefined) {
          if (header.required) problems.push(`response header ${name} is required`);
          continue;
        }
        const typed = header.schema?.type === 'integer' ? Number(value) : value;
        problems.push(...check(compile(pointer([...hPtr, 'schema'])), typed, `header ${name}`));
      }
      const content = node.content as Json | undefined;
      if (content) {
        const contentType = x.responseHeaders['content-type'];
        const type = (typeof contentType === 'string' ? contentType : '').split(';')[0]!.trim();
        if (!content[type])
          problems.push(`content type ${type || '(none)'} is not documented for ${x.status}`);
        else
          problems.push(
            ...check(compile(pointer([...ptr, 'content', type, 'schema'])), x.responseBody, 'body'),
          );
      }
      return problems;
    },
  };
}
