//! The stdio transport of the proxy: the client on this process's stdin and stdout, the
//! server a child process on its own pipes, newline-delimited JSON-RPC both ways.
//!
//! Four threads move bytes and one decides: a reader per side turns lines (capped before they
//! are held) into events, a writer per side drains a queue, and the loop hands each event to
//! the [`Policy`] and queues what it says. No side ever waits on the other: a server that
//! stops reading does not stall the client's answers, and a hung server is a timeout. The
//! child's stderr is this process's stderr. On every way out the child is ended: its stdin
//! closed, a grace period, then killed.

use std::io::{BufReader, Read, Write};
use std::process::{Child, Command, Stdio as Pipe};
use std::sync::Arc;
use std::sync::mpsc::{self, Receiver, RecvTimeoutError, Sender};
use std::time::{Duration, Instant};

use super::policy::{Effects, Log, Policy, Record, Route};
use crate::config::Config;
use crate::lines::{self, Capped};

/// How long a server gets to exit after its stdin is closed.
pub const GRACE: Duration = Duration::from_millis(1500);

/// What the loop reacts to.
pub enum Event {
    Client(Vec<u8>),
    ClientTooLong,
    ClientEnd,
    /// The client stopped reading (stdout closed).
    ClientGone,
    Server(Vec<u8>),
    ServerTooLong(Vec<u8>),
    ServerEnd,
    /// A new config is in force (the CLI's watcher sends it, after validating it).
    Reload(Arc<Config>),
    /// A message for the log from outside the loop (a config that did not load).
    Note(Log),
}

/// How to run.
pub struct Options {
    pub command: Vec<String>,
    pub env: std::collections::BTreeMap<String, String>,
    pub max_message_bytes: usize,
    pub timeout: Duration,
}

/// How the session ended.
#[derive(Debug)]
pub enum Ended {
    /// The client closed stdin; the server's exit code when it exited in the grace period.
    ClientClosed(Option<i32>),
    /// The server exited first, with this code (`None`: killed by a signal).
    ServerExited(Option<i32>),
}

#[derive(Debug, thiserror::Error)]
pub enum ProxyError {
    #[error("cannot start the server `{command}`: {cause}{hint}")]
    Spawn {
        command: String,
        cause: std::io::Error,
        hint: &'static str,
    },
}

/// Runs the proxy until the client or the server goes. `events` is the loop's queue, `tx`
/// its sender (the CLI keeps a clone for config reloads); `log` and `record` receive what
/// the policy says.
pub fn run(
    policy: &mut Policy,
    opts: &Options,
    shown_command: &str,
    (tx, events): (Sender<Event>, Receiver<Event>),
    log: &mut dyn FnMut(&Log),
    record: &mut dyn FnMut(&Record),
) -> Result<Ended, ProxyError> {
    let Some((program, args)) = opts.command.split_first() else {
        return Err(ProxyError::Spawn {
            command: String::new(),
            cause: std::io::Error::new(std::io::ErrorKind::InvalidInput, "empty command"),
            hint: "; give the server's command after --, e.g. mcpguard proxy -- npx -y some-mcp-server",
        });
    };
    let child = Command::new(program)
        .args(args)
        .envs(&opts.env)
        .stdin(Pipe::piped())
        .stdout(Pipe::piped())
        .stderr(Pipe::inherit())
        .spawn()
        .map_err(|cause| ProxyError::Spawn {
            command: shown_command.to_owned(),
            hint: if cause.kind() == std::io::ErrorKind::NotFound {
                "; is it installed and on PATH?"
            } else {
                ""
            },
            cause,
        })?;
    let mut child = ChildGuard(Some(child));
    let (server_in, server_out) = {
        let c = child.0.as_mut().expect("the child is held until the end");
        (
            c.stdin.take().expect("stdin is piped"),
            c.stdout.take().expect("stdout is piped"),
        )
    };

    let cap = opts.max_message_bytes;
    spawn_reader(std::io::stdin(), cap, tx.clone(), Side::Client);
    spawn_reader(server_out, cap, tx.clone(), Side::Server);
    let (to_server, server_writer) = spawn_writer(server_in, None);
    let (to_client, client_writer) = spawn_writer(std::io::stdout(), Some(tx.clone()));
    let mut to_server = Some(to_server);
    drop(tx);

    let apply = |fx: Effects,
                 to_server: &Option<Sender<Vec<u8>>>,
                 log: &mut dyn FnMut(&Log),
                 record: &mut dyn FnMut(&Record)| {
        for l in &fx.logs {
            log(l);
        }
        for send in fx.sends {
            match send {
                Route::Client(bytes) => {
                    let _ = to_client.send(bytes);
                }
                Route::Server(bytes) => {
                    if let Some(s) = to_server {
                        let _ = s.send(bytes);
                    }
                }
            }
        }
        for r in &fx.records {
            record(r);
        }
    };

    let ended = loop {
        let wait = policy
            .next_deadline(opts.timeout)
            .map_or(Duration::from_secs(3600), |d| {
                d.saturating_duration_since(Instant::now())
            });
        let event = match events.recv_timeout(wait) {
            Ok(e) => e,
            Err(RecvTimeoutError::Timeout) => {
                let fx = policy.expire(Instant::now(), opts.timeout);
                apply(fx, &to_server, log, record);
                continue;
            }
            Err(RecvTimeoutError::Disconnected) => break None,
        };
        let now = Instant::now();
        let wall = crate::cursor::now();
        let fx = match event {
            Event::Client(line) => policy.from_client(&line, now, wall),
            Event::ClientTooLong => policy.client_line_too_long(cap),
            Event::Server(line) => policy.from_server(&line, now, wall),
            Event::ServerTooLong(head) => policy.server_line_too_long(&head, cap),
            Event::Reload(config) => {
                let changes = policy.set_config(config);
                let show = |v: &Option<serde_json::Value>| {
                    v.as_ref()
                        .map_or_else(|| "(unset)".to_owned(), |v| v.to_string())
                };
                for c in &changes {
                    log(&Log {
                        level: super::policy::Level::Info,
                        message: format!(
                            "config reloaded: {} {} -> {}",
                            c.key,
                            show(&c.old),
                            show(&c.new)
                        ),
                        fields: Default::default(),
                    });
                }
                continue;
            }
            Event::Note(l) => {
                log(&l);
                continue;
            }
            Event::ClientEnd | Event::ClientGone => break None,
            Event::ServerEnd => {
                let code = child.wait_for(GRACE);
                let why = match code {
                    Some(Some(c)) => format!("exited with status {c}"),
                    Some(None) => "was killed by a signal".to_owned(),
                    None => "closed its stdout".to_owned(),
                };
                let fx = policy.server_gone(&why);
                apply(fx, &to_server, log, record);
                break Some(Ended::ServerExited(code.flatten()));
            }
        };
        apply(fx, &to_server, log, record);
    };
    // Closing the server's stdin asks it to exit (the stdio transport's shutdown).
    to_server.take();
    let _ = server_writer.join();
    let ended = match ended {
        Some(e) => e,
        None => Ended::ClientClosed(child.wait_for(GRACE).flatten()),
    };
    drop(child);
    drop(to_client);
    let _ = client_writer.join();
    Ok(ended)
}

