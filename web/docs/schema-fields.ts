/**
 * A JSON Schema (from the OpenAPI document) as rows a person reads: each field with its dotted
 * name, its type, whether it is required and its description. Nested objects and arrays of
 * objects are flattened (`address.line1`, `items[].quantity`) to a depth a page can show.
 */

export type JsonSchema = Record<string, unknown>;

export interface FieldRow {
  name: string;
  type: string;
  required: boolean;
  description: string;
}

const MAX_DEPTH = 4;

function resolve(schema: JsonSchema, root: JsonSchema): JsonSchema {
  const ref = schema.$ref;
  if (typeof ref !== 'string' || !ref.startsWith('#/')) return schema;
  let node: unknown = root;
  for (const part of ref.slice(2).split('/')) node = (node as Record<string, unknown> | undefined)?.[part];
  return (node as JsonSchema | undefined) ?? schema;
}

/** The alternatives of a schema, `null` taken out (it becomes "or null" on the type). */
function alternatives(schema: JsonSchema): { options: JsonSchema[]; nullable: boolean } {
  const list = (schema.anyOf ?? schema.oneOf) as JsonSchema[] | undefined;
  if (!list) {
    const types = schema.type;
    if (Array.isArray(types) && types.includes('null'))
      return { options: [{ ...schema, type: types.filter((t) => t !== 'null')[0] }], nullable: true };
    return { options: [schema], nullable: false };
  }
  const options = list.filter((s) => s.type !== 'null');
  return { options, nullable: options.length < list.length };
}

/** A short type: `string`, `integer`, `"open" | "paid"`, `object`, `string[]`, `string or null`. */
export function typeLabel(schema: JsonSchema, root: JsonSchema): string {
  const s = resolve(schema, root);
  const { options, nullable } = alternatives(s);
  const label = options
    .map((o) => {
      const r = resolve(o, root);
      if (r.const !== undefined) return JSON.stringify(r.const);
      if (Array.isArray(r.enum)) return r.enum.map((v) => JSON.stringify(v)).join(' | ');
      if (r.type === 'array') return `${typeLabel((r.items as JsonSchema | undefined) ?? {}, root)}[]`;
      if (typeof r.type === 'string')
        return typeof r.format === 'string' ? `${r.type} (${r.format})` : r.type;
      if (r.properties) return 'object';
      return 'any';
    })
    .filter((v, i, all) => all.indexOf(v) === i)
    .join(' or ');
  return nullable ? `${label || 'any'} or null` : label || 'any';
}

function describe(schema: JsonSchema): string {
  const parts: string[] = [];
  if (typeof schema.description === 'string') parts.push(schema.description);
  const bounds: string[] = [];
  if (typeof schema.minimum === 'number') bounds.push(`min ${schema.minimum}`);
  if (typeof schema.maximum === 'number') bounds.push(`max ${schema.maximum}`);
  if (typeof schema.maxLength === 'number') bounds.push(`up to ${schema.maxLength} characters`);
  if (typeof schema.maxItems === 'number') bounds.push(`up to ${schema.maxItems} items`);
  if (schema.default !== undefined) bounds.push(`default ${JSON.stringify(schema.default)}`);
  if (bounds.length > 0) parts.push(`(${bounds.join(', ')})`);
  return parts.join(' ');
}

/** The object schema inside a schema, if it is one (directly, as an alternative, or array items). */
function objectOf(schema: JsonSchema, root: JsonSchema): { props: JsonSchema; required: string[] } | null {
  const s = resolve(schema, root);
  for (const o of alternatives(s).options) {
    const r = resolve(o, root);
    if (r.properties) return { props: r.properties as JsonSchema, required: (r.required as string[]) ?? [] };
  }
  return null;
}

export function fieldRows(schema: JsonSchema, root: JsonSchema, prefix = '', depth = 0): FieldRow[] {
  const object = objectOf(schema, root);
  if (!object || depth >= MAX_DEPTH) return [];
  const rows: FieldRow[] = [];
  for (const [name, raw] of Object.entries(object.props)) {
    const field = resolve(raw as JsonSchema, root);
    const first = resolve(alternatives(field).options[0] ?? field, root);
    const full = `${prefix}${name}`;
    rows.push({
      name: full,
      type: typeLabel(field, root),
      required: object.required.includes(name),
      description: describe({ ...first, ...field }),
    });
    if (first.type === 'array' && first.items)
      rows.push(...fieldRows(first.items as JsonSchema, root, `${full}[].`, depth + 1));
    else rows.push(...fieldRows(field, root, `${full}.`, depth + 1));
  }
  return rows;
}
