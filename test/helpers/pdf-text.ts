import { execFile } from 'node:child_process';

/**
 * The text of a PDF, read with pdf-parse (pdf.js) in a child node: pdf.js loads its worker by dynamic
 * import, which jest's module system refuses.
 */
export function pdfText(pdf: Buffer): Promise<string> {
  const script = `
    import { PDFParse } from 'pdf-parse';
    const chunks = [];
    for await (const c of process.stdin) chunks.push(c);
    const parser = new PDFParse({ data: new Uint8Array(Buffer.concat(chunks)) });
    const { text } = await parser.getText();
    await parser.destroy();
    process.stdout.write(text);
  `;
  return new Promise((resolve, reject) => {
    const child = execFile(
      process.execPath,
      ['--input-type=module', '-e', script],
      { cwd: `${__dirname}/../..`, maxBuffer: 16 * 1024 * 1024 },
      (err, stdout, stderr) => (err ? reject(new Error(`${err.message}\n${stderr}`)) : resolve(stdout)),
    );
    child.stdin!.end(pdf);
  });
}
