import fc from 'fast-check';

/**
 * Request generators from the OpenAPI document's JSON Schemas (decision 0108): valid values drawn from
 * each schema, and mutations that make one field (or the body, or a path id) certainly invalid.
 * "Certainly" matters: the document's patterns lose zod's flags and its integer ranges sit behind
 * string alternatives, so a mutation never relies on a pattern or a range. It uses a JSON type the
 * schema does not allow at all, a value outside an enum, a string over maxLength, a property the
 * object does not declare, a required property left out, or text no field accepts (NUL, a lone
 * surrogate).
 */

export type Schema = Record<string, any>;

/** Values of the objects a request may name, by pool (customers, prices, …). */
export type Pools = Record<string, string[]>;

export interface GenContext {
  pools: Pools;
  /** The pool a field of this name refers to; undefined: any id. */
  poolOf(name: string): string | undefined;
}

export const ID_PATTERN = '^[A-Za-z0-9_]{1,64}$';
const INTEGER_TEXT = '^-?\\d{1,15}$';

const TEST_CARDS = ['4242 4242 4242 4242', '5555555555554444', '4000000000000002', '4000000000009995'];
const KENNITALOR = ['5510730339', '1201603389', '4710080280', '0101302989', '4709063520', '5012131870'];
const URLS = ['https://example.com/done', 'http://127.0.0.1:9/hook', 'https://shop.example.is/a?b=1'];
/** Channel URLs stay on loopback: a test channel may reach it, and no name is looked up. */
const CHANNEL_URLS = ['http://127.0.0.1:9/hook', 'http://localhost:9/hooks/skil', 'http://[::1]:9/x'];
const DAY = 86_400;

/** The JSON types a schema admits, or null when it admits any. */
export function allowedTypes(schema: Schema): Set<string> | null {
  if (schema.const !== undefined) return new Set([jsonType(schema.const)]);
  if (Array.isArray(schema.enum)) return new Set(schema.enum.map(jsonType));
  const branches = (schema.anyOf ?? schema.oneOf) as Schema[] | undefined;
  if (branches) {
    const out = new Set<string>();
    for (const b of branches) {
      const t = allowedTypes(b);
      if (t === null) return null;
      t.forEach((x) => out.add(x));
    }
    return out;
  }
  if (schema.type === undefined) return null;
  const types = Array.isArray(schema.type) ? (schema.type as string[]) : [schema.type as string];
  const out = new Set(types);
  if (out.has('integer')) out.add('number');
  if (out.has('number')) out.add('integer');
  return out;
}

function jsonType(v: unknown): string {
  if (v === null) return 'null';
  if (Array.isArray(v)) return 'array';
  if (typeof v === 'number') return Number.isInteger(v) ? 'integer' : 'number';
  return typeof v;
}

/** The object branch of a schema (itself, or the object alternative of an anyOf). */
export function objectBranch(schema: Schema | undefined): Schema | undefined {
  if (!schema) return undefined;
  if (schema.type === 'object' || schema.properties) return schema;
  for (const b of (schema.anyOf ?? schema.oneOf ?? []) as Schema[]) {
    const o = objectBranch(b);
    if (o) return o;
  }
  return undefined;
}

/** The array branch of a schema. */
function arrayBranch(schema: Schema | undefined): Schema | undefined {
  if (!schema) return undefined;
  if (schema.type === 'array') return schema;
  for (const b of (schema.anyOf ?? schema.oneOf ?? []) as Schema[]) {
    const a = arrayBranch(b);
    if (a) return a;
  }
  return undefined;
}

// -------------------------------------------------------------------------------------------------
// Valid values

const now = () => Math.floor(Date.now() / 1000);

