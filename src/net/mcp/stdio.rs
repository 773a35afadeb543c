//! The stdio transport: the server is a child process reading newline-delimited JSON-RPC on
//! stdin and writing it on stdout.
//!
//! A thread reads stdout a line at a time (with a size cap, so a flood cannot take the memory)
//! and hands lines over a channel, so every wait is a `recv_timeout` and a hung server is a
//! timeout, not a hung mcpguard. Another thread keeps the end of stderr for the error message
//! and the log. On every exit path the process is ended: stdin closed, a grace period, then
//! killed.

use std::collections::BTreeMap;
use std::io::{BufReader, Read, Write};
use std::process::{Child, ChildStdin, Command, Stdio as Pipe};
use std::sync::mpsc::{self, Receiver, RecvTimeoutError};
use std::sync::{Arc, Mutex};
use std::time::{Duration, Instant};

use super::framing::{self, Line};
use super::wire::{Offer, Outgoing, Received, Waiting};
use super::{ClientError, Limits, Transport};

/// How much of stderr is kept.
const STDERR_KEEP: usize = 64 << 10;
/// How long a server gets to exit after its stdin is closed.
const GRACE: Duration = Duration::from_millis(1500);

enum Event {
    Line(String),
    TooLarge,
    Eof,
}

pub(super) struct Stdio {
    child: Option<Child>,
    stdin: Option<ChildStdin>,
    lines: Receiver<Event>,
    stderr: Arc<Mutex<Vec<u8>>>,
}

impl Stdio {
    pub(super) fn spawn(
        command: &[String],
        env: &BTreeMap<String, String>,
        max_line: usize,
    ) -> Result<Stdio, ClientError> {
        let describe = || command.join(" ");
        let Some((program, args)) = command.split_first() else {
            return Err(ClientError::Spawn {
                command: String::new(),
                cause: std::io::Error::new(std::io::ErrorKind::InvalidInput, "empty command"),
                hint: "; give the server's command with --server 'CMD ARGS' or after --",
            });
        };
        let mut child = Command::new(program)
            .args(args)
            .envs(env)
            .stdin(Pipe::piped())
            .stdout(Pipe::piped())
            .stderr(Pipe::piped())
            .spawn()
            .map_err(|cause| ClientError::Spawn {
                command: describe(),
                hint: if cause.kind() == std::io::ErrorKind::NotFound {
                    "; is it installed and on PATH?"
                } else {
                    ""
                },
                cause,
            })?;
        let stdin = child.stdin.take();
        let stdout = child.stdout.take().expect("stdout is piped");
        let stderr_pipe = child.stderr.take().expect("stderr is piped");

        let (tx, rx) = mpsc::channel();
        std::thread::spawn(move || {
            let mut reader = BufReader::with_capacity(1 << 16, stdout);
            loop {
                let event = match framing::read_line(&mut reader, max_line) {
                    // Blank lines between messages are allowed and skipped.
                    Ok(Line::Text(line)) if line.trim().is_empty() => continue,
                    Ok(Line::Text(line)) => Event::Line(line),
                    Ok(Line::End) | Err(_) => Event::Eof,
                    Ok(Line::TooLong) => Event::TooLarge,
                };
                let end = !matches!(event, Event::Line(_));
                if tx.send(event).is_err() || end {
                    break;
                }
            }
        });
        let stderr = Arc::new(Mutex::new(Vec::new()));
        let sink = Arc::clone(&stderr);
        std::thread::spawn(move || {
            let mut pipe = stderr_pipe;
            let mut buf = [0u8; 8192];
            while let Ok(n) = pipe.read(&mut buf) {
                if n == 0 {
                    break;
                }
                let mut kept = sink.lock().unwrap_or_else(|e| e.into_inner());
                kept.extend_from_slice(&buf[..n]);
                if kept.len() > STDERR_KEEP * 2 {
                    let cut = kept.len() - STDERR_KEEP;
                    kept.drain(..cut);
                }
            }
        });
        Ok(Stdio {
            child: Some(child),
            stdin,
            lines: rx,
            stderr,
        })
    }

