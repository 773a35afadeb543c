//! Loading documents: files, directories, standard input, JSONL transcripts.
//!
//! Every input becomes a stream of [`Document`]s (the raw text exactly as sent, plus its parsed
//! value) or [`InputError`]s that name the file and, where there is one, the line and column. A
//! bad file never stops the others: callers get an error in its place and go on.
//!
//! Directories are walked in sorted order (deterministic reports) and only `.json`, `.jsonl`
//! and `.ndjson` files are read; hidden entries below the root (`.git`, `.mcpguard`) are skipped.
//! Documents are handed out one at a time, so memory holds one file, not the whole corpus.

use std::io::{self, Read};
use std::path::{Path, PathBuf};

use serde_json::Value;

use crate::json::parse::{parse_json, parse_value};

/// Where documents come from.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum Source {
    Stdin,
    Path(PathBuf),
    /// An artifact (`ax://DOMAIN/ID`) and the file of the store that holds it; reports name it
    /// by its reference.
    Artifact {
        reference: String,
        path: PathBuf,
    },
}

impl Source {
    /// `-` is standard input; anything else a path.
    pub fn from_arg(arg: &str) -> Source {
        if arg == "-" {
            Source::Stdin
        } else {
            Source::Path(PathBuf::from(arg))
        }
    }
}

/// One JSON document: a whole file, or one line of a JSONL transcript.
#[derive(Clone, Debug)]
pub struct Document {
    /// How reports name it: the path as given (or `<stdin>`), with `:LINE` for a JSONL line.
    pub name: String,
    /// The file it came from (`<stdin>` for standard input).
    pub file: String,
    /// The line it starts on: 1 for a whole file, the line of a JSONL record.
    pub line: usize,
    /// The text exactly as read: its length is the wire size.
    pub text: String,
    pub value: Value,
}

/// Why an input could not be turned into a document. Every variant names the input.
#[derive(Debug, thiserror::Error)]
pub enum InputError {
    #[error("{name}: cannot read: {cause}")]
    Read { name: String, cause: io::Error },
    #[error("{name}: empty input: expected a JSON document")]
    Empty { name: String },
    #[error(
        "{name}:{line}:{column}: not valid UTF-8 (byte offset {offset}); MCP messages are UTF-8 JSON, re-encode the file"
    )]
    Utf8 {
        name: String,
        line: usize,
        column: usize,
        offset: usize,
    },
    #[error("{name}:{line}:{column}: invalid JSON: {message}")]
    Json {
        name: String,
        line: usize,
        column: usize,
        message: String,
    },
    #[error(
        "{name}:{line}:{column}: JSON nested deeper than {max} levels, the most mcpguard reads (readLimits.maxNesting; the contract allows 4); flatten the document"
    )]
    TooDeep {
        name: String,
        line: usize,
        column: usize,
        max: u64,
    },
    #[error(
        "{name}: {}; not read (readLimits.maxDocumentBytes is {max} bytes: raise it in the config or with MCPGUARD_MAX_DOCUMENT_BYTES if this document is meant to be read)",
        size.map_or_else(|| format!("more than {max} bytes"), |s| format!("{s} bytes"))
    )]
    TooLarge {
        name: String,
        /// The size the file system reports, when it was known before reading.
        size: Option<u64>,
        max: u64,
    },
    #[error("{name}: no .json, .jsonl or .ndjson files in this directory")]
    NoJsonInDir { name: String },
    #[error(
        "{name}: a line of more than {max} bytes; not read (a JSONL line is one message; readLimits.maxLineBytes, env MCPGUARD_MAX_LINE_BYTES)"
    )]
    LineTooLong { name: String, max: u64 },
}

impl InputError {
    /// The input it names, and the line and column where it knows them.
    pub fn place(&self) -> (&str, Option<usize>, Option<usize>) {
        match self {
            InputError::Utf8 {
                name, line, column, ..
            }
            | InputError::Json {
                name, line, column, ..
            }
            | InputError::TooDeep {
                name, line, column, ..
            } => (name, Some(*line), Some(*column)),
            InputError::Read { name, .. }
            | InputError::Empty { name }
            | InputError::TooLarge { name, .. }
            | InputError::NoJsonInDir { name }
            | InputError::LineTooLong { name, .. } => (name, None, None),
        }
    }
}

