//! The task that reads a child's stdout, a line at a time under the message cap, and hands
//! each message to the routes of its child; when the child exits, every request waiting on it
//! hears so at once.

use std::sync::Arc;

use tokio::io::{AsyncBufReadExt as _, BufReader};
use tokio::process::ChildStdout;

use crate::proxy::policy::{Level, Log};
use crate::util::lines::{self, Capped, Taken};

use super::App;
use super::child::Child;
use super::child::GRACE;

/// Reads the child's stdout until it ends (or the child is killed), then reaps it and tells
/// everyone who waits on it; returns how the child ended, for the log.
pub(super) async fn read(
    app: Arc<App>,
    child: Arc<Child>,
    mut process: tokio::process::Child,
    stdout: ChildStdout,
) -> String {
    let cap = app.opts.max_response_bytes;
    let mut reader = BufReader::with_capacity(1 << 16, stdout);
    let mut buf = Vec::new();
    let killed = loop {
        let read = tokio::select! {
            r = read_capped(&mut reader, &mut buf, cap) => r,
            () = child.kill.notified() => break true,
        };
        match read {
            Ok(Capped::Line) => child.route(&app, &buf).await,
            Ok(Capped::TooLong) => {
                app.log(
                    &Log::new(
                        Level::Error,
                        format!("the server wrote a message over the {cap}-byte cap (--max-message-bytes); skipped"),
                    )
                    .with("server", child.label.clone()),
                );
                child.too_long(&buf).await;
            }
            Ok(Capped::End) | Err(_) => break false,
        }
    };
    let status = if killed {
        None
    } else {
        tokio::time::timeout(GRACE, process.wait())
            .await
            .ok()
            .and_then(Result::ok)
    };
    let how = match status {
        Some(s) => match s.code() {
            Some(c) => format!("exited with status {c}"),
            None => "was killed by a signal".to_owned(),
        },
        None => {
            let _ = process.start_kill();
            let _ = process.wait().await;
            if killed {
                "was stopped".to_owned()
            } else {
                "closed its stdout and was stopped".to_owned()
            }
        }
    };
    child.close(format!("the server {how}"));
    how
}

/// [`crate::util::lines::read_capped`] on an async reader (its step, [`lines::take`], shared): one
/// line into the cleared `buf`, or `TooLong` with the line's head kept and the rest of it
/// skipped.
pub(super) async fn read_capped(
    reader: &mut BufReader<ChildStdout>,
    buf: &mut Vec<u8>,
    cap: usize,
) -> std::io::Result<Capped> {
    buf.clear();
    loop {
        let available = reader.fill_buf().await?;
        if available.is_empty() {
            return Ok(if buf.is_empty() {
                Capped::End
            } else {
                Capped::Line
            });
        }
        match lines::take(buf, available, cap) {
            Taken::Part(used) => reader.consume(used),
            Taken::Line(used) => {
                reader.consume(used);
                return Ok(Capped::Line);
            }
            Taken::Over => break,
        }
    }
    // The rest of the line, not kept.
    loop {
        let available = reader.fill_buf().await?;
        if available.is_empty() {
            return Ok(Capped::TooLong);
        }
        match memchr::memchr(b'\n', available) {
            Some(i) => {
                reader.consume(i + 1);
                return Ok(Capped::TooLong);
            }
            None => {
                let n = available.len();
                reader.consume(n);
            }
        }
    }
}
