#!/usr/bin/env node
// Reference token counts for mcpguard's exact tokenizers, from the packages themselves:
// claude-legacy = @anthropic-ai/tokenizer countTokens (NFKC, special tokens allowed),
// o200k / cl100k = tiktoken's encode_ordinary. Install first: npm ci --prefix tests/peers
//
//   node scripts/token-reference.js            # print the counts as JSON
//   node scripts/token-reference.js --check    # exit 1 if tests/fixtures/token-counts.json differs
const fs = require('fs');
const path = require('path');
const peers = path.join(__dirname, '..', 'tests', 'peers', 'node_modules');
const { countTokens } = require(path.join(peers, '@anthropic-ai', 'tokenizer'));
const { get_encoding } = require(path.join(peers, 'tiktoken'));

const root = path.join(__dirname, '..');
const FILES = [
  'contracts/examples/fail-inv001-bookings-60kb.json',
  'contracts/examples/fail-inv001-filesystem-tools-list.json',
  'contracts/examples/fail-inv003-base64-screenshot.json',
  'contracts/examples/fail-inv003-log-2mb-text.json',
  'contracts/examples/pass-everything-tiny-image.json',
  'contracts/examples/pass-time-get-current-time.json',
  'tests/fixtures/git-log-200.json',
  'tests/fixtures/filesystem-search-files.json',
  'tests/fixtures/unicode-mix.txt',
];

const o200k = get_encoding('o200k_base');
const cl100k = get_encoding('cl100k_base');
const counts = {};
for (const file of FILES) {
  const text = fs.readFileSync(path.join(root, file), 'utf8');
  counts[file] = {
    'claude-legacy': countTokens(text),
    o200k: o200k.encode_ordinary(text).length,
    cl100k: cl100k.encode_ordinary(text).length,
  };
}
o200k.free();
cl100k.free();

const json = JSON.stringify(counts, null, 2) + '\n';
const fixture = path.join(root, 'tests', 'fixtures', 'token-counts.json');
if (process.argv.includes('--check')) {
  const committed = fs.readFileSync(fixture, 'utf8');
  if (committed !== json) {
    console.error('tests/fixtures/token-counts.json differs from the packages\' counts:\n' + json);
    process.exit(1);
  }
  console.log(`token-counts.json matches @anthropic-ai/tokenizer and tiktoken on ${FILES.length} documents`);
} else {
  process.stdout.write(json);
}
