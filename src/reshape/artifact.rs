//! Artifacts: the full result a preview leaves out, kept on disk and named `ax://DOMAIN/ID`.
//!
//! The store is content-addressed: ID is the first 16 hex digits of the SHA-256 of the bytes,
//! so storing the same result twice writes nothing new, a reference can be computed before
//! anything is written (the core stays pure: it names the artifact, the CLI stores it), and a
//! file whose bytes no longer hash to its name is noticed. An artifact lives at
//! `DIR/DOMAIN/ID.json`, written atomically.
//!
//! A reference is a name, never a path: DOMAIN is `[a-z0-9][a-z0-9_-]*` (at most 32) and ID is
//! hex, so `ax://../..`, `ax:///etc/passwd` or `ax://a/b/../../c` are refused before any file
//! system call, and nothing outside the store can be read through one.

use std::fmt;
use std::path::{Path, PathBuf};

use sha2::{Digest, Sha256};

/// The scheme every reference starts with.
pub const SCHEME: &str = "ax://";

/// Hex digits of the SHA-256 kept in an ID: 64 bits, plenty for one project's store, and short
/// enough that a reference fits a 100-character summary line.
pub const ID_LEN: usize = 16;

const MAX_DOMAIN: usize = 32;

/// A validated `ax://DOMAIN/ID`.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Ref {
    domain: String,
    id: String,
}

#[derive(Debug, thiserror::Error)]
pub enum ArtifactError {
    #[error(
        "{reference}: not an artifact reference: {why}; expected ax://DOMAIN/ID as printed by `mcpguard summarize` (DOMAIN: lowercase letters, digits, - and _; ID: {ID_LEN} hex digits)"
    )]
    BadRef {
        reference: String,
        why: &'static str,
    },
    #[error(
        "{reference}: no such artifact in {dir} (looked for {path}); artifacts are written by `mcpguard summarize` in the directory set by --artifact-dir or artifactDir"
    )]
    NotFound {
        reference: String,
        dir: String,
        path: String,
    },
    #[error("{path}: cannot store the artifact: {cause}")]
    Write { path: String, cause: std::io::Error },
    #[error("{path}: cannot read the artifact: {cause}")]
    Read { path: String, cause: std::io::Error },
    #[error(
        "{path}: a symbolic link in the artifact store, not followed (artifacts are files mcpguard wrote; a link may point anywhere); remove it"
    )]
    Link { path: String },
    #[error(
        "{path}: its bytes no longer match {reference} (edited or damaged since it was stored); not used: remove it and make the artifact again"
    )]
    Tampered { path: String, reference: String },
    #[error(
        "{path}: already holds other bytes than {reference} names; the store was edited by hand, remove that file"
    )]
    Collision { path: String, reference: String },
}

impl Ref {
    /// The reference of `bytes` stored under `domain` (made safe: lowercase, other characters
    /// become `-`, empty becomes `result`).
    pub fn for_content(domain: &str, bytes: &[u8]) -> Ref {
        Ref::for_digest(domain, &Sha256::digest(bytes))
    }

    /// The reference of content whose SHA-256 is `digest` (hashed as it was read).
    pub fn for_digest(domain: &str, digest: &[u8]) -> Ref {
        let mut id = String::with_capacity(ID_LEN);
        for byte in &digest[..ID_LEN / 2] {
            id.push_str(&format!("{byte:02x}"));
        }
        Ref {
            domain: sanitize_domain(domain),
            id,
        }
    }

    /// Parses and validates `ax://DOMAIN/ID`.
    pub fn parse(text: &str) -> Result<Ref, ArtifactError> {
        // Echoed cut: whatever was passed as a reference (a megabyte, once) is not repeated whole.
        let bad = |why| ArtifactError::BadRef {
            reference: match text.char_indices().nth(80) {
                Some((at, _)) => format!("{}… ({} bytes)", &text[..at], text.len()),
                None => text.to_owned(),
            },
            why,
        };
        let rest = text
            .strip_prefix(SCHEME)
            .ok_or_else(|| bad("it does not start with ax://"))?;
        let (domain, id) = rest
            .split_once('/')
            .ok_or_else(|| bad("there is no / between DOMAIN and ID"))?;
        let domain_ok = !domain.is_empty()
            && domain.len() <= MAX_DOMAIN
            && domain
                .bytes()
                .all(|b| b.is_ascii_lowercase() || b.is_ascii_digit() || b == b'-' || b == b'_')
            && domain.as_bytes()[0].is_ascii_alphanumeric();
        if !domain_ok {
            return Err(bad(
                "the domain may hold only lowercase letters, digits, - and _ (no dots or slashes)",
            ));
        }
        if id.len() != ID_LEN || !id.bytes().all(|b| matches!(b, b'0'..=b'9' | b'a'..=b'f')) {
            return Err(bad("the ID must be exactly 16 lowercase hex digits"));
        }
        Ok(Ref {
            domain: domain.to_owned(),
            id: id.to_owned(),
        })
    }

