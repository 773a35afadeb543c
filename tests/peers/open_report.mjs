// Opens an HTML report in Debian's Chromium (playwright-core) and prints how long it took to
// load and to be ready, how many elements it has, and any console errors. For
// scripts/bench-report.sh (a figure, not a test).
//
//   node tests/peers/open_report.mjs CHROMIUM REPORT.html
import { pathToFileURL } from 'node:url';
import { chromium } from 'playwright-core';

const [chromiumPath, file] = process.argv.slice(2);
const browser = await chromium.launch({ executablePath: chromiumPath, args: ['--no-sandbox'] });
const page = await browser.newPage({ viewport: { width: 1280, height: 900 } });
const errors = [];
page.on('console', (m) => { if (m.type() === 'error') errors.push(m.text()); });
page.on('pageerror', (e) => errors.push(String(e)));
const started = performance.now();
await page.goto(pathToFileURL(file).href, { waitUntil: 'load' });
const loaded = performance.now() - started;
const elements = await page.evaluate(() => document.getElementsByTagName('*').length);
const rows = await page.$$eval('#findings-table tbody tr', (r) => r.length).catch(() => 0);
console.log(JSON.stringify({ loadMs: Math.round(loaded), elements, findingRows: rows, consoleErrors: errors.length }));
await browser.close();