    fn exit_status(&mut self) -> String {
        let Some(child) = &mut self.child else {
            return "closed".into();
        };
        // The pipe closes a moment before the process is reaped.
        match exit_within(child, Duration::from_millis(500)) {
            Some(status) => status.to_string(),
            None => "still running, stdout closed".into(),
        }
    }

    fn stderr_tail(&self) -> String {
        let text = self.stderr();
        let tail: Vec<&str> = text.lines().rev().take(5).collect();
        if tail.is_empty() {
            String::new()
        } else {
            let lines: Vec<&str> = tail.into_iter().rev().collect();
            format!("; its stderr ends with:\n  {}", lines.join("\n  "))
        }
    }
}

/// The child's exit status if it exits within `time`.
fn exit_within(child: &mut Child, time: Duration) -> Option<std::process::ExitStatus> {
    let until = Instant::now() + time;
    loop {
        match child.try_wait() {
            Ok(Some(status)) => return Some(status),
            Ok(None) if Instant::now() < until => std::thread::sleep(Duration::from_millis(10)),
            _ => return None,
        }
    }
}

impl Stdio {
    /// Writes one message and its newline.
    fn write(&mut self, text: &str) -> Result<(), ClientError> {
        let Some(stdin) = &mut self.stdin else {
            return Err(ClientError::Write(std::io::Error::new(
                std::io::ErrorKind::BrokenPipe,
                "the session is closed",
            )));
        };
        let mut line = Vec::with_capacity(text.len() + 1);
        line.extend_from_slice(text.as_bytes());
        line.push(b'\n');
        stdin
            .write_all(&line)
            .and_then(|()| stdin.flush())
            .map_err(|e| {
                if e.kind() == std::io::ErrorKind::BrokenPipe {
                    ClientError::Exited {
                        method: "a message".into(),
                        status: self.exit_status(),
                        stderr: self.stderr_tail(),
                    }
                } else {
                    ClientError::Write(e)
                }
            })
    }
}

impl Transport for Stdio {
    fn request(&mut self, out: &Outgoing<'_>, limits: &Limits) -> Result<Received, ClientError> {
        self.write(out.text)?;
        let started = Instant::now();
        let wait = limits.wait();
        let mut waiting = Waiting::new(out, true);
        loop {
            let left = wait.saturating_sub(started.elapsed());
            match self.lines.recv_timeout(left) {
                Ok(Event::Line(line)) => match waiting.offer(line)? {
                    Offer::Answered(received) => return Ok(received),
                    Offer::Reply(answer) => self.write(&answer)?,
                    Offer::Kept => {}
                },
                Ok(Event::TooLarge) => {
                    return Err(ClientError::TooLarge {
                        cap: limits.max_message_bytes,
                    });
                }
                Ok(Event::Eof) | Err(RecvTimeoutError::Disconnected) => {
                    return Err(ClientError::Exited {
                        method: out.method.to_owned(),
                        status: self.exit_status(),
                        stderr: self.stderr_tail(),
                    });
                }
                Err(RecvTimeoutError::Timeout) => {
                    return Err(ClientError::Timeout {
                        method: out.method.to_owned(),
                        secs: wait.as_secs_f64(),
                    });
                }
            }
        }
    }

    fn send(&mut self, out: &Outgoing<'_>, _limits: &Limits) -> Result<(), ClientError> {
        self.write(out.text)
    }

    fn close(&mut self) {
        // Closing stdin is how a stdio server is asked to stop (MCP lifecycle); one that is
        // still there after the grace period is killed. A second close finds nothing to do.
        drop(self.stdin.take());
        if let Some(mut child) = self.child.take()
            && exit_within(&mut child, GRACE).is_none()
        {
            let _ = child.kill();
            let _ = child.wait();
        }
    }

    fn stderr(&self) -> String {
        String::from_utf8_lossy(&self.stderr.lock().unwrap_or_else(|e| e.into_inner())).into_owned()
    }
}

impl Drop for Stdio {
    fn drop(&mut self) {
        self.close();
    }
}
