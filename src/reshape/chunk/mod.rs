//! Chunking large text at semantic boundaries (seed 000 US4, FR-020..023; seed 002 ContentChunk).
//!
//! The first pass streams the input once and keeps only where chunks begin and end (byte
//! offsets and line numbers), never the text, so memory does not grow with the file: a line is
//! read, classified (does it start a new log entry, Markdown block, paragraph, record?) and
//! handed to a packer that fills chunks with whole units while they fit `maxTokens` and
//! `maxLines`. A unit larger than a chunk is cut at the best boundary inside it (between
//! lines, else after a sentence, else at whitespace) and every chunk cut that way says so.
//! Chunks are contiguous byte ranges, so concatenating them gives the input back byte for byte.
//! The second pass reads just the chunk asked for.

pub mod boundaries;
pub mod lines;
pub mod search;

use std::io::{self, BufRead};

use serde::Serialize;

pub use boundaries::Kind;

use crate::tokens::{Tokenizer, heuristic_from_chars};

/// How to chunk.
#[derive(Clone, Debug)]
pub struct Options {
    pub max_tokens: u64,
    pub max_lines: u64,
    /// The kind of text; `None` detects it from the name and the first 64 KB.
    pub kind: Option<Kind>,
    pub tokenizer: Tokenizer,
}

/// One chunk: a byte range of the input and the lines it covers.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize)]
#[serde(rename_all = "camelCase")]
pub struct Boundary {
    pub start: u64,
    pub end: u64,
    pub start_line: u64,
    pub end_line: u64,
    /// A unit (log entry, block, paragraph, record) was larger than a chunk and was cut here.
    pub split_entry: bool,
}

/// The result of the first pass.
#[derive(Clone, Debug)]
pub struct Index {
    pub kind: Kind,
    pub chunks: Vec<Boundary>,
    pub total_lines: u64,
    pub total_bytes: u64,
    /// Tokens of the whole input (by the chosen estimator).
    pub tokens: u64,
    /// xxh3 of the bytes: a cursor for another file, or a changed one, is refused.
    pub fingerprint: String,
    /// Every chunk is in `chunks`; false when [`index_until`] stopped at the chunk it wanted
    /// (then there are more, `tokens` counts only what was read, and the lines, the bytes and
    /// the fingerprint are still the whole input's).
    pub complete: bool,
}

#[derive(Debug, thiserror::Error)]
pub enum ChunkError {
    #[error("{name}: cannot read: {cause}")]
    Read { name: String, cause: io::Error },
    #[error("{name}: empty input: nothing to chunk")]
    Empty { name: String },
    #[error(
        "{name}: binary data (a NUL byte at offset {offset}), not text; chunk only text, logs, documents or JSONL"
    )]
    Binary { name: String, offset: u64 },
    #[error(
        "{name}:{line}:{column}: not valid UTF-8; re-encode the file as UTF-8 (e.g. iconv -f latin1 -t utf-8)"
    )]
    Utf8 {
        name: String,
        line: u64,
        column: usize,
    },
}

/// Bytes looked at to detect the kind of text.
const SNIFF_BYTES: usize = 64 * 1024;

/// What the packer is given: a whole line, or part of one too long for a chunk.
#[derive(Clone, Copy, Debug)]
struct Piece {
    start: u64,
    end: u64,
    /// The line its first byte is on.
    line: u64,
    /// It ends a line (its last byte is `\n`).
    newline: bool,
    weight: u64,
    starts_unit: bool,
    ends_sentence: bool,
}

/// Fills chunks with whole units while they fit; cuts units that never could.
struct Packer {
    budget: u64,
    max_lines: u64,
    chunks: Vec<Boundary>,
    /// The chunk being filled: its boundary so far, weight and lines.
    open: Option<(Boundary, u64, u64)>,
    /// The unit being read, not yet placed.
    unit: Vec<Piece>,
    unit_weight: u64,
    unit_lines: u64,
    /// The current unit was too large and part of it has gone out already.
    unit_split: bool,
}

impl Packer {
    fn new(budget: u64, max_lines: u64) -> Self {
        Packer {
            budget: budget.max(1),
            max_lines: max_lines.max(1),
            chunks: Vec::new(),
            open: None,
            unit: Vec::new(),
            unit_weight: 0,
            unit_lines: 0,
            unit_split: false,
        }
    }

