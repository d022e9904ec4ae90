import { html, type SafeHtml } from '../../html/html';
import { tableFrame } from '../layout';
import { fieldRows, type JsonSchema } from './schema-fields';
import { slug } from './markdown';

/**
 * The API reference, rendered on the server from the live OpenAPI document (decision 0250): one
 * page per tag with every operation's description, parameters, request and response schemas and
 * examples, and one page of the webhook events with a `data` example each. Nothing here knows an
 * operation by name; what the document says is what the page shows.
 */

export interface OpenApiDocument {
  info: { title: string; version: string; description?: string };
  servers?: { url: string }[];
  tags: { name: string; description?: string }[];
  'x-tagGroups': { name: string; tags: string[] }[];
  paths: Record<string, Record<string, Operation>>;
  webhooks?: Record<string, { post: Operation }>;
  components: JsonSchema;
}

export interface Operation {
  summary: string;
  description?: string;
  operationId: string;
  tags: string[];
  security: unknown[];
  parameters?: { name: string; in: string; required: boolean; schema: JsonSchema; description?: string }[];
  requestBody?: { content: Record<string, { schema: JsonSchema; example?: unknown }> };
  responses: Record<
    string,
    {
      $ref?: string;
      description?: string;
      content?: Record<string, { schema: JsonSchema; example?: unknown }>;
    }
  >;
}

export const METHODS = ['get', 'post', 'patch', 'put', 'delete'] as const;

export function tagSlug(tag: string): string {
  return slug(tag);
}

export function operationsOf(doc: OpenApiDocument, tag: string) {
  return Object.entries(doc.paths).flatMap(([path, item]) =>
    METHODS.filter((m) => item[m]?.tags.includes(tag)).map((method) => ({ method, path, op: item[method]! })),
  );
}

function pre(value: unknown, label: string): SafeHtml {
  const text = typeof value === 'string' ? value : JSON.stringify(value, null, 2);
  return html`<pre tabindex="0" aria-label="${label}"><code>${text}</code></pre>`;
}

function fieldsTable(name: string, schema: JsonSchema, doc: OpenApiDocument): SafeHtml {
  const rows = fieldRows(schema, doc as unknown as JsonSchema);
  if (rows.length === 0) return html``;
  return tableFrame(
    name,
    html`<table class="fields">
      <caption>
        ${name}
      </caption>
      <thead>
        <tr>
          <th scope="col">Field</th>
          <th scope="col">Type</th>
          <th scope="col">Description</th>
        </tr>
      </thead>
      <tbody>
        ${rows.map(
          (r) =>
            html`<tr>
              <td>
                <code>${r.name}</code>${r.required ? html` <span class="required">required</span>` : ''}
              </td>
              <td><code>${r.type}</code></td>
              <td>${r.description}</td>
            </tr>`,
        )}
      </tbody>
    </table>`,
  );
}

/** A curl line for the operation, with its example body: what a first request looks like. */
export function curlExample(doc: OpenApiDocument, method: string, path: string, op: Operation): string {
  const base = doc.servers?.[0]?.url ?? '';
  const body = op.requestBody?.content['application/json']?.example;
  const lines = [`curl${method === 'get' ? '' : ` -X ${method.toUpperCase()}`} ${base}${path}`];
  if (op.security.length > 0) lines.push('  -H "Authorization: Bearer $SKIL_API_KEY"');
  if (body !== undefined) {
    lines.push('  -H "Content-Type: application/json"');
    if (method === 'post' || method === 'patch') lines.push('  -H "Idempotency-Key: $(uuidgen)"');
    lines.push(`  -d '${JSON.stringify(body)}'`);
  }
  return lines.join(' \\\n');
}

function errorList(op: Operation, doc: OpenApiDocument): SafeHtml {
  const responses = (doc.components.responses ?? {}) as Record<string, { description: string }>;
  const errors = Object.entries(op.responses).filter(([s]) => /^[45]\d\d$/.test(s));
  return html`<dl class="facts errors">
    ${errors.map(([status, r]) => {
      const name = r.$ref?.split('/').at(-1);
      const text = (name ? responses[name]?.description : r.description) ?? '';
      return html`<dt>${status}</dt>
        <dd>${text}</dd>`;
    })}
  </dl>`;
}

