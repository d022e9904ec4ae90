import express, { Router, type Request, type RequestHandler, type Response } from 'express';
import type { CallToolResult } from '@modelcontextprotocol/sdk/types.js';
import type { KeyGuessGuard } from '../../services/key-guessing';
import type { AuditLogService } from '../../services/audit/audit-log-service';
import { withAuditDraft } from '../../stack/audit-context';
import { recordedAddress } from '../../domain/client-address';
import type { AccessService } from '../../services/access';
import type { Logger } from '../../stack/logger';
import { ApiError, type ErrorBody } from '../../domain/errors';
import { context, scopeOf } from '../../stack/request-context';
import { authenticate } from '../middleware/auth';
import { bodyErrors } from '../middleware/body';
import { API_VERSION } from '../openapi';
import { listed, type ToolContext, type ToolDef } from './tool';
import { readTools } from './read-tools';
import { writeTools } from './write-tools';
import { catalogTools } from './catalog-tools';
import { subscriptionTools } from './subscription-tools';
import { claimTools } from './claim-tools';
import type { McpDeps } from './services';

const INSTRUCTIONS = `Skil: payments in Iceland. Amounts are whole ISK (1000 = 1.000 kr.), never decimals.
The API key of this connection selects the merchant and the environment (sk_test_: test, no real money; sk_live_: live).
Every write tool takes idempotency_key (unset: derived from the arguments) and dry_run.
refund_payment moves money back: with a live key it first answers a preview and a confirmation_token; show the preview to the person and call again with the token only if they agree.
With a live key, create_subscription, update_subscription (a change of what is charged), cancel_subscription, create_claim and cancel_claim move or withhold money and ask the same way: the first call answers status confirmation_required with a message and a confirmation_token; show the message and call again with the same arguments and the token only if the person agrees.
An error result holds the API's error: { error: { type, message, code, param } }; param names the argument at fault.`;

const errorResult = (error: ErrorBody): CallToolResult => ({
  isError: true,
  content: [{ type: 'text', text: JSON.stringify({ error }) }],
});

/** The MCP tools, each built once at start: the same services and schemas as the API's routes. */
export function createMcpTools(deps: McpDeps): ToolDef[] {
  return [
    ...writeTools(deps),
    ...catalogTools(deps),
    ...subscriptionTools(deps),
    ...claimTools(deps),
    ...readTools(deps),
  ];
}

/**
 * The MCP server at `/mcp` (spec §1; decision 0120): Streamable HTTP in its stateless mode (a new
 * server and transport per request, no session held, so any API process answers any request),
 * authenticated with the merchant's API key as the bearer token and scoped like the API.
 */
/**
 * The MCP SDK, loaded on the first `/mcp` request: its protocol schemas take about a fifth of a
 * second to build, which every API process (and every test that starts one) paid at start-up.
 */
let sdkLoading: Promise<McpSdk> | undefined;
type McpSdk = Awaited<ReturnType<typeof importMcpSdk>>;
async function importMcpSdk() {
  const [server, http, types] = await Promise.all([
    import('@modelcontextprotocol/sdk/server/index.js'),
    import('@modelcontextprotocol/sdk/server/streamableHttp.js'),
    import('@modelcontextprotocol/sdk/types.js'),
  ]);
  return {
    ...types,
    Server: server.Server,
    StreamableHTTPServerTransport: http.StreamableHTTPServerTransport,
  };
}
const mcpSdk = () => (sdkLoading ??= importMcpSdk());

export function mcpRouter(deps: {
  access: Pick<AccessService, 'apiKey'>;
  tools: ToolDef[];
  log: Logger;
  bodyLimitBytes: number;
  /** The API's rate limit per key, counted in the same bucket as the key's /v1 requests. */
  limitPerKey?: RequestHandler | undefined;
  /** Slows key guessing per client address, as on /v1 (decision 0226). */
  keyGuessGuard?: KeyGuessGuard;
  /**
   * The merchant's audit log (decision 0227): a tool call that changes something leaves an entry
   * with the statements that change data; calls that only read, and dry runs, leave none.
   */
  auditLog?: AuditLogService;
}): Router {
  const router = Router();
  const tools = new Map(deps.tools.map((t) => [t.name, t]));
  const list = deps.tools.map(listed);

  async function callTool(
    sdk: McpSdk,
    ctx: ToolContext,
    name: string,
    args: Record<string, unknown>,
    requestId: string,
  ) {
    const tool = tools.get(name);
    if (!tool) throw new sdk.McpError(sdk.ErrorCode.InvalidParams, `Unknown tool: ${name}`);
    try {
      const result = (await tool.call(ctx, args)) as Record<string, unknown>;
      return {
        content: [{ type: 'text', text: JSON.stringify(result) }],
        structuredContent: result,
      } satisfies CallToolResult;
    } catch (err) {
      if (err instanceof ApiError) return errorResult(err.toBody());
      deps.log.error({ err, requestId, tool: name }, 'MCP tool failed');
      return errorResult({
        type: 'api_error',
        message: `An internal error occurred. Request id: ${requestId}`,
      });
    }
  }

  router.use('/mcp', authenticate(deps.access, undefined, deps.keyGuessGuard));
  if (deps.limitPerKey) router.use('/mcp', deps.limitPerKey);
  router.post(
    '/mcp',
    express.json({ limit: deps.bodyLimitBytes, type: ['application/json', 'application/*+json'] }),
    bodyErrors(deps.bodyLimitBytes),
    async (req: Request, res: Response) => {
      const ctx: ToolContext = { scope: scopeOf(res), apiKeyId: context(res).apiKeyId! };
      const { requestId } = context(res);
      context(res).route = '/mcp';
      const sdk = await mcpSdk();
      const server = new sdk.Server(
        { name: 'skil', version: API_VERSION },
        { capabilities: { tools: {} }, instructions: INSTRUCTIONS },
      );
      server.setRequestHandler(sdk.ListToolsRequestSchema, () => ({ tools: list }));
      server.setRequestHandler(sdk.CallToolRequestSchema, (request) => {
        const args = request.params.arguments ?? {};
        const call = () => callTool(sdk, ctx, request.params.name, args, requestId);
        if (!deps.auditLog) return call();
        const draft = deps.auditLog.draft({
          merchantId: ctx.scope.merchantId,
          livemode: ctx.scope.livemode,
          actorType: 'api_key',
          actorId: ctx.apiKeyId,
          clientAddress: recordedAddress(req.ip ?? req.socket.remoteAddress),
          requestId,
          action: `MCP ${request.params.name}`.slice(0, 120),
          body: args,
          pathObjectId: typeof args.id === 'string' ? args.id : null,
        });
        return withAuditDraft(draft, call);
      });
      const transport = new sdk.StreamableHTTPServerTransport({
        sessionIdGenerator: undefined,
        enableJsonResponse: true,
      });
      res.on('close', () => {
        void transport.close();
        void server.close();
      });
      await server.connect(transport);
      await transport.handleRequest(req, res, req.body);
    },
  );
  // Stateless: no stream for the server to push on (GET) and no session to end (DELETE).
  router.all('/mcp', (_req, res) => {
    res
      .status(405)
      .set('allow', 'POST')
      .json({ jsonrpc: '2.0', error: { code: -32000, message: 'Method not allowed: send POST' }, id: null });
  });
  return router;
}
