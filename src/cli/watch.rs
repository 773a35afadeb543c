//! Watching one file for saves, for `validate-config --watch` and the proxy's config reload.
//!
//! Editors save by writing a temp file and renaming it over the original, which replaces the
//! inode: the directory is watched and events that touch the file are picked out. A config
//! that is a symbolic link (a dotfiles manager's) is saved where the link points: that
//! directory is watched too. A save is often several events (truncate, write, rename);
//! [`settle`] lets them pass as one.

use std::ffi::OsString;
use std::path::{Path, PathBuf};
use std::sync::mpsc::{self, Receiver};
use std::time::Duration;

use anyhow::Context as _;
use notify::Watcher as _;

/// Starts watching `path`; every change sends `()`. Keep the watcher alive while receiving.
pub fn file(path: &Path) -> anyhow::Result<(notify::RecommendedWatcher, Receiver<()>)> {
    let place = |p: &Path| -> (PathBuf, Option<OsString>) {
        let dir = match p.parent() {
            Some(d) if !d.as_os_str().is_empty() => d.to_owned(),
            _ => PathBuf::from("."),
        };
        (dir, p.file_name().map(ToOwned::to_owned))
    };
    let mut places = vec![place(path)];
    if let Ok(real) = std::fs::canonicalize(path)
        && path.is_symlink()
    {
        places.push(place(&real));
    }
    let names: Vec<Option<OsString>> = places.iter().map(|(_, name)| name.clone()).collect();
    let (tx, rx) = mpsc::channel();
    let mut watcher = notify::recommended_watcher(move |event: notify::Result<notify::Event>| {
        if let Ok(event) = event
            && !event.kind.is_access()
            && event
                .paths
                .iter()
                .any(|p| names.iter().any(|n| p.file_name() == n.as_deref()))
        {
            let _ = tx.send(());
        }
    })
    .context("cannot start the file watcher")?;
    let mut watched: Vec<&PathBuf> = Vec::new();
    for (dir, _) in &places {
        if watched.contains(&dir) {
            continue;
        }
        watcher
            .watch(dir, notify::RecursiveMode::NonRecursive)
            .with_context(|| format!("cannot watch {}", dir.display()))?;
        watched.push(dir);
    }
    Ok((watcher, rx))
}

/// Waits for the burst of events one save of `path` makes to end. A save that truncates, then
/// writes (a shell's `>`, some editors) shows an empty file in between: an empty file is given
/// a second to fill before it counts as a config that sets nothing.
pub fn settle(rx: &Receiver<()>, path: &Path) {
    let quiet = || {
        std::thread::sleep(Duration::from_millis(100));
        while rx.try_recv().is_ok() {}
    };
    quiet();
    for _ in 0..10 {
        if std::fs::metadata(path).map_or(true, |m| m.len() > 0) {
            return;
        }
        quiet();
    }
}
