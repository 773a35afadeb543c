//! The warden: a small process every proxy starts beside its servers (Linux), so that none of
//! them outlives the proxy however it ends (a crash, SIGKILL), without slowing their start.
//!
//! The proxy tells the warden each server's process id on a pipe ([`super::launch`]). The
//! pipe is the proxy's life: when the proxy is gone, for any reason, the kernel closes it, and
//! the warden ends every server still running (SIGTERM, then SIGKILL after a grace) and exits.
//! Servers are held by pidfds, which name one process and never a later one given the same id.
//! The warden has its own process group: the Ctrl-C meant for the proxy does not end it first.

use std::io::BufRead;
use std::time::Duration;

/// The first argument that makes `mcpguard` the warden rather than a command a person runs.
pub const WARDEN: &str = "__warden";

/// How long servers get to exit on SIGTERM once the proxy is gone, before SIGKILL.
pub const GRACE: Duration = Duration::from_secs(3);

/// When this process was started as the warden, keeps watch on its stdin until the proxy is
/// gone and returns true; false when it is not the warden.
pub fn keep_watch_if_asked() -> bool {
    if std::env::args_os().nth(1).is_none_or(|a| a != WARDEN) {
        return false;
    }
    keep_watch(std::io::stdin().lock(), GRACE);
    true
}

/// A server as the warden holds it: a pidfd (Linux). Elsewhere none is held: the proxy's
/// servers see their stdin close when it is gone, and nothing more.
#[cfg(target_os = "linux")]
type Held = std::os::fd::OwnedFd;
#[cfg(not(target_os = "linux"))]
type Held = std::convert::Infallible;

/// Reads process ids, one a line, until `proxy` ends; then ends those still running.
pub fn keep_watch(proxy: impl BufRead, grace: Duration) {
    let mut servers: Vec<Held> = Vec::new();
    for line in proxy.lines() {
        let Ok(line) = line else { break };
        // Those that exited are let go as others come: the list is the servers running.
        servers.retain(|s| !exited(s, Duration::ZERO));
        if let Some(server) = line.trim().parse().ok().and_then(held) {
            servers.push(server);
        }
    }
    end(servers, grace);
}

#[cfg(target_os = "linux")]
fn held(pid: i32) -> Option<Held> {
    let pid = rustix::process::Pid::from_raw(pid)?;
    rustix::process::pidfd_open(pid, rustix::process::PidfdFlags::empty()).ok()
}

#[cfg(not(target_os = "linux"))]
fn held(_: i32) -> Option<Held> {
    None
}

/// SIGTERM to every server, SIGKILL to those still running after `grace`.
#[cfg(target_os = "linux")]
fn end(mut servers: Vec<Held>, grace: Duration) {
    use rustix::process::{Signal, pidfd_send_signal};
    use std::time::Instant;
    for server in &servers {
        let _ = pidfd_send_signal(server, Signal::TERM);
    }
    let until = Instant::now() + grace;
    while let Some(first) = servers.first() {
        let left = until.saturating_duration_since(Instant::now());
        if left.is_zero() {
            break;
        }
        if exited(first, left) {
            servers.remove(0);
        }
    }
    for server in &servers {
        let _ = pidfd_send_signal(server, Signal::KILL);
    }
}

#[cfg(not(target_os = "linux"))]
fn end(_: Vec<Held>, _: Duration) {}

/// Whether the process has exited, waiting up to `wait` for it (a pidfd is readable then).
#[cfg(target_os = "linux")]
fn exited(server: &Held, wait: Duration) -> bool {
    use rustix::event::{PollFd, PollFlags, Timespec, poll};
    let timeout = Timespec::try_from(wait).unwrap_or(Timespec {
        tv_sec: 0,
        tv_nsec: 0,
    });
    let mut fds = [PollFd::new(server, PollFlags::IN)];
    poll(&mut fds, Some(&timeout)).is_ok_and(|ready| ready > 0)
}

#[cfg(not(target_os = "linux"))]
fn exited(server: &Held, _: Duration) -> bool {
    match *server {}
}

#[cfg(all(test, target_os = "linux"))]
mod tests {
    use super::*;
    use std::os::unix::process::ExitStatusExt as _;
    use std::process::{Command, Stdio};
    use std::time::Instant;

    fn start(script: &str) -> std::process::Child {
        Command::new("sh")
            .args(["-c", script])
            .stdin(Stdio::null())
            .spawn()
            .unwrap()
    }

    #[test]
    fn when_the_proxy_is_gone_its_servers_are_ended_and_one_deaf_to_sigterm_is_killed() {
        let mut polite = start("exec sleep 300");
        let mut deaf = start("trap '' TERM; while :; do sleep 0.05; done");
        let mut exited = start("exit 0");
        exited.wait().unwrap();
        // The deaf one sets its trap before it is named.
        std::thread::sleep(Duration::from_millis(200));
        let told = format!(
            "{}\nnot a pid\n{}\n{}\n",
            polite.id(),
            exited.id(),
            deaf.id()
        );
        let started = Instant::now();
        keep_watch(told.as_bytes(), Duration::from_millis(300));
        assert!(
            started.elapsed() >= Duration::from_millis(300),
            "the grace was kept"
        );
        assert_eq!(polite.wait().unwrap().signal(), Some(libc::SIGTERM));
        assert_eq!(deaf.wait().unwrap().signal(), Some(libc::SIGKILL));
    }

    #[test]
    fn servers_that_exit_in_time_end_the_watch_at_once() {
        let mut server = start("exec sleep 300");
        let started = Instant::now();
        keep_watch(format!("{}\n", server.id()).as_bytes(), GRACE);
        assert_eq!(server.wait().unwrap().signal(), Some(libc::SIGTERM));
        assert!(started.elapsed() < GRACE, "{:?}", started.elapsed());
    }
}
