//! JSON Lines: a transcript or `.jsonl` file read a batch of lines at a time under the line
//! cap, each line parsed into its own document.

use std::io;
use std::path::Path;

use super::parse::parse_line;
use super::{Document, InputError, ReadLimits};

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
pub(super) fn stream_jsonl(
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
