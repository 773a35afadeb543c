//! The stdio transport of the proxy: the client on this process's stdin and stdout, the
//! server a child process on its own pipes, newline-delimited JSON-RPC both ways.
//!
//! Each side has a thread that reads its lines (capped before they are held), asks the
//! [`Policy`] (shared behind a mutex) what to do, and writes the result to the other side
//! itself: a message crosses one pipe and one thread, as it would without the proxy, so the
//! pass-through costs a parse, not a chain of thread wake-ups. A server end in this process
//! (the gateway) hands its lines over on its own threads instead ([`Output::Calls`]). A side
//! that stops reading holds back only the side that writes to it, as a direct connection
//! would. The main thread waits for the end, expires requests the server did not answer in
//! time, and applies config reloads. The child's stderr is this process's stderr. On every way out the child is ended:
//! its stdin closed, a grace period, then killed.

use std::io::{BufReader, Read, Write};
use std::process::{Child, Command};
use std::sync::atomic::{AtomicUsize, Ordering};
use std::sync::mpsc::{Receiver, RecvTimeoutError, Sender};
use std::sync::{Arc, Mutex};
use std::time::{Duration, Instant};

use super::policy::{Effects, Log, Policy, Record, Route};
use crate::config::Config;
use crate::util::lines::{self, Capped};

/// How long a server gets to exit after its stdin is closed.
pub const GRACE: Duration = Duration::from_millis(1500);

/// How often the main thread looks for requests to time out.
const TICK: Duration = Duration::from_millis(200);

/// What the main thread reacts to.
pub enum Event {
    ClientEnd,
    /// The client stopped reading (stdout closed).
    ClientGone,
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

/// Where log lines and records go: shared by the threads.
pub struct Sinks {
    pub log: Box<dyn FnMut(&Log) + Send>,
    pub record: Box<dyn FnMut(&Record) + Send>,
}

/// What the threads share.
struct Shared {
    policy: Mutex<Policy>,
    to_client: Mutex<Box<dyn Write + Send>>,
    to_server: Mutex<Option<Box<dyn Write + Send>>>,
    sinks: Mutex<Sinks>,
    events: Sender<Event>,
    /// Messages decided but not yet written out: the session does not end under them.
    busy: AtomicUsize,
}

impl Shared {
    /// Carries out what the policy said: writes first (the traffic), then the log and records.
    fn apply(&self, fx: Effects) {
        for route in fx.sends {
            match route {
                Route::Client(bytes) => {
                    let mut out = lock(&self.to_client);
                    if write_line(&mut *out, &bytes).is_err() {
                        let _ = self.events.send(Event::ClientGone);
                    }
                }
                Route::Server(bytes) => {
                    // A server that closed its stdin is noticed by its stdout ending.
                    if let Some(stdin) = lock(&self.to_server).as_mut() {
                        let _ = write_line(stdin, &bytes);
                    }
                }
            }
        }
        if fx.logs.is_empty() && fx.records.is_empty() {
            return;
        }
        let mut sinks = lock(&self.sinks);
        for l in &fx.logs {
            (sinks.log)(l);
        }
        for r in &fx.records {
            (sinks.record)(r);
        }
    }

    fn log(&self, l: &Log) {
        (lock(&self.sinks).log)(l);
    }

    /// Has the policy decide on a whole line from `side`, and carries that out.
    fn decide(&self, side: Side, line: &[u8]) {
        let (now, wall) = (Instant::now(), crate::reshape::cursor::now());
        self.carry_out(|policy| match side {
            Side::Client => policy.from_client(line, now, wall),
            Side::Server => policy.from_server(line, now, wall),
        });
    }

    /// A line from `side` over the cap, of which `head` is the start.
    fn too_long(&self, side: Side, head: &[u8], cap: usize) {
        self.carry_out(|policy| match side {
            Side::Client => policy.client_line_too_long(cap),
            Side::Server => policy.server_line_too_long(head, cap),
        });
    }

    /// What the policy decides, carried out; counted busy before the policy is let go, so
    /// nothing decided is lost at the session's end.
    fn carry_out(&self, decide: impl FnOnce(&mut Policy) -> Effects) {
        let fx = {
            let mut policy = lock(&self.policy);
            self.busy.fetch_add(1, Ordering::SeqCst);
            decide(&mut policy)
        };
        self.apply(fx);
        self.busy.fetch_sub(1, Ordering::SeqCst);
    }
}

/// A poisoned lock means a thread panicked mid-write; the data is still the best there is.
pub(crate) fn lock<T: ?Sized>(m: &Mutex<T>) -> std::sync::MutexGuard<'_, T> {
    m.lock().unwrap_or_else(std::sync::PoisonError::into_inner)
}

