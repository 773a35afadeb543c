//! Finding, not paging: the entries of a text that match a regular expression, whole, at the
//! boundaries `chunk` cuts at (a log entry with its stack trace, a Markdown section's block, a
//! JSONL record; in plain text, the line), each with its line numbers.
//!
//! The text is pushed through a [`Searcher`] in pieces of any size, so a 100 MB artifact is read
//! once and never held: only the entry being read, the few lines of context before it and the
//! blocks of the page asked for are kept. Every match is counted (the answer says "42 entries
//! match"); only the blocks of the window (`skip` blocks on, within a token budget) are kept.
//! `context: N` adds N lines before and after each match; matches whose context touches merge
//! into one block. Patterns are the `regex` crate's: linear time, size-limited.
//!
//! A line too long to be one entry (a database's `str(rows)` on one line, minified HTML, a
//! log joined with spaces) is not shown whole: each hit comes in a window of its own, the
//! record of a list written on one line that holds it, else a few hundred bytes around it cut
//! at a tag's end, a comma or a space; the block says which bytes of the line it holds.

use std::collections::VecDeque;

use regex::bytes::{Regex, RegexBuilder};

use super::boundaries::{self, Kind};
use super::{Classifier, SNIFF_BYTES};
use crate::tokens::Tokenizer;

/// Compiled patterns may take this much memory (the regex crate's own limit is 10 MB).
const PATTERN_SIZE_LIMIT: usize = 1 << 20;
/// Longest pattern taken, in bytes.
pub const MAX_PATTERN_BYTES: usize = 1_000;
/// Lines of context at most.
pub const MAX_CONTEXT: usize = 50;
/// An entry longer than this is searched (and shown) in parts of this size.
const MAX_UNIT_BYTES: usize = 1 << 20;
/// A line longer than this is shown in windows around its hits, not whole.
const LONG_LINE_BYTES: usize = 2 << 10;
/// Bytes shown on each side of a hit in a long line (a record of a list is shown whole up to
/// [`MAX_RECORD_BYTES`]).
const WINDOW_BYTES: usize = 240;
const MAX_RECORD_BYTES: usize = 8 << 10;

/// Compiles `pattern` (the regex crate's syntax; `^` and `$` at line ends), or says why not.
pub fn compile(pattern: &str) -> Result<Regex, String> {
    if pattern.is_empty() {
        return Err("an empty pattern matches everything; read it in pages instead".into());
    }
    if pattern.len() > MAX_PATTERN_BYTES {
        return Err(format!(
            "the pattern is {} bytes, over {MAX_PATTERN_BYTES}",
            pattern.len()
        ));
    }
    RegexBuilder::new(pattern)
        .multi_line(true)
        .size_limit(PATTERN_SIZE_LIMIT)
        .dfa_size_limit(PATTERN_SIZE_LIMIT)
        .build()
        .map_err(|e| match e {
            regex::Error::CompiledTooBig(_) => format!(
                "the pattern is too costly (it compiles to over {} KB); use a simpler one",
                PATTERN_SIZE_LIMIT >> 10
            ),
            e => format!(
                "not a valid pattern (the regex crate's syntax): {}",
                e.to_string().lines().last().unwrap_or("").trim()
            ),
        })
}

/// What to look for.
#[derive(Clone, Debug)]
pub struct Query {
    pub pattern: Regex,
    /// Lines to add before and after each match.
    pub context: usize,
    /// The kind of text; `None` detects it from the first 64 KB.
    pub kind: Option<Kind>,
}

/// Which blocks to keep: from block `skip` (0-based), while they fit `max_tokens` (the first
/// one always, cut to fit) and number at most `max_blocks`.
#[derive(Clone, Copy, Debug)]
pub struct Window {
    pub skip: usize,
    pub max_blocks: usize,
    pub max_tokens: u64,
    pub tokenizer: Tokenizer,
}

/// Matches shown together: whole entries (and their context), contiguous lines.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Block {
    pub start_line: u64,
    /// The last line shown (the block's own last line unless it was cut).
    pub end_line: u64,
    pub text: String,
    /// The block's last line, when it was cut to fit the budget (`end_line` is then less).
    pub cut_from: Option<u64>,
    /// For a window of a long line: the bytes of that line it holds, from 1, inclusive.
    pub bytes: Option<(u64, u64)>,
}

