import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StreamableHTTPClientTransport } from '@modelcontextprotocol/sdk/client/streamableHttp.js';

/** What a tool call answered: its structured result, or the API's error envelope it carried. */
export type ToolAnswer = { ok: true; result: any } | { ok: false; error: any };

/**
 * The SDK's own MCP client over Streamable HTTP to `{url}/mcp`, sending the key as the bearer token,
 * as an MCP client configured with an Authorization header does.
 */
export async function connectMcp(url: string, key: string | null): Promise<Client> {
  const client = new Client({ name: 'skil-test-agent', version: '1.0.0' });
  const transport = new StreamableHTTPClientTransport(new URL(`${url}/mcp`), {
    requestInit: { headers: key === null ? {} : { authorization: `Bearer ${key}` } },
  });
  await client.connect(transport);
  return client;
}

/** Calls a tool and reads its answer: structuredContent, or the error envelope in its text. */
export async function callTool(client: Client, name: string, args: Record<string, unknown> = {}) {
  const r = (await client.callTool({ name, arguments: args })) as {
    isError?: boolean;
    structuredContent?: unknown;
    content: { type: string; text?: string }[];
  };
  if (r.isError) {
    const text = r.content.find((c) => c.type === 'text')?.text ?? '';
    let parsed: any;
    try {
      parsed = JSON.parse(text);
    } catch {
      parsed = { error: { message: text } };
    }
    return { ok: false, error: parsed.error } as ToolAnswer;
  }
  return { ok: true, result: r.structuredContent } as ToolAnswer;
}

/** The result of a call that must succeed. */
export async function ok(client: Client, name: string, args: Record<string, unknown> = {}): Promise<any> {
  const a = await callTool(client, name, args);
  if (!a.ok) throw new Error(`${name} failed: ${JSON.stringify(a.error)}`);
  return a.result;
}

/** The error envelope of a call that must fail. */
export async function fails(client: Client, name: string, args: Record<string, unknown> = {}): Promise<any> {
  const a = await callTool(client, name, args);
  if (a.ok) throw new Error(`${name} succeeded, expected an error: ${JSON.stringify(a.result)}`);
  return a.error;
}

/**
 * MCP clients for a file's tests, each connected with a key to the stack's API and closed after
 * every test (registers its own afterEach).
 */
export function mcpAgents(url: () => string): (key: string) => Promise<Client> {
  const clients: Client[] = [];
  afterEach(async () => {
    await Promise.all(clients.splice(0).map((c) => c.close()));
  });
  return async (key) => {
    const c = await connectMcp(url(), key);
    clients.push(c);
    return c;
  };
}