    fn push(&mut self, piece: Piece) {
        if piece.starts_unit {
            self.close_unit();
        }
        self.unit_weight += piece.weight;
        self.unit_lines += u64::from(piece.newline);
        self.unit.push(piece);
        if self.unit_weight > self.budget || self.unit_lines > self.max_lines {
            // This unit can never fit one chunk: send the chunk so far, then cut the unit.
            self.emit_open();
            self.unit_split = true;
            while self.unit_weight > self.budget || self.unit_lines > self.max_lines {
                let n = self.best_prefix();
                let head: Vec<Piece> = self.unit.drain(..n).collect();
                self.unit_weight -= head.iter().map(|p| p.weight).sum::<u64>();
                self.unit_lines -= head.iter().filter(|p| p.newline).count() as u64;
                self.chunks.push(span(&head, true));
            }
        }
    }

    /// How many of the unit's first pieces make the best chunk: as many as fit, ending at a
    /// sentence end when one is in the second half; at least one.
    fn best_prefix(&self) -> usize {
        let (mut weight, mut lines, mut fit) = (0, 0, 0);
        for p in &self.unit {
            if weight + p.weight > self.budget || lines + u64::from(p.newline) > self.max_lines {
                break;
            }
            weight += p.weight;
            lines += u64::from(p.newline);
            fit += 1;
        }
        let fit = fit.max(1);
        (fit / 2..fit)
            .rev()
            .find(|&i| self.unit[i].ends_sentence)
            .map_or(fit, |i| i + 1)
    }

    fn close_unit(&mut self) {
        if self.unit.is_empty() {
            return;
        }
        let unit = span(&self.unit, self.unit_split);
        let fits = |(_, w, l): &(Boundary, u64, u64)| {
            w + self.unit_weight <= self.budget && l + self.unit_lines <= self.max_lines
        };
        match &mut self.open {
            Some(open) if !self.unit_split && fits(open) => {
                open.0.end = unit.end;
                open.0.end_line = unit.end_line;
                open.1 += self.unit_weight;
                open.2 += self.unit_lines;
            }
            _ => {
                self.emit_open();
                self.open = Some((unit, self.unit_weight, self.unit_lines));
            }
        }
        self.unit.clear();
        self.unit_weight = 0;
        self.unit_lines = 0;
        self.unit_split = false;
    }

    fn emit_open(&mut self) {
        if let Some((b, _, _)) = self.open.take() {
            self.chunks.push(b);
        }
    }

    fn finish(mut self) -> Vec<Boundary> {
        self.close_unit();
        self.emit_open();
        self.chunks
    }
}

fn span(pieces: &[Piece], split: bool) -> Boundary {
    let (first, last) = (pieces[0], pieces[pieces.len() - 1]);
    Boundary {
        start: first.start,
        end: last.end,
        start_line: first.line,
        end_line: last.line,
        split_entry: split,
    }
}

/// The heuristic's budget in characters: the most characters whose estimate fits `tokens`.
fn chars_for_tokens(tokens: u64) -> u64 {
    // heuristic(c) = b + floor(b/5) with b = floor(c/4); find the largest b that fits.
    let mut b = tokens * 5 / 6;
    while heuristic_from_chars(((b + 1) * 4) as usize) as u64 <= tokens {
        b += 1;
    }
    while b > 0 && heuristic_from_chars((b * 4) as usize) as u64 > tokens {
        b -= 1;
    }
    b * 4 + 3
}

/// Which lines start a unit, for each kind of text: fed every line in order.
pub struct Classifier {
    kind: Kind,
    first: bool,
    prev_blank: bool,
    in_fence: bool,
    after_fence: bool,
    after_heading: bool,
    /// Csv: the line before ended inside a quoted field.
    in_quotes: bool,
}

impl Classifier {
    pub fn new(kind: Kind) -> Self {
        Classifier {
            kind,
            first: true,
            prev_blank: false,
            in_fence: false,
            after_fence: false,
            after_heading: false,
            in_quotes: false,
        }
    }