impl Block {
    /// Where the block is, for its heading: `lines 12-14`, or `line 1, bytes 1200-1650` for
    /// a window of a long line.
    pub fn place(&self) -> String {
        match self.bytes {
            Some((from, to)) => format!("line {}, bytes {from}-{to}", self.start_line),
            None => format!("lines {}-{}", self.start_line, self.end_line),
        }
    }
}

/// What a search found.
#[derive(Clone, Debug)]
pub struct Found {
    pub kind: Kind,
    /// Entries (or lines, in plain text) that match.
    pub entries: u64,
    /// Blocks they make (fewer than entries when context merged some).
    pub blocks: u64,
    pub total_lines: u64,
    pub total_bytes: u64,
    /// The window's blocks, in order, starting at block `window.skip`.
    pub shown: Vec<Block>,
    /// xxh3 of the bytes, as `chunk` fingerprints them: a cursor for other text is refused.
    pub fingerprint: String,
}

/// The entry being read and where it started.
struct Unit {
    bytes: Vec<u8>,
    start_line: u64,
    lines: u64,
}

/// A block still taking its after-context.
struct Open {
    start_line: u64,
    end_line: u64,
    text: Vec<u8>,
    after_left: usize,
    /// A window of a long line: which of its bytes (see [`Block::bytes`]).
    bytes: Option<(u64, u64)>,
}

/// Reads a text pushed in pieces and finds what matches.
pub struct Searcher {
    query: Query,
    window: Window,
    counter: &'static dyn crate::tokens::TokenCounter,
    /// The first bytes, held until the kind is known.
    head: Option<Vec<u8>>,
    classifier: Option<Classifier>,
    kind: Kind,
    hasher: xxhash_rust::xxh3::Xxh3,
    total_bytes: u64,
    /// An incomplete line carried to the next piece.
    partial: Vec<u8>,
    line_no: u64,
    unit: Unit,
    /// Lines before the current entry not yet in a block (at most `context`).
    before: VecDeque<Vec<u8>>,
    open: Option<Open>,
    entries: u64,
    blocks: u64,
    shown: Vec<Block>,
    used_tokens: u64,
    /// The window is full: later blocks are only counted.
    full: bool,
}

impl Searcher {
    pub fn new(query: Query, window: Window) -> Searcher {
        let kind = query.kind.unwrap_or(Kind::Text);
        Searcher {
            head: query.kind.is_none().then(Vec::new),
            classifier: query.kind.map(Classifier::new),
            counter: window.tokenizer.counter(),
            kind,
            query,
            window,
            hasher: xxhash_rust::xxh3::Xxh3::new(),
            total_bytes: 0,
            partial: Vec::new(),
            line_no: 0,
            unit: Unit {
                bytes: Vec::new(),
                start_line: 1,
                lines: 0,
            },
            before: VecDeque::new(),
            open: None,
            entries: 0,
            blocks: 0,
            shown: Vec::new(),
            used_tokens: 0,
            full: false,
        }
    }

    /// The next piece of the text.
    pub fn feed(&mut self, bytes: &[u8]) {
        self.hasher.update(bytes);
        self.total_bytes += bytes.len() as u64;
        if let Some(head) = &mut self.head {
            head.extend_from_slice(bytes);
            if head.len() >= SNIFF_BYTES {
                self.settle_kind();
            }
            return;
        }
        self.lines_of(bytes);
    }

    /// The end of the text: what was found.
    pub fn finish(mut self) -> Found {
        if self.head.is_some() {
            self.settle_kind();
        }
        if !self.partial.is_empty() {
            let last = std::mem::take(&mut self.partial);
            self.line(&last);
        }
        self.close_unit();
        if let Some(open) = self.open.take() {
            self.emit(open);
        }
        Found {
            kind: self.kind,
            entries: self.entries,
            blocks: self.blocks,
            total_lines: self.line_no,
            total_bytes: self.total_bytes,
            shown: self.shown,
            fingerprint: format!("{:016x}", self.hasher.digest()),
        }
    }

