//! How many times the same log line is written: a flood of one event (a server writing 150,000
//! stray lines, a client retrying a refused request) must not become a flood of log lines that
//! buries everything else and fills a disk. Pure: lines and the time in, the lines to write
//! out.
//!
//! Warnings and errors are alike when their message is: the first [`Throttle::BURST`] of a kind
//! in a window of [`Throttle::WINDOW`] are written, the rest are counted, and the next line of
//! that kind after the window says how many were left out. Info lines (a line a request, which
//! `--quiet` turns off) always pass.

use std::collections::HashMap;
use std::time::{Duration, Instant};

use super::policy::{Level, Log};

/// Counts of recent lines, by message.
#[derive(Debug, Default)]
pub struct Throttle {
    kinds: HashMap<String, Kind>,
}

#[derive(Debug)]
struct Kind {
    since: Instant,
    written: u32,
    held: u64,
}

impl Throttle {
    /// Lines of one kind written in a window.
    pub const BURST: u32 = 10;
    pub const WINDOW: Duration = Duration::from_secs(10);
    /// Kinds remembered at once; past that, the oldest windows are forgotten.
    const KINDS: usize = 1024;

    /// What to write for `log` at `now`: nothing (held back), the line, or first a line
    /// saying how many of its kind were held back in the window before.
    pub fn admit(&mut self, log: &Log, now: Instant) -> Vec<Log> {
        if log.level == Level::Info {
            return vec![log.clone()];
        }
        if self.kinds.len() >= Self::KINDS && !self.kinds.contains_key(&log.message) {
            self.kinds
                .retain(|_, k| now.saturating_duration_since(k.since) < Self::WINDOW);
        }
        let kind = self.kinds.entry(log.message.clone()).or_insert(Kind {
            since: now,
            written: 0,
            held: 0,
        });
        let mut out = Vec::new();
        if now.saturating_duration_since(kind.since) >= Self::WINDOW {
            if kind.held > 0 {
                out.push(Log::new(
                    log.level,
                    format!(
                        "{} more line(s) like this were left out in {} s: {}",
                        kind.held,
                        Self::WINDOW.as_secs(),
                        log.message
                    ),
                ));
            }
            *kind = Kind {
                since: now,
                written: 0,
                held: 0,
            };
        }
        if kind.written < Self::BURST {
            kind.written += 1;
            out.push(log.clone());
        } else {
            kind.held += 1;
        }
        out
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_flood_of_one_line_is_a_few_lines_and_a_count() {
        let mut t = Throttle::default();
        let start = Instant::now();
        let stray = Log::new(Level::Warn, "the server wrote a line that is not JSON-RPC");
        let other = Log::new(Level::Info, "tools/call: passed through");
        let mut written = 0;
        for i in 0..152_000u32 {
            let at = start + Duration::from_micros(u64::from(i) * 50);
            written += t.admit(&stray, at).len();
        }
        assert_eq!(written, 10, "7.6 s of flood, one window");
        assert_eq!(t.admit(&other, start).len(), 1, "other lines pass");
        for _ in 0..100 {
            assert_eq!(t.admit(&other, start).len(), 1, "a line a request, always");
        }
        let after = t.admit(&stray, start + Duration::from_secs(11));
        assert_eq!(after.len(), 2);
        assert_eq!(
            after[0].message,
            "151990 more line(s) like this were left out in 10 s: the server wrote a line that is not JSON-RPC"
        );
    }
}
