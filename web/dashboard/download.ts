import type { Response } from 'express';
import { html } from '../../html/html';
import { failure, sendMerchantPage, type MerchantView } from './frame';

/**
 * Sends a file the member downloads (a PDF, a UBL document, a CSV), never cached; when loading it
 * fails (an id of nothing, the other mode's), the failure as a page titled `title`.
 */
export async function sendDownload(
  res: Response,
  view: MerchantView,
  file: { type: string; filename: string; title: string },
  load: () => Promise<string | Buffer>,
): Promise<void> {
  try {
    const body = await load();
    res.type(file.type);
    res.setHeader('Content-Disposition', `attachment; filename="${file.filename}"`);
    res.setHeader('Cache-Control', 'no-store');
    res.send(body);
  } catch (err) {
    const f = failure(err);
    sendMerchantPage(res, view, html``, { title: file.title, status: f.status, error: f.message });
  }
}
