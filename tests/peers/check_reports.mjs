// The HTML reports in a real browser (Debian's Chromium, driven headless by playwright-core):
// no console errors; the charts are there with the counts the JSON report and the records say;
// a filter changes the findings table (and the URL); sorting works; dark mode changes the page;
// a screenshot of each, light, for a person to look at (and the README).
//
//   node tests/peers/check_reports.mjs CHROMIUM AUDIT.html AUDIT.json METRICS.html RECORDS.jsonl OUT_DIR
import { readFileSync } from 'node:fs';
import { pathToFileURL } from 'node:url';
import { chromium } from 'playwright-core';

const [chromiumPath, auditHtml, auditJson, metricsHtml, recordsFile, outDir] = process.argv.slice(2);
const report = JSON.parse(readFileSync(auditJson, 'utf8'));
const records = readFileSync(recordsFile, 'utf8').split('\n').filter(Boolean).map((l) => JSON.parse(l));
const failures = [];
const check = (ok, what) => {
  if (!ok) failures.push(what);
  console.log(`${ok ? 'ok  ' : 'FAIL'} ${what}`);
};

const browser = await chromium.launch({ executablePath: chromiumPath, args: ['--no-sandbox'] });
async function open(file, colorScheme = 'light') {
  const page = await browser.newPage({ viewport: { width: 1280, height: 900 }, colorScheme });
  const errors = [];
  page.on('console', (m) => { if (m.type() === 'error') errors.push(m.text()); });
  page.on('pageerror', (e) => errors.push(String(e)));
  page.on('request', (r) => { if (!r.url().startsWith('file:')) errors.push(`a request left the file: ${r.url()}`); });
  const started = Date.now();
  await page.goto(pathToFileURL(file).href, { waitUntil: 'load' });
  return { page, errors, ms: Date.now() - started };
}

// The audit report.
{
  const { page, errors, ms } = await open(auditHtml);
  check(errors.length === 0, `audit report: no console errors (${errors.join('; ')})`);
  console.log(`     loaded in ${ms} ms`);
  // As it opens, before anything is clicked: the whole page, and its top for the README.
  await page.screenshot({ path: `${outDir}/audit-report.png`, fullPage: true });
  await page.screenshot({ path: `${outDir}/audit-report-top.png`, fullPage: true, clip: { x: 0, y: 0, width: 1280, height: 1800 } });
  const findings = [...report.documents.flatMap((d) => d.findings), ...(report.corpusFindings ?? [])];
  const strips = await page.$$eval('#tool-strips g.strip', (gs) => gs.map((g) => [g.dataset.tool, +g.dataset.count]));
  check(strips.length === report.tools.length, `audit report: a strip per tool (${strips.length} of ${report.tools.length})`);
  const dots = strips.reduce((n, s) => n + s[1], 0);
  check(dots === report.documents.length, `audit report: a dot per response (${dots} of ${report.documents.length})`);
  const circles = await page.$$eval('#tool-strips circle.dot', (c) => c.length);
  check(circles === dots, `audit report: the dots are drawn (${circles})`);
  const shares = await page.$$eval('svg.share', (s) => s.map((svg) => [...svg.querySelectorAll('rect')].reduce((n, r) => n + +r.dataset.count, 0)));
  check(shares.length > 0 && shares.every((n) => n === report.documents.length), `audit report: each client's shares add up to the responses (${shares})`);
  const perTool = await page.$$eval('#clients-table tbody tr', (r) => r.length);
  check(perTool === report.tools.length, `audit report: what each client does, per tool (${perTool} rows)`);
  const cells = await page.$$eval('svg.treemap g.cell-group', (g) => g.length);
  const withPaths = report.documents.filter((d) => (d.topPaths ?? []).length > 0).length;
  check(withPaths === 0 || cells > 0, `audit report: where the tokens go, as a treemap (${cells} cells)`);
  const rows = () => page.$$eval('#findings-table tbody tr', (rs) => rs.filter((r) => !r.hidden).length);
  check((await rows()) === findings.length, `audit report: a row per finding (${await rows()} of ${findings.length})`);
  const errorsOnly = findings.filter((f) => f.severity === 'error').length;
  await page.selectOption('[data-filter=severity]', 'error');
  check((await rows()) === errorsOnly, `audit report: the severity filter leaves the errors (${await rows()} of ${errorsOnly})`);
  check(page.url().endsWith('#severity=error'), `audit report: the filter is in the URL (${page.url().split('#')[1]})`);
  check((await page.textContent('#shown')) === String(errorsOnly), 'audit report: the count shown follows the filter');
  const rule = findings[0]?.code;
  await page.selectOption('[data-filter=severity]', '');
  await page.selectOption('[data-filter=rule]', rule);
  const ofRule = findings.filter((f) => f.code === rule).length;
  check((await rows()) === ofRule, `audit report: the rule filter leaves ${rule} (${await rows()} of ${ofRule})`);
  await page.selectOption('[data-filter=rule]', '');
  // A link with a filter opens filtered.
  const linked = await browser.newPage();
  await linked.goto(pathToFileURL(auditHtml).href + '#severity=warning');
  const warnings = findings.filter((f) => f.severity === 'warning').length;
  const linkedRows = await linked.$$eval('#findings-table tbody tr', (rs) => rs.filter((r) => !r.hidden).length);
  check(linkedRows === warnings, `audit report: #severity=warning opens filtered (${linkedRows} of ${warnings})`);
  // Sorting by max tokens: the largest first, then, clicked again, the smallest.
  const firstMax = async () => page.$eval('#tools-table tbody tr td:nth-child(5)', (td) => +td.dataset.v);
  const maxes = report.tools.map((t) => t.tokens.max);
  await page.click('#tools-table th[data-key=max]');
  check((await firstMax()) === Math.max(...maxes), `audit report: sorting by max tokens puts the largest first (${await firstMax()})`);
  await page.click('#tools-table th[data-key=max]');
  check((await firstMax()) === Math.min(...maxes), `audit report: and again, the smallest (${await firstMax()})`);

  const { page: dark } = await open(auditHtml, 'dark');
  const bg = async (p) => p.evaluate(() => getComputedStyle(document.body).backgroundColor);
  check((await bg(page)) !== (await bg(dark)), `audit report: dark mode has its own colours (${await bg(dark)})`);
  await dark.screenshot({ path: `${outDir}/audit-report-dark.png` });
  // Printed: no controls, the table's header not stuck to the top.
  await page.emulateMedia({ media: 'print' });
  const printed = await page.$eval('.controls', (c) => getComputedStyle(c).display);
  check(printed === 'none', `audit report: printing leaves out the filter controls (${printed})`);
}

