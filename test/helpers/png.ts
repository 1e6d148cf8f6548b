// Reading Chromium screenshots in the browser tests without an image library: the
// centre pixel of an 8-bit, non-interlaced RGB/RGBA PNG (filters undone by hand).
import { inflateSync } from 'node:zlib';

/** RGB of the centre pixel of an 8-bit RGB/RGBA, non-interlaced PNG (what Chromium screenshots are). */
export function centrePixel(png: Buffer): [number, number, number] {
  let pos = 8;
  let width = 0;
  let height = 0;
  let channels = 4;
  const idat: Buffer[] = [];
  while (pos < png.length) {
    const len = png.readUInt32BE(pos);
    const type = png.toString('ascii', pos + 4, pos + 8);
    const data = png.subarray(pos + 8, pos + 8 + len);
    if (type === 'IHDR') {
      width = data.readUInt32BE(0);
      height = data.readUInt32BE(4);
      channels = data[9] === 6 ? 4 : 3;
      if (data[8] !== 8 || data[12] !== 0) throw new Error('test: unexpected PNG format');
    } else if (type === 'IDAT') idat.push(data);
    pos += 12 + len;
  }
  const raw = inflateSync(Buffer.concat(idat));
  const stride = width * channels;
  const rows: Buffer[] = [];
  let prev = Buffer.alloc(stride);
  for (let y = 0; y < height; y++) {
    const filter = raw[y * (stride + 1)]!;
    const line = Buffer.from(raw.subarray(y * (stride + 1) + 1, (y + 1) * (stride + 1)));
    for (let i = 0; i < stride; i++) {
      const a = i >= channels ? line[i - channels]! : 0;
      const b = prev[i]!;
      const c = i >= channels ? prev[i - channels]! : 0;
      const p = a + b - c;
      const paeth = Math.abs(p - a) <= Math.abs(p - b) && Math.abs(p - a) <= Math.abs(p - c) ? a : Math.abs(p - b) <= Math.abs(p - c) ? b : c;
      const add = [0, a, b, (a + b) >> 1, paeth][filter]!;
      line[i] = (line[i]! + add) & 0xff;
    }
    rows.push(line);
    prev = line;
  }
  const row = rows[height >> 1]!;
  const i = (width >> 1) * channels;
  return [row[i]!, row[i + 1]!, row[i + 2]!];
}
