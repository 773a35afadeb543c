//! Reading one line with a cap, from bytes nobody vetted: a line longer than the cap is
//! reported before it is held whole. Shared by the live client's framing (stdio lines, SSE)
//! and the JSONL reader of files and transcripts. And the other way: [`SplitLines`], a
//! writer that hands on each whole line written to it, for the proxy's in-process ends.

use std::io::{self, BufRead};

/// What [`read_capped`] read.
#[derive(Debug, PartialEq, Eq)]
pub enum Capped {
    /// A line (its `\n` included when it had one) is in the buffer.
    Line,
    /// The line is longer than the cap: the buffer keeps at most its first [`HEAD`] bytes
    /// (the proxy reads the id there) and the rest of the line is still unread (see
    /// [`skip_line`]).
    TooLong,
    /// The end of the input, nothing read.
    End,
}

/// How much of a line over the cap is kept, for a caller that wants to know what it was.
pub const HEAD: usize = 64 << 10;

/// Appends one line to the cleared `buf`, newline included, if it is at most `cap` bytes.
pub fn read_capped(reader: &mut impl BufRead, buf: &mut Vec<u8>, cap: usize) -> io::Result<Capped> {
    buf.clear();
    loop {
        let available = fill(reader)?;
        if available.is_empty() {
            return Ok(if buf.is_empty() {
                Capped::End
            } else {
                Capped::Line
            });
        }
        match take(buf, available, cap) {
            Taken::Part(used) => reader.consume(used),
            Taken::Line(used) => {
                reader.consume(used);
                return Ok(Capped::Line);
            }
            Taken::Over => return Ok(Capped::TooLong),
        }
    }
}

/// What [`take`] did with the bytes a reader had buffered.
#[derive(Debug, PartialEq, Eq)]
pub enum Taken {
    /// Appended this many bytes, all of them, and the line goes on.
    Part(usize),
    /// Appended this many bytes, the line's end included.
    Line(usize),
    /// The line is over the cap: `buf` keeps its first [`HEAD`] bytes (some of them from
    /// `available`, none consumed); the rest is the caller's to skip.
    Over,
}

/// One step of reading a capped line, for any reader, blocking or not: the part of `available`
/// up to its first newline goes into `buf` if the line stays within `cap`.
pub fn take(buf: &mut Vec<u8>, available: &[u8], cap: usize) -> Taken {
    let (chunk, done) = match memchr::memchr(b'\n', available) {
        Some(i) => (&available[..=i], true),
        None => (available, false),
    };
    if buf.len() + chunk.len() > cap {
        buf.truncate(HEAD);
        let room = HEAD.saturating_sub(buf.len()).min(chunk.len());
        buf.extend_from_slice(&chunk[..room]);
        return Taken::Over;
    }
    buf.extend_from_slice(chunk);
    if done {
        Taken::Line(chunk.len())
    } else {
        Taken::Part(chunk.len())
    }
}

/// The reader's buffered bytes, read again when a signal interrupted the read (empty at the
/// end of the input).
fn fill(reader: &mut impl BufRead) -> io::Result<&[u8]> {
    loop {
        match reader.fill_buf() {
            Err(e) if e.kind() == io::ErrorKind::Interrupted => continue,
            Err(e) => return Err(e),
            Ok(_) => break,
        }
    }
    // Now buffered (or at the end): this call does no I/O that could be interrupted.
    reader.fill_buf()
}

/// Consumes the rest of a line without keeping it.
pub fn skip_line(reader: &mut impl BufRead) -> io::Result<()> {
    loop {
        let available = fill(reader)?;
        if available.is_empty() {
            return Ok(());
        }
        match memchr::memchr(b'\n', available) {
            Some(i) => {
                reader.consume(i + 1);
                return Ok(());
            }
            None => {
                let n = available.len();
                reader.consume(n);
            }
        }
    }
}

/// A writer that hands each whole line written to it, without its newline, to `each`, however
/// the writes cut it. What is left of a line not ended is dropped with the writer.
pub struct SplitLines<F: FnMut(&[u8]) -> io::Result<()>> {
    each: F,
    /// A line written in pieces, until its newline.
    partial: Vec<u8>,
}

impl<F: FnMut(&[u8]) -> io::Result<()>> SplitLines<F> {
    pub fn new(each: F) -> Self {
        SplitLines {
            each,
            partial: Vec::new(),
        }
    }
}

impl<F: FnMut(&[u8]) -> io::Result<()>> io::Write for SplitLines<F> {
    fn write(&mut self, buf: &[u8]) -> io::Result<usize> {
        let mut rest = buf;
        while let Some(at) = memchr::memchr(b'\n', rest) {
            if self.partial.is_empty() {
                (self.each)(&rest[..at])?;
            } else {
                self.partial.extend_from_slice(&rest[..at]);
                let line = std::mem::take(&mut self.partial);
                (self.each)(&line)?;
            }
            rest = &rest[at + 1..];
        }
        self.partial.extend_from_slice(rest);
        Ok(buf.len())
    }

    fn flush(&mut self) -> io::Result<()> {
        Ok(())
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn lines_written_in_pieces_are_handed_on_whole() {
        let mut got = Vec::new();
        {
            let mut out = SplitLines::new(|line: &[u8]| {
                got.push(String::from_utf8(line.to_vec()).unwrap());
                Ok(())
            });
            use std::io::Write;
            out.write_all(b"{\"a\":").unwrap();
            out.write_all(b"1}\n\n{\"b\":2}\n{\"c\"").unwrap();
            out.write_all(b":3}\nunended").unwrap();
        }
        assert_eq!(got, ["{\"a\":1}", "", "{\"b\":2}", "{\"c\":3}"]);
    }

    #[test]
    fn a_runaway_line_is_reported_and_skipped_not_held() {
        let text = b"{\"a\":1}\n"
            .iter()
            .chain(&[b'x'; 100])
            .chain(b"\n{\"b\":2}")
            .copied()
            .collect::<Vec<u8>>();
        let mut reader = io::BufReader::with_capacity(8, &text[..]);
        let mut buf = Vec::new();
        let mut got = Vec::new();
        loop {
            match read_capped(&mut reader, &mut buf, 32).unwrap() {
                Capped::End => break,
                Capped::TooLong => {
                    got.push("too long".to_owned());
                    skip_line(&mut reader).unwrap();
                }
                Capped::Line => got.push(String::from_utf8(buf.clone()).unwrap()),
            }
        }
        assert_eq!(got, ["{\"a\":1}\n", "too long", "{\"b\":2}"]);
    }
}