    fn settle_kind(&mut self) {
        let head = self.head.take().unwrap_or_default();
        self.kind = Kind::detect(None, &head[..head.len().min(SNIFF_BYTES)]);
        self.classifier = Some(Classifier::new(self.kind));
        self.lines_of(&head);
    }

    fn lines_of(&mut self, mut bytes: &[u8]) {
        if !self.partial.is_empty() {
            match memchr::memchr(b'\n', bytes) {
                Some(at) => {
                    let mut line = std::mem::take(&mut self.partial);
                    line.extend_from_slice(&bytes[..=at]);
                    self.line(&line);
                    bytes = &bytes[at + 1..];
                }
                None => {
                    self.partial.extend_from_slice(bytes);
                    return;
                }
            }
        }
        let mut start = 0;
        for end in memchr::memchr_iter(b'\n', bytes) {
            self.line(&bytes[start..=end]);
            start = end + 1;
        }
        self.partial.extend_from_slice(&bytes[start..]);
    }

    fn line(&mut self, line: &[u8]) {
        self.line_no += 1;
        // In plain text a match is its line; elsewhere, its entry.
        let starts = self.kind == Kind::Text
            || self
                .classifier
                .as_mut()
                .is_some_and(|c| c.starts_unit(line));
        if (starts && self.unit.lines > 0) || self.unit.bytes.len() + line.len() > MAX_UNIT_BYTES {
            self.close_unit();
        }
        if self.unit.lines == 0 {
            self.unit.start_line = self.line_no;
        }
        self.unit.bytes.extend_from_slice(line);
        self.unit.lines += 1;
    }

    fn close_unit(&mut self) {
        if self.unit.lines == 0 {
            return;
        }
        let end_line = self.unit.start_line + self.unit.lines - 1;
        let context = self.query.context;
        if self.unit.lines == 1 && self.unit.bytes.len() > LONG_LINE_BYTES {
            self.windows_of_long_line();
            self.unit.bytes.clear();
            self.unit.lines = 0;
            return;
        }
        if self.query.pattern.is_match(&self.unit.bytes) {
            self.entries += 1;
            match &mut self.open {
                Some(open) => {
                    open.text.extend_from_slice(&self.unit.bytes);
                    open.end_line = end_line;
                    open.after_left = context;
                }
                None => {
                    let mut text = Vec::new();
                    let start_line = self.unit.start_line - self.before.len() as u64;
                    for line in self.before.drain(..) {
                        text.extend_from_slice(&line);
                    }
                    text.extend_from_slice(&self.unit.bytes);
                    self.open = Some(Open {
                        start_line,
                        end_line,
                        text,
                        after_left: context,
                        bytes: None,
                    });
                }
            }
            if context == 0
                && let Some(open) = self.open.take()
            {
                self.emit(open);
            }
        } else if context > 0 {
            let bytes = std::mem::take(&mut self.unit.bytes);
            for line in bytes.split_inclusive(|&b| b == b'\n') {
                match &mut self.open {
                    Some(open) if open.after_left > 0 => {
                        open.text.extend_from_slice(line);
                        open.end_line += 1;
                        open.after_left -= 1;
                    }
                    _ => {
                        if let Some(open) = self.open.take() {
                            self.emit(open);
                        }
                        if self.before.len() == context {
                            self.before.pop_front();
                        }
                        self.before.push_back(line.to_vec());
                    }
                }
            }
            self.unit.bytes = bytes;
        }
        self.unit.bytes.clear();
        self.unit.lines = 0;
    }