/** Field-name hints: realistic values where a random one would never get past the business rules. */
function hinted(name: string, parent: string, schema: Schema, ctx: GenContext): fc.Arbitrary<unknown> | null {
  const types = allowedTypes(schema);
  const allows = (t: string) => types === null || types.has(t);
  if (schema.pattern === ID_PATTERN || (name && ctx.poolOf(name) && allows('string') && !schema.enum)) {
    const pool = ctx.pools[ctx.poolOf(name) ?? ''] ?? Object.values(ctx.pools).flat();
    const all = Object.values(ctx.pools).flat();
    return fc.oneof(
      { weight: 8, arbitrary: pool.length ? fc.constantFrom(...pool) : fc.constant('zz_none') },
      { weight: 1, arbitrary: all.length ? fc.constantFrom(...all) : fc.constant('zz_none') },
      { weight: 1, arbitrary: fc.stringMatching(new RegExp(ID_PATTERN)) },
    );
  }
  if (name === 'number' && parent === 'card') return fc.constantFrom(...TEST_CARDS);
  if (name === 'cvc') return fc.constantFrom('123', '4567');
  if (/kennitala$/.test(name)) return fc.constantFrom(...KENNITALOR);
  if (name === 'url' && parent === 'config') return fc.constantFrom(...CHANNEL_URLS);
  if (/(^|_)url$/.test(name) && allows('string'))
    return fc.constantFrom(...URLS.filter((u) => name !== 'logo_url' || u.startsWith('https')));
  if (name === 'website' || name === 'images') return null;
  if (name === 'currency' && allows('string')) return fc.constantFrom('ISK', 'isk');
  if (name === 'interval_count') return fc.integer({ min: 1, max: 3 });
  if (name === 'vat_rate') return fc.constantFrom(0, 11, 24, '24');
  if (name === 'percent_off') return fc.oneof(fc.integer({ min: 1, max: 100 }), fc.constantFrom('12.5', 0.5));
  if (schema.pattern === '^\\d{4}-\\d{2}-\\d{2}$')
    // Mostly real dates ahead; sometimes any text of the pattern (2031-13-45 too).
    return fc.oneof(
      {
        weight: 4,
        arbitrary: fc
          .integer({ min: 2, max: 400 })
          .map((d) => new Date(Date.now() + d * DAY * 1000).toISOString().slice(0, 10)),
      },
      { weight: 1, arbitrary: fc.stringMatching(/^\d{4}-\d{2}-\d{2}$/) },
    );
  if (['frozen_time', 'trial_end', 'redeem_by', 'expires_at', 'after'].includes(name) && allows('integer'))
    return fc.oneof(
      fc.integer({ min: 2, max: 800 }).map((d) => now() + d * DAY),
      fc.integer({ min: 0, max: 253_402_300_799 }),
    );
  if (name === 'metadata')
    return fc.dictionary(
      fc.stringMatching(/^[a-z_]{1,12}$/),
      fc.string({ maxLength: 20 }).filter((s) => !s.includes('\u0000')),
      { maxKeys: 3 },
    );
  return null;
}

/** An arbitrary of values the schema accepts (best effort for refinements it cannot state). */
export function valid(
  schema: Schema | undefined,
  ctx: GenContext,
  name = '',
  parent = '',
): fc.Arbitrary<unknown> {
  if (!schema || Object.keys(schema).filter((k) => k !== 'description' && k !== '$schema').length === 0)
    return fc.constant('x');
  const hint = hinted(name, parent, schema, ctx);
  if (hint) return hint;
  if (schema.const !== undefined) return fc.constant(schema.const);
  if (Array.isArray(schema.enum)) return fc.constantFrom(...(schema.enum as unknown[]));
  const branches = (schema.anyOf ?? schema.oneOf) as Schema[] | undefined;
  if (branches) {
    // An integer that may come as its digits (zInt): the integer alternative holds the bounds.
    const integer = branches.find((b) => b.type === 'integer');
    const asText = branches.find((b) => b.type === 'string' && b.pattern === INTEGER_TEXT);
    const rest = branches.filter((b) => b !== integer && b !== asText);
    if (integer && asText) {
      const n = valid(integer, ctx, name, parent) as fc.Arbitrary<number>;
      const both = fc.oneof({ weight: 3, arbitrary: n }, { weight: 1, arbitrary: n.map(String) });
      return rest.length === 0 ? both : fc.oneof(both, ...rest.map((b) => valid(b, ctx, name, parent)));
    }
    return fc.oneof(...branches.map((b) => valid(b, ctx, name, parent)));
  }
  switch (schema.type) {
    case 'null':
      return fc.constant(null);
    case 'boolean':
      return fc.boolean();
    case 'integer': {
      const min = Math.max(schema.minimum ?? -1000, -1e12);
      const max = Math.min(schema.maximum ?? 1e6, 1e12);
      return fc.oneof(
        fc.integer({ min, max }),
        fc.integer({ min: Math.max(min, 0), max: Math.min(max, 5000) }),
      );
    }
    case 'number': {
      const min = schema.minimum ?? -1000;
      const max = schema.maximum ?? 1e6;
      return fc.oneof(
        fc.integer({ min, max }),
        fc.double({ min, max, noNaN: true, noDefaultInfinity: true }),
      );
    }
    case 'string':
      return validString(schema);
    case 'array': {
      const item = valid(schema.items as Schema | undefined, ctx, name, parent);
      return fc.array(item, {
        minLength: schema.minItems ?? 0,
        maxLength: Math.min(schema.maxItems ?? 3, Math.max(schema.minItems ?? 0, 3)),
      });
    }
    case 'object':
      return validObject(schema, ctx, name);
    default:
      return fc.constant('x');
  }
}