fn write_line(out: &mut (impl Write + ?Sized), bytes: &[u8]) -> std::io::Result<()> {
    out.write_all(bytes)?;
    if bytes.last() != Some(&b'\n') {
        out.write_all(b"\n")?;
    }
    out.flush()
}

/// The server's side of the proxy: a child process's pipes, the stdio bridge's relay to a
/// remote server (`super::bridge`), or the gateway in this process (`super::gateway`).
pub struct ServerEnd<Out = Output> {
    /// Where the messages for the server are written, a line each; dropped to end it.
    pub input: Box<dyn Write + Send>,
    /// How the server's messages reach the policy: a [`Pipe`] but for the gateway.
    pub output: Out,
    /// Waits up to the given time for the server to end once its input is closed: `Some`
    /// with its exit code (`None`: killed by a signal) when it did. Dropping it ends the
    /// server for good.
    pub ended: Box<dyn FnMut(Duration) -> Option<Option<i32>> + Send>,
}

/// Where a server's messages are read from, a line each.
pub type Pipe = Box<dyn Read + Send>;

/// How a server end's messages reach the policy.
pub enum Output {
    /// A pipe, read a line at a time on a thread of the proxy's (a child's stdout, the
    /// bridge's relay).
    Pipe(Pipe),
    /// The server end hands each line over itself, on its own threads, to the [`LineSink`]
    /// that [`serve`] gives this function: no pipe and no thread between it and the client.
    Calls(Box<dyn FnOnce(Arc<dyn LineSink>) + Send>),
}

impl From<Pipe> for Output {
    fn from(pipe: Pipe) -> Output {
        Output::Pipe(pipe)
    }
}

/// Where a server end in this process hands its lines ([`Output::Calls`]).
pub trait LineSink: Send + Sync {
    /// One whole line from the server, without its newline.
    fn line(&self, line: &[u8]);
    /// The server end is gone.
    fn end(&self);
}

/// The policy as a [`LineSink`]: each line is decided and carried out on the caller's thread,
/// as the proxy's own reader of a pipe would.
///
/// The policy answers a server's line with writes to the client only (requests to the server
/// come from the client's lines and from timeouts), so a server end may call this while it is
/// itself being written to.
struct ToPolicy {
    shared: Arc<Shared>,
    cap: usize,
}

impl LineSink for ToPolicy {
    /// Over `--max-message-bytes`, a line is refused as one read from a pipe would be.
    fn line(&self, line: &[u8]) {
        if line.len() >= self.cap {
            let head = &line[..line.len().min(lines::HEAD)];
            self.shared.too_long(Side::Server, head, self.cap);
        } else if !line.iter().all(u8::is_ascii_whitespace) {
            self.shared.decide(Side::Server, line);
        }
    }

    /// The session ends as when a server's stdout closes.
    fn end(&self) {
        let _ = self.shared.events.send(Event::ServerEnd);
    }
}

/// Runs the proxy in front of the server's command until the client or the server goes.
/// `events` is the main thread's queue and `tx` its sender (the CLI keeps a clone for config
/// reloads).
pub fn run(
    policy: Policy,
    opts: &Options,
    shown_command: &str,
    events: (Sender<Event>, Receiver<Event>),
    sinks: Sinks,
) -> Result<Ended, ProxyError> {
    let Some(command) = super::launch::server_process(&opts.command, &opts.env) else {
        return Err(ProxyError::Spawn {
            command: String::new(),
            cause: std::io::Error::new(std::io::ErrorKind::InvalidInput, "empty command"),
            hint: "; give the server's command after --, e.g. mcpguard proxy -- npx -y some-mcp-server",
        });
    };
    let (server, _) = child_end(command).map_err(|cause| ProxyError::Spawn {
        command: shown_command.to_owned(),
        hint: if cause.kind() == std::io::ErrorKind::NotFound {
            "; is it installed and on PATH?"
        } else {
            ""
        },
        cause,
    })?;
    Ok(serve(policy, opts, server, events, sinks))
}

/// Starts a server's process (from [`server_process`]) as a server end, and its stderr when
/// that was piped: ended by closing its stdin, a grace period, then a kill.
pub(crate) fn child_end(
    mut command: Command,
) -> std::io::Result<(ServerEnd<Pipe>, Option<std::process::ChildStderr>)> {
    let mut child = ChildGuard(Some(super::launch::spawn(&mut command)?));
    let (server_in, server_out, stderr) = {
        let c = child.0.as_mut().expect("the child is held until the end");
        (
            c.stdin.take().expect("stdin is piped"),
            c.stdout.take().expect("stdout is piped"),
            c.stderr.take(),
        )
    };
    let server = ServerEnd {
        input: Box::new(server_in),
        output: Box::new(server_out) as Pipe,
        ended: Box::new(move |grace| child.wait_for(grace)),
    };
    Ok((server, stderr))
}