// The proxy's metrics report.
{
  const { page, errors, ms } = await open(metricsHtml);
  check(errors.length === 0, `metrics report: no console errors (${errors.join('; ')})`);
  console.log(`     loaded in ${ms} ms`);
  const calls = records.filter((r) => r.method === 'tools/call' && r.tool !== 'mcpguard_more');
  const tools = new Set(calls.map((r) => r.tool));
  const pairs = await page.$$eval('#tool-tokens g.pair', (g) => g.map((x) => [x.dataset.label, +x.dataset.a, +x.dataset.b]));
  check(pairs.length === tools.size, `metrics report: before and after for each tool (${pairs.length} of ${tools.size})`);
  const before = calls.reduce((n, r) => n + r.tokensBefore, 0);
  const after = calls.reduce((n, r) => n + r.tokensAfter, 0);
  check(pairs.reduce((n, p) => n + p[1], 0) === before, `metrics report: tokens before add up (${before})`);
  check(pairs.reduce((n, p) => n + p[2], 0) === after, `metrics report: tokens after add up (${after})`);
  const all = await page.$eval('svg.share[data-label="all tools"]', (s) => [...s.querySelectorAll('rect')].reduce((n, r) => n + +r.dataset.count, 0));
  check(all === calls.length, `metrics report: the outcomes cover every result (${all} of ${calls.length})`);
  const lines = await page.$$eval('#over-time polyline', (p) => p.length);
  check(lines === 2, `metrics report: tokens kept out and sent, over time (${lines} lines)`);
  // How the model read: every mcpguard_more record counted once, under its way.
  const reads = records.filter((r) => r.tool === 'mcpguard_more' && r.moreWay);
  const ways = await page.$$eval('#readings-table tbody tr', (rows) => rows.map((r) => +r.cells[1].textContent.replace(/,/g, '')));
  const searches = reads.filter((r) => r.moreWay === 'match').length;
  check(ways.reduce((n, c) => n + c, 0) === reads.length && searches > 0 && ways.length >= 2,
    `metrics report: reads by way add up (${ways.join(' + ')} = ${reads.length}, ${searches} searches)`);
  const latency = await page.$$eval('#latency-table tbody tr', (r) => r.length);
  check(latency === 2, `metrics report: upstream and overhead percentiles (${latency} rows)`);
  await page.screenshot({ path: `${outDir}/metrics-report.png`, fullPage: true });
}

await browser.close();
if (failures.length) {
  console.error(`${failures.length} browser checks failed`);
  process.exit(1);
}
console.log(`screenshots in ${outDir}`);
