//! The processes a proxy under test started, read from /proc (Linux): its servers, apart from
//! its warden (`mcpguard __warden`, which ends them when the proxy cannot), and whether one is
//! still running.

use std::time::{Duration, Instant};

/// The processes whose parent is `pid` (/proc/*/stat), each with whether it is the warden.
pub fn children_of(pid: u32) -> Vec<(u32, bool)> {
    let mut out = Vec::new();
    for entry in std::fs::read_dir("/proc").unwrap().flatten() {
        let Some(child) = entry.file_name().to_str().and_then(|n| n.parse().ok()) else {
            continue;
        };
        let Ok(stat) = std::fs::read_to_string(entry.path().join("stat")) else {
            continue;
        };
        // pid (comm) state ppid ...: comm may hold spaces, so read after its last ')'.
        let after = stat.rsplit_once(')').map_or("", |(_, a)| a);
        let ppid = after.split_whitespace().nth(1).and_then(|p| p.parse().ok());
        if ppid == Some(pid) {
            let warden = std::fs::read(entry.path().join("cmdline"))
                .is_ok_and(|c| c.split(|b| *b == 0).nth(1) == Some(b"__warden"));
            out.push((child, warden));
        }
    }
    out
}

/// The server processes of the proxy `pid`: its children but the warden.
pub fn servers_of(pid: u32) -> Vec<u32> {
    children_of(pid)
        .into_iter()
        .filter_map(|(child, warden)| (!warden).then_some(child))
        .collect()
}

/// Waits until the proxy `pid` has `n` children, the warden among them and a server running
/// `command` (its /proc comm, once it has exec'd); its servers and its warden then.
pub fn until_started(pid: u32, command: &str, n: usize) -> (Vec<u32>, u32) {
    let until = Instant::now() + Duration::from_secs(30);
    loop {
        let children = children_of(pid);
        let running = children.iter().any(|(child, _)| {
            std::fs::read_to_string(format!("/proc/{child}/comm"))
                .is_ok_and(|c| c.trim() == command)
        });
        let warden = children.iter().find(|(_, warden)| *warden);
        if let (true, Some((warden, _))) = (running, warden)
            && children.len() == n
        {
            let servers = children.iter().filter(|(_, w)| !w).map(|(c, _)| *c);
            return (servers.collect(), *warden);
        }
        assert!(Instant::now() < until, "not started: {children:?}");
        std::thread::sleep(Duration::from_millis(20));
    }
}

/// Waits until the process `pid` has exited (gone, or a zombie nobody reaped yet), up to
/// `wait`: false when it still runs then.
pub fn exits_within(pid: u32, wait: Duration) -> bool {
    let until = Instant::now() + wait;
    loop {
        let state = std::fs::read_to_string(format!("/proc/{pid}/stat"))
            .map(|stat| stat.rsplit(')').next().unwrap_or("").trim().chars().next());
        if matches!(state, Err(_) | Ok(Some('Z'))) {
            return true;
        }
        if Instant::now() >= until {
            return false;
        }
        std::thread::sleep(Duration::from_millis(20));
    }
}
