//! How the proxy starts a server's process so that the server never outlives it: on Linux the
//! kernel sends the server SIGTERM when the proxy dies, however it dies (`PR_SET_PDEATHSIG`).
//!
//! That setting is made in the child, before it becomes the server. Made in a `pre_exec` hook
//! it makes the standard library fork the whole proxy: a gateway holding a hundred catalogs had
//! every page table copied and every thread held up at each server's start, which cost more
//! than the servers' own start. So the proxy starts its own binary instead, with posix_spawn
//! (nothing copied), as a launcher ([`launch_if_asked`], the first thing `main` does): it sets
//! the signal, checks that the proxy is still there, and becomes the server by exec. A program
//! that cannot be found is started directly, so its error is the one spawning it always gave.

use std::collections::BTreeMap;
use std::process::{Command, Stdio};

/// The first argument that makes `mcpguard` a launcher rather than a command a person runs.
pub const LAUNCHER: &str = "__launch-server";

/// The server's process as either proxy runs it (`None` for an empty command): its stdin and
/// stdout piped to the proxy, its stderr the proxy's, ended with the proxy.
pub(crate) fn server_process(
    command: &[String],
    env: &BTreeMap<String, String>,
) -> Option<Command> {
    let (program, args) = command.split_first()?;
    let mut process = through_launcher(program, env).unwrap_or_else(|| Command::new(program));
    process
        .args(args)
        .envs(env)
        .stdin(Stdio::piped())
        .stdout(Stdio::piped())
        .stderr(Stdio::inherit());
    Some(process)
}

/// Whether this process turned transparent huge pages off for itself ([`huge_pages_off`]):
/// the servers it starts get them back.
static HUGE_PAGES_OFF: std::sync::atomic::AtomicBool = std::sync::atomic::AtomicBool::new(false);

/// Turns transparent huge pages off for this process, not for the servers it starts (Linux;
/// elsewhere nothing). The gateway runs a few threads per server, and the allocator gives
/// each thread regions it asks to be huge pages, each zeroed whole when first touched: with
/// 100 servers that was 230-260 MB and 1.2-1.4 s to list them cold, against 81 MB and 0.85 s
/// without.
pub fn huge_pages_off() {
    #[cfg(target_os = "linux")]
    // SAFETY: prctl with PR_SET_THP_DISABLE takes integer arguments and touches no memory of
    // ours.
    if unsafe { libc::prctl(libc::PR_SET_THP_DISABLE, 1, 0, 0, 0) } == 0 {
        HUGE_PAGES_OFF.store(true, std::sync::atomic::Ordering::SeqCst);
    }
}

/// The launcher's command for `program` (its arguments follow): this binary, this process's
/// id, whether to turn huge pages back on, the program's file and the name it is run by.
/// `None` where there is no launcher (not Linux) or the program is not found (started
/// directly, it fails as it always did).
#[cfg(target_os = "linux")]
fn through_launcher(program: &str, env: &BTreeMap<String, String>) -> Option<Command> {
    let file = find_program(program, env)?;
    let mut launcher = Command::new("/proc/self/exe");
    launcher
        .arg(LAUNCHER)
        .arg(std::process::id().to_string())
        .arg(
            if HUGE_PAGES_OFF.load(std::sync::atomic::Ordering::SeqCst) {
                "huge-pages-on"
            } else {
                "as-is"
            },
        )
        .arg(file)
        .arg(program);
    Some(launcher)
}

#[cfg(not(target_os = "linux"))]
fn through_launcher(_: &str, _: &BTreeMap<String, String>) -> Option<Command> {
    None
}

