import { escapeHtml, trusted, type SafeHtml } from '../html/html';

/**
 * A QR code of a URL as inline SVG (the `qrcode` library's own SVG output): markup, not an image
 * or a script, so the pages' strict CSP shows it without exceptions. Error correction M reads on a
 * phone from a tablet's screen; the quiet zone is the standard four modules.
 */
export async function qrSvg(url: string, label: string, size = 240): Promise<SafeHtml> {
  // Loaded on first use, like the PDF renderer: only product pages draw codes.
  const { default: QRCode } = await import('qrcode');
  const svg = await QRCode.toString(url, { type: 'svg', errorCorrectionLevel: 'M', margin: 4 });
  if (!svg.startsWith('<svg ')) throw new Error('qrcode did not make an SVG');
  return trusted(
    `<svg role="img" aria-label="${escapeHtml(label)}" width="${size}" height="${size}" ${svg.slice('<svg '.length)}`,
  );
}
