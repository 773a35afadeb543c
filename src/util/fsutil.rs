//! Files a user's data lives in: written so that an interrupted run never leaves a half-written
//! one (the bytes go to a temporary file beside the target, which is then renamed over it,
//! atomic on one filesystem), and small files (configs, secrets, logins) read with a cap, so that
//! `--config /dev/zero` is an error, not all of memory.

use std::io::{Read as _, Write};
use std::path::Path;
use std::sync::atomic::{AtomicU64, Ordering};

/// The most mcpguard's own config (or a calls file) may hold: real ones are kilobytes.
pub const MAX_CONFIG_BYTES: u64 = 1 << 20;
/// The most a client's config may hold: Claude Code's `~/.claude.json` keeps every project's
/// history and reaches megabytes.
pub const MAX_CLIENT_CONFIG_BYTES: u64 = 64 << 20;
/// The most a secret file (cursor secrets, one per line) or a stored login may hold.
pub const MAX_SECRET_BYTES: u64 = 64 << 10;

/// Reads `path` as UTF-8 text, refusing (`InvalidData`) a file over `limit` bytes without
/// reading past the limit: a FIFO, `/dev/zero` or a 2 GB sparse file costs `limit` at most.
pub fn read_text_capped(path: &Path, limit: u64) -> std::io::Result<String> {
    let file = std::fs::File::open(path)?;
    // Sized once from the file's length: growing by doubling holds up to three times the
    // text at the moment of the last copy (a 12 MB pins file peaked at 36 MB).
    let length = file.metadata().map_or(0, |m| m.len());
    let mut bytes = Vec::with_capacity(length.min(limit) as usize + 1);
    file.take(limit + 1).read_to_end(&mut bytes)?;
    if bytes.len() as u64 > limit {
        return Err(std::io::Error::new(
            std::io::ErrorKind::InvalidData,
            format!(
                "over {} bytes, more than a file of this kind ever holds; is it the right file?",
                limit
            ),
        ));
    }
    String::from_utf8(bytes)
        .map_err(|e| std::io::Error::new(std::io::ErrorKind::InvalidData, e.utf8_error()))
}

/// Creates `dir` and its missing parents readable by the user alone (0700): where a user's data
/// or credentials go. Folders that exist keep their mode.
pub fn create_private_dir_all(dir: &Path) -> std::io::Result<()> {
    let mut builder = std::fs::DirBuilder::new();
    builder.recursive(true);
    #[cfg(unix)]
    std::os::unix::fs::DirBuilderExt::mode(&mut builder, 0o700);
    builder.create(dir)
}

/// Takes from `path` any permission beyond `mode` (0700 for a folder, 0600 for a file) that
/// another program gave it (an archive unpacked, a `chmod -R`): files of secrets stay private.
pub fn keep_private(path: &Path, mode: u32) -> std::io::Result<()> {
    #[cfg(unix)]
    {
        use std::os::unix::fs::PermissionsExt as _;
        let now = std::fs::metadata(path)?.permissions().mode() & 0o7777;
        if now & !mode != 0 {
            std::fs::set_permissions(path, std::fs::Permissions::from_mode(now & mode))?;
        }
    }
    #[cfg(not(unix))]
    let _ = (path, mode);
    Ok(())
}

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
    /// Readable by the user alone (0600) and flushed: a user's data and credentials (the
    /// artifacts `summarize` keeps, the OAuth store).
    Private,
}

/// [`write_atomic`] with a choice of [`Durability`].
pub fn write_with(path: &Path, bytes: &[u8], durability: Durability) -> std::io::Result<()> {
    write_streamed(path, durability, |out| out.write_all(bytes))
}

/// Writes `bytes` over a file a user keeps (a client's config, which holds tokens in `env` and
/// `headers`), atomically, as that file is: through a symbolic link to the file it points at
/// (a dotfiles manager's link stays a link), with its mode and, where this process may set it,
/// its owner. Returns the file written.
pub fn rewrite_keeping(path: &Path, bytes: &[u8]) -> std::io::Result<std::path::PathBuf> {
    let target = std::fs::canonicalize(path)?;
    let like = std::fs::metadata(&target)?;
    write_like(&target, bytes, &like)?;
    Ok(target)
}

/// Writes `bytes` to `path` atomically with the mode and owner of `like` (a file's metadata):
/// a backup is as private as the file it keeps.
pub fn write_like(path: &Path, bytes: &[u8], like: &std::fs::Metadata) -> std::io::Result<()> {
    write_streamed_as(path, Durability::Synced, Some(like), |out| {
        out.write_all(bytes)
    })
}

/// [`write_with`] of what `write` writes, as it writes it (buffered): an output too large to
/// hold, or one that fails half way, never replaces the file with part of itself.
pub fn write_streamed(
    path: &Path,
    durability: Durability,
    write: impl FnOnce(&mut dyn Write) -> std::io::Result<()>,
) -> std::io::Result<()> {
    write_streamed_as(path, durability, None, write)
}

fn write_streamed_as(
    path: &Path,
    durability: Durability,
    like: Option<&std::fs::Metadata>,
    write: impl FnOnce(&mut dyn Write) -> std::io::Result<()>,
) -> std::io::Result<()> {
    let dir = match path.parent() {
        Some(d) if !d.as_os_str().is_empty() => d,
        _ => Path::new("."),
    };
    let name = path
        .file_name()
        .map_or_else(|| "out".into(), |n| n.to_string_lossy());
    // A temporary file of this write alone: two threads writing the same file (a gateway's
    // status) each rename a whole file of their own, never one the other is still writing.
    static WRITES: AtomicU64 = AtomicU64::new(0);
    let n = WRITES.fetch_add(1, Ordering::Relaxed);
    let temp = dir.join(format!(".{name}.{}.{n}.tmp", std::process::id()));
    let result = (|| {
        let mut options = std::fs::OpenOptions::new();
        options.write(true).create(true).truncate(true);
        #[cfg(unix)]
        if durability != Durability::Synced || like.is_some() {
            use std::os::unix::fs::OpenOptionsExt as _;
            options.mode(0o600);
        }
        let file = options.open(&temp)?;
        if let Some(like) = like {
            // Set on the open file, before a byte is written: the mode as it was, umask or not.
            file.set_permissions(like.permissions())?;
            #[cfg(unix)]
            {
                use std::os::unix::fs::MetadataExt as _;
                // Only root may give a file away (`sudo mcpguard install` on a user's file):
                // anyone else writes a file of their own, as the one they replace.
                let _ = std::os::unix::fs::fchown(&file, Some(like.uid()), Some(like.gid()));
            }
        }
        let mut out = std::io::BufWriter::with_capacity(1 << 16, file);
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

    #[test]
    fn threads_writing_one_file_each_leave_a_whole_one() {
        let dir = tempfile::tempdir().unwrap();
        let path = dir.path().join("status.json");
        let texts: Vec<Vec<u8>> = (0..16u8).map(|i| vec![b'a' + i; 200_000]).collect();
        std::thread::scope(|scope| {
            for text in &texts {
                let path = &path;
                scope.spawn(move || {
                    for _ in 0..5 {
                        super::write_with(path, text, super::Durability::PrivateCache).unwrap();
                    }
                });
            }
        });
        let written = std::fs::read(&path).unwrap();
        assert!(texts.contains(&written), "a whole text, not a mix");
        assert_eq!(
            std::fs::read_dir(dir.path()).unwrap().count(),
            1,
            "no temporary file left"
        );
    }
}
