// Draws the app icons (the briefcase of favicon.svg on the brand gradient) as PNGs, with no image library:
// shapes are signed-distance functions sampled 4x4 per pixel, written with node:zlib.
// Run: node pwa/scripts/make-icons.mjs  (the PNGs are committed under pwa/public/icons)
import { writeFileSync } from 'node:fs';
import { deflateSync } from 'node:zlib';

const FROM = [0x63, 0x66, 0xf1];
const TO = [0x7c, 0x3a, 0xed];

const roundedRectSdf = (x, y, left, top, width, height, radius) => {
  const cx = left + width / 2;
  const cy = top + height / 2;
  const qx = Math.abs(x - cx) - width / 2 + radius;
  const qy = Math.abs(y - cy) - height / 2 + radius;
  return Math.hypot(Math.max(qx, 0), Math.max(qy, 0)) + Math.min(Math.max(qx, qy), 0) - radius;
};
const segmentSdf = (x, y, ax, ay, bx, by) => {
  const t = Math.max(0, Math.min(1, ((x - ax) * (bx - ax) + (y - ay) * (by - ay)) / ((bx - ax) ** 2 + (by - ay) ** 2)));
  return Math.hypot(x - ax - t * (bx - ax), y - ay - t * (by - ay));
};

/** Is a point (in the 64-unit design space of favicon.svg) on the white briefcase strokes? */
function onGlyph(x, y) {
  const half = 2;
  if (Math.abs(roundedRectSdf(x, y, 14, 22, 36, 26, 4)) <= half) return true;
  if (y <= 22 && Math.abs(roundedRectSdf(x, y, 25, 15, 14, 14, 3)) <= half) return true;
  return segmentSdf(x, y, 14, 33, 50, 33) <= half;
}

function draw(size, { maskable }) {
  const pixels = Buffer.alloc(size * size * 4);
  const samples = 4;
  // Maskable icons keep the glyph inside the central safe zone and fill the whole square.
  const glyphScale = maskable ? 0.72 : 1;
  for (let py = 0; py < size; py++) {
    for (let px = 0; px < size; px++) {
      let background = 0;
      let glyph = 0;
      for (let sy = 0; sy < samples; sy++) {
        for (let sx = 0; sx < samples; sx++) {
          const x = ((px + (sx + 0.5) / samples) / size) * 64;
          const y = ((py + (sy + 0.5) / samples) / size) * 64;
          const inside = maskable || roundedRectSdf(x, y, 0, 0, 64, 64, 16) <= 0;
          if (!inside) continue;
          background += 1;
          if (onGlyph(32 + (x - 32) / glyphScale, 32 + (y - 32) / glyphScale)) glyph += 1;
        }
      }
      const total = samples * samples;
      const t = (px + py) / (2 * size);
      const i = (py * size + px) * 4;
      for (let c = 0; c < 3; c++) {
        const base = FROM[c] + (TO[c] - FROM[c]) * t;
        pixels[i + c] = Math.round(base + (255 - base) * (glyph / Math.max(1, background)));
      }
      pixels[i + 3] = Math.round((255 * background) / total);
    }
  }
  return encodePng(size, pixels);
}

/** The notification badge (Android's status bar): the briefcase alone, white on transparent, drawn as a mask. */
function drawBadge(size) {
  const pixels = Buffer.alloc(size * size * 4);
  const samples = 4;
  for (let py = 0; py < size; py++) {
    for (let px = 0; px < size; px++) {
      let glyph = 0;
      for (let sy = 0; sy < samples; sy++) {
        for (let sx = 0; sx < samples; sx++) {
          // The glyph spans 14..50 of the 64-unit space; scale it up to fill the badge.
          const x = 8 + ((px + (sx + 0.5) / samples) / size) * 48;
          const y = 8 + ((py + (sy + 0.5) / samples) / size) * 48;
          if (onGlyph(x, y)) glyph += 1;
        }
      }
      const i = (py * size + px) * 4;
      pixels.fill(255, i, i + 3);
      pixels[i + 3] = Math.round((255 * glyph) / (samples * samples));
    }
  }
  return encodePng(size, pixels);
}

const crcTable = Array.from({ length: 256 }, (_, n) => {
  let c = n;
  for (let k = 0; k < 8; k++) c = c & 1 ? 0xedb88320 ^ (c >>> 1) : c >>> 1;
  return c >>> 0;
});
const crc32 = (buffer) => {
  let c = 0xffffffff;
  for (const byte of buffer) c = crcTable[(c ^ byte) & 0xff] ^ (c >>> 8);
  return (c ^ 0xffffffff) >>> 0;
};
const chunk = (type, data) => {
  const length = Buffer.alloc(4);
  length.writeUInt32BE(data.length);
  const body = Buffer.concat([Buffer.from(type), data]);
  const crc = Buffer.alloc(4);
  crc.writeUInt32BE(crc32(body));
  return Buffer.concat([length, body, crc]);
};
function encodePng(size, rgba) {
  const header = Buffer.alloc(13);
  header.writeUInt32BE(size, 0);
  header.writeUInt32BE(size, 4);
  header[8] = 8; // bit depth
  header[9] = 6; // RGBA
  const rows = Buffer.alloc(size * (size * 4 + 1));
  for (let y = 0; y < size; y++) rgba.copy(rows, y * (size * 4 + 1) + 1, y * size * 4, (y + 1) * size * 4);
  return Buffer.concat([
    Buffer.from([0x89, 0x50, 0x4e, 0x47, 0x0d, 0x0a, 0x1a, 0x0a]),
    chunk('IHDR', header),
    chunk('IDAT', deflateSync(rows, { level: 9 })),
    chunk('IEND', Buffer.alloc(0)),
  ]);
}

const out = new URL('../public/icons/', import.meta.url);
writeFileSync(new URL('icon-192.png', out), draw(192, { maskable: false }));
writeFileSync(new URL('icon-512.png', out), draw(512, { maskable: false }));
writeFileSync(new URL('maskable-512.png', out), draw(512, { maskable: true }));
writeFileSync(new URL('apple-touch-icon.png', out), draw(180, { maskable: true }));
writeFileSync(new URL('badge-96.png', out), drawBadge(96));
console.log('icons written to pwa/public/icons');