/// Bounds on what is read from outside, so that no input can take the memory: each is a
/// setting (`readLimits:` in the config, or its `MCPGUARD_MAX_*` variable), and going past one
/// is an [`InputError`] that names the input and the setting.
#[derive(Clone, Copy, Debug, PartialEq, Eq, serde::Serialize, serde::Deserialize)]
#[serde(rename_all = "camelCase", deny_unknown_fields, default)]
pub struct ReadLimits {
    /// The largest document read whole (a `.json` file, standard input, an artifact); a larger
    /// one is refused before it is read.
    pub max_document_bytes: u64,
    /// The longest line of a JSONL file or transcript; a longer one is skipped unread.
    pub max_line_bytes: u64,
    /// The deepest nesting of a JSON document, at most [`MAX_NESTING`].
    pub max_nesting: u64,
    /// The longest cursor `paginate`, `chunk` and the proxy read; longer ones are refused
    /// before decoding, and `paginate` never issues one.
    pub max_cursor_bytes: u64,
}

/// The longest cursor read unless the config says otherwise. mcpguard's own cursors are under
/// 400 bytes; the limit leaves room for long orders and filters.
pub const DEFAULT_MAX_CURSOR_BYTES: usize = 4096;

impl Default for ReadLimits {
    fn default() -> Self {
        ReadLimits {
            max_document_bytes: 1 << 30,
            max_line_bytes: 256 << 20,
            max_nesting: MAX_NESTING as u64,
            max_cursor_bytes: DEFAULT_MAX_CURSOR_BYTES as u64,
        }
    }
}

impl ReadLimits {
    fn line_bytes(&self) -> usize {
        usize::try_from(self.max_line_bytes).unwrap_or(usize::MAX)
    }

    /// `max_cursor_bytes` as a length.
    pub fn cursor_bytes(&self) -> usize {
        usize::try_from(self.max_cursor_bytes).unwrap_or(usize::MAX)
    }
}

impl InputError {
    /// The input the error is about, for sorting and summaries.
    pub fn name(&self) -> &str {
        match self {
            InputError::Read { name, .. }
            | InputError::Empty { name }
            | InputError::Utf8 { name, .. }
            | InputError::Json { name, .. }
            | InputError::TooDeep { name, .. }
            | InputError::TooLarge { name, .. }
            | InputError::NoJsonInDir { name }
            | InputError::LineTooLong { name, .. } => name,
        }
    }
}

/// serde_json's recursion limit, the ceiling of `readLimits.maxNesting`: deeper input is an
/// error, never a stack overflow (every walk over a document recurses).
pub const MAX_NESTING: usize = 128;

/// One thing to read: standard input or a file, or what went wrong finding it.
#[derive(Debug)]
pub enum Unit {
    Stdin,
    /// A file, and how reports name it (its path as given, or an artifact's reference).
    File {
        path: PathBuf,
        name: String,
    },
    Failed(InputError),
}

impl Unit {
    fn file(path: PathBuf) -> Unit {
        let name = path.display().to_string();
        Unit::File { path, name }
    }
}

/// The files behind the sources, in order: directories walked (sorted), the rest as given.
pub fn expand(sources: &[Source]) -> Vec<Unit> {
    let mut units = Vec::new();
    for source in sources {
        match source {
            Source::Stdin => units.push(Unit::Stdin),
            Source::Path(path) if path.is_dir() => walk_dir(path, &mut units),
            Source::Path(path) => units.push(Unit::file(path.clone())),
            Source::Artifact { reference, path } => units.push(Unit::File {
                path: path.clone(),
                name: reference.clone(),
            }),
        }
    }
    units
}

/// Reads a JSONL stream line by line without holding it whole, handing lines (line number,
/// text or error) to `visit` in batches of at most `batch` lines and about `batch_bytes` bytes
/// (a line longer than that is a batch of its own). Blank lines are skipped; a line over
/// `limits.max_line_bytes` is skipped unread and handed on as an error.
pub fn for_each_line_batch(
    name: &str,
    mut reader: impl io::BufRead,
    limits: &ReadLimits,
    batch: usize,
    batch_bytes: usize,
    mut visit: impl FnMut(Vec<(usize, Result<String, InputError>)>),
) {
    let mut lines = Vec::with_capacity(batch);
    let mut held = 0;
    let mut buf = Vec::new();
    let mut number = 0;
    let mut failed: Option<std::io::Error> = None;
    loop {
        match crate::util::lines::read_capped(&mut reader, &mut buf, limits.line_bytes()) {
            Ok(crate::util::lines::Capped::End) => break,
            Ok(crate::util::lines::Capped::TooLong) => {
                number += 1;
                lines.push((
                    number,
                    Err(InputError::LineTooLong {
                        name: format!("{name}:{number}"),
                        max: limits.max_line_bytes,
                    }),
                ));
                if let Err(cause) = crate::util::lines::skip_line(&mut reader) {
                    failed = Some(cause);
                }
            }
            Ok(crate::util::lines::Capped::Line) => {
                number += 1;
                while buf.last().is_some_and(|b| *b == b'\n' || *b == b'\r') {
                    buf.pop();
                }
                if number == 1 && buf.starts_with("\u{feff}".as_bytes()) {
                    buf.drain(..3);
                }
                if buf.iter().all(u8::is_ascii_whitespace) {
                    continue;
                }
                let line = match String::from_utf8(std::mem::take(&mut buf)) {
                    Ok(text) => Ok(text),
                    Err(e) => {
                        let offset = e.utf8_error().valid_up_to();
                        Err(InputError::Utf8 {
                            name: format!("{name}:{number}"),
                            line: number,
                            column: offset + 1,
                            offset,
                        })
                    }
                };
                held += line.as_ref().map_or(0, String::len);
                lines.push((number, line));
                if lines.len() == batch || held >= batch_bytes {
                    visit(std::mem::replace(&mut lines, Vec::with_capacity(batch)));
                    held = 0;
                }
            }
            Err(cause) => failed = Some(cause),
        }
        if let Some(cause) = failed.take() {
            lines.push((
                number + 1,
                Err(InputError::Read {
                    name: name.to_owned(),
                    cause,
                }),
            ));
            break;
        }
    }
    if !lines.is_empty() {
        visit(lines);
    }
}

