//! Writing files so that an interrupted run never leaves a half-written one: the bytes go to a
//! temporary file beside the target, which is then renamed over it (atomic on one filesystem).

use std::io::Write;
use std::path::Path;

/// Writes `bytes` to `path` atomically; on any error the target is untouched.
pub fn write_atomic(path: &Path, bytes: &[u8]) -> std::io::Result<()> {
    write_with(path, bytes, Durability::Synced)
}

/// How a write ends.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Durability {
    /// Flushed to disk before the rename: outputs a user keeps (baselines, captures).
    Synced,
    /// Readable by the user alone (0600) and not flushed: a cache that lives an hour (the
    /// proxy's artifacts), where an fsync per result would cost more than the shrinking.
    PrivateCache,
    /// Readable by the user alone (0600) and flushed: credentials (the OAuth store).
    Secret,
}

/// [`write_atomic`] with a choice of [`Durability`].
pub fn write_with(path: &Path, bytes: &[u8], durability: Durability) -> std::io::Result<()> {
    write_streamed(path, durability, |out| out.write_all(bytes))
}

/// [`write_with`] of what `write` writes, as it writes it (buffered): an output too large to
/// hold, or one that fails half way, never replaces the file with part of itself.
pub fn write_streamed(
    path: &Path,
    durability: Durability,
    write: impl FnOnce(&mut dyn Write) -> std::io::Result<()>,
) -> std::io::Result<()> {
    let dir = match path.parent() {
        Some(d) if !d.as_os_str().is_empty() => d,
        _ => Path::new("."),
    };
    let name = path
        .file_name()
        .map_or_else(|| "out".into(), |n| n.to_string_lossy());
    let temp = dir.join(format!(".{name}.{}.tmp", std::process::id()));
    let result = (|| {
        let mut options = std::fs::OpenOptions::new();
        options.write(true).create(true).truncate(true);
        #[cfg(unix)]
        if durability != Durability::Synced {
            use std::os::unix::fs::OpenOptionsExt as _;
            options.mode(0o600);
        }
        let mut out = std::io::BufWriter::with_capacity(1 << 16, options.open(&temp)?);
        write(&mut out)?;
        let file = out
            .into_inner()
            .map_err(std::io::IntoInnerError::into_error)?;
        if durability != Durability::PrivateCache {
            file.sync_all()?;
        }
        std::fs::rename(&temp, path)
    })();
    if result.is_err() {
        let _ = std::fs::remove_file(&temp);
    }
    result
}

#[cfg(test)]
mod tests {
    #[test]
    fn replaces_the_file_and_leaves_no_temp() {
        let dir = std::env::temp_dir().join(format!("mcpguard-fsutil-{}", std::process::id()));
        std::fs::create_dir_all(&dir).unwrap();
        let path = dir.join("baseline.json");
        super::write_atomic(&path, b"one").unwrap();
        super::write_atomic(&path, b"two").unwrap();
        assert_eq!(std::fs::read(&path).unwrap(), b"two");
        assert_eq!(std::fs::read_dir(&dir).unwrap().count(), 1);
        assert!(super::write_atomic(&dir.join("missing/x.json"), b"x").is_err());
        std::fs::remove_dir_all(&dir).unwrap();
    }
}