    /// True when an input argument is meant as a reference (and must parse as one).
    pub fn is_ref(arg: &str) -> bool {
        arg.starts_with(SCHEME)
    }

    pub fn domain(&self) -> &str {
        &self.domain
    }
}

impl fmt::Display for Ref {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "{SCHEME}{}/{}", self.domain, self.id)
    }
}

fn sanitize_domain(domain: &str) -> String {
    let mut out: String = domain
        .chars()
        .map(|c| match c.to_ascii_lowercase() {
            c @ ('a'..='z' | '0'..='9' | '_' | '-') => c,
            _ => '-',
        })
        .take(MAX_DOMAIN)
        .collect();
    while out.starts_with(['-', '_']) {
        out.remove(0);
    }
    if out.is_empty() {
        out.push_str("result");
    }
    out
}

/// A directory of artifacts.
#[derive(Clone, Debug)]
pub struct Store {
    dir: PathBuf,
}

impl Store {
    pub fn new(dir: impl Into<PathBuf>) -> Store {
        Store { dir: dir.into() }
    }

    pub fn dir(&self) -> &Path {
        &self.dir
    }

    /// Where `reference` lives (whether or not it exists).
    pub fn path(&self, reference: &Ref) -> PathBuf {
        self.dir
            .join(&reference.domain)
            .join(format!("{}.json", reference.id))
    }

    /// The file behind an existing artifact, checked as [`Store::open`] checks it.
    pub fn resolve(&self, reference: &Ref) -> Result<PathBuf, ArtifactError> {
        let (path, file) = self.open(reference)?;
        let untouched = (|| {
            use std::io::Read as _;
            let mut hasher = Sha256::new();
            let mut file = std::io::BufReader::with_capacity(1 << 16, file);
            let mut block = vec![0u8; 1 << 16];
            loop {
                match file.read(&mut block)? {
                    0 => break,
                    n => hasher.update(&block[..n]),
                }
            }
            Ok(Ref::for_digest(&reference.domain, &hasher.finalize()) == *reference)
        })()
        .map_err(|cause| self.unreadable(&path, cause))?;
        if !untouched {
            return Err(ArtifactError::Tampered {
                path: path.display().to_string(),
                reference: reference.to_string(),
            });
        }
        Ok(path)
    }

    /// The file behind `reference`, opened for reading, never through a symbolic link: the
    /// store is relative to the working directory by default, so a cloned repository could
    /// ship `.mcpguard/artifacts/DOMAIN/ID.json` as a link to any file of the user's. Readers
    /// that do not read to the end themselves check the hash with [`Store::resolve`].
    pub fn open(&self, reference: &Ref) -> Result<(PathBuf, std::fs::File), ArtifactError> {
        let path = self.path(reference);
        let not_found = || ArtifactError::NotFound {
            reference: reference.to_string(),
            dir: self.dir.display().to_string(),
            path: path.display().to_string(),
        };
        let folder = self.dir.join(&reference.domain);
        for (place, file) in [(&folder, false), (&path, true)] {
            match std::fs::symlink_metadata(place) {
                Ok(m) if m.file_type().is_symlink() => {
                    return Err(ArtifactError::Link {
                        path: place.display().to_string(),
                    });
                }
                Ok(m) if m.is_file() == file => {}
                Ok(_) => return Err(not_found()),
                Err(e) if e.kind() == std::io::ErrorKind::NotFound => return Err(not_found()),
                Err(cause) => return Err(self.unreadable(place, cause)),
            }
        }
        let file = std::fs::File::open(&path).map_err(|cause| self.unreadable(&path, cause))?;
        // The file opened is the one looked at, not a link put in its place meanwhile.
        #[cfg(unix)]
        {
            use std::os::unix::fs::MetadataExt as _;
            let (Ok(seen), Ok(opened)) = (std::fs::symlink_metadata(&path), file.metadata()) else {
                return Err(not_found());
            };
            if (seen.dev(), seen.ino()) != (opened.dev(), opened.ino()) {
                return Err(ArtifactError::Link {
                    path: path.display().to_string(),
                });
            }
        }
        Ok((path, file))
    }

