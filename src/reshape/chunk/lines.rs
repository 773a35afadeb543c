//! `--lines A:B`: just those lines (FR-023), found by counting newlines a buffer at a time, so
//! a range near the end of a large file costs one fast scan, not a chunking pass.

use std::io::{self, BufRead};

/// A 1-based, inclusive range of lines.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Range {
    pub start: u64,
    pub end: u64,
}

impl Range {
    /// `A:B`, `A:` (to the end) or `A` (one line); 1-based, inclusive.
    pub fn parse(text: &str) -> Result<Range, String> {
        let bad =
            || format!("--lines {text}: expected START:END with 1 <= START <= END, e.g. 100:200");
        let (a, b) = text.split_once(':').unwrap_or((text, text));
        let start: u64 = a.trim().parse().map_err(|_| bad())?;
        let end: u64 = if b.trim().is_empty() {
            u64::MAX
        } else {
            b.trim().parse().map_err(|_| bad())?
        };
        if start == 0 {
            return Err(format!("--lines {text}: lines are numbered from 1"));
        }
        if end < start {
            return Err(format!(
                "--lines {text}: the range is reversed (END {end} is before START {start})"
            ));
        }
        Ok(Range { start, end })
    }
}

/// The lines asked for, and where they are.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Extract {
    pub content: Vec<u8>,
    pub start_line: u64,
    pub end_line: u64,
    pub total_lines: u64,
}

/// Reads `range` out of `reader`. The whole input is scanned once (to count its lines); only
/// the lines asked for are kept. `None` when the range starts past the end.
pub fn extract(mut reader: impl BufRead, range: Range) -> io::Result<Option<Extract>> {
    let mut line = 1u64;
    let mut content = Vec::new();
    let mut last_byte = None;
    loop {
        let buf = reader.fill_buf()?;
        if buf.is_empty() {
            break;
        }
        let len = buf.len();
        let mut from = 0;
        // Copy what lies inside the range, count newlines for the rest.
        while from < len {
            let rest = &buf[from..];
            let newline = rest.iter().position(|&b| b == b'\n');
            let upto = newline.map_or(rest.len(), |i| i + 1);
            if line >= range.start && line <= range.end {
                content.extend_from_slice(&rest[..upto]);
            }
            if newline.is_some() {
                line += 1;
            }
            from += upto;
            // Past the range: only counting is left, a whole buffer at a time.
            if line > range.end {
                line += buf[from..].iter().filter(|&&b| b == b'\n').count() as u64;
                from = len;
            }
        }
        last_byte = buf.last().copied();
        reader.consume(len);
    }
    let total_lines = match last_byte {
        None => 0,
        Some(b'\n') => line - 1,
        Some(_) => line,
    };
    if range.start > total_lines {
        return Ok(None);
    }
    Ok(Some(Extract {
        content,
        start_line: range.start,
        end_line: range.end.min(total_lines),
        total_lines,
    }))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn ranges() {
        let text = b"one\ntwo\nthree\nfour";
        let get = |r: &str| extract(&text[..], Range::parse(r).unwrap()).unwrap();
        let e = get("2:3").unwrap();
        assert_eq!(
            (
                e.content.as_slice(),
                e.start_line,
                e.end_line,
                e.total_lines
            ),
            (&b"two\nthree\n"[..], 2, 3, 4)
        );
        assert_eq!(get("4").unwrap().content, b"four");
        assert_eq!(get("3:").unwrap().end_line, 4);
        assert!(get("5:9").is_none());
        assert!(Range::parse("9:2").unwrap_err().contains("reversed"));
        assert!(Range::parse("0:2").is_err());
    }
}