    /// The unit is one long line: each hit (merged with those whose windows overlap) is a
    /// block of its own. A long line is no one's context: it would be shown whole.
    fn windows_of_long_line(&mut self) {
        let line = std::mem::take(&mut self.unit.bytes);
        let items = boundaries::item_starts(&line);
        let mut spans: Vec<(usize, usize)> = Vec::new();
        for hit in self.query.pattern.find_iter(&line) {
            self.entries += 1;
            let span = items
                .as_deref()
                .and_then(|starts| record_around(starts, &line, hit.start(), hit.end()))
                .unwrap_or_else(|| window_around(&line, hit.start(), hit.end()));
            match spans.last_mut() {
                Some(last) if span.0 <= last.1 => last.1 = last.1.max(span.1),
                _ => spans.push(span),
            }
        }
        if let Some(open) = self.open.take() {
            self.emit(open);
        }
        self.before.clear();
        let at = self.unit.start_line;
        for (start, end) in spans {
            self.emit(Open {
                start_line: at,
                end_line: at,
                text: line[start..end].to_vec(),
                after_left: 0,
                bytes: Some((start as u64 + 1, end as u64)),
            });
        }
        self.unit.bytes = line;
    }

    fn emit(&mut self, open: Open) {
        let index = self.blocks as usize;
        self.blocks += 1;
        if self.full || index < self.window.skip {
            return;
        }
        if self.shown.len() >= self.window.max_blocks {
            self.full = true;
            return;
        }
        let text = String::from_utf8_lossy(&open.text).into_owned();
        // The line that names the block costs a few tokens too. No budget: nothing to count.
        let cost = if self.window.max_tokens == u64::MAX {
            0
        } else {
            self.counter.count(&text) as u64 + 8
        };
        if self.shown.is_empty() && cost > self.window.max_tokens {
            self.shown.push(self.cut(open, &text, cost));
            self.full = true;
            return;
        }
        if self.used_tokens.saturating_add(cost) > self.window.max_tokens {
            self.full = true;
            return;
        }
        self.used_tokens += cost;
        self.shown.push(Block {
            start_line: open.start_line,
            end_line: open.end_line,
            text,
            cut_from: None,
            bytes: open.bytes,
        });
    }

    /// The start of a block alone over the budget: as much as fits, cut at a good boundary.
    fn cut(&self, open: Open, text: &str, cost: u64) -> Block {
        let budget = self.window.max_tokens.saturating_sub(8).max(1);
        let mut keep = (text.len() as u64 * budget * 9 / (10 * cost.max(1))) as usize;
        let prefix = loop {
            let prefix = &text[..boundaries::cut_point(text, keep.max(1))];
            let tokens = self.counter.count(prefix) as u64;
            if prefix.len() <= 1 || tokens <= budget {
                break prefix;
            }
            keep = (prefix.len() as u64 * budget * 9 / (10 * tokens)) as usize;
        };
        let newlines = memchr::memchr_iter(b'\n', prefix.as_bytes()).count() as u64;
        // A cut inside a line shows that line in part; it is still the last line shown.
        let ends_line = prefix.ends_with('\n');
        let last = open.start_line + newlines - u64::from(ends_line && newlines > 0);
        Block {
            start_line: open.start_line,
            end_line: last.min(open.end_line),
            text: prefix.to_owned(),
            cut_from: Some(open.end_line),
            bytes: open
                .bytes
                .map(|(from, _)| (from, from + prefix.len() as u64 - 1)),
        }
    }
}

/// The item of a list written on one line that holds the hit at `start..end` (items, when
/// it spans several), without the comma after it; `None` when that is over
/// [`MAX_RECORD_BYTES`].
fn record_around(
    starts: &[usize],
    line: &[u8],
    start: usize,
    end: usize,
) -> Option<(usize, usize)> {
    let first = starts.partition_point(|&s| s <= start).saturating_sub(1);
    let from = starts[first].min(start);
    let next = starts.partition_point(|&s| s < end);
    let mut to = starts.get(next).copied().unwrap_or(line.len()).max(end);
    while to > end && matches!(line[to - 1], b' ' | b',' | b'\n' | b'\r') {
        to -= 1;
    }
    (to - from <= MAX_RECORD_BYTES).then_some((from, to))
}