function validString(schema: Schema): fc.Arbitrary<string> {
  const min = schema.minLength ?? 0;
  const max = schema.maxLength ?? 40;
  const fits = (s: string) => s.length >= min && s.length <= max;
  if (schema.pattern) {
    const re = new RegExp(schema.pattern as string, 'u');
    return fc.stringMatching(re).filter(fits);
  }
  if (schema.format === 'email') return fc.emailAddress().filter(fits);
  if (schema.format === 'date-time') return fc.date({ noInvalidDate: true }).map((d) => d.toISOString());
  return fc.string({ minLength: min, maxLength: Math.min(max, 30), unit: 'grapheme' }).filter(fits);
}

function validObject(schema: Schema, ctx: GenContext, name: string): fc.Arbitrary<Record<string, unknown>> {
  const props = (schema.properties ?? {}) as Record<string, Schema>;
  const required = new Set((schema.required ?? []) as string[]);
  if (
    Object.keys(props).length === 0 &&
    schema.additionalProperties &&
    schema.additionalProperties !== true
  ) {
    const key = schema.propertyNames
      ? validString(schema.propertyNames as Schema)
      : fc.stringMatching(/^[a-z]{1,8}$/);
    return fc.dictionary(key, valid(schema.additionalProperties as Schema, ctx, '', name), { maxKeys: 3 });
  }
  const record: Record<string, fc.Arbitrary<unknown>> = {};
  for (const [key, s] of Object.entries(props)) record[key] = valid(s, ctx, key, name);
  return fc.record(record, { requiredKeys: [...required] });
}

// -------------------------------------------------------------------------------------------------
// Invalid values

/** Values of JSON types the schema does not admit at all. */
export function wrongTypeValues(schema: Schema): unknown[] {
  const types = allowedTypes(schema);
  if (types === null) return [];
  const candidates: [string, unknown][] = [
    ['boolean', true],
    ['object', { nested: 'x' }],
    ['array', ['x']],
    ['integer', 12345],
    ['number', 1.5],
    ['string', 'not-this-type'],
    ['null', null],
  ];
  return candidates.filter(([t]) => !types.has(t)).map(([, v]) => v);
}

/**
 * Certainly-invalid replacement values for a field of this schema. `inUrl`: for a query string,
 * where a lone surrogate cannot travel (it is sent as U+FFFD).
 */
export function invalidValues(schema: Schema, inUrl = false): unknown[] {
  const out = [...wrongTypeValues(schema)];
  const types = allowedTypes(schema);
  if (Array.isArray(schema.enum) && schema.enum.every((v: unknown) => typeof v === 'string'))
    out.push('zz-not-one-of-these');
  const strings = [schema, ...((schema.anyOf ?? []) as Schema[])].filter((s) => s.type === 'string');
  if (types !== null && types.has('string') && types.size === (types.has('null') ? 2 : 1)) {
    const maxes = strings.map((s) => s.maxLength as number | undefined);
    if (maxes.length > 0 && maxes.every((m) => m !== undefined)) out.push('x'.repeat(Math.max(...maxes) + 1));
    out.push('a\u0000b');
    if (!inUrl) out.push('lone \ud800 surrogate');
  }
  return out;
}

// -------------------------------------------------------------------------------------------------
// Mutations of a valid body

export interface Mutation {
  /** Dot path of the field at fault (`items.0.price`); '' when the body as a whole is. */
  param: string;
  what: string;
  apply(body: Record<string, unknown>): unknown;
}

