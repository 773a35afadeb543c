//! Text to documents: a JSON document parsed (or a JSONL text split into lines), its nesting
//! checked before a parser recurses into it, and errors that name the line and column.

use crate::json::parse::{parse_json, parse_value};

use crate::json::parse::MAX_NESTING;

use super::{Document, InputError, ReadLimits};

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

pub(super) fn parse_bytes(
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

pub(super) fn parse_document_text(
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

pub(super) fn first_line_parses(text: &str) -> bool {
    text.lines()
        .find(|l| !l.trim().is_empty())
        .is_some_and(|l| parse_json::<serde::de::IgnoredAny>(l).is_ok())
}

pub(super) fn parse_lines(
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

/// An input's bytes as text: UTF-8 (an error names the line and column where it is not) and
/// not blank.
pub(super) fn decode(name: &str, bytes: Vec<u8>) -> Result<String, InputError> {
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
pub(super) const BOM: char = '\u{feff}';

/// Parses one JSONL line read by [`super::for_each_line_batch`].
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
