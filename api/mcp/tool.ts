import { z } from 'zod';
import type { Tool, ToolAnnotations } from '@modelcontextprotocol/sdk/types.js';
import type { Scope } from '../../domain/scope';
import { zId } from '../fields';
import { parseInput } from '../validation';

/** Who calls a tool: the scope of the bearer key, and the key itself (limits are per key). */
export interface ToolContext {
  scope: Scope;
  apiKeyId: string;
}

/**
 * One MCP tool: its description and schemas as clients list them, and its call, which takes the
 * raw arguments (validated by the tool with the API's schemas, so a bad one is the API's error
 * naming its `param`) and returns the API's object or throws the API's error.
 */
export interface ToolDef {
  name: string;
  title: string;
  description: string;
  input: z.ZodType;
  output: z.ZodType;
  annotations: ToolAnnotations;
  call(ctx: ToolContext, args: Record<string, unknown>): Promise<unknown>;
}

export const READ_ONLY: ToolAnnotations = {
  readOnlyHint: true,
  destructiveHint: false,
  idempotentHint: true,
  openWorldHint: false,
};

/** A write that an idempotency key makes safe to retry, and that creates rather than destroys. */
export const CREATES: ToolAnnotations = {
  readOnlyHint: false,
  destructiveHint: false,
  idempotentHint: true,
  openWorldHint: false,
};

/** JSON Schema of a tool's input or output, as McpServer would list it (draft 7), always an object. */
function jsonSchemaOf(schema: z.ZodType, io: 'input' | 'output'): { type: 'object'; [k: string]: unknown } {
  const json = z.toJSONSchema(schema, { io, target: 'draft-7', unrepresentable: 'any' }) as Record<
    string,
    unknown
  >;
  delete json.$schema;
  // A union of objects (a result or a preview) is still an object, as MCP requires of the schema.
  return { ...json, type: 'object' };
}

/** The tool as tools/list shows it. */
export function listed(tool: ToolDef): Tool {
  return {
    name: tool.name,
    title: tool.title,
    description: tool.description,
    inputSchema: jsonSchemaOf(tool.input, 'input'),
    outputSchema: jsonSchemaOf(tool.output, 'output'),
    annotations: { title: tool.title, ...tool.annotations },
  };
}

/** A tool that only reads: its arguments validated with the API's query schema. */
export function readTool<S extends z.ZodType>(def: {
  name: string;
  title: string;
  description: string;
  input: S;
  output: z.ZodType;
  run: (ctx: ToolContext, input: z.output<S>) => Promise<unknown>;
}): ToolDef {
  return {
    ...def,
    annotations: READ_ONLY,
    call: (ctx, args) => def.run(ctx, parseInput(def.input, args, 'body')),
  };
}

export const LIST_NOTE =
  'Newest first, `limit` 1–100 (default 25); page with `starting_after` (the last id seen) while has_more.';

/** `{ id }`, the input of every tool that reads one object. */
export function idInput(noun: string, prefix: string) {
  return z.object({ id: zId.describe(`The ${noun}'s id (${prefix}_…)`) }).strict();
}
