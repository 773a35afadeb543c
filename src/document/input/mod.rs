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
use std::path::PathBuf;

use serde_json::Value;

use crate::config::ReadLimits;

mod jsonl;
mod parse;
mod sources;

use jsonl::stream_jsonl;
pub use jsonl::{for_each_line_batch, open_jsonl};
use parse::parse_bytes;
pub use parse::{
    check_nesting, document_text, documents_of_text, json_error, line_column, parse_line,
    parse_text,
};
pub use sources::{
    expand, is_jsonl, load_all, read_bytes, read_file_bytes, read_json_file_bytes, read_text,
    read_unit_bytes,
};

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

#[cfg(test)]
mod tests {
    use super::sources::not_json_at_start;
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
