/**
 * One CSV cell (RFC 4180), safe to open in a spreadsheet (decision 0232): text that begins with
 * `=`, `+`, `-`, `@`, a tab or a carriage return is what spreadsheets run as a formula, so it gets
 * a leading apostrophe and is shown as the text it is. Numbers are written as numbers: every number
 * this writes is one of ours, never a merchant's or a buyer's text. Quoted when it holds a comma,
 * a quote or a line break.
 */
export function csvCell(value: string | number | null | undefined): string {
  if (value === null || value === undefined) return '';
  if (typeof value === 'number') return String(value);
  const text = /^[=+\-@\t\r]/.test(value) ? `'${value}` : value;
  return /[",\r\n]/.test(text) ? `"${text.replace(/"/g, '""')}"` : text;
}

/** One CSV record with its line end. */
export function csvRow(cells: readonly (string | number | null | undefined)[]): string {
  return `${cells.map(csvCell).join(',')}\r\n`;
}