    fn unreadable(&self, path: &Path, cause: std::io::Error) -> ArtifactError {
        ArtifactError::Read {
            path: path.display().to_string(),
            cause,
        }
    }

    /// Stores `bytes` as `reference` (computed by [`Ref::for_content`] from the same bytes),
    /// readable by the user alone (0600 files in 0700 folders: artifacts are the user's data).
    /// The write is atomic; an artifact already there with the same bytes is left alone.
    pub fn put(&self, reference: &Ref, bytes: &[u8]) -> Result<PathBuf, ArtifactError> {
        self.put_with(reference, bytes, crate::util::fsutil::Durability::Private)
    }

    /// [`Store::put`] with a choice of durability (the proxy's store is a private cache).
    pub fn put_with(
        &self,
        reference: &Ref,
        bytes: &[u8],
        durability: crate::util::fsutil::Durability,
    ) -> Result<PathBuf, ArtifactError> {
        let path = self.path(reference);
        let write_err = |cause| ArtifactError::Write {
            path: path.display().to_string(),
            cause,
        };
        match same_bytes(&path, bytes) {
            Ok(true) => return Ok(path),
            Ok(false) => {
                return Err(ArtifactError::Collision {
                    path: path.display().to_string(),
                    reference: reference.to_string(),
                });
            }
            Err(e) if e.kind() == std::io::ErrorKind::NotFound => {}
            Err(e) => return Err(write_err(e)),
        }
        if let Some(parent) = path.parent() {
            crate::util::fsutil::create_private_dir_all(parent).map_err(write_err)?;
        }
        crate::util::fsutil::write_with(&path, bytes, durability).map_err(write_err)?;
        Ok(path)
    }
}

/// Whether the file holds exactly `bytes`, read a block at a time (an artifact can be large).
fn same_bytes(path: &Path, bytes: &[u8]) -> std::io::Result<bool> {
    use std::io::Read as _;
    let mut file = std::fs::File::open(path)?;
    if file.metadata()?.len() != bytes.len() as u64 {
        return Ok(false);
    }
    let mut block = vec![0u8; 1 << 16];
    let mut at = 0;
    loop {
        let n = file.read(&mut block)?;
        if n == 0 {
            return Ok(at == bytes.len());
        }
        if bytes.get(at..at + n) != Some(&block[..n]) {
            return Ok(false);
        }
        at += n;
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn references_are_content_addressed_and_round_trip() {
        let a = Ref::for_content("Bookings", b"[1,2,3]");
        assert_eq!(a, Ref::for_content("bookings", b"[1,2,3]"));
        assert_ne!(a, Ref::for_content("bookings", b"[1,2,4]"));
        let text = a.to_string();
        assert!(
            text.starts_with("ax://bookings/") && text.len() == 14 + ID_LEN,
            "{text}"
        );
        assert_eq!(Ref::parse(&text).unwrap(), a);
        assert_eq!(Ref::for_content("../..//", b"x").domain(), "result");
        assert_eq!(
            Ref::for_content("search.files", b"x").domain(),
            "search-files"
        );
    }

    #[test]
    fn references_that_would_leave_the_store_are_refused() {
        for bad in [
            "ax://../..",
            "ax://../0123456789abcdef",
            "ax:///etc/passwd",
            "ax://bookings/../../0123456789abcdef",
            "ax://bookings/0123456789ABCDEF",
            "ax://bookings/0123456789abcdef/x",
            "ax://book ings/0123456789abcdef",
            "ax://.hidden/0123456789abcdef",
            "ax://bookings/0123456789abcde",
            "ax://C:/0123456789abcdef",
            "file:///etc/passwd",
        ] {
            assert!(Ref::parse(bad).is_err(), "{bad} was accepted");
        }
    }
}