/// Parses one JSONL line read by [`for_each_line_batch`].
pub fn parse_line(
    file: &str,
    number: usize,
    text: String,
    limits: &ReadLimits,
) -> Result<Document, InputError> {
    let parsed = check_nesting(file, &text, limits)
        .and_then(|()| parse_value(&text).map_err(|err| json_error(file, &text, &err)));
    match parsed {
        Ok(value) => Ok(Document {
            name: format!("{file}:{number}"),
            file: file.to_owned(),
            line: number,
            text,
            value,
        }),
        Err(mut e) => {
            // The file's own line number, not line 1 of the one-line text.
            if let InputError::Json { line, .. } | InputError::TooDeep { line, .. } = &mut e {
                *line = number;
            }
            Err(e)
        }
    }
}

/// Reads one file (or stdin's bytes) as documents: JSON, or JSONL by name or by content.
pub fn read_unit_bytes(
    name: &str,
    bytes: Vec<u8>,
    jsonl: bool,
    limits: &ReadLimits,
) -> Vec<Result<Document, InputError>> {
    let mut out = Vec::new();
    parse_bytes(name, bytes, jsonl, limits, &mut |d| out.push(d));
    out
}

/// Calls `visit` with every document (or error) of every source, in order. A JSONL file is
/// streamed a line at a time; anything else is read whole, within `limits`.
///
/// `stdin` is read only if a source is [`Source::Stdin`].
pub fn for_each_document(
    sources: &[Source],
    stdin: impl Read,
    limits: &ReadLimits,
    mut visit: impl FnMut(Result<Document, InputError>),
) {
    let mut stdin = Some(stdin);
    for unit in expand(sources) {
        match unit {
            Unit::Stdin => {
                let name = "<stdin>";
                let Some(stdin) = stdin.take() else {
                    continue;
                };
                match read_bytes(stdin, name, None, limits) {
                    Ok(bytes) => parse_bytes(name, bytes, false, limits, &mut visit),
                    Err(e) => visit(Err(e)),
                }
            }
            Unit::File { path, name } if is_jsonl(&path) => {
                stream_jsonl(&path, &name, limits, &mut visit);
            }
            Unit::File { path, name } => match read_json_file_bytes(&path, &name, limits) {
                Ok(bytes) => parse_bytes(&name, bytes, false, limits, &mut visit),
                Err(e) => visit(Err(e)),
            },
            Unit::Failed(err) => visit(Err(err)),
        }
    }
}

/// What [`for_each_input`] hands over.
pub enum Input {
    /// A whole input's text (a file, standard input, an artifact), checked as UTF-8 within the
    /// nesting limit, for the caller to parse into the tree it reads best (a large document
    /// into [`crate::json::borrowed`]'s arena at a fraction of serde_json's memory), falling back
    /// to [`documents_of_text`] for what that tree declines.
    Whole { name: String, text: String },
    /// A document of a JSONL file (streamed a line at a time), or an error.
    Document(Result<Document, InputError>),
}

/// [`for_each_document`], with whole inputs handed over as their text.
pub fn for_each_input(
    sources: &[Source],
    stdin: impl Read,
    limits: &ReadLimits,
    mut visit: impl FnMut(Input),
) {
    let mut stdin = Some(stdin);
    let whole = |name: &str, bytes: Result<Vec<u8>, InputError>| match bytes
        .and_then(|b| document_text(name, b, limits))
    {
        Ok(text) => Input::Whole {
            name: name.to_owned(),
            text,
        },
        Err(e) => Input::Document(Err(e)),
    };
    for unit in expand(sources) {
        match unit {
            Unit::Stdin => {
                if let Some(stdin) = stdin.take() {
                    visit(whole("<stdin>", read_bytes(stdin, "<stdin>", None, limits)));
                }
            }
            Unit::File { path, name } if is_jsonl(&path) => {
                stream_jsonl(&path, &name, limits, &mut |d| visit(Input::Document(d)));
            }
            Unit::File { path, name } => {
                visit(whole(&name, read_json_file_bytes(&path, &name, limits)));
            }
            Unit::Failed(err) => visit(Input::Document(Err(err))),
        }
    }
}

