//! Where documents come from: files and directories (walked in sorted order, `.json`, `.jsonl`
//! and `.ndjson` only, hidden entries below the root skipped), standard input and pipes, each
//! read under the read limits and decoded as UTF-8.

use std::io::{self, Read};
use std::path::Path;

use super::parse::{BOM, decode, json_error, parse_bytes};
use super::{Document, InputError, ReadLimits, Source, Unit, for_each_document};

/// The files behind the sources, in order: directories walked (sorted), the rest as given.
pub fn expand(sources: &[Source]) -> Vec<Unit> {
    let mut units = Vec::new();
    for source in sources {
        match source {
            Source::Stdin => units.push(Unit::Stdin),
            Source::Path(path) if path.is_dir() => walk_dir(path, &mut units),
            Source::Path(path) => units.push(Unit::file(path.clone())),
            Source::Artifact { reference, path } => units.push(Unit::File {
                path: path.clone(),
                name: reference.clone(),
            }),
        }
    }
    units
}

/// Reads one file (or stdin's bytes) as documents: JSON, or JSONL by name or by content.
pub fn read_unit_bytes(
    name: &str,
    bytes: Vec<u8>,
    jsonl: bool,
    limits: &ReadLimits,
) -> Vec<Result<Document, InputError>> {
    let mut out = Vec::new();
    parse_bytes(name, bytes, jsonl, limits, &mut |d| out.push(d));
    out
}

/// Reads one input whole as UTF-8 text, without parsing it (for a command that parses its
/// own way). Returns the name reports use and the text.
pub fn read_text(
    source: &Source,
    stdin: impl Read,
    limits: &ReadLimits,
) -> Result<(String, String), InputError> {
    let (name, bytes) = match source {
        Source::Stdin => {
            let name = "<stdin>".to_owned();
            let bytes = read_bytes(stdin, &name, None, limits)?;
            (name, bytes)
        }
        Source::Path(path) | Source::Artifact { path, .. } => {
            let name = match source {
                Source::Artifact { reference, .. } => reference.clone(),
                _ => path.display().to_string(),
            };
            let bytes = read_file_bytes(path, &name, limits)?;
            (name, bytes)
        }
    };
    let text = decode(&name, bytes)?;
    Ok((name, text))
}

/// [`read_file_bytes`] of a file that must be JSON: one of a megabyte or more whose text cannot
/// start a JSON value (a log, HTML, a binary) is refused from its first bytes, with the error
/// the whole file's parse would give, instead of being read whole first (900 MB read to say
/// "expected value at line 1 column 1").
pub fn read_json_file_bytes(
    path: &Path,
    name: &str,
    limits: &ReadLimits,
) -> Result<Vec<u8>, InputError> {
    if std::fs::metadata(path)
        .is_ok_and(|m| m.is_file() && m.len() >= 1 << 20 && m.len() <= limits.max_document_bytes)
        && let Some(err) = not_json_at_start(path, name)
    {
        return Err(err);
    }
    read_file_bytes(path, name, limits)
}

/// The error of a text whose first character (after white space and a byte order mark)
/// cannot start a JSON value, read from the file's first 4 KB; `None` when it can, or when the
/// head does not tell.
pub(super) fn not_json_at_start(path: &Path, name: &str) -> Option<InputError> {
    let mut head = vec![0u8; 4096];
    let mut file = std::fs::File::open(path).ok()?;
    let n = file.read(&mut head).ok()?;
    head.truncate(n);
    let valid = match std::str::from_utf8(&head) {
        Ok(text) => text,
        Err(e) => std::str::from_utf8(&head[..e.valid_up_to()]).ok()?,
    };
    let text = valid.strip_prefix(BOM).unwrap_or(valid);
    let first = text.trim_start().chars().next()?;
    if matches!(first, '{' | '[' | '"' | '-' | '0'..='9' | 't' | 'f' | 'n') {
        return None;
    }
    let err = serde_json::from_str::<serde::de::IgnoredAny>(text).err()?;
    Some(json_error(name, text, &err))
}

/// A file's bytes, whole: one over `limits.max_document_bytes` is refused before a byte of it
/// is read (and one that grows past it while read, once it has); one that shrinks while read
/// is read as far as it goes, and what is missing shows as JSON that ends early.
pub fn read_file_bytes(
    path: &Path,
    name: &str,
    limits: &ReadLimits,
) -> Result<Vec<u8>, InputError> {
    let read_error = |cause| InputError::Read {
        name: name.to_owned(),
        cause,
    };
    let file = std::fs::File::open(path).map_err(read_error)?;
    // A FIFO or a device reports no useful length: it is read up to the limit.
    let size = file
        .metadata()
        .ok()
        .filter(std::fs::Metadata::is_file)
        .map(|m| m.len());
    if let Some(size) = size.filter(|&s| s > limits.max_document_bytes) {
        return Err(InputError::TooLarge {
            name: name.to_owned(),
            size: Some(size),
            max: limits.max_document_bytes,
        });
    }
    read_bytes(file, name, size, limits)
}