function clone<T>(v: T): T {
  return JSON.parse(JSON.stringify(v)) as T;
}

function setAt(root: any, path: (string | number)[], value: unknown, remove = false) {
  let node = root;
  for (const key of path.slice(0, -1)) node = node[key];
  const last = path[path.length - 1]!;
  if (remove) delete node[last];
  else node[last] = value;
}

/**
 * Every certainly-invalid mutation of one field of `value` (a valid instance of `schema`): its
 * fields' wrong values, undeclared properties, required properties left out, recursively.
 */
export function fieldMutations(
  schema: Schema | undefined,
  value: unknown,
  path: (string | number)[] = [],
): Mutation[] {
  const out: Mutation[] = [];
  const obj = objectBranch(schema);
  if (obj && value !== null && typeof value === 'object' && !Array.isArray(value)) {
    const props = (obj.properties ?? {}) as Record<string, Schema>;
    const declared = Object.keys(props).length > 0;
    if (declared && obj.additionalProperties === false) {
      const p = [...path, 'zz_undeclared'];
      out.push({
        param: p.join('.'),
        what: 'undeclared property',
        apply: (b) => {
          const c = clone(b);
          setAt(c, p, 'x');
          return c;
        },
      });
    }
    for (const key of (obj.required ?? []) as string[]) {
      const p = [...path, key];
      out.push({
        param: p.join('.'),
        what: 'required property left out',
        apply: (b) => {
          const c = clone(b);
          setAt(c, p, undefined, true);
          return c;
        },
      });
    }
    for (const [key, s] of Object.entries(props)) {
      const p = [...path, key];
      for (const bad of invalidValues(s))
        out.push({
          param: p.join('.'),
          what: `${key} = ${JSON.stringify(bad).slice(0, 30)}`,
          apply: (b) => {
            const c = clone(b);
            setAt(c, p, bad);
            return c;
          },
        });
      const child = (value as Record<string, unknown>)[key];
      if (child !== undefined) out.push(...fieldMutations(s, child, p));
    }
  }
  const arr = arrayBranch(schema);
  if (arr && Array.isArray(value) && value.length > 0) {
    const p = [...path, 0];
    for (const bad of invalidValues((arr.items ?? {}) as Schema))
      out.push({
        param: p.join('.'),
        what: `item = ${JSON.stringify(bad).slice(0, 30)}`,
        apply: (b) => {
          const c = clone(b);
          setAt(c, p, bad);
          return c;
        },
      });
    out.push(...fieldMutations(arr.items as Schema, value[0], p));
  }
  return out;
}

/** Mutations of the body as a whole: no field is at fault, so no param is expected. */
export const BODY_MUTATIONS: { what: string; contentType: string; raw: () => string }[] = [
  { what: 'malformed JSON', contentType: 'application/json', raw: () => '{"a": ' },
  { what: 'an array body', contentType: 'application/json', raw: () => '[1, 2]' },
  {
    what: 'nested 5,000 deep',
    contentType: 'application/json',
    raw: () => `{"a":${'['.repeat(5000)}${']'.repeat(5000)}}`,
  },
  { what: 'a plain-text body that is not JSON', contentType: 'text/plain', raw: () => 'hello' },
];

// -------------------------------------------------------------------------------------------------
// Encodings

/** Bracket form encoding (`a[b][0]=x`), as Stripe's API and this one read it. */
export function formEncode(value: unknown, prefix = '', out: [string, string][] = []): [string, string][] {
  if (value === null || value === undefined) {
    if (prefix) out.push([prefix, '']);
  } else if (Array.isArray(value)) {
    value.forEach((v, i) => formEncode(v, `${prefix}[${i}]`, out));
  } else if (typeof value === 'object') {
    for (const [k, v] of Object.entries(value)) formEncode(v, prefix ? `${prefix}[${k}]` : k, out);
  } else {
    out.push([prefix, typeof value === 'string' ? value : JSON.stringify(value)]);
  }
  return out;
}

/** A query string of the validated parameters (values as their text; objects in brackets). */
export function queryString(query: Record<string, unknown>): string {
  const pairs = formEncode(query);
  return pairs.length === 0 ? '' : `?${new URLSearchParams(pairs).toString()}`;
}