/// Runs the proxy between this process's stdin and stdout and `server` until either goes.
pub fn serve(
    policy: Policy,
    opts: &Options,
    server: ServerEnd<impl Into<Output>>,
    (tx, events): (Sender<Event>, Receiver<Event>),
    sinks: Sinks,
) -> Ended {
    let ServerEnd {
        input: server_in,
        output: server_out,
        ended: mut wait_for,
    } = server;
    // While the server starts: the counters are built before the first message needs them.
    policy.prepare();
    let shared = Arc::new(Shared {
        policy: Mutex::new(policy),
        to_client: Mutex::new(Box::new(std::io::stdout())),
        to_server: Mutex::new(Some(server_in)),
        sinks: Mutex::new(sinks),
        events: tx.clone(),
        busy: AtomicUsize::new(0),
    });
    let cap = opts.max_message_bytes;
    match server_out.into() {
        Output::Pipe(pipe) => spawn_side(pipe, cap, Side::Server, shared.clone()),
        Output::Calls(connect) => connect(Arc::new(ToPolicy {
            shared: shared.clone(),
            cap,
        })),
    }
    spawn_side(std::io::stdin(), cap, Side::Client, shared.clone());
    drop(tx);

    // Once the client has closed its side, the server still answers what it was asked (a
    // client may write its requests, close, and read): the session ends when nothing is owed.
    let mut client_closed = false;
    let ended = loop {
        if client_closed
            && lock(&shared.policy).in_flight() == 0
            && shared.busy.load(Ordering::SeqCst) == 0
        {
            break None;
        }
        // Requests arrive on the other threads: look again at least every TICK for a new one
        // to time out, so a deadline is missed by a tick at most.
        let wait = lock(&shared.policy)
            .next_deadline(opts.timeout)
            .map_or(TICK, |d| {
                d.saturating_duration_since(Instant::now()).min(TICK)
            });
        let event = match events.recv_timeout(wait) {
            Ok(e) => e,
            Err(RecvTimeoutError::Timeout) => {
                let fx = lock(&shared.policy).expire(Instant::now(), opts.timeout);
                shared.apply(fx);
                continue;
            }
            Err(RecvTimeoutError::Disconnected) => break None,
        };
        match event {
            Event::Reload(config) => {
                super::policy::prepare_counters(&config, false);
                let changes = lock(&shared.policy).set_config(config);
                for line in crate::config::describe(&changes) {
                    shared.log(&Log::new(super::policy::Level::Info, line));
                }
            }
            Event::Note(l) => shared.log(&l),
            Event::ClientEnd => client_closed = true,
            Event::ClientGone => break None,
            Event::ServerEnd => {
                let code = wait_for(GRACE);
                let why = match code {
                    Some(Some(c)) => format!("exited with status {c}"),
                    Some(None) => "was killed by a signal".to_owned(),
                    None => "closed its stdout".to_owned(),
                };
                let fx = lock(&shared.policy).server_gone(&why);
                shared.apply(fx);
                break Some(Ended::ServerExited(code.flatten()));
            }
        }
    };
    // Closing the server's stdin asks it to exit (the stdio transport's shutdown).
    lock(&shared.to_server).take();
    let ended = match ended {
        Some(e) => e,
        None => Ended::ClientClosed(wait_for(GRACE).flatten()),
    };
    drop(wait_for);
    // What a side thread already decided (an answer, its record) is written before the end.
    let until = Instant::now() + GRACE;
    while shared.busy.load(Ordering::SeqCst) > 0 && Instant::now() < until {
        std::thread::sleep(Duration::from_millis(5));
    }
    let _ = lock(&shared.to_client).flush();
    ended
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

/// Reads one side's lines and hands each to the policy, on a thread of its own; when the
/// side ends, tells the main thread.
fn spawn_side(input: impl Read + Send + 'static, cap: usize, side: Side, shared: Arc<Shared>) {
    std::thread::spawn(move || {
        let mut reader = BufReader::with_capacity(1 << 16, input);
        let mut buf = Vec::new();
        loop {
            match lines::read_capped(&mut reader, &mut buf, cap) {
                Ok(Capped::Line) if buf.iter().all(u8::is_ascii_whitespace) => {}
                Ok(Capped::Line) => shared.decide(side, &buf),
                Ok(Capped::TooLong) => {
                    let head = std::mem::take(&mut buf);
                    let skipped = lines::skip_line(&mut reader);
                    shared.too_long(side, &head, cap);
                    if skipped.is_err() {
                        break;
                    }
                }
                Ok(Capped::End) | Err(_) => break,
            }
        }
        let _ = shared.events.send(match side {
            Side::Client => Event::ClientEnd,
            Side::Server => Event::ServerEnd,
        });
    });
}