/// Everything `reader` holds, up to `limits.max_document_bytes`; more is an error, and the
/// rest is not read. `expected` (a file's length) sizes the buffer; a stream is read in blocks
/// of 8 MiB, so refusing one holds the limit and no more (`Read::read_to_end` doubled its
/// buffer: `estimate /dev/zero` peaked at 3.17 GB to refuse 1 GiB).
pub fn read_bytes(
    mut reader: impl Read,
    name: &str,
    expected: Option<u64>,
    limits: &ReadLimits,
) -> Result<Vec<u8>, InputError> {
    let max = limits.max_document_bytes;
    let limit = usize::try_from(max.saturating_add(1)).unwrap_or(usize::MAX);
    let failed = |cause| InputError::Read {
        name: name.to_owned(),
        cause,
    };
    // Blocks of their own size, never a buffer grown by doubling: a doubled buffer and the one
    // it was copied from (which the allocator keeps a while) held 2-3 times the limit before
    // a refusal. A file's length sizes its one block; a stream's blocks are joined at its end.
    let first = expected.map_or(STREAM_BLOCK, |n| {
        usize::try_from(n).unwrap_or(limit).saturating_add(1)
    });
    let mut blocks: Vec<Vec<u8>> = Vec::new();
    let mut total = 0usize;
    loop {
        let room = if blocks.is_empty() {
            first
        } else {
            STREAM_BLOCK
        }
        .min(limit - total);
        if room == 0 {
            break;
        }
        let mut block = Vec::with_capacity(room);
        // Into the room there is, never more: `take` keeps read_to_end from growing the block.
        let n = (&mut reader)
            .take(room as u64)
            .read_to_end(&mut block)
            .map_err(failed)?;
        total += n;
        blocks.push(block);
        if n < room {
            break;
        }
    }
    if total as u64 > max {
        return Err(InputError::TooLarge {
            name: name.to_owned(),
            size: None,
            max,
        });
    }
    Ok(match blocks.len() {
        0 => Vec::new(),
        1 => {
            let mut only = blocks.pop().unwrap_or_default();
            // A small stream in a stream-sized block: kept at its own size.
            if only.capacity() > 2 * only.len() + 4096 {
                only.shrink_to_fit();
            }
            only
        }
        _ => {
            let mut bytes = Vec::with_capacity(total);
            for block in blocks {
                bytes.extend_from_slice(&block);
            }
            bytes
        }
    })
}

/// How much of a stream of unknown length is read into one block.
pub(super) const STREAM_BLOCK: usize = 8 << 20;

/// Loads every document of the sources into memory (small inputs, tests).
pub fn load_all(
    sources: &[Source],
    stdin: impl Read,
    limits: &ReadLimits,
) -> Vec<Result<Document, InputError>> {
    let mut out = Vec::new();
    for_each_document(sources, stdin, limits, |d| out.push(d));
    out
}

pub(super) fn is_json_name(path: &Path) -> bool {
    path.extension().and_then(|e| e.to_str()).is_some_and(|e| {
        ["json", "jsonl", "ndjson"]
            .iter()
            .any(|x| e.eq_ignore_ascii_case(x))
    })
}

/// True for `.jsonl` and `.ndjson` files: one document per line, read as a stream.
pub fn is_jsonl(path: &Path) -> bool {
    path.extension()
        .and_then(|e| e.to_str())
        .is_some_and(|e| e.eq_ignore_ascii_case("jsonl") || e.eq_ignore_ascii_case("ndjson"))
}

pub(super) fn walk_dir(dir: &Path, units: &mut Vec<Unit>) {
    let mut found = false;
    // Links are followed (a corpus of symlinked captures is common); walkdir reports loops
    // through an ancestor and dangling links as errors, which become read errors for that
    // entry. A directory reached a second time another way (a link to the corpus's parent)
    // is not walked again, so no file is audited twice.
    let mut walked = std::collections::HashSet::new();
    let walker = walkdir::WalkDir::new(dir)
        .follow_links(true)
        .sort_by_file_name()
        .into_iter()
        .filter_entry(move |e| {
            if e.depth() > 0 && e.file_name().to_string_lossy().starts_with('.') {
                return false;
            }
            !e.file_type().is_dir() || file_id(e).is_none_or(|id| walked.insert(id))
        });
    for entry in walker {
        match entry {
            Ok(entry) if entry.file_type().is_file() && is_json_name(entry.path()) => {
                found = true;
                units.push(Unit::file(entry.into_path()));
            }
            Ok(_) => {}
            Err(err) => {
                found = true;
                let name = err.path().unwrap_or(dir).display().to_string();
                let cause = err
                    .into_io_error()
                    .unwrap_or_else(|| io::Error::other("symbolic link loop"));
                units.push(Unit::Failed(InputError::Read { name, cause }));
            }
        }
    }
    if !found {
        units.push(Unit::Failed(InputError::NoJsonInDir {
            name: dir.display().to_string(),
        }));
    }
}

/// A directory's identity on its file system (device and inode), to notice it again.
#[cfg(unix)]
pub(super) fn file_id(entry: &walkdir::DirEntry) -> Option<(u64, u64)> {
    use std::os::unix::fs::MetadataExt as _;
    entry.metadata().ok().map(|m| (m.dev(), m.ino()))
}

#[cfg(not(unix))]
pub(super) fn file_id(_entry: &walkdir::DirEntry) -> Option<(u64, u64)> {
    None
}
