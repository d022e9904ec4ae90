import { inflateSync } from 'node:zlib';
import { FAVICON_ICO_BASE64 } from '../../web/favicon-ico';
import { FAVICON_SVG } from '../../web/favicon-svg';

/**
 * The icon served at /favicon.ico (decision 0203) is a well-formed ICO file: its directory names
 * 16, 32 and 48 px images, each a PNG of that size whose data lies inside the file and inflates.
 */
test('the ICO holds 16, 32 and 48 px PNGs where its directory says', () => {
  const ico = Buffer.from(FAVICON_ICO_BASE64, 'base64');
  expect([ico.readUInt16LE(0), ico.readUInt16LE(2)]).toEqual([0, 1]);
  const count = ico.readUInt16LE(4);
  const images = [];
  for (let i = 0; i < count; i++) {
    const entry = 6 + 16 * i;
    const [length, offset] = [ico.readUInt32LE(entry + 8), ico.readUInt32LE(entry + 12)];
    expect(offset + length).toBeLessThanOrEqual(ico.length);
    const png = ico.subarray(offset, offset + length);
    expect(png.subarray(0, 8)).toEqual(Buffer.from([0x89, 0x50, 0x4e, 0x47, 0x0d, 0x0a, 0x1a, 0x0a]));
    // The PNG's chunks: IHDR gives the size; the IDAT data must inflate.
    const idat: Buffer[] = [];
    for (let at = 8; at < png.length;) {
      const size = png.readUInt32BE(at);
      const type = png.subarray(at + 4, at + 8).toString('latin1');
      if (type === 'IDAT') idat.push(png.subarray(at + 8, at + 8 + size));
      at += 12 + size;
    }
    const [width, height] = [png.readUInt32BE(16), png.readUInt32BE(20)];
    expect(inflateSync(Buffer.concat(idat)).length).toBe(height * (1 + width * 4));
    images.push({ entry: [ico[entry], ico[entry + 1]], png: [width, height] });
  }
  expect(images).toEqual([
    { entry: [16, 16], png: [16, 16] },
    { entry: [32, 32], png: [32, 32] },
    { entry: [48, 48], png: [48, 48] },
  ]);
});

test('the SVG icon is one self-contained SVG element with its own size, no script and no external reference', () => {
  expect(FAVICON_SVG).toMatch(
    /^<svg xmlns="http:\/\/www\.w3\.org\/2000\/svg" width="32" height="32"[^>]*>.*<\/svg>$/,
  );
  expect(FAVICON_SVG).not.toMatch(/<script|href=|url\(/i);
});
