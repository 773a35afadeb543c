//! Watching one file for saves, for `validate-config --watch` and the proxy's config reload.
//!
//! Editors save by writing a temp file and renaming it over the original, which replaces the
//! inode: the directory is watched and events that touch the file are picked out. A save is
//! often several events (truncate, write, rename); [`settle`] lets them pass as one.

use std::path::{Path, PathBuf};
use std::sync::mpsc::{self, Receiver};
use std::time::Duration;

use anyhow::Context as _;
use notify::Watcher as _;

/// Starts watching `path`; every change sends `()`. Keep the watcher alive while receiving.
pub fn file(path: &Path) -> anyhow::Result<(notify::RecommendedWatcher, Receiver<()>)> {
    let dir = match path.parent() {
        Some(d) if !d.as_os_str().is_empty() => d.to_owned(),
        _ => PathBuf::from("."),
    };
    let target = path.file_name().map(ToOwned::to_owned);
    let (tx, rx) = mpsc::channel();
    let mut watcher = notify::recommended_watcher(move |event: notify::Result<notify::Event>| {
        if let Ok(event) = event
            && !event.kind.is_access()
            && event
                .paths
                .iter()
                .any(|p| p.file_name() == target.as_deref())
        {
            let _ = tx.send(());
        }
    })
    .context("cannot start the file watcher")?;
    watcher
        .watch(&dir, notify::RecursiveMode::NonRecursive)
        .with_context(|| format!("cannot watch {}", dir.display()))?;
    Ok((watcher, rx))
}

/// Waits for the burst of events one save makes to end.
pub fn settle(rx: &Receiver<()>) {
    std::thread::sleep(Duration::from_millis(100));
    while rx.try_recv().is_ok() {}
}
