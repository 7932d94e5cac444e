// Draws Pincer's icons (app icon and tray states) as PNGs with no dependencies:
//   node build/make-icons.mjs
// A claw (two opposing arcs) on a round badge; tray icons add a status dot.
import { mkdirSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { deflateSync } from 'node:zlib';

const root = path.resolve(import.meta.dirname, '..');

const CRC_TABLE = Array.from({ length: 256 }, (_, n) => {
  let c = n;
  for (let k = 0; k < 8; k++) c = c & 1 ? 0xedb88320 ^ (c >>> 1) : c >>> 1;
  return c >>> 0;
});
function crc32(bytes) {
  let c = 0xffffffff;
  for (const b of bytes) c = CRC_TABLE[(c ^ b) & 0xff] ^ (c >>> 8);
  return (c ^ 0xffffffff) >>> 0;
}
function chunk(type, data) {
  const out = Buffer.alloc(12 + data.length);
  out.writeUInt32BE(data.length, 0);
  out.write(type, 4, 'ascii');
  data.copy(out, 8);
  out.writeUInt32BE(crc32(out.subarray(4, 8 + data.length)), 8 + data.length);
  return out;
}
function png(size, rgba) {
  const header = Buffer.alloc(13);
  header.writeUInt32BE(size, 0);
  header.writeUInt32BE(size, 4);
  header.set([8, 6, 0, 0, 0], 8); // 8-bit RGBA
  const raw = Buffer.alloc(size * (size * 4 + 1));
  for (let y = 0; y < size; y++) {
    raw[y * (size * 4 + 1)] = 0;
    rgba.copy(raw, y * (size * 4 + 1) + 1, y * size * 4, (y + 1) * size * 4);
  }
  return Buffer.concat([
    Buffer.from([0x89, 0x50, 0x4e, 0x47, 0x0d, 0x0a, 0x1a, 0x0a]),
    chunk('IHDR', header),
    chunk('IDAT', deflateSync(raw, { level: 9 })),
    chunk('IEND', Buffer.alloc(0)),
  ]);
}

/** Paints with 4x4 supersampling; `shade(x, y)` gets unit coordinates and returns [r,g,b,a] or null. */
function draw(size, shade) {
  const out = Buffer.alloc(size * size * 4);
  const n = 4;
  for (let y = 0; y < size; y++) {
    for (let x = 0; x < size; x++) {
      let r = 0,
        g = 0,
        b = 0,
        a = 0;
      for (let sy = 0; sy < n; sy++) {
        for (let sx = 0; sx < n; sx++) {
          const c = shade((x + (sx + 0.5) / n) / size, (y + (sy + 0.5) / n) / size);
          if (!c) continue;
          r += c[0] * c[3];
          g += c[1] * c[3];
          b += c[2] * c[3];
          a += c[3];
        }
      }
      const i = (y * size + x) * 4;
      if (a > 0) {
        out[i] = Math.round(r / a);
        out[i + 1] = Math.round(g / a);
        out[i + 2] = Math.round(b / a);
      }
      out[i + 3] = Math.round((a / (n * n)) * 255);
    }
  }
  return out;
}

const ORANGE = [232, 106, 51, 1];
const DARK = [24, 27, 34, 1];

/** Two claw arcs: points in a ring band, minus a wedge opening to the upper right. */
function claw(x, y, cx, cy, radius, width) {
  const d = Math.hypot(x - cx, y - cy);
  if (Math.abs(d - radius) > width / 2) return false;
  const angle = Math.atan2(y - cy, x - cx); // -pi..pi, 0 to the right, y down
  return !(angle > -1.15 && angle < 0.35);
}

function appIcon(x, y) {
  const d = Math.hypot(x - 0.5, y - 0.5);
  if (d > 0.47) return null;
  if (claw(x, y, 0.5, 0.52, 0.24, 0.11)) return DARK;
  if (Math.hypot(x - 0.5, y - 0.52) < 0.07) return DARK;
  return ORANGE;
}

const STATUS = {
  idle: null,
  working: [64, 156, 255, 1],
  'needs-approval': [240, 62, 62, 1],
  paused: [160, 160, 168, 1],
};

function trayIcon(status) {
  const dot = STATUS[status];
  return (x, y) => {
    if (dot && Math.hypot(x - 0.78, y - 0.78) < 0.2) return dot;
    if (dot && Math.hypot(x - 0.78, y - 0.78) < 0.27) return null; // a gap around the dot
    if (claw(x, y, 0.46, 0.5, 0.3, 0.16)) return status === 'paused' ? [120, 120, 128, 1] : ORANGE;
    return null;
  };
}

mkdirSync(path.join(root, 'resources/tray'), { recursive: true });
writeFileSync(path.join(root, 'build/icon.png'), png(512, draw(512, appIcon)));
writeFileSync(path.join(root, 'resources/icon.png'), png(256, draw(256, appIcon)));
for (const status of Object.keys(STATUS)) {
  writeFileSync(
    path.join(root, `resources/tray/tray-${status}.png`),
    png(24, draw(24, trayIcon(status))),
  );
  writeFileSync(
    path.join(root, `resources/tray/tray-${status}@2x.png`),
    png(48, draw(48, trayIcon(status))),
  );
}
console.log('icons written: build/icon.png, resources/icon.png, resources/tray/*.png');