/// [`WINDOW_BYTES`] on each side of the hit at `start..end`, its ends moved in to a tag's end,
/// a comma or a space when one is near, and never inside a character.
fn window_around(line: &[u8], start: usize, end: usize) -> (usize, usize) {
    let boundary = |b: &u8| matches!(b, b' ' | b'\t' | b'>' | b',' | b';');
    let mut from = start.saturating_sub(WINDOW_BYTES);
    if from > 0
        && let Some(at) = line[from..start.min(from + WINDOW_BYTES / 2)]
            .iter()
            .position(boundary)
    {
        from += at + 1;
    }
    let mut to = (end + WINDOW_BYTES).min(line.len());
    if to < line.len()
        && let Some(at) = line[end.max(to - WINDOW_BYTES / 2)..to]
            .iter()
            .rposition(boundary)
    {
        to = end.max(to - WINDOW_BYTES / 2) + at + 1;
    }
    let continuation = |i: usize| line.get(i).is_some_and(|b| b & 0xC0 == 0x80);
    while from < start && continuation(from) {
        from += 1;
    }
    while to < line.len() && continuation(to) {
        to += 1;
    }
    (from, to)
}

/// Searches a whole text held in memory (the CLI's files, a result read whole).
pub fn search(text: &[u8], query: Query, window: Window) -> Found {
    let mut s = Searcher::new(query, window);
    s.feed(text);
    s.finish()
}

#[cfg(test)]
mod tests {
    use super::*;

    fn window(skip: usize) -> Window {
        Window {
            skip,
            max_blocks: 100,
            max_tokens: 100_000,
            tokenizer: Tokenizer::Heuristic,
        }
    }

    fn query(p: &str, context: usize, kind: Option<Kind>) -> Query {
        Query {
            pattern: compile(p).unwrap(),
            context,
            kind,
        }
    }

    const LOG: &str = "\
2026-11-20 09:00:01 INFO start
2026-11-20 09:00:02 FATAL disk full
  at store.write(store.rs:10)
  at main(main.rs:3)
2026-11-20 09:00:03 INFO retry
2026-11-20 09:00:04 WARN slow
2026-11-20 09:00:05 FATAL gave up
";

    #[test]
    fn log_entries_come_whole_with_their_lines() {
        let found = search(LOG.as_bytes(), query("FATAL", 0, None), window(0));
        assert_eq!(found.kind, Kind::Log);
        assert_eq!((found.entries, found.blocks, found.total_lines), (2, 2, 7));
        assert_eq!(found.shown[0].start_line, 2);
        assert_eq!(found.shown[0].end_line, 4);
        assert!(found.shown[0].text.ends_with("at main(main.rs:3)\n"));
        assert_eq!(found.shown[1].text, "2026-11-20 09:00:05 FATAL gave up\n");
        // A match in a continuation line brings its whole entry.
        let found = search(LOG.as_bytes(), query(r"main\.rs", 0, None), window(0));
        assert_eq!(found.shown[0].start_line, 2);
    }

    #[test]
    fn pieces_of_any_size_find_the_same() {
        let whole = search(LOG.as_bytes(), query("FATAL|WARN", 1, None), window(0));
        for size in [1, 2, 7, 64] {
            let mut s = Searcher::new(query("FATAL|WARN", 1, None), window(0));
            for piece in LOG.as_bytes().chunks(size) {
                s.feed(piece);
            }
            let found = s.finish();
            assert_eq!(found.shown, whole.shown, "pieces of {size}");
            assert_eq!(found.fingerprint, whole.fingerprint);
        }
    }

    #[test]
    fn context_adds_lines_and_merges_neighbours() {
        let text: String = (1..=20).map(|i| format!("line {i}\n")).collect();
        let found = search(
            text.as_bytes(),
            query(r"^line (5|7|15)$", 1, Some(Kind::Text)),
            window(0),
        );
        assert_eq!((found.entries, found.blocks), (3, 2));
        assert_eq!((found.shown[0].start_line, found.shown[0].end_line), (4, 8));
        assert_eq!(
            found.shown[0].text,
            "line 4\nline 5\nline 6\nline 7\nline 8\n"
        );
        assert_eq!(
            (found.shown[1].start_line, found.shown[1].end_line),
            (14, 16)
        );
    }