/// Reads one input whole as UTF-8 text, without parsing it (for a command that parses its
/// own way). Returns the name reports use and the text.
pub fn read_text(
    source: &Source,
    stdin: impl Read,
    limits: &ReadLimits,
) -> Result<(String, String), InputError> {
    let (name, bytes) = match source {
        Source::Stdin => {
            let name = "<stdin>".to_owned();
            let bytes = read_bytes(stdin, &name, None, limits)?;
            (name, bytes)
        }
        Source::Path(path) | Source::Artifact { path, .. } => {
            let name = match source {
                Source::Artifact { reference, .. } => reference.clone(),
                _ => path.display().to_string(),
            };
            let bytes = read_file_bytes(path, &name, limits)?;
            (name, bytes)
        }
    };
    let text = decode(&name, bytes)?;
    Ok((name, text))
}

/// [`read_file_bytes`] of a file that must be JSON: one of a megabyte or more whose text cannot
/// start a JSON value (a log, HTML, a binary) is refused from its first bytes, with the error
/// the whole file's parse would give, instead of being read whole first (900 MB read to say
/// "expected value at line 1 column 1").
pub fn read_json_file_bytes(
    path: &Path,
    name: &str,
    limits: &ReadLimits,
) -> Result<Vec<u8>, InputError> {
    if std::fs::metadata(path)
        .is_ok_and(|m| m.is_file() && m.len() >= 1 << 20 && m.len() <= limits.max_document_bytes)
        && let Some(err) = not_json_at_start(path, name)
    {
        return Err(err);
    }
    read_file_bytes(path, name, limits)
}

/// The error of a text whose first character (after white space and a byte order mark)
/// cannot start a JSON value, read from the file's first 4 KB; `None` when it can, or when the
/// head does not tell.
fn not_json_at_start(path: &Path, name: &str) -> Option<InputError> {
    let mut head = vec![0u8; 4096];
    let mut file = std::fs::File::open(path).ok()?;
    let n = file.read(&mut head).ok()?;
    head.truncate(n);
    let valid = match std::str::from_utf8(&head) {
        Ok(text) => text,
        Err(e) => std::str::from_utf8(&head[..e.valid_up_to()]).ok()?,
    };
    let text = valid.strip_prefix(BOM).unwrap_or(valid);
    let first = text.trim_start().chars().next()?;
    if matches!(first, '{' | '[' | '"' | '-' | '0'..='9' | 't' | 'f' | 'n') {
        return None;
    }
    let err = serde_json::from_str::<serde::de::IgnoredAny>(text).err()?;
    Some(json_error(name, text, &err))
}

/// A file's bytes, whole: one over `limits.max_document_bytes` is refused before a byte of it
/// is read (and one that grows past it while read, once it has); one that shrinks while read
/// is read as far as it goes, and what is missing shows as JSON that ends early.
pub fn read_file_bytes(
    path: &Path,
    name: &str,
    limits: &ReadLimits,
) -> Result<Vec<u8>, InputError> {
    let read_error = |cause| InputError::Read {
        name: name.to_owned(),
        cause,
    };
    let file = std::fs::File::open(path).map_err(read_error)?;
    // A FIFO or a device reports no useful length: it is read up to the limit.
    let size = file
        .metadata()
        .ok()
        .filter(std::fs::Metadata::is_file)
        .map(|m| m.len());
    if let Some(size) = size.filter(|&s| s > limits.max_document_bytes) {
        return Err(InputError::TooLarge {
            name: name.to_owned(),
            size: Some(size),
            max: limits.max_document_bytes,
        });
    }
    read_bytes(file, name, size, limits)
}

