import { ApiError, type ErrorBody } from '../../domain/errors';
import { requestHash } from '../../services/idempotency';
import type { McpDeps } from './services';
import type { ToolContext } from './tool';

/** The arguments that are about how to call, not what to do: left out of what a key stands for. */
export const CALL_OPTIONS = ['idempotency_key', 'dry_run'] as const;

export function withoutOptions(
  args: Record<string, unknown>,
  options: readonly string[] = CALL_OPTIONS,
): Record<string, unknown> {
  return Object.fromEntries(Object.entries(args).filter(([k]) => !options.includes(k)));
}

/**
 * Refusals that changed nothing and may pass (a person raises a limit; tomorrow is another day):
 * not kept under the key, so the same call may be sent again, as after the API's 429.
 */
const PASSING_REFUSALS = new Set(['refund_limit_exceeded']);

/** Where a tool's calls are kept in the idempotency store, beside the API's paths. */
export const toolPath = (tool: string) => `/mcp/tools/${tool}`;

/**
 * The key of a call sent without one: the API key, the tool and the arguments, so the same call by
 * the same agent is the same call. Another API key of the merchant making the same call is another
 * agent (its own limits, its own confirmations), so it gets its own key.
 */
export function derivedKey(ctx: ToolContext, tool: string, params: Record<string, unknown>): string {
  return `mcp_${requestHash('MCP', `${ctx.apiKeyId} ${toolPath(tool)}`, params).slice(0, 48)}`;
}

/**
 * Runs a write tool's call under an idempotency key, with the rules and in the store of the API's
 * Idempotency-Key (decision 0121): the first answer (result or error) is kept 24 hours and
 * answered again for the same key and arguments; the key with other arguments is refused; a key
 * still running is refused; a failure of ours (500) or a refusal by a limit is forgotten, so the
 * call may be retried.
 */
export async function idempotent(
  deps: Pick<McpDeps, 'idempotency'>,
  ctx: ToolContext,
  call: { tool: string; key: string; params: Record<string, unknown> },
  work: () => Promise<unknown>,
): Promise<unknown> {
  const { scope } = ctx;
  const start = await deps.idempotency.begin(
    scope,
    { key: call.key, method: 'MCP', path: toolPath(call.tool), params: call.params },
    'idempotency_key',
  );
  if (start.kind === 'replay') {
    const body = JSON.parse(start.body) as { error?: ErrorBody };
    if (start.status >= 400 && body.error) {
      const e = body.error;
      throw new ApiError(start.status, e.type, e.message, e.code, e.param);
    }
    return body;
  }
  const finish = (status: number, body: unknown) =>
    deps.idempotency.finish(scope, call.key, {
      status,
      contentType: 'application/json',
      body: JSON.stringify(body),
    });
  let result: unknown;
  try {
    result = await work();
  } catch (err) {
    if (err instanceof ApiError && err.code !== undefined && PASSING_REFUSALS.has(err.code))
      await deps.idempotency.release(scope, call.key);
    else if (err instanceof ApiError) await finish(err.status, { error: err.toBody() });
    else await finish(500, null);
    throw err;
  }
  await finish(200, result);
  return result;
}