    #[test]
    fn the_window_pages_and_counts_everything() {
        let text: String = (1..=100).map(|i| format!("item {i} ok\n")).collect();
        let q = || query("ok", 0, Some(Kind::Text));
        let mut w = window(10);
        w.max_blocks = 5;
        let found = search(text.as_bytes(), q(), w);
        assert_eq!(found.entries, 100);
        assert_eq!(found.shown.len(), 5);
        assert_eq!(found.shown[0].text, "item 11 ok\n");
        // Within a token budget: fewer blocks.
        let mut w = window(0);
        w.max_tokens = 30;
        let found = search(text.as_bytes(), q(), w);
        assert!(
            found.shown.len() < 5 && !found.shown.is_empty(),
            "{}",
            found.shown.len()
        );
    }

    #[test]
    fn a_block_over_the_budget_is_cut() {
        let text = format!("ERROR boom\n{}", "  at frame\n".repeat(2_000));
        let mut w = window(0);
        w.max_tokens = 200;
        let found = search(text.as_bytes(), query("boom", 0, Some(Kind::Log)), w);
        let b = &found.shown[0];
        assert_eq!(b.cut_from, Some(2_001));
        assert!(b.end_line < 2_001 && b.end_line > 10, "{b:?}");
        assert!(text.starts_with(&b.text));
    }

    #[test]
    fn bad_patterns() {
        assert!(compile("(").unwrap_err().contains("not a valid pattern"));
        assert!(compile("").unwrap_err().contains("empty"));
        assert!(
            compile(r"\w{1000}{1000}")
                .unwrap_err()
                .contains("too costly")
        );
    }

    #[test]
    fn a_long_line_answers_with_a_window_per_hit_never_the_whole_line() {
        let html: String = (0..2000)
            .map(|i| {
                format!(
                    "<div class=\"row\"><span>item {i}</span>, value {}.</div> ",
                    i * 7
                )
            })
            .collect();
        let found = search(html.as_bytes(), query("item 1234<", 0, None), window(0));
        assert_eq!((found.entries, found.blocks), (1, 1));
        let block = &found.shown[0];
        assert!(
            block.text.len() <= 2 * WINDOW_BYTES + 10,
            "{}",
            block.text.len()
        );
        assert!(block.text.contains("item 1234<"), "{}", block.text);
        let (from, to) = block.bytes.unwrap();
        assert_eq!(&html[from as usize - 1..to as usize], block.text);
        assert_eq!(block.place(), format!("line 1, bytes {from}-{to}"));
        // Hits whose windows overlap are one block; every hit is counted.
        let found = search(html.as_bytes(), query("item 12[0-9]<", 0, None), window(0));
        assert_eq!(found.entries, 10);
        assert!(found.blocks < 10, "{}", found.blocks);
    }

    #[test]
    fn a_hit_in_a_list_on_one_line_answers_with_its_record_whole() {
        let rows: Vec<String> = (1..=500)
            .map(|i| {
                format!(
                    "({i}, 'customer_{}', 'note, with a comma', Decimal('1.50'))",
                    i % 90
                )
            })
            .collect();
        let text = format!("[{}]", rows.join(", "));
        let found = search(text.as_bytes(), query("customer_42'", 0, None), window(0));
        assert_eq!(found.entries, 6, "42, 132, ... 492");
        let shown: Vec<&str> = found.shown.iter().map(|b| b.text.as_str()).collect();
        assert_eq!(
            shown[0],
            "(42, 'customer_42', 'note, with a comma', Decimal('1.50'))"
        );
        assert!(
            shown
                .iter()
                .all(|t| t.starts_with('(') && t.ends_with("))")),
            "{shown:?}"
        );
    }

    #[test]
    fn a_csv_record_with_a_line_break_in_a_field_is_one_entry() {
        let csv = "id,note,total\n1,\"line one\nline two\",3\n2,plain,4\n";
        let found = search(
            csv.as_bytes(),
            query("line one", 0, Some(Kind::Csv)),
            window(0),
        );
        assert_eq!(found.shown[0].text, "1,\"line one\nline two\",3\n");
        assert_eq!((found.shown[0].start_line, found.shown[0].end_line), (2, 3));
    }
}
