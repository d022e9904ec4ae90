import { createServer, type IncomingMessage, type Server, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import { mkdir, readdir, readFile, writeFile } from 'node:fs/promises';
import path from 'node:path';
import { SMTPServer } from 'smtp-server';
import { simpleParser, type AddressObject, type ParsedMail } from 'mailparser';
import type { Logger } from '../../stack/logger';
import { randomBase62 } from '../../domain/ids';
import { html, trusted, escapeHtml, type SafeHtml } from '../../html/html';
import { newNonce, setPageSecurityHeaders } from '../../html/security-headers';

/** A message the catcher received, parsed. */
export interface CaughtMessage {
  id: string;
  receivedAt: string;
  from: string;
  to: string[];
  subject: string;
  text: string;
  html: string | null;
  attachments: { filename: string; contentType: string; size: number }[];
}

export interface MailCatcherOptions {
  /** SMTP port; 0 (the default) picks a free one. */
  smtpPort?: number;
  /** Port of the page listing the messages; 0 (the default) picks a free one. */
  httpPort?: number;
  host?: string;
  /** Keeps each message as an .eml file here, so a restart still lists them; unset: memory only. */
  dataDir?: string;
  /** At most this many messages are kept (the oldest go first). */
  keep?: number;
  log?: Logger;
}

export interface MailCatcher {
  /** `smtp://host:port`, for SMTP_URL. */
  smtpUrl: string;
  /** The page listing the messages. */
  pageUrl: string;
  /** Every message kept, oldest first. */
  messages(): CaughtMessage[];
  /** Waits for the first message (received before or after the call) that matches. */
  waitFor(match: (m: CaughtMessage) => boolean, timeoutMs?: number): Promise<CaughtMessage>;
  stop(): Promise<void>;
}

function addresses(list: AddressObject | AddressObject[] | undefined): string[] {
  if (!list) return [];
  return (Array.isArray(list) ? list : [list]).flatMap((a) =>
    a.value.map((v) => (v.address ?? '').toLowerCase()).filter(Boolean),
  );
}

function toCaught(id: string, receivedAt: string, parsed: ParsedMail): CaughtMessage {
  return {
    id,
    receivedAt,
    from: parsed.from?.text ?? '',
    to: addresses(parsed.to),
    subject: parsed.subject ?? '',
    text: parsed.text ?? '',
    html: typeof parsed.html === 'string' ? parsed.html : null,
    attachments: parsed.attachments.map((a) => ({
      filename: a.filename ?? 'attachment',
      contentType: a.contentType,
      size: a.size,
    })),
  };
}

/** Escapes text and makes every http(s) address in it a link. */
function linkify(text: string): SafeHtml {
  return trusted(escapeHtml(text).replace(/https?:\/\/[^\s<>"']+/g, (url) => `<a href="${url}">${url}</a>`));
}

const CSS = `body{font-family:system-ui,sans-serif;margin:0;background:#fafafa;color:#1b1b1f}
header{background:#14213d;color:#fff;padding:.75rem 1.5rem}main{padding:1.5rem;max-width:60rem}
a{color:#1f4fd1}table{border-collapse:collapse;width:100%}th,td{text-align:left;padding:.4rem .6rem;border-bottom:1px solid #ddd}
pre{white-space:pre-wrap;background:#fff;border:1px solid #ddd;padding:1rem;overflow-wrap:anywhere}
:focus-visible{outline:3px solid #ffb703;outline-offset:2px}`;

function page(res: ServerResponse, title: string, body: SafeHtml, status = 200): void {
  const nonce = newNonce();
  setPageSecurityHeaders(res, { nonce });
  res.writeHead(status, { 'content-type': 'text/html; charset=utf-8' });
  res.end(
    html`<!doctype html>
      <html lang="en">
        <head>
          <meta charset="utf-8" />
          <meta name="viewport" content="width=device-width, initial-scale=1" />
          <title>${title} · Mail catcher</title>
          <style nonce="${nonce}">
            ${trusted(CSS)}
          </style>
        </head>
        <body>
          <header>
            <strong>Skil mail catcher</strong> (test environment: nothing here left this machine)
          </header>
          <main>
            <h1>${title}</h1>
            ${body}
          </main>
        </body>
      </html>`.value,
  );
}

/**
 * The test environment's mail server (decision 0114): an SMTP server that accepts every message
 * and delivers none, and a page listing what it caught, each message with its links clickable.
 * `npm start` runs one and points SMTP_URL at it; tests read its messages directly.
 */
export async function startMailCatcher(opts: MailCatcherOptions = {}): Promise<MailCatcher> {
  const host = opts.host ?? '127.0.0.1';
  const keep = opts.keep ?? 500;
  const caught: CaughtMessage[] = [];
  const waiters = new Set<{ match: (m: CaughtMessage) => boolean; resolve: (m: CaughtMessage) => void }>();
  const mailDir = opts.dataDir ? path.join(opts.dataDir, 'messages') : null;

  const add = (message: CaughtMessage) => {
    caught.push(message);
    if (caught.length > keep) caught.splice(0, caught.length - keep);
    for (const w of waiters) {
      if (w.match(message)) {
        waiters.delete(w);
        w.resolve(message);
      }
    }
  };

  if (mailDir) {
    await mkdir(mailDir, { recursive: true });
    const files = (await readdir(mailDir)).filter((f) => f.endsWith('.eml')).sort();
    for (const file of files.slice(-keep)) {
      // `<received ms>_<id>.eml`; the id has an underscore of its own (`msg_…`).
      const name = file.replace(/\.eml$/, '');
      const cut = name.indexOf('_');
      const parsed = await simpleParser(await readFile(path.join(mailDir, file)));
      add(toCaught(name.slice(cut + 1), new Date(Number(name.slice(0, cut))).toISOString(), parsed));
    }
  }

  const smtp = new SMTPServer({
    authOptional: true,
    disabledCommands: ['STARTTLS'],
    banner: 'Skil mail catcher',
    size: 10 * 1024 * 1024,
    logger: false,
    onData(stream, _session, callback) {
      const chunks: Buffer[] = [];
      stream.on('data', (c: Buffer) => chunks.push(c));
      stream.on('error', callback);
      stream.on('end', () => {
        const raw = Buffer.concat(chunks);
        const now = Date.now();
        const id = `msg_${randomBase62(14)}`;
        simpleParser(raw)
          .then(async (parsed) => {
            if (mailDir) await writeFile(path.join(mailDir, `${now}_${id}.eml`), raw);
            const message = toCaught(id, new Date(now).toISOString(), parsed);
            add(message);
            opts.log?.info({ id, to: message.to, subject: message.subject }, 'mail caught');
            callback();
          })
          .catch((err: unknown) => callback(err as Error));
      });
    },
  });
  smtp.on('error', (err) => opts.log?.warn({ err }, 'mail catcher SMTP error'));
  await new Promise<void>((resolve, reject) => {
    smtp.server.once('error', reject);
    smtp.listen(opts.smtpPort ?? 0, host, () => resolve());
  });
  const smtpPort = (smtp.server.address() as AddressInfo).port;

  const handle = (req: IncomingMessage, res: ServerResponse) => {
    const url = new URL(req.url ?? '/', 'http://catcher');
    if (req.method !== 'GET') {
      res.writeHead(405).end();
      return;
    }
    if (url.pathname === '/messages.json') {
      res.writeHead(200, { 'content-type': 'application/json' });
      res.end(JSON.stringify({ data: [...caught].reverse() }));
      return;
    }
    if (url.pathname === '/') {
      const rows = [...caught].reverse().map(
        (m) =>
          html`<tr>
            <td>${new Date(m.receivedAt).toISOString().replace('T', ' ').slice(0, 19)}</td>
            <td>${m.to.join(', ')}</td>
            <td><a href="/messages/${m.id}">${m.subject || '(no subject)'}</a></td>
          </tr>`,
      );
      page(
        res,
        'Messages',
        caught.length === 0
          ? html`<p>No messages yet. Mail sent to SMTP ${`${host}:${smtpPort}`} appears here.</p>`
          : html`<table>
              <thead>
                <tr>
                  <th scope="col">Received (UTC)</th>
                  <th scope="col">To</th>
                  <th scope="col">Subject</th>
                </tr>
              </thead>
              <tbody>
                ${rows}
              </tbody>
            </table>`,
      );
      return;
    }
    const match = /^\/messages\/(msg_[0-9A-Za-z]+)(\/html)?$/.exec(url.pathname);
    const message = match ? caught.find((m) => m.id === match[1]) : undefined;
    if (!match || !message) {
      page(res, 'Not found', html`<p><a href="/">All messages</a></p>`, 404);
      return;
    }
    if (match[2]) {
      // The sender's own HTML, sandboxed: no script, no requests, links still followable.
      res.writeHead(200, {
        'content-type': 'text/html; charset=utf-8',
        'content-security-policy':
          "sandbox allow-popups allow-top-navigation-by-user-activation; default-src 'none'; style-src 'unsafe-inline'; img-src data:",
        'x-content-type-options': 'nosniff',
        'referrer-policy': 'no-referrer',
      });
      res.end(message.html ?? '');
      return;
    }
    page(
      res,
      message.subject || '(no subject)',
      html`<p><a href="/">All messages</a></p>
        <dl>
          <dt>From</dt>
          <dd>${message.from}</dd>
          <dt>To</dt>
          <dd>${message.to.join(', ')}</dd>
          <dt>Received</dt>
          <dd>${message.receivedAt}</dd>
        </dl>
        ${message.html ? html`<p><a href="/messages/${message.id}/html">HTML version</a></p>` : ''}
        <pre>${linkify(message.text)}</pre>
        ${
          message.attachments.length > 0
            ? html`<h2>Attachments</h2>
                <ul>
                  ${message.attachments.map(
                    (a) => html`<li>${a.filename} (${a.contentType}, ${a.size} bytes)</li>`,
                  )}
                </ul>`
            : ''
        }`,
    );
  };
  const server: Server = createServer(handle);
  await new Promise<void>((resolve, reject) => {
    server.once('error', reject);
    server.listen(opts.httpPort ?? 0, host, () => resolve());
  }).catch(async (err: unknown) => {
    await new Promise<void>((r) => smtp.close(() => r()));
    throw err;
  });
  const httpPort = (server.address() as AddressInfo).port;
  const pageUrl = `http://${host === '0.0.0.0' ? '127.0.0.1' : host}:${httpPort}`;
  opts.log?.info({ smtpPort, pageUrl }, 'mail catcher listening');

  return {
    smtpUrl: `smtp://${host}:${smtpPort}`,
    pageUrl,
    messages: () => [...caught],
    waitFor(match, timeoutMs = 10_000) {
      const found = caught.find(match);
      if (found) return Promise.resolve(found);
      return new Promise((resolve, reject) => {
        const waiter = {
          match,
          resolve: (m: CaughtMessage) => {
            clearTimeout(timer);
            resolve(m);
          },
        };
        const timer = setTimeout(() => {
          waiters.delete(waiter);
          reject(new Error(`no matching mail within ${timeoutMs} ms (caught ${caught.length})`));
        }, timeoutMs);
        waiters.add(waiter);
      });
    },
    async stop() {
      server.closeAllConnections();
      await new Promise<void>((resolve) => server.close(() => resolve()));
      await new Promise<void>((resolve) => smtp.close(() => resolve()));
    },
  };
}