/// Everything `reader` holds, up to `limits.max_document_bytes`; more is an error, and the
/// rest is not read. `expected` (a file's length) sizes the buffer; a stream is read in blocks
/// of 8 MiB, so refusing one holds the limit and no more (`Read::read_to_end` doubled its
/// buffer: `estimate /dev/zero` peaked at 3.17 GB to refuse 1 GiB).
pub fn read_bytes(
    mut reader: impl Read,
    name: &str,
    expected: Option<u64>,
    limits: &ReadLimits,
) -> Result<Vec<u8>, InputError> {
    let max = limits.max_document_bytes;
    let limit = usize::try_from(max.saturating_add(1)).unwrap_or(usize::MAX);
    let failed = |cause| InputError::Read {
        name: name.to_owned(),
        cause,
    };
    // Blocks of their own size, never a buffer grown by doubling: a doubled buffer and the one
    // it was copied from (which the allocator keeps a while) held 2-3 times the limit before
    // a refusal. A file's length sizes its one block; a stream's blocks are joined at its end.
    let first = expected.map_or(STREAM_BLOCK, |n| {
        usize::try_from(n).unwrap_or(limit).saturating_add(1)
    });
    let mut blocks: Vec<Vec<u8>> = Vec::new();
    let mut total = 0usize;
    loop {
        let room = if blocks.is_empty() {
            first
        } else {
            STREAM_BLOCK
        }
        .min(limit - total);
        if room == 0 {
            break;
        }
        let mut block = Vec::with_capacity(room);
        // Into the room there is, never more: `take` keeps read_to_end from growing the block.
        let n = (&mut reader)
            .take(room as u64)
            .read_to_end(&mut block)
            .map_err(failed)?;
        total += n;
        blocks.push(block);
        if n < room {
            break;
        }
    }
    if total as u64 > max {
        return Err(InputError::TooLarge {
            name: name.to_owned(),
            size: None,
            max,
        });
    }
    Ok(match blocks.len() {
        0 => Vec::new(),
        1 => {
            let mut only = blocks.pop().unwrap_or_default();
            // A small stream in a stream-sized block: kept at its own size.
            if only.capacity() > 2 * only.len() + 4096 {
                only.shrink_to_fit();
            }
            only
        }
        _ => {
            let mut bytes = Vec::with_capacity(total);
            for block in blocks {
                bytes.extend_from_slice(&block);
            }
            bytes
        }
    })
}

/// How much of a stream of unknown length is read into one block.
const STREAM_BLOCK: usize = 8 << 20;

/// A JSONL file opened to be read a line at a time (through [`for_each_line_batch`]).
pub fn open_jsonl(path: &Path, name: &str) -> Result<io::BufReader<std::fs::File>, InputError> {
    std::fs::File::open(path)
        .map(|file| io::BufReader::with_capacity(1 << 20, file))
        .map_err(|cause| InputError::Read {
            name: name.to_owned(),
            cause,
        })
}

/// A JSONL file, a line at a time: memory holds one line, however long the file.
fn stream_jsonl(
    path: &Path,
    name: &str,
    limits: &ReadLimits,
    visit: &mut impl FnMut(Result<Document, InputError>),
) {
    let reader = match open_jsonl(path, name) {
        Ok(reader) => reader,
        Err(e) => return visit(Err(e)),
    };
    let mut any = false;
    for_each_line_batch(name, reader, limits, 1, usize::MAX, |batch| {
        for (number, line) in batch {
            any = true;
            visit(line.and_then(|text| parse_line(name, number, text, limits)));
        }
    });
    if !any {
        visit(Err(InputError::Empty {
            name: name.to_owned(),
        }));
    }
}

/// An input's bytes as text: UTF-8 (an error names the line and column where it is not) and
/// not blank.
fn decode(name: &str, bytes: Vec<u8>) -> Result<String, InputError> {
    let mut text = String::from_utf8(bytes).map_err(|err| {
        let offset = err.utf8_error().valid_up_to();
        let (line, column) = line_column(err.as_bytes(), offset);
        InputError::Utf8 {
            name: name.to_owned(),
            line,
            column,
            offset,
        }
    })?;
    // A byte order mark is no part of the JSON (RFC 8259 lets a parser ignore it).
    if text.starts_with(BOM) {
        text.drain(..BOM.len_utf8());
    }
    if text.trim().is_empty() {
        return Err(InputError::Empty {
            name: name.to_owned(),
        });
    }
    Ok(text)
}

/// The UTF-8 byte order mark some editors write at the start of a file.
const BOM: char = '\u{feff}';

/// Loads every document of the sources into memory (small inputs, tests).
pub fn load_all(
    sources: &[Source],
    stdin: impl Read,
    limits: &ReadLimits,
) -> Vec<Result<Document, InputError>> {
    let mut out = Vec::new();
    for_each_document(sources, stdin, limits, |d| out.push(d));
    out
}

/// Parses one in-memory text as a document (or several, if it is JSONL), within the default
/// limits.
pub fn parse_text(name: &str, text: &str) -> Vec<Result<Document, InputError>> {
    let mut out = Vec::new();
    let limits = ReadLimits::default();
    parse_bytes(name, text.as_bytes().to_vec(), false, &limits, &mut |d| {
        out.push(d)
    });
    out
}

fn is_json_name(path: &Path) -> bool {
    path.extension().and_then(|e| e.to_str()).is_some_and(|e| {
        ["json", "jsonl", "ndjson"]
            .iter()
            .any(|x| e.eq_ignore_ascii_case(x))
    })
}

