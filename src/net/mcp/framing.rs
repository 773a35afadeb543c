//! How messages are framed on the wire, read from bytes a server controls: lines (stdio's
//! newline-delimited JSON, and the lines of an event stream) and Server-Sent Events.
//!
//! Both are pure and bounded: a line longer than the cap is an error before it is held whole,
//! invalid UTF-8 is kept lossily (the JSON parse then says what is wrong), and an event's
//! data may not outgrow the cap either. The fuzz targets `jsonrpc_reader` and `sse_parser`
//! drive these functions directly.

use std::io::{self, BufRead};
use std::time::Duration;

use crate::util::lines::Capped;

/// What reading one line gave.
#[derive(Debug, PartialEq, Eq)]
pub enum Line {
    /// A line, without its `\n` or `\r\n`.
    Text(String),
    /// The end of the stream (a last line without a newline is returned first).
    End,
    /// A line longer than the cap: nothing of it is kept.
    TooLong,
}

/// Reads one line of at most `cap` bytes. An I/O error other than an interruption is
/// returned as it is.
pub fn read_line(reader: &mut impl BufRead, cap: usize) -> io::Result<Line> {
    let mut line = Vec::new();
    Ok(
        match crate::util::lines::read_capped(reader, &mut line, cap)? {
            Capped::End => Line::End,
            Capped::TooLong => Line::TooLong,
            Capped::Line => {
                if line.last() == Some(&b'\n') {
                    line.pop();
                }
                if line.last() == Some(&b'\r') {
                    line.pop();
                }
                Line::Text(
                    String::from_utf8(line)
                        .unwrap_or_else(|e| String::from_utf8_lossy(e.as_bytes()).into_owned()),
                )
            }
        },
    )
}

/// An event's data outgrew the cap.
#[derive(Debug, PartialEq, Eq)]
pub struct TooLarge;

/// The fields of an event stream that matter to an MCP client (the WHATWG SSE rules, less
/// `event:`, which MCP does not use): `data:` lines joined with `\n`, dispatched at a blank
/// line; `id:` and `retry:` remembered for a reconnection; comments and other fields ignored.
#[derive(Debug, Default)]
pub struct Sse {
    data: String,
    /// Whether the event being read has a `data:` field (one can be empty).
    has_data: bool,
    cap: usize,
    /// The last event id seen (a priming event's, or a message's).
    pub last_event_id: Option<String>,
    /// The server's `retry`.
    pub retry: Option<Duration>,
}

/// Reconnections of one legacy request's stream, at most.
pub const MAX_RESUMES: u32 = 5;
/// The wait before a reconnection when the server named none (the SSE default is the
/// client's choice).
const DEFAULT_RETRY: Duration = Duration::from_millis(500);
/// The longest `retry` honoured: a server asking for more still gets its answer read within
/// --timeout.
const MAX_RETRY: Duration = Duration::from_secs(10);

impl Sse {
    pub fn new(cap: usize) -> Sse {
        Sse {
            cap,
            ..Sse::default()
        }
    }

    /// How long to wait before going back with `Last-Event-ID`: the server's `retry`, 500 ms
    /// when it named none, 10 s at most.
    pub fn reconnect_after(&self) -> Duration {
        self.retry.unwrap_or(DEFAULT_RETRY).min(MAX_RETRY)
    }

    /// Takes one line; returns an event's data when the line ends a non-empty one.
    pub fn line(&mut self, line: &str) -> Result<Option<String>, TooLarge> {
        if line.is_empty() {
            self.has_data = false;
            return Ok((!self.data.is_empty()).then(|| std::mem::take(&mut self.data)));
        }
        let (field, value) = match line.split_once(':') {
            Some((field, value)) => (field, value.strip_prefix(' ').unwrap_or(value)),
            None => (line, ""),
        };
        match field {
            "data" => {
                if self.has_data {
                    self.data.push('\n');
                }
                self.has_data = true;
                if self.data.len() + value.len() > self.cap {
                    return Err(TooLarge);
                }
                self.data.push_str(value);
            }
            // An id with a NUL is ignored, as the standard says.
            "id" if !value.contains('\0') => self.last_event_id = Some(value.to_owned()),
            "retry" if !value.is_empty() && value.bytes().all(|b| b.is_ascii_digit()) => {
                self.retry = value.parse().ok().map(Duration::from_millis);
            }
            _ => {}
        }
        Ok(None)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn lines_are_capped_and_keep_their_blank_ones() {
        let mut r = io::BufReader::with_capacity(4, &b"{\"a\":1}\r\n\nlast"[..]);
        assert_eq!(
            read_line(&mut r, 100).unwrap(),
            Line::Text("{\"a\":1}".into())
        );
        assert_eq!(read_line(&mut r, 100).unwrap(), Line::Text(String::new()));
        assert_eq!(read_line(&mut r, 100).unwrap(), Line::Text("last".into()));
        assert_eq!(read_line(&mut r, 100).unwrap(), Line::End);
        let mut long = io::BufReader::with_capacity(4, &b"12345678901\n"[..]);
        assert_eq!(read_line(&mut long, 10).unwrap(), Line::TooLong);
        let mut bad = &b"\xff\xfe{}\n"[..];
        assert_eq!(
            read_line(&mut bad, 10).unwrap(),
            Line::Text("\u{fffd}\u{fffd}{}".into())
        );
    }

    #[test]
    fn events_follow_the_sse_rules() {
        let mut sse = Sse::new(1 << 20);
        let mut events = Vec::new();
        let stream = "id: 7\nretry: 250\ndata:\n\n: a comment\ndata: {\"a\":\ndata:1}\n\ndata: cut";
        for line in stream.lines() {
            events.extend(sse.line(line).unwrap());
        }
        // The priming event (id, retry, empty data) dispatches nothing; the cut one never ends.
        assert_eq!(events, ["{\"a\":\n1}"]);
        assert_eq!(sse.last_event_id.as_deref(), Some("7"));
        assert_eq!(sse.retry, Some(Duration::from_millis(250)));
        let mut small = Sse::new(4);
        assert_eq!(small.line("data: 12345"), Err(TooLarge));
    }
}
