//! How the proxy starts a server's process: spawned directly (posix_spawn: nothing of the
//! proxy copied, so a hundred servers start as fast as a bare client starts them), its id told
//! to the [`warden`](super::warden), which ends it if the proxy dies without doing so itself.
//!
//! The parent-death signal (`PR_SET_PDEATHSIG`) would need code run in the child before exec:
//! in a `pre_exec` hook it makes the standard library fork the whole proxy, and through a
//! launcher (this binary again, which set the signal and became the server) it cost a second
//! exec of a large binary per server; both slowed a gateway's cold start more than the
//! servers' own start did. The warden is started once, with the first server.

use std::collections::BTreeMap;
use std::io::Write as _;
use std::process::{Command, Stdio};
use std::sync::Mutex;

use super::warden::WARDEN;

/// The server's process as either proxy runs it (`None` for an empty command): its stdin and
/// stdout piped to the proxy, its stderr the proxy's. Start it with [`spawn`], or tell
/// [`watch`] its id, so it ends with the proxy.
pub(crate) fn server_process(
    command: &[String],
    env: &BTreeMap<String, String>,
) -> Option<Command> {
    let (program, args) = command.split_first()?;
    let mut process = program_command(program, env);
    process
        .args(args)
        .envs(env)
        .stdin(Stdio::piped())
        .stdout(Stdio::piped())
        .stderr(Stdio::inherit());
    Some(process)
}

/// The command that runs `program`. A PATH of the server's own would have the standard
/// library fork to look the program up in the child (after the environment is set): it is
/// looked up here instead, as exec would, and run under the name it was given.
#[cfg_attr(not(unix), allow(unused_variables))]
fn program_command(program: &str, env: &BTreeMap<String, String>) -> Command {
    #[cfg(unix)]
    if let Some(path) = env.get("PATH").filter(|_| !program.contains('/'))
        && let Some(file) = find_program(program, path)
    {
        let mut process = Command::new(file);
        std::os::unix::process::CommandExt::arg0(&mut process, program);
        return process;
    }
    Command::new(program)
}

/// Starts a server's process and has the warden watch it.
pub(crate) fn spawn(process: &mut Command) -> std::io::Result<std::process::Child> {
    let child = process.spawn()?;
    watch(child.id());
    Ok(child)
}

/// Tells the warden a server's process id (starting the warden the first time): when this
/// process ends, so does that server. Best effort: a server the warden could not be told of
/// still sees its stdin close when the proxy is gone.
pub(crate) fn watch(pid: u32) {
    static WARDEN_INPUT: Mutex<Option<std::process::ChildStdin>> = Mutex::new(None);
    let mut input = WARDEN_INPUT
        .lock()
        .unwrap_or_else(std::sync::PoisonError::into_inner);
    if input.is_none() {
        *input = start_warden();
    }
    if let Some(warden) = input.as_mut() {
        // One write of a few bytes: whole on a pipe.
        let _ = warden.write_all(format!("{pid}\n").as_bytes());
    }
}

/// The warden: this binary again, in a process group of its own (a Ctrl-C reaches the proxy,
/// which ends its servers; the warden is for when it cannot), in `/` (it holds no directory).
#[cfg(target_os = "linux")]
fn start_warden() -> Option<std::process::ChildStdin> {
    use std::os::unix::process::CommandExt as _;
    let mut warden = Command::new("/proc/self/exe")
        .arg0("mcpguard")
        .arg(WARDEN)
        .process_group(0)
        .current_dir("/")
        .stdin(Stdio::piped())
        .stdout(Stdio::null())
        .stderr(Stdio::null())
        .spawn()
        .ok()?;
    warden.stdin.take()
}

#[cfg(not(target_os = "linux"))]
fn start_warden() -> Option<std::process::ChildStdin> {
    None
}

/// Turns transparent huge pages off for this process (Linux; elsewhere nothing). The gateway
/// runs a few threads per server, and the allocator gives each thread regions it asks to be
/// huge pages, each zeroed whole when first touched: with 100 servers that was 230-260 MB and
/// 1.2-1.4 s to list them cold, against 81 MB and 0.85 s without. The servers it starts
/// inherit the setting (the kernel keeps it across exec): they lose only the huge pages they
/// would have asked for by madvise.
pub fn huge_pages_off() {
    #[cfg(target_os = "linux")]
    // SAFETY: prctl with PR_SET_THP_DISABLE takes integer arguments and touches no memory of
    // ours.
    unsafe {
        libc::prctl(libc::PR_SET_THP_DISABLE, 1, 0, 0, 0);
    }
}

/// The executable file a bare `program` names on `path`, as exec would find it.
#[cfg(unix)]
fn find_program(program: &str, path: &str) -> Option<std::path::PathBuf> {
    use std::os::unix::fs::PermissionsExt as _;
    std::env::split_paths(path)
        .map(|dir| dir.join(program))
        .find(|candidate| {
            std::fs::metadata(candidate)
                .is_ok_and(|m| m.is_file() && m.permissions().mode() & 0o111 != 0)
        })
}

#[cfg(all(test, target_os = "linux"))]
mod tests {
    use super::*;

    #[test]
    fn a_program_on_the_servers_path_is_found_as_exec_finds_it() {
        let dir = tempfile::tempdir().unwrap();
        let script = dir.path().join("mcpguard-launch-test-server");
        std::fs::write(&script, "#!/bin/sh\n").unwrap();
        let path = format!("/nonexistent:{}", dir.path().display());
        // Not executable: not found, so a spawn reports the permission error itself.
        assert_eq!(find_program("mcpguard-launch-test-server", &path), None);
        use std::os::unix::fs::PermissionsExt as _;
        std::fs::set_permissions(&script, std::fs::Permissions::from_mode(0o755)).unwrap();
        assert_eq!(
            find_program("mcpguard-launch-test-server", &path).as_deref(),
            Some(script.as_path())
        );
        assert_eq!(
            find_program("mcpguard-launch-test-server", "/nonexistent"),
            None
        );
        // Started from there, under the name it was given.
        let env = BTreeMap::from([("PATH".to_owned(), path)]);
        let command = ["mcpguard-launch-test-server".to_owned()];
        let process = server_process(&command, &env).unwrap();
        assert_eq!(process.get_program(), script.as_os_str());
    }
}