/// True for `.jsonl` and `.ndjson` files: one document per line, read as a stream.
pub fn is_jsonl(path: &Path) -> bool {
    path.extension()
        .and_then(|e| e.to_str())
        .is_some_and(|e| e.eq_ignore_ascii_case("jsonl") || e.eq_ignore_ascii_case("ndjson"))
}

fn walk_dir(dir: &Path, units: &mut Vec<Unit>) {
    let mut found = false;
    // Links are followed (a corpus of symlinked captures is common); walkdir reports loops
    // through an ancestor and dangling links as errors, which become read errors for that
    // entry. A directory reached a second time another way (a link to the corpus's parent)
    // is not walked again, so no file is audited twice.
    let mut walked = std::collections::HashSet::new();
    let walker = walkdir::WalkDir::new(dir)
        .follow_links(true)
        .sort_by_file_name()
        .into_iter()
        .filter_entry(move |e| {
            if e.depth() > 0 && e.file_name().to_string_lossy().starts_with('.') {
                return false;
            }
            !e.file_type().is_dir() || file_id(e).is_none_or(|id| walked.insert(id))
        });
    for entry in walker {
        match entry {
            Ok(entry) if entry.file_type().is_file() && is_json_name(entry.path()) => {
                found = true;
                units.push(Unit::file(entry.into_path()));
            }
            Ok(_) => {}
            Err(err) => {
                found = true;
                let name = err.path().unwrap_or(dir).display().to_string();
                let cause = err
                    .into_io_error()
                    .unwrap_or_else(|| io::Error::other("symbolic link loop"));
                units.push(Unit::Failed(InputError::Read { name, cause }));
            }
        }
    }
    if !found {
        units.push(Unit::Failed(InputError::NoJsonInDir {
            name: dir.display().to_string(),
        }));
    }
}

/// A directory's identity on its file system (device and inode), to notice it again.
#[cfg(unix)]
fn file_id(entry: &walkdir::DirEntry) -> Option<(u64, u64)> {
    use std::os::unix::fs::MetadataExt as _;
    entry.metadata().ok().map(|m| (m.dev(), m.ino()))
}

#[cfg(not(unix))]
fn file_id(_entry: &walkdir::DirEntry) -> Option<(u64, u64)> {
    None
}

fn parse_bytes(
    name: &str,
    bytes: Vec<u8>,
    jsonl: bool,
    limits: &ReadLimits,
    visit: &mut impl FnMut(Result<Document, InputError>),
) {
    match decode(name, bytes) {
        Ok(text) if jsonl => parse_lines(name, &text, limits, visit),
        Ok(text) => parse_document_text(name, text, limits, visit),
        Err(e) => visit(Err(e)),
    }
}

/// One whole input's bytes as the text of a JSON document: UTF-8, not blank, and nested no
/// deeper than `limits` allow; not parsed (a command that reads its own tree parses it, and
/// [`documents_of_text`] reads it as documents).
pub fn document_text(
    name: &str,
    bytes: Vec<u8>,
    limits: &ReadLimits,
) -> Result<String, InputError> {
    let text = decode(name, bytes)?;
    check_nesting(name, &text, limits)?;
    Ok(text)
}

/// One whole input's text as documents: one JSON document, or several one per line (a
/// transcript not named .jsonl), or the error that names where it stops being JSON.
pub fn documents_of_text(
    name: &str,
    text: String,
    limits: &ReadLimits,
) -> Vec<Result<Document, InputError>> {
    let mut out = Vec::new();
    parse_document_text(name, text, limits, &mut |d| out.push(d));
    out
}

fn parse_document_text(
    name: &str,
    text: String,
    limits: &ReadLimits,
    visit: &mut impl FnMut(Result<Document, InputError>),
) {
    if let Err(e) = check_nesting(name, &text, limits) {
        return visit(Err(e));
    }
    match parse_value(&text) {
        Ok(value) => visit(Ok(Document {
            name: name.to_owned(),
            file: name.to_owned(),
            line: 1,
            text,
            value,
        })),
        // Several values one per line, in a file not named .jsonl: a transcript after all.
        Err(err)
            if err.to_string().starts_with("trailing characters") && first_line_parses(&text) =>
        {
            parse_lines(name, &text, limits, visit)
        }
        Err(err) => visit(Err(json_error(name, &text, &err))),
    }
}

fn first_line_parses(text: &str) -> bool {
    text.lines()
        .find(|l| !l.trim().is_empty())
        .is_some_and(|l| parse_json::<serde::de::IgnoredAny>(l).is_ok())
}

fn parse_lines(
    name: &str,
    text: &str,
    limits: &ReadLimits,
    visit: &mut impl FnMut(Result<Document, InputError>),
) {
    for (index, line) in text.lines().enumerate() {
        if line.trim().is_empty() {
            continue;
        }
        visit(parse_line(name, index + 1, line.to_owned(), limits));
    }
}

