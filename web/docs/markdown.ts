import { escapeHtml, SafeHtml } from '../../html/html';

/**
 * The Markdown of our guides (docs/guides/), rendered by the project rather than a library
 * (decision 0251): the subset the guides use — headings, paragraphs, lists, fenced code, pipe
 * tables, block quotes, links, `code`, **strong** and *emphasis*. Raw HTML is never passed
 * through: every character of the source is escaped, so a guide cannot put a script or a style
 * into a page the CSP would then have to refuse.
 */

export interface CodeBlock {
  /** The first word of the fence's info string (`sh`, `ts`, `json`). */
  lang: string;
  /** The fence said `runnable`: the samples test runs it (test/integration/docs.test.ts). */
  runnable: boolean;
  code: string;
  /** 1-based line of the opening fence, for a failing sample's report. */
  line: number;
}

export interface Heading {
  depth: number;
  text: string;
  id: string;
}

export interface RenderedMarkdown {
  html: SafeHtml;
  /** The first `#` heading: the page's title. */
  title: string;
  headings: Heading[];
}

/** A heading's anchor: lower case letters (Icelandic ones kept), digits and dashes. */
export function slug(text: string): string {
  return text
    .toLowerCase()
    .replace(/[`*_[\]()]/g, '')
    .replace(/[^a-z0-9áðéíóúýþæö]+/g, '-')
    .replace(/^-|-$/g, '');
}

/** Inline markup of one escaped-on-the-way line: code spans first, so their content stays literal. */
export function inline(text: string): string {
  const parts = text.split(/(`[^`]+`)/);
  return parts
    .map((part) => {
      if (part.startsWith('`') && part.endsWith('`') && part.length > 1)
        return `<code>${escapeHtml(part.slice(1, -1))}</code>`;
      let out = escapeHtml(part);
      out = out.replace(/\[([^\]]+)\]\(([^)\s]+)\)/g, (_m, label: string, href: string) => {
        // Only our own paths, fragments and https addresses; never javascript: or data:.
        const safe = /^(\/|#|https:\/\/|\.\.?\/)/.test(href) ? href : '#';
        return `<a href="${safe}">${label}</a>`;
      });
      out = out.replace(/\*\*([^*]+)\*\*/g, '<strong>$1</strong>');
      out = out.replace(/(^|[^*\w])\*([^*\s][^*]*)\*(?=[^*\w]|$)/g, '$1<em>$2</em>');
      return out;
    })
    .join('');
}

function tableRow(line: string): string[] {
  return line
    .trim()
    .replace(/^\||\|$/g, '')
    .split(/(?<!\\)\|/)
    .map((c) => c.trim().replace(/\\\|/g, '|'));
}

/** Renders a guide; fenced code blocks are returned too, for the samples test. */
export function renderMarkdown(source: string): RenderedMarkdown & { code: CodeBlock[] } {
  const lines = source.replace(/\r\n/g, '\n').split('\n');
  const out: string[] = [];
  const headings: Heading[] = [];
  const code: CodeBlock[] = [];
  const ids = new Map<string, number>();
  let title = '';
  let i = 0;
  const isBlockStart = (l: string) =>
    /^(#{1,4}) /.test(l) || /^```/.test(l) || /^\s*([-*]|\d+\.) /.test(l) || /^\|/.test(l) || /^> ?/.test(l);

  while (i < lines.length) {
    const line = lines[i]!;
    if (line.trim() === '') {
      i++;
      continue;
    }
    const heading = /^(#{1,4}) (.+)$/.exec(line);
    if (heading) {
      const depth = heading[1]!.length;
      const text = heading[2]!.trim();
      let id = slug(text) || 'section';
      const n = ids.get(id) ?? 0;
      ids.set(id, n + 1);
      if (n > 0) id = `${id}-${n + 1}`;
      headings.push({ depth, text, id });
      // The first `#` heading is the page's title, which the page frame writes as its h1.
      if (depth === 1 && !title) title = text.replace(/`/g, '');
      else out.push(`<h${depth} id="${id}">${inline(text)}</h${depth}>`);
      i++;
      continue;
    }
    const fence = /^```\s*(\S*)\s*(.*)$/.exec(line);
    if (fence) {
      const start = i + 1;
      const body: string[] = [];
      i++;
      while (i < lines.length && !/^```\s*$/.test(lines[i]!)) body.push(lines[i++]!);
      i++; // the closing fence
      const lang = fence[1] ?? '';
      const runnable = /\brunnable\b/.test(fence[2] ?? '');
      code.push({ lang, runnable, code: body.join('\n'), line: start });
      // A scrolling block takes focus, so a keyboard can scroll it too (axe: scrollable-region-focusable).
      out.push(
        `<pre tabindex="0"${lang ? ` data-lang="${escapeHtml(lang)}"` : ''}><code>${escapeHtml(body.join('\n'))}</code></pre>`,
      );
      continue;
    }
    if (/^\|/.test(line)) {
      const rows: string[][] = [];
      while (i < lines.length && /^\|/.test(lines[i]!)) rows.push(tableRow(lines[i++]!));
      const [head, , ...rest] = rows;
      out.push(
        `<div class="table-scroll" role="group" aria-label="${escapeHtml((head ?? []).join(', '))}" tabindex="0"><table><thead><tr>${(
          head ?? []
        )
          .map((c) => `<th scope="col">${inline(c)}</th>`)
          .join('')}</tr></thead><tbody>${rest
          .map((r) => `<tr>${r.map((c) => `<td>${inline(c)}</td>`).join('')}</tr>`)
          .join('')}</tbody></table></div>`,
      );
      continue;
    }
    if (/^> ?/.test(line)) {
      const body: string[] = [];
      while (i < lines.length && /^> ?/.test(lines[i]!)) body.push(lines[i++]!.replace(/^> ?/, ''));
      out.push(`<blockquote><p>${inline(body.join(' '))}</p></blockquote>`);
      continue;
    }
    const item = /^\s*([-*]|\d+\.) (.*)$/.exec(line);
    if (item) {
      const ordered = /\d/.test(item[1]!);
      const items: string[] = [];
      while (i < lines.length) {
        const l = lines[i]!;
        const m = /^\s*([-*]|\d+\.) (.*)$/.exec(l);
        if (m) {
          items.push(m[2]!);
          i++;
        } else if (/^\s{2,}\S/.test(l) && items.length > 0) {
          // A continuation line of the item above.
          items[items.length - 1] += ` ${l.trim()}`;
          i++;
        } else break;
      }
      const tag = ordered ? 'ol' : 'ul';
      out.push(`<${tag}>${items.map((t) => `<li>${inline(t)}</li>`).join('')}</${tag}>`);
      continue;
    }
    const para: string[] = [];
    while (i < lines.length && lines[i]!.trim() !== '' && !isBlockStart(lines[i]!))
      para.push(lines[i++]!.trim());
    out.push(`<p>${inline(para.join(' '))}</p>`);
  }
  return { html: new SafeHtml(out.join('\n')), title, headings, code };
}