/// The executable file `program` names, as exec would find it: a path as it is, a bare name
/// on the PATH the server gets (`env`'s, else this process's).
#[cfg(target_os = "linux")]
fn find_program(program: &str, env: &BTreeMap<String, String>) -> Option<std::path::PathBuf> {
    use std::os::unix::fs::PermissionsExt as _;
    let runnable = |path: &std::path::Path| {
        std::fs::metadata(path).is_ok_and(|m| m.is_file() && m.permissions().mode() & 0o111 != 0)
    };
    if program.is_empty() {
        return None;
    }
    if program.contains('/') {
        let path = std::path::PathBuf::from(program);
        return runnable(&path).then_some(path);
    }
    let path = match env.get("PATH") {
        Some(path) => std::ffi::OsString::from(path),
        None => std::env::var_os("PATH")?,
    };
    std::env::split_paths(&path)
        .map(|dir| dir.join(program))
        .find(|candidate| runnable(candidate))
}

/// When this process was started as a launcher, becomes the server: returns only when it
/// cannot, with why (`main` prints it and exits 127, a shell's "cannot run"). `None` when
/// this process is not a launcher.
pub fn launch_if_asked() -> Option<String> {
    let mut args = std::env::args_os().skip(1);
    if args.next()? != LAUNCHER {
        return None;
    }
    Some(launch(args))
}

#[cfg(target_os = "linux")]
fn launch(mut args: impl Iterator<Item = std::ffi::OsString>) -> String {
    use std::os::unix::process::CommandExt as _;
    let (Some(parent), Some(huge_pages), Some(file), Some(name)) =
        (args.next(), args.next(), args.next(), args.next())
    else {
        return format!("{LAUNCHER} is how mcpguard starts a server; it is not a command");
    };
    let Some(parent) = parent.to_str().and_then(|p| p.parse::<libc::pid_t>().ok()) else {
        return format!("{LAUNCHER}: not a process id: {}", parent.to_string_lossy());
    };
    // SAFETY: prctl and getppid take integers and touch no memory of ours.
    unsafe {
        if huge_pages == "huge-pages-on" {
            // Inherited from the proxy, and across exec: the server gets the system's default.
            libc::prctl(libc::PR_SET_THP_DISABLE, 0, 0, 0, 0);
        }
        if libc::prctl(libc::PR_SET_PDEATHSIG, libc::SIGTERM) == -1 {
            return format!(
                "cannot tie the server to the proxy: {}",
                std::io::Error::last_os_error()
            );
        }
        // The proxy died before the prctl: nobody would send the signal.
        if libc::getppid() != parent {
            return "the proxy exited while starting the server".to_owned();
        }
    }
    let error = Command::new(&file).arg0(&name).args(args).exec();
    format!("cannot start `{}`: {error}", name.to_string_lossy())
}

#[cfg(not(target_os = "linux"))]
fn launch(_: impl Iterator<Item = std::ffi::OsString>) -> String {
    format!("{LAUNCHER} is how mcpguard starts a server on Linux; it is not a command")
}

#[cfg(all(test, target_os = "linux"))]
mod tests {
    use super::*;

    #[test]
    fn a_program_is_found_as_exec_finds_it_or_left_to_fail_as_it_always_did() {
        let dir = tempfile::tempdir().unwrap();
        let script = dir.path().join("mcpguard-launch-test-server");
        std::fs::write(&script, "#!/bin/sh\n").unwrap();
        let none = BTreeMap::new();
        // Not executable: not found, so a spawn reports the permission error itself.
        assert_eq!(find_program(script.to_str().unwrap(), &none), None);
        use std::os::unix::fs::PermissionsExt as _;
        std::fs::set_permissions(&script, std::fs::Permissions::from_mode(0o755)).unwrap();
        assert_eq!(
            find_program(script.to_str().unwrap(), &none).as_deref(),
            Some(script.as_path())
        );
        // A bare name is looked up on the PATH the server is given.
        let on_path = BTreeMap::from([(
            "PATH".to_owned(),
            format!("/nonexistent:{}", dir.path().display()),
        )]);
        assert_eq!(
            find_program("mcpguard-launch-test-server", &on_path).as_deref(),
            Some(script.as_path())
        );
        assert_eq!(find_program("mcpguard-launch-test-server", &none), None);
        assert_eq!(find_program("/nonexistent/server", &none), None);
    }
}