/// [`InputError::TooDeep`] where `text` nests deeper than `limits.max_nesting`. The parser
/// enforces [`MAX_NESTING`] itself, so only a lower setting costs this pass (linear, no
/// allocation).
pub fn check_nesting(name: &str, text: &str, limits: &ReadLimits) -> Result<(), InputError> {
    if limits.max_nesting >= MAX_NESTING as u64 {
        return Ok(());
    }
    let (mut depth, mut in_string, mut escaped) = (0u64, false, false);
    for (offset, &b) in text.as_bytes().iter().enumerate() {
        if in_string {
            match b {
                _ if escaped => escaped = false,
                b'\\' => escaped = true,
                b'"' => in_string = false,
                _ => {}
            }
            continue;
        }
        match b {
            b'"' => in_string = true,
            b'[' | b'{' => {
                depth += 1;
                if depth > limits.max_nesting {
                    let (line, column) = line_column(text.as_bytes(), offset);
                    return Err(InputError::TooDeep {
                        name: name.to_owned(),
                        line,
                        column,
                        max: limits.max_nesting,
                    });
                }
            }
            b']' | b'}' => depth = depth.saturating_sub(1),
            _ => {}
        }
    }
    Ok(())
}

/// The error for JSON that did not parse: file:line:column and serde_json's message, or
/// [`InputError::TooDeep`].
pub fn json_error(name: &str, text: &str, err: &serde_json::Error) -> InputError {
    let (mut line, mut column) = (err.line(), err.column());
    if column == 0 && line > 1 {
        // serde_json reports an error found at a newline as column 0 of the next line; point
        // at the newline itself, the end of the line where the problem is.
        line -= 1;
        column = text.lines().nth(line - 1).map_or(0, str::len) + 1;
    }
    let full = err.to_string();
    if full.starts_with("recursion limit exceeded") {
        return InputError::TooDeep {
            name: name.to_owned(),
            line,
            column,
            max: MAX_NESTING as u64,
        };
    }
    // serde_json appends " at line L column C"; we put the position in front, compiler-style.
    let mut message = match full.rfind(" at line ") {
        Some(cut) => full[..cut].to_owned(),
        None => full,
    };
    // What serde_json cannot say: why a value that looks fine is not JSON.
    let at = text
        .lines()
        .nth(line.saturating_sub(1))
        .and_then(|l| l.get(column.saturating_sub(1)..))
        .unwrap_or("");
    if message == "expected value"
        && ["NaN", "Infinity", "-Infinity"]
            .iter()
            .any(|w| at.starts_with(w))
    {
        message.push_str(": NaN and Infinity are not JSON (write null or a string)");
    } else if message == "number out of range" {
        message.push_str(": larger than a 64-bit float holds (about 1.8e308); send it as a string");
    }
    InputError::Json {
        name: name.to_owned(),
        line,
        column,
        message,
    }
}

/// 1-based line and column (in bytes) of a byte offset.
pub fn line_column(bytes: &[u8], offset: usize) -> (usize, usize) {
    let before = &bytes[..offset.min(bytes.len())];
    let line = before.iter().filter(|&&b| b == b'\n').count() + 1;
    let column = offset
        - before
            .iter()
            .rposition(|&b| b == b'\n')
            .map_or(0, |p| p + 1)
        + 1;
    (line, column)
}

#[cfg(test)]
mod tests {
    use super::*;

    fn one(text: &str) -> Result<Document, InputError> {
        parse_text("t.json", text).into_iter().next().unwrap()
    }

    #[test]
    fn reports_position_of_bad_json() {
        let err = one("{\n  \"a\": 1,\n  \"b\": tru\n}").unwrap_err();
        assert_eq!(err.to_string(), "t.json:3:11: invalid JSON: expected ident");
    }

    #[test]
    fn deep_nesting_is_an_error_not_a_crash() {
        let deep = "[".repeat(100_000) + &"]".repeat(100_000);
        let err = one(&deep).unwrap_err();
        assert!(matches!(err, InputError::TooDeep { line: 1, .. }), "{err}");
    }

    #[test]
    fn ndjson_without_the_extension_is_split_into_lines() {
        let docs = parse_text("t.json", "{\"id\":1}\n\n{\"id\":2}\n");
        let names: Vec<_> = docs
            .iter()
            .map(|d| d.as_ref().unwrap().name.clone())
            .collect();
        assert_eq!(names, ["t.json:1", "t.json:3"]);
    }

    #[test]
    fn invalid_utf8_names_the_position() {
        let mut out = Vec::new();
        let limits = ReadLimits::default();
        parse_bytes(
            "b.json",
            b"{\"a\":\n\"\xff\"}".to_vec(),
            false,
            &limits,
            &mut |d| out.push(d),
        );
        let err = out.pop().unwrap().unwrap_err();
        assert!(
            matches!(
                err,
                InputError::Utf8 {
                    line: 2,
                    column: 2,
                    offset: 7,
                    ..
                }
            ),
            "{err}"
        );
    }

