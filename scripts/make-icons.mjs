#!/usr/bin/env node
/**
 * `npm run icons`: every icon the packages need, drawn from resources/icon.svg by Chromium
 * (Playwright's, or CHROMIUM_PATH), so no image tool is needed:
 * - resources/icons/<n>x<n>.png, 16 to 1024 (Linux: AppImage, deb, the desktop file),
 * - resources/icon.png (1024, electron-builder's fallback and the window icon),
 * - resources/icon.icns (macOS: PNG entries from 16 to 1024 px, Retina variants included),
 * - resources/icon.ico (Windows: PNG entries 16 to 256 px).
 * ICNS and ICO are written here: both are a small header and a table around PNG data.
 */
import { mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { chromium } from 'playwright-core';

const RESOURCES = join(dirname(fileURLToPath(import.meta.url)), '..', 'resources');
const LINUX_SIZES = [16, 32, 48, 64, 128, 256, 512, 1024];
const ICO_SIZES = [16, 24, 32, 48, 64, 128, 256];
/** ICNS entry types holding PNG data, by pixel size (Apple's icns types; @2x variants share sizes). */
const ICNS_TYPES = [
  ['icp4', 16],
  ['icp5', 32],
  ['ic11', 32],
  ['icp6', 64],
  ['ic12', 64],
  ['ic07', 128],
  ['ic08', 256],
  ['ic13', 256],
  ['ic09', 512],
  ['ic14', 512],
  ['ic10', 1024],
];

async function render(svg, sizes) {
  const browser = await chromium.launch({ executablePath: process.env.CHROMIUM_PATH || undefined });
  try {
    const out = new Map();
    for (const size of sizes) {
      const page = await browser.newPage({ viewport: { width: size, height: size } });
      const src = `data:image/svg+xml;base64,${Buffer.from(svg).toString('base64')}`;
      await page.setContent(
        `<html><body style="margin:0;background:transparent"><img src="${src}" width="${size}" height="${size}"></body></html>`,
      );
      out.set(size, await page.screenshot({ omitBackground: true, clip: { x: 0, y: 0, width: size, height: size } }));
      await page.close();
    }
    return out;
  } finally {
    await browser.close();
  }
}

export function icns(pngs) {
  const entries = ICNS_TYPES.map(([type, size]) => {
    const data = pngs.get(size);
    const head = Buffer.alloc(8);
    head.write(type, 0, 'ascii');
    head.writeUInt32BE(8 + data.length, 4);
    return Buffer.concat([head, data]);
  });
  const body = Buffer.concat(entries);
  const head = Buffer.alloc(8);
  head.write('icns', 0, 'ascii');
  head.writeUInt32BE(8 + body.length, 4);
  return Buffer.concat([head, body]);
}

export function ico(pngs, sizes = ICO_SIZES) {
  const header = Buffer.alloc(6);
  header.writeUInt16LE(0, 0);
  header.writeUInt16LE(1, 2); // 1: icon
  header.writeUInt16LE(sizes.length, 4);
  let offset = 6 + 16 * sizes.length;
  const dir = [];
  for (const size of sizes) {
    const data = pngs.get(size);
    const e = Buffer.alloc(16);
    e.writeUInt8(size >= 256 ? 0 : size, 0); // 0 means 256
    e.writeUInt8(size >= 256 ? 0 : size, 1);
    e.writeUInt16LE(1, 4); // colour planes
    e.writeUInt16LE(32, 6); // bits per pixel
    e.writeUInt32LE(data.length, 8);
    e.writeUInt32LE(offset, 12);
    offset += data.length;
    dir.push(e);
  }
  return Buffer.concat([header, ...dir, ...sizes.map((s) => pngs.get(s))]);
}

async function main() {
  const svg = readFileSync(join(RESOURCES, 'icon.svg'), 'utf8');
  const sizes = [...new Set([...LINUX_SIZES, ...ICO_SIZES, ...ICNS_TYPES.map(([, s]) => s)])].sort((a, b) => a - b);
  const pngs = await render(svg, sizes);
  mkdirSync(join(RESOURCES, 'icons'), { recursive: true });
  for (const size of LINUX_SIZES) writeFileSync(join(RESOURCES, 'icons', `${size}x${size}.png`), pngs.get(size));
  writeFileSync(join(RESOURCES, 'icon.png'), pngs.get(1024));
  writeFileSync(join(RESOURCES, 'icon.icns'), icns(pngs));
  writeFileSync(join(RESOURCES, 'icon.ico'), ico(pngs));
  process.stdout.write(`Wrote ${LINUX_SIZES.length} PNGs, icon.png, icon.icns and icon.ico in ${RESOURCES}\n`);
}

if (process.argv[1] && fileURLToPath(import.meta.url) === process.argv[1]) await main();
