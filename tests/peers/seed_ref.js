// Copied unchanged (below this line) from shared/peers/seed_ref.js: the seed's response wrapper, a yardstick for the summarize benchmark.
// The seed's response wrapper (003_f7c945f3eb2faab1.txt, truncateResponse + wrapResponse size check), ported to plain JS
// as a yardstick. Usage: node seed_ref.js FILE  -> prints the truncated JSON
const fs = require('fs');
const L = { maxBytes: 10240, maxArrayItems: 10, maxStringLength: 500, maxJsonDepth: 4 };
function truncate(data, depth = 0) {
  if (depth > L.maxJsonDepth) return '[truncated]';
  if (Array.isArray(data)) {
    const t = data.slice(0, L.maxArrayItems).map(x => truncate(x, depth + 1));
    return data.length > L.maxArrayItems ? { items: t, totalCount: data.length, showing: L.maxArrayItems } : t;
  }
  if (typeof data === 'string' && data.length > L.maxStringLength) return data.slice(0, L.maxStringLength) + '...';
  if (typeof data === 'object' && data !== null) {
    const r = {};
    for (const [k, v] of Object.entries(data)) r[k] = truncate(v, depth + 1);
    return r;
  }
  return data;
}
const data = JSON.parse(fs.readFileSync(process.argv[2], 'utf8'));
const needsArtifact = JSON.stringify(data).length > L.maxBytes;
process.stdout.write(JSON.stringify({ summary: 'x', ...truncate(data), ...(needsArtifact ? { hasMore: true } : {}) }) + '\n');