/// Ends the child on every way out: a grace period after its stdin closed, then a kill.
struct ChildGuard(Option<Child>);

impl ChildGuard {
    /// Waits up to `grace` for the child to exit: `Some(code)` when it did.
    fn wait_for(&mut self, grace: Duration) -> Option<Option<i32>> {
        let child = self.0.as_mut()?;
        let until = Instant::now() + grace;
        loop {
            match child.try_wait() {
                Ok(Some(status)) => return Some(status.code()),
                Ok(None) if Instant::now() < until => {
                    std::thread::sleep(Duration::from_millis(10));
                }
                _ => return None,
            }
        }
    }
}

impl Drop for ChildGuard {
    fn drop(&mut self) {
        if let Some(mut child) = self.0.take() {
            if matches!(child.try_wait(), Ok(None)) {
                let _ = child.kill();
            }
            let _ = child.wait();
        }
    }
}

#[derive(Clone, Copy)]
enum Side {
    Client,
    Server,
}

fn spawn_reader(input: impl Read + Send + 'static, cap: usize, tx: Sender<Event>, side: Side) {
    std::thread::spawn(move || {
        let mut reader = BufReader::with_capacity(1 << 16, input);
        let mut buf = Vec::new();
        loop {
            let event = match lines::read_capped(&mut reader, &mut buf, cap) {
                Ok(Capped::Line) if buf.iter().all(u8::is_ascii_whitespace) => continue,
                Ok(Capped::Line) => {
                    let line = std::mem::take(&mut buf);
                    match side {
                        Side::Client => Event::Client(line),
                        Side::Server => Event::Server(line),
                    }
                }
                Ok(Capped::TooLong) => {
                    let head = std::mem::take(&mut buf);
                    let skipped = lines::skip_line(&mut reader);
                    let event = match side {
                        Side::Client => Event::ClientTooLong,
                        Side::Server => Event::ServerTooLong(head),
                    };
                    if tx.send(event).is_err() || skipped.is_err() {
                        break;
                    }
                    continue;
                }
                Ok(Capped::End) | Err(_) => break,
            };
            if tx.send(event).is_err() {
                return;
            }
        }
        let _ = tx.send(match side {
            Side::Client => Event::ClientEnd,
            Side::Server => Event::ServerEnd,
        });
    });
}

/// A thread that writes what it is sent, each message flushed; on a write error it tells the
/// loop (when it is the client's side) and stops.
fn spawn_writer(
    output: impl Write + Send + 'static,
    gone: Option<Sender<Event>>,
) -> (Sender<Vec<u8>>, std::thread::JoinHandle<()>) {
    let (tx, rx) = mpsc::channel::<Vec<u8>>();
    let handle = std::thread::spawn(move || {
        let mut out = std::io::BufWriter::with_capacity(1 << 16, output);
        while let Ok(mut bytes) = rx.recv() {
            if bytes.last() != Some(&b'\n') {
                bytes.push(b'\n');
            }
            let mut ok = out.write_all(&bytes).is_ok();
            // Flush when nothing else is queued: a burst goes out in one write.
            while ok && let Ok(mut more) = rx.try_recv() {
                if more.last() != Some(&b'\n') {
                    more.push(b'\n');
                }
                ok = out.write_all(&more).is_ok();
            }
            if !(ok && out.flush().is_ok()) {
                if let Some(g) = &gone {
                    let _ = g.send(Event::ClientGone);
                }
                return;
            }
        }
        let _ = out.flush();
    });
    (tx, handle)
}