    /// True when `line` (the next line, with its `\n`) starts a new unit.
    pub fn starts_unit(&mut self, line: &[u8]) -> bool {
        let first = std::mem::replace(&mut self.first, false);
        let blank = boundaries::blank(line);
        let starts = match self.kind {
            Kind::Jsonl => true,
            Kind::Csv => {
                // A doubled quote inside a field counts twice: only an odd count opens or
                // closes a field across the line's end.
                let starts = !self.in_quotes;
                let quotes = line.iter().filter(|&&b| b == b'"').count();
                self.in_quotes ^= quotes % 2 == 1;
                starts
            }
            Kind::Log => boundaries::starts_log_entry(line),
            Kind::Text => !blank && self.prev_blank,
            Kind::Markdown => {
                if self.in_fence {
                    if boundaries::fence(line) {
                        self.in_fence = false;
                        self.after_fence = true;
                    }
                    false
                } else if boundaries::fence(line) {
                    self.in_fence = true;
                    !self.after_heading
                } else if boundaries::heading(line) {
                    self.after_heading = true;
                    self.after_fence = false;
                    true
                } else if blank {
                    false
                } else {
                    // A paragraph starts after a blank line or a closing fence, unless it is
                    // the first one under a heading, which it stays with.
                    let starts = (self.prev_blank || self.after_fence) && !self.after_heading;
                    self.after_heading = false;
                    self.after_fence = false;
                    starts
                }
            }
        };
        self.prev_blank = blank;
        starts || first
    }
}

/// The first pass: reads `reader` once and returns where every chunk begins and ends.
pub fn index(name: &str, reader: impl BufRead, opts: &Options) -> Result<Index, ChunkError> {
    index_until(name, reader, opts, usize::MAX)
}

/// [`index`] that stops cutting once chunk `wanted` (from 0) is known: the rest of the input is
/// only hashed and its lines counted (and checked for NUL), so the first chunk of 100 MB costs
/// a chunk's work, not the whole text's.
pub fn index_until(
    name: &str,
    mut reader: impl BufRead,
    opts: &Options,
    wanted: usize,
) -> Result<Index, ChunkError> {
    let read_err = |cause| ChunkError::Read {
        name: name.to_owned(),
        cause,
    };
    let head = reader.fill_buf().map_err(read_err)?;
    if let Some(offset) = head.iter().take(SNIFF_BYTES).position(|&b| b == 0) {
        return Err(ChunkError::Binary {
            name: name.to_owned(),
            offset: offset as u64,
        });
    }
    let kind = opts
        .kind
        .unwrap_or_else(|| Kind::detect(Some(name), &head[..head.len().min(SNIFF_BYTES)]));
    let heuristic = opts.tokenizer == Tokenizer::Heuristic;
    let counter = opts.tokenizer.counter();
    let budget = if heuristic {
        chars_for_tokens(opts.max_tokens)
    } else {
        opts.max_tokens
    };
    // Bytes per piece when a line must be cut: a character is at least a byte.
    let cut_bytes = if heuristic {
        budget
    } else {
        opts.max_tokens * 3
    } as usize;

    let mut packer = Packer::new(budget, opts.max_lines);
    let mut classifier = Classifier::new(kind);
    let mut hasher = xxhash_rust::xxh3::Xxh3::new();
    let mut buf = Vec::with_capacity(64 * 1024);
    let (mut offset, mut line_no, mut total_chars, mut tokens) = (0u64, 0u64, 0u64, 0u64);
    let mut ends_with_newline = true;
    let mut rest = None;
    loop {
        buf.clear();
        let n = reader.read_until(b'\n', &mut buf).map_err(read_err)?;
        if n == 0 {
            break;
        }
        line_no += 1;
        hasher.update(&buf);
        let text = std::str::from_utf8(&buf).map_err(|e| ChunkError::Utf8 {
            name: name.to_owned(),
            line: line_no,
            column: e.valid_up_to() + 1,
        })?;
        if let Some(nul) = memchr_nul(&buf) {
            return Err(ChunkError::Binary {
                name: name.to_owned(),
                offset: offset + nul as u64,
            });
        }
        let newline = buf.last() == Some(&b'\n');
        ends_with_newline = newline;
        let starts_unit = classifier.starts_unit(&buf);
        let weight_of = |t: &str| {
            if heuristic {
                t.chars().count() as u64
            } else {
                counter.count(t) as u64
            }
        };
        let line_weight = weight_of(text);
        total_chars += if heuristic {
            line_weight
        } else {
            text.chars().count() as u64
        };
        if !heuristic {
            tokens += line_weight;
        }
        if line_weight <= budget {
            packer.push(Piece {
                start: offset,
                end: offset + n as u64,
                line: line_no,
                newline,
                weight: line_weight,
                starts_unit,
                ends_sentence: boundaries::ends_sentence(&buf),
            });
        } else {
            // Too long for one chunk on its own: cut it into pieces that fit, between the
            // items of a list written on one line when it is one.
            let items = boundaries::item_starts(&buf).unwrap_or_default();
            let mut rest = text;
            let mut at = offset;
            let mut first = true;
            while !rest.is_empty() {
                let done = (at - offset) as usize;
                let fits = items.partition_point(|&s| s <= done + cut_bytes.min(rest.len()));
                let cut = match items[..fits].last() {
                    Some(&s) if s > done && rest.len() > cut_bytes => s - done,
                    _ => boundaries::cut_point(rest, cut_bytes),
                };
                let (part, tail) = rest.split_at(cut);
                packer.push(Piece {
                    start: at,
                    end: at + part.len() as u64,
                    line: line_no,
                    newline: tail.is_empty() && newline,
                    weight: weight_of(part).min(budget),
                    starts_unit: first && starts_unit,
                    ends_sentence: boundaries::ends_sentence(part.as_bytes()),
                });
                at += part.len() as u64;
                rest = tail;
                first = false;
            }
        }
        offset += n as u64;
        if packer.chunks.len() > wanted {
            // Chunk `wanted` is out, and the piece that closed it is still to place: there is
            // more. The rest is read only for what the index says of the whole input.
            rest = Some(skim(&mut reader, &mut hasher).map_err(read_err)?);
            break;
        }
    }
    if offset == 0 {
        return Err(ChunkError::Empty {
            name: name.to_owned(),
        });
    }
    let (chunks, total_lines, total_bytes, complete) = match rest {
        Some(rest) => {
            if let Some(nul) = rest.nul {
                return Err(ChunkError::Binary {
                    name: name.to_owned(),
                    offset: offset + nul,
                });
            }
            let last_unended = rest.bytes > 0 && !rest.ends_with_newline;
            let lines = line_no + rest.newlines + u64::from(last_unended);
            (packer.chunks, lines, offset + rest.bytes, false)
        }
        None => {
            let lines = if ends_with_newline {
                line_no
            } else {
                line_no.max(1)
            };
            (packer.finish(), lines, offset, true)
        }
    };
    Ok(Index {
        kind,
        chunks,
        total_lines,
        total_bytes,
        tokens: if heuristic {
            heuristic_from_chars(total_chars as usize) as u64
        } else {
            tokens
        },
        fingerprint: format!("{:016x}", hasher.digest()),
        complete,
    })
}

