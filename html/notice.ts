import { html, trusted, type SafeHtml } from './html';

/**
 * A notice box; `role=alert` for errors so screen readers announce them. The page styles
 * `.notice.error`, `.notice.ok` and `.notice.warn`.
 */
export function notice(kind: 'error' | 'ok' | 'warn', text: string | SafeHtml): SafeHtml {
  return html`<div class="notice ${kind}" ${kind === 'error' ? trusted('role="alert"') : ''}>${text}</div>`;
}
