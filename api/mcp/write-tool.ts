import { z } from 'zod';
import type { ToolAnnotations } from '@modelcontextprotocol/sdk/types.js';
import type { Scope } from '../../domain/scope';
import { requestHash } from '../../services/idempotency';
import { zLine } from '../fields';
import { parseInput, zBool } from '../validation';
import type { McpDeps, WriteServices } from './services';
import { CREATES, type ToolContext, type ToolDef } from './tool';
import { CALL_OPTIONS, derivedKey, idempotent, toolPath, withoutOptions } from './idempotent';

/** The arguments every write tool takes besides the API's own (decision 0121). */
export const callOptions = {
  idempotency_key: zLine(255)
    .min(1)
    .optional()
    .describe(
      'Makes a retry safe: the same key with the same arguments returns the first result (kept 24 hours), the same key with other arguments is refused. Unset: derived from the arguments, so an identical call within 24 hours returns the first result; send a new key to do the same thing twice on purpose.',
    ),
  dry_run: zBool()
    .default(false)
    .describe('true: check the call and show what it would do, changing nothing'),
};

export const dryRunOf = (object: z.ZodType) =>
  z.object({
    dry_run: z.literal(true),
    tool: z.string(),
    result: object.describe('What the call would create or leave; a new id shown is not kept'),
    note: z.string(),
  });

/** What a call that needs confirmation answers first: nothing done, a preview and a token. */
export const confirmationRequestOf = (object: z.ZodType) =>
  z.object({
    object: z.literal('confirmation_request'),
    status: z
      .literal('confirmation_required')
      .describe('Nothing was done: call again with the same arguments and confirmation_token'),
    tool: z.string(),
    object_id: z
      .string()
      .nullable()
      .describe('What it is about: the subscription, the krafa, or the customer a new one is for'),
    amount: z.number().describe('The ISK the call moves (or stops from moving), whole ISK'),
    preview: object.describe('What the call would do, as a dry run answers it'),
    confirmation_token: z.string(),
    expires_at: z.number().describe('Unix time the confirmation_token expires'),
    message: z.string().describe('Show this to the person before confirming'),
  });

const confirmationToken = z
  .string()
  .min(1)
  .max(100)
  .optional()
  .describe(
    "The token of this call's confirmation request. A live key needs one: call first without it, show the answer's message to the person, and call again with the same arguments and the token. One token makes the change once, however often it is sent.",
  );

/** What a confirmed call moves or withholds, shown to the person and kept with the token. */
export interface Confirms {
  objectId: string | null;
  amount: number;
  summary: string;
}

export interface WriteToolDef<S extends z.ZodObject> {
  name: string;
  title: string;
  description: string;
  /** The API's request schema (with `id` for a change of one object). */
  input: S;
  output: z.ZodType;
  annotations: ToolAnnotations;
  /** The one service call; on services whose writes are rolled back in a dry run. */
  run: (services: WriteServices, ctx: ToolContext, input: z.output<S>) => Promise<unknown>;
  /** A dry run that cannot be a rolled-back `run` (it would reach the bank): what it answers instead. */
  dryRun?: (ctx: ToolContext, input: z.output<S>) => Promise<unknown>;
  dryRunNote?: string;
  /**
   * A call that moves or withholds money (decision 0202): when it needs confirmation, and what it
   * confirms, from the call's dry run.
   */
  confirm?: {
    needed: (scope: Scope, input: z.output<S>) => boolean;
    /** A method, so each tool may name the type of its own preview (its dry run's object). */
    about(ctx: ToolContext, input: z.output<S>, preview: unknown): Promise<Confirms>;
  };
}

/**
 * A tool that makes one service call under an idempotency key, with a dry run, and, for calls
 * that move money, the preview → confirmation-token flow of refunds (decisions 0121, 0122, 0202):
 * the first call answers the dry run and a token; the same call with the token makes the change,
 * once per token (the token's confirmation is the idempotency key).
 */
export function writeTool<S extends z.ZodObject>(deps: McpDeps, def: WriteToolDef<S>): ToolDef {
  const input = def.confirm
    ? def.input.extend({ ...callOptions, confirmation_token: confirmationToken })
    : def.input.extend(callOptions);
  const outputs = [def.output, dryRunOf(def.output)];
  if (def.confirm) outputs.push(confirmationRequestOf(def.output));
  const tool = def.name;
  return {
    name: tool,
    title: def.title,
    description: def.description,
    input,
    output: z.union(outputs),
    annotations: def.annotations,
    async call(ctx, args) {
      const { idempotency_key, dry_run, confirmation_token, ...rest } = parseInput(input, args, 'body') as {
        idempotency_key?: string;
        dry_run: boolean;
        confirmation_token?: string;
      } & Record<string, unknown>;
      const body = rest as z.output<S>;
      const { scope, apiKeyId } = ctx;
      const preview = () =>
        def.dryRun ? def.dryRun(ctx, body) : deps.dryRun((services) => def.run(services, ctx, body));

      if (dry_run)
        return {
          dry_run: true,
          tool,
          result: await preview(),
          note: def.dryRunNote ?? 'Nothing was changed; an id shown for a new object is not kept.',
        };

      // What a confirmation token stands for: the call's own arguments.
      const confirms = requestHash(
        'MCP',
        toolPath(tool),
        withoutOptions(args, [...CALL_OPTIONS, 'confirmation_token']),
      );
      if (def.confirm?.needed(scope, body) && confirmation_token === undefined) {
        const result = await preview();
        const about = await def.confirm.about(ctx, body, result);
        const token = await deps.safety.issueConfirmation(scope, apiKeyId, {
          tool,
          requestHash: confirms,
          objectId: about.objectId,
          amount: about.amount,
        });
        return {
          object: 'confirmation_request',
          status: 'confirmation_required',
          tool,
          object_id: about.objectId,
          amount: about.amount,
          preview: result,
          confirmation_token: token.token,
          expires_at: token.expiresAt,
          message: `Nothing was done yet. ${about.summary} Show this to the person and, if they agree, call ${tool} again with the same arguments and confirmation_token (good for 5 minutes).`,
        };
      }

      const params = withoutOptions(args);
      let key = idempotency_key ?? derivedKey(ctx, tool, params);
      const confirmation =
        confirmation_token === undefined
          ? undefined
          : await deps.safety.issuedFor(scope, apiKeyId, confirmation_token, { tool, requestHash: confirms });
      // One change per confirmation, however often (and under whichever keys) it is sent; once made,
      // it is answered again even after the token expires.
      if (confirmation) key = `mcp_confirmed_${confirmation.id}`;
      return idempotent(deps, ctx, { tool, key, params }, async () => {
        if (confirmation) await deps.safety.checkUnexpired(confirmation);
        return def.run(deps.services, ctx, body);
      });
    },
  };
}

/** A tool that creates an object with one service call (decision 0121). */
export function createTool<S extends z.ZodObject>(
  deps: McpDeps,
  def: Omit<WriteToolDef<S>, 'annotations' | 'dryRunNote'>,
): ToolDef {
  return writeTool(deps, {
    ...def,
    annotations: CREATES,
    dryRunNote: 'Nothing was created; the id shown is not kept.',
  });
}