/// What [`skim`] learnt of the input it did not cut.
struct Rest {
    bytes: u64,
    newlines: u64,
    ends_with_newline: bool,
    /// Offset (from the rest's start) of its first NUL byte.
    nul: Option<u64>,
}

/// Reads the rest of `reader` into `hasher`, counting its lines, without copying it.
fn skim(reader: &mut impl BufRead, hasher: &mut xxhash_rust::xxh3::Xxh3) -> io::Result<Rest> {
    let mut rest = Rest {
        bytes: 0,
        newlines: 0,
        ends_with_newline: false,
        nul: None,
    };
    loop {
        let buf = reader.fill_buf()?;
        let Some(&last) = buf.last() else {
            return Ok(rest);
        };
        hasher.update(buf);
        rest.newlines += memchr::memchr_iter(b'\n', buf).count() as u64;
        if rest.nul.is_none() {
            rest.nul = memchr::memchr(0, buf).map(|i| rest.bytes + i as u64);
        }
        rest.ends_with_newline = last == b'\n';
        rest.bytes += buf.len() as u64;
        let n = buf.len();
        reader.consume(n);
    }
}

fn memchr_nul(bytes: &[u8]) -> Option<usize> {
    memchr::memchr(0, bytes)
}

/// One chunk as the seed's ContentChunk, ready to print.
#[derive(Clone, Debug, Serialize)]
#[serde(rename_all = "camelCase")]
pub struct Chunk {
    pub content: String,
    pub chunk_index: usize,
    pub total_chunks: usize,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub next_cursor: Option<String>,
    pub metadata: Metadata,
}