    #[test]
    fn a_large_file_that_cannot_be_json_is_refused_from_its_head_with_the_same_error() {
        let dir = tempfile::tempdir().unwrap();
        let limits = ReadLimits::default();
        for (file, head) in [
            ("page.json", "\u{feff}\n  <html>upstream timeout</html>\n"),
            ("log.json", "INFO 2026-11-30 started\n"),
            // What can start a JSON value is read whole, whatever follows it.
            ("ok.json", "[1, 2"),
            ("dated.json", "2026-11-30 INFO started\n"),
        ] {
            let path = dir.path().join(file);
            let mut text = head.to_owned();
            text.push_str(&" ".repeat((2 << 20) - text.len()));
            std::fs::write(&path, &text).unwrap();
            let whole = read_file_bytes(&path, file, &limits)
                .and_then(|b| document_text(file, b, &limits))
                .map(|t| documents_of_text(file, t, &limits));
            let whole = match whole {
                Ok(mut docs) => docs.pop().unwrap().map(|d| d.name),
                Err(e) => Err(e),
            };
            match not_json_at_start(&path, file) {
                Some(early) => assert_eq!(early.to_string(), whole.unwrap_err().to_string()),
                None => assert!(
                    matches!(file, "ok.json" | "dated.json"),
                    "{file}: a JSON start is read whole"
                ),
            }
        }
    }

    #[test]
    fn a_stream_is_held_in_no_more_than_the_limit_and_refused_past_it() {
        let limits = ReadLimits {
            max_document_bytes: 6 << 20,
            ..ReadLimits::default()
        };
        // A stream of unknown length (a pipe): read_to_end would double its buffer to 8 MiB.
        let held = read_bytes(io::repeat(b'x').take(5 << 20), "<stdin>", None, &limits).unwrap();
        assert_eq!(held.len(), 5 << 20);
        assert!(held.capacity() <= (6 << 20) + 1, "{}", held.capacity());
        // A file of known length: exactly its size (and the byte that proves the end).
        let file = read_bytes(io::repeat(b'x').take(3 << 20), "f", Some(3 << 20), &limits).unwrap();
        assert!(file.capacity() <= (3 << 20) + 1, "{}", file.capacity());
        // Past the limit: refused, having read the limit and one byte, not the rest.
        let mut endless = io::repeat(b'x');
        let refused = read_bytes(&mut endless, "/dev/zero", None, &limits);
        assert!(matches!(refused, Err(InputError::TooLarge { .. })));
        assert!(
            read_bytes(io::empty(), "e", None, &limits)
                .unwrap()
                .is_empty()
        );
    }

    #[test]
    fn lone_surrogate_escapes_read_as_replacement_characters() {
        let doc = one(r#"{"t": "a\ud800b \udfff c \ud83d\ude00 \\ud800"}"#).unwrap();
        assert_eq!(doc.value["t"], "a\u{fffd}b \u{fffd} c \u{1f600} \\ud800");
        // The wire text is kept as sent.
        assert!(doc.text.contains(r"\ud800b"));
        // Other broken escapes still fail, at their position.
        assert!(one(r#"{"t": "\uZZZZ"}"#).is_err());
    }

    #[test]
    fn a_reader_that_ends_early_gives_what_it_had_and_one_past_the_limit_is_refused() {
        // A file that shrank after its length was read: fewer bytes than expected, no error.
        let limits = ReadLimits::default();
        let bytes = read_bytes(&b"{\"a\":"[..], "f.json", Some(1 << 20), &limits).unwrap();
        assert_eq!(bytes, b"{\"a\":");
        let err = parse_text("f.json", std::str::from_utf8(&bytes).unwrap()).remove(0);
        assert!(
            err.unwrap_err()
                .to_string()
                .starts_with("f.json:1:5: invalid JSON: EOF while parsing"),
        );
        // One that grew: read to the limit and one byte more, then refused.
        let small = ReadLimits {
            max_document_bytes: 4,
            ..ReadLimits::default()
        };
        let err = read_bytes(&b"12345678"[..], "g.json", Some(3), &small).unwrap_err();
        assert!(
            matches!(
                err,
                InputError::TooLarge {
                    size: None,
                    max: 4,
                    ..
                }
            ),
            "{err}"
        );
        assert_eq!(
            read_bytes(&b"1234"[..], "g.json", None, &small).unwrap(),
            b"1234"
        );
    }

    #[test]
    fn empty_input_is_an_error() {
        assert!(matches!(one(" \n"), Err(InputError::Empty { .. })));
    }
}