function operationSection(doc: OpenApiDocument, method: string, path: string, op: Operation): SafeHtml {
  const id = op.operationId;
  const success = Object.entries(op.responses).find(([s]) => /^2\d\d$/.test(s));
  const [status, response] = success ?? ['200', undefined];
  const [mediaType, media] = Object.entries(response?.content ?? {})[0] ?? ['application/json', undefined];
  const request = op.requestBody?.content['application/json'];
  const params = op.parameters ?? [];
  return html`<section class="operation card" aria-labelledby="${id}">
    <h2 id="${id}">${op.summary}</h2>
    <p class="endpoint">
      <span class="method" data-method="${method}">${method.toUpperCase()}</span> <code>${path}</code>
    </p>
    ${(op.description ?? '').split(/\n\n+/).map((p) => html`<p>${p}</p>`)}
    <p class="muted">${op.security.length > 0 ? 'Needs an API key.' : 'No API key needed.'}</p>
    ${
      params.length > 0
        ? tableFrame(
            `Parameters of ${op.summary}`,
            html`<table>
              <caption>
                Parameters
              </caption>
              <thead>
                <tr>
                  <th scope="col">Name</th>
                  <th scope="col">In</th>
                  <th scope="col">Type</th>
                  <th scope="col">Description</th>
                </tr>
              </thead>
              <tbody>
                ${params.map(
                  (p) =>
                    html`<tr>
                      <td>
                        <code>${p.name}</code
                        >${p.required ? html` <span class="required">required</span>` : ''}
                      </td>
                      <td>${p.in}</td>
                      <td><code>${fieldRowsType(p.schema, doc)}</code></td>
                      <td>${p.description ?? (p.schema.description as string | undefined) ?? ''}</td>
                    </tr>`,
                )}
              </tbody>
            </table>`,
          )
        : ''
    }
    ${request ? fieldsTable(`Request body of ${op.summary}`, request.schema, doc) : ''}
    <h3>Example request</h3>
    ${pre(curlExample(doc, method, path, op), `Example request: ${op.summary}`)}
    <h3>Response ${status} <code>${mediaType}</code></h3>
    ${media ? fieldsTable(`Response of ${op.summary}`, media.schema, doc) : ''}
    ${media?.example !== undefined ? pre(media.example, `Example response: ${op.summary}`) : ''}
    <h3>Errors</h3>
    ${errorList(op, doc)}
  </section>`;
}

function fieldRowsType(schema: JsonSchema, doc: OpenApiDocument): string {
  const rows = fieldRows({ type: 'object', properties: { v: schema } }, doc as unknown as JsonSchema);
  return rows[0]?.type ?? 'string';
}

export function tagPage(doc: OpenApiDocument, tag: string): SafeHtml {
  const described = doc.tags.find((t) => t.name === tag);
  const ops = operationsOf(doc, tag);
  return html`<p>${described?.description ?? ''}</p>
    <nav aria-label="Operations of ${tag}">
      <ul class="operations">
        ${ops.map(
          ({ method, path, op }) =>
            html`<li>
              <a href="#${op.operationId}"
                ><span class="method" data-method="${method}">${method.toUpperCase()}</span> ${path}</a
              >
            </li>`,
        )}
      </ul>
    </nav>
    ${ops.map(({ method, path, op }) => operationSection(doc, method, path, op))}`;
}

export function eventsPage(doc: OpenApiDocument): SafeHtml {
  const events = Object.entries(doc.webhooks ?? {});
  return html`<p>
      Skil sends each event to every notification channel subscribed to its type (or to <code>*</code>), as a
      signed <code>POST</code> whose body is the event. The same events are listed, oldest first, by
      <a href="/docs/api/events"><code>GET /v1/events</code></a
      >. The <code>data</code> of an event about an object is what a <code>GET</code> of that object returns
      at that moment.
    </p>
    <ul class="operations">
      ${events.map(
        ([type]) =>
          html`<li>
            <a href="#${slug(type)}"><code>${type}</code></a>
          </li>`,
      )}
    </ul>
    ${events.map(([type, item]) => {
      const media = item.post.requestBody?.content['application/json'];
      return html`<section class="operation card" aria-labelledby="${slug(type)}">
        <h2 id="${slug(type)}"><code>${type}</code></h2>
        ${(item.post.description ?? item.post.summary).split(/\n\n+/).map((p) => html`<p>${p}</p>`)}
        ${media ? fieldsTable(`Body of ${type}`, media.schema, doc) : ''}
        ${media?.example !== undefined ? pre(media.example, `Example ${type}`) : ''}
      </section>`;
    })}`;
}

/** The tag groups with their tags, for the navigation and the index. */
export function tagIndex(doc: OpenApiDocument): SafeHtml {
  return html`${doc['x-tagGroups'].map(
    (g) =>
      html`<h3>${g.name}</h3>
        <ul>
          ${g.tags
            .filter((t) => operationsOf(doc, t).length > 0)
            .map((t) => {
              const description = doc.tags.find((x) => x.name === t)?.description ?? '';
              return html`<li><a href="/docs/api/${tagSlug(t)}">${t}</a> — ${description}</li>`;
            })}
        </ul>`,
  )}`;
}