#[derive(Clone, Debug, Serialize)]
#[serde(rename_all = "camelCase")]
pub struct Metadata {
    pub start_line: u64,
    pub end_line: u64,
    pub total_lines: u64,
    pub bytes_in_chunk: u64,
    pub kind: Kind,
    #[serde(skip_serializing_if = "std::ops::Not::not")]
    pub split_entry: bool,
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn index_until_cuts_the_same_chunks_and_knows_the_whole() {
        let log: String = (0..3000)
            .map(|i| {
                format!(
                    "2026-11-23T08:00:{:02}Z INFO worker-{} booking bk_{i}\n",
                    i % 60,
                    i % 4
                )
            })
            .collect();
        for text in [log.clone(), format!("{log}a last line without a newline")] {
            let o = opts(300, 100, Kind::Log);
            let whole = index("log", text.as_bytes(), &o).unwrap();
            assert!(whole.complete && whole.chunks.len() > 10);
            for wanted in [0, 3, whole.chunks.len() - 1, whole.chunks.len() + 5] {
                let part = index_until("log", text.as_bytes(), &o, wanted).unwrap();
                let n = part.chunks.len();
                assert!(n > wanted || part.complete, "{wanted}");
                assert_eq!(part.chunks[..], whole.chunks[..n]);
                assert_eq!(part.complete, n == whole.chunks.len(), "{wanted}");
                assert_eq!(
                    (part.total_lines, part.total_bytes, &part.fingerprint),
                    (whole.total_lines, whole.total_bytes, &whole.fingerprint)
                );
            }
        }
        // A NUL past the chunk asked for is still found.
        let binary = format!("{log}\0tail\n");
        let err = index_until("log", binary.as_bytes(), &opts(300, 100, Kind::Log), 0);
        assert!(matches!(err, Err(ChunkError::Binary { .. })), "{err:?}");
    }

    fn opts(max_tokens: u64, max_lines: u64, kind: Kind) -> Options {
        Options {
            max_tokens,
            max_lines,
            kind: Some(kind),
            tokenizer: Tokenizer::Heuristic,
        }
    }

    fn chunks(text: &str, o: &Options) -> Vec<String> {
        let idx = index("t", text.as_bytes(), o).unwrap();
        idx.chunks
            .iter()
            .map(|b| text[b.start as usize..b.end as usize].to_owned())
            .collect()
    }

    #[test]
    fn budget_in_characters_matches_the_heuristic() {
        for t in [1u64, 7, 100, 2000, 12345] {
            let c = chars_for_tokens(t);
            assert!(heuristic_from_chars(c as usize) as u64 <= t);
            assert!(heuristic_from_chars(c as usize + 1) as u64 > t);
        }
    }

    #[test]
    fn stack_traces_stay_with_their_entry() {
        let text = "2026-11-20 06:00:00 INFO one\n2026-11-20 06:00:01 ERROR boom\n\tat a.B(C.java:1)\n\tat d.E(F.java:2)\nCaused by: x\n\t... 3 more\n2026-11-20 06:00:02 INFO two\n";
        let got = chunks(text, &opts(1000, 3, Kind::Log));
        assert_eq!(got.concat(), text);
        // The error entry is 5 lines, over the 3-line limit: it is cut, and only it.
        assert_eq!(got[0], "2026-11-20 06:00:00 INFO one\n");
        let got = chunks(text, &opts(1000, 5, Kind::Log));
        assert_eq!(
            got,
            [
                "2026-11-20 06:00:00 INFO one\n",
                "2026-11-20 06:00:01 ERROR boom\n\tat a.B(C.java:1)\n\tat d.E(F.java:2)\nCaused by: x\n\t... 3 more\n",
                "2026-11-20 06:00:02 INFO two\n",
            ]
        );
    }

    #[test]
    fn markdown_keeps_fences_whole() {
        let text = "# Title\nIntro line.\n\n```rust\nfn a() {}\n\nfn b() {}\n```\n\nAfter.\n";
        let got = chunks(text, &opts(1000, 6, Kind::Markdown));
        assert_eq!(got.concat(), text);
        assert!(
            got.iter()
                .any(|c| c.starts_with("```rust") && c.contains("fn b() {}\n```")),
            "{got:#?}"
        );
    }

    #[test]
    fn long_lines_are_cut_at_sentences_and_flagged() {
        let text = "First sentence is here. Second one is here too. Third sentence ends it.";
        let o = opts(8, 200, Kind::Text);
        let idx = index("t", text.as_bytes(), &o).unwrap();
        assert!(idx.chunks.len() > 1);
        assert!(idx.chunks.iter().all(|b| b.split_entry));
        let got = chunks(text, &o);
        assert_eq!(got.concat(), text);
        assert!(got[0].ends_with(". "), "{got:?}");
    }

    #[test]
    fn bad_inputs() {
        let o = opts(100, 10, Kind::Text);
        assert!(matches!(
            index("e", &b""[..], &o),
            Err(ChunkError::Empty { .. })
        ));
        assert!(matches!(
            index("b", &b"ab\x00cd"[..], &o),
            Err(ChunkError::Binary { offset: 2, .. })
        ));
        assert!(matches!(
            index("u", &b"ok\nbad \xff here\n"[..], &o),
            Err(ChunkError::Utf8 {
                line: 2,
                column: 5,
                ..
            })
        ));
    }
}
