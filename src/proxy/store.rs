//! Where the proxy keeps the full results it shrank: a directory of artifacts (the same
//! `ax://DOMAIN/ID` files `summarize` writes, so `mcpguard chunk ax://…` reads them too), with
//! a time to live and a size cap, files readable by the user alone.
//!
//! The policy sees the store through [`Artifacts`], so a test can hand it a failing one and
//! the HTTP proxy a shared one: [`Redis`], which every instance reaches, seen through a
//! [`RedisScope`] per credential. A failure is a `String` for the log: the policy's answer to
//! it is always a preview without a reference, never the oversize result.

use std::io::{self, BufRead, Read};
use std::path::{Path, PathBuf};
use std::sync::{Arc, Mutex};
use std::time::{Duration, SystemTime};

use crate::reshape::artifact::{Ref, Store};
use crate::util::fsutil::Durability;

/// The store as the policy uses it.
pub trait Artifacts {
    /// Keeps `bytes` under `reference`.
    fn put(&mut self, reference: &Ref, bytes: &[u8]) -> Result<(), String>;
    /// The artifact, or `None` when it expired, was removed, or never was.
    fn get(&mut self, reference: &Ref) -> Result<Option<String>, String>;
    /// The artifact's bytes as a stream, for a reader that need not hold them (a search). A
    /// stream whose bytes turn out not to match the reference ends in an error.
    fn open(&mut self, reference: &Ref) -> Result<Option<Box<dyn BufRead + Send>>, String> {
        Ok(self
            .get(reference)?
            .map(|text| Box::new(io::Cursor::new(text.into_bytes())) as Box<dyn BufRead + Send>))
    }
}

/// Defaults of `--artifact-ttl` and `--artifact-cap`.
pub const DEFAULT_TTL: Duration = Duration::from_secs(3600);
pub const DEFAULT_CAP_BYTES: u64 = 100 << 20;

/// A directory store with a TTL and a size cap (oldest out first).
pub struct DirStore {
    store: Store,
    ttl: Duration,
    cap: u64,
    /// Bytes written since the last sweep: the directory is walked again only when enough
    /// was added to matter, not on every result.
    since_sweep: u64,
}

/// One artifact on disk, as `artifacts list` shows it.
#[derive(Clone, Debug, PartialEq, Eq, serde::Serialize)]
#[serde(rename_all = "camelCase")]
pub struct Entry {
    pub reference: String,
    pub bytes: u64,
    /// Seconds since it was written.
    pub age_seconds: u64,
    pub expired: bool,
    #[serde(skip)]
    pub path: PathBuf,
    #[serde(skip)]
    pub modified: SystemTime,
}

impl DirStore {
    pub fn new(dir: impl Into<PathBuf>, ttl: Duration, cap: u64) -> DirStore {
        DirStore {
            store: Store::new(dir),
            ttl,
            cap,
            since_sweep: 0,
        }
    }

    pub fn dir(&self) -> &Path {
        self.store.dir()
    }

    /// Every artifact in the store, oldest first. Unreadable entries are skipped.
    pub fn entries(&self, now: SystemTime) -> Vec<Entry> {
        let mut out = Vec::new();
        let Ok(domains) = std::fs::read_dir(self.store.dir()) else {
            return out;
        };
        for domain in domains.flatten() {
            let Ok(files) = std::fs::read_dir(domain.path()) else {
                continue;
            };
            let domain_name = domain.file_name().to_string_lossy().into_owned();
            for file in files.flatten() {
                let name = file.file_name().to_string_lossy().into_owned();
                let Some(id) = name.strip_suffix(".json") else {
                    continue;
                };
                let Ok(reference) = Ref::parse(&format!("ax://{domain_name}/{id}")) else {
                    continue;
                };
                let Ok(meta) = file.metadata() else { continue };
                let modified = meta.modified().unwrap_or(now);
                let age = now.duration_since(modified).unwrap_or_default();
                out.push(Entry {
                    reference: reference.to_string(),
                    bytes: meta.len(),
                    age_seconds: age.as_secs(),
                    expired: age > self.ttl,
                    path: file.path(),
                    modified,
                });
            }
        }
        out.sort_by(|a, b| {
            a.modified
                .cmp(&b.modified)
                .then(a.reference.cmp(&b.reference))
        });
        out
    }

    /// Removes what expired, then the oldest until the store is under its cap. Returns the
    /// entries removed.
    pub fn sweep(&mut self, now: SystemTime) -> Vec<Entry> {
        self.since_sweep = 0;
        let entries = self.entries(now);
        let mut total: u64 = entries.iter().map(|e| e.bytes).sum();
        let mut removed = Vec::new();
        for entry in entries {
            if (entry.expired || total > self.cap) && std::fs::remove_file(&entry.path).is_ok() {
                total -= entry.bytes;
                removed.push(entry);
            }
        }
        removed
    }
}

impl Artifacts for DirStore {
    fn put(&mut self, reference: &Ref, bytes: &[u8]) -> Result<(), String> {
        if bytes.len() as u64 > self.cap {
            return Err(format!(
                "{} bytes is more than the store's cap of {} bytes (--artifact-cap)",
                bytes.len(),
                self.cap
            ));
        }
        let path = self
            .store
            .put_with(reference, bytes, Durability::PrivateCache)
            .map_err(|e| e.to_string())?;
        // A result stored again is new again: its TTL starts over.
        if let Ok(file) = std::fs::File::options().append(true).open(&path) {
            let _ = file.set_modified(SystemTime::now());
        }
        self.since_sweep += bytes.len() as u64;
        if self.since_sweep > self.cap / 10 {
            self.sweep(SystemTime::now());
        }
        Ok(())
    }

    fn get(&mut self, reference: &Ref) -> Result<Option<String>, String> {
        let Some((path, mut file)) = self.live(reference)? else {
            return Ok(None);
        };
        let mut bytes = Vec::new();
        file.read_to_end(&mut bytes)
            .map_err(|e| format!("{}: {e}", path.display()))?;
        // Content-addressed: bytes that no longer hash to their name were edited or damaged.
        if Ref::for_content(reference.domain(), &bytes) != *reference {
            return Err(format!(
                "{}: its bytes no longer match {reference}",
                path.display()
            ));
        }
        String::from_utf8(bytes)
            .map(Some)
            .map_err(|_| format!("{}: not UTF-8", path.display()))
    }

    fn open(&mut self, reference: &Ref) -> Result<Option<Box<dyn BufRead + Send>>, String> {
        let Some((path, file)) = self.live(reference)? else {
            return Ok(None);
        };
        let verified = Verified {
            inner: file,
            hasher: <sha2::Sha256 as sha2::Digest>::new(),
            reference: reference.clone(),
            path,
            checked: false,
        };
        Ok(Some(Box::new(io::BufReader::with_capacity(
            256 << 10,
            verified,
        ))))
    }
}

impl DirStore {
    /// The artifact's file, opened (never through a link), unless it is missing or expired
    /// (then it is removed).
    fn live(&self, reference: &Ref) -> Result<Option<(PathBuf, std::fs::File)>, String> {
        let (path, file) = match self.store.open(reference) {
            Ok(opened) => opened,
            Err(crate::reshape::artifact::ArtifactError::NotFound { .. }) => return Ok(None),
            Err(e) => return Err(e.to_string()),
        };
        let meta = file
            .metadata()
            .map_err(|e| format!("{}: {e}", path.display()))?;
        let age = meta
            .modified()
            .ok()
            .and_then(|m| SystemTime::now().duration_since(m).ok())
            .unwrap_or_default();
        if age > self.ttl {
            let _ = std::fs::remove_file(&path);
            return Ok(None);
        }
        Ok(Some((path, file)))
    }
}

/// A file read through, hashed as it goes: at its end, bytes that no longer hash to their
/// reference are an error, as [`DirStore::get`] makes them.
struct Verified {
    inner: std::fs::File,
    hasher: sha2::Sha256,
    reference: Ref,
    path: PathBuf,
    /// The end was reached and the hash checked.
    checked: bool,
}

impl Read for Verified {
    fn read(&mut self, buf: &mut [u8]) -> io::Result<usize> {
        use sha2::Digest as _;
        let n = self.inner.read(buf)?;
        if n == 0 && !buf.is_empty() && !self.checked {
            self.checked = true;
            let digest = std::mem::take(&mut self.hasher).finalize();
            if Ref::for_digest(self.reference.domain(), &digest) != self.reference {
                return Err(io::Error::new(
                    io::ErrorKind::InvalidData,
                    format!(
                        "{}: its bytes no longer match {}",
                        self.path.display(),
                        self.reference
                    ),
                ));
            }
        }
        self.hasher.update(&buf[..n]);
        Ok(n)
    }
}

/// A store in memory, capped by bytes (the fuzz target; an instance that shares nothing).
#[derive(Default)]
pub struct MemStore {
    items: std::collections::HashMap<String, String>,
    bytes: usize,
    cap: usize,
}

impl MemStore {
    pub fn new(cap: usize) -> MemStore {
        MemStore {
            cap,
            ..MemStore::default()
        }
    }
}

impl Artifacts for MemStore {
    fn put(&mut self, reference: &Ref, bytes: &[u8]) -> Result<(), String> {
        if self.bytes + bytes.len() > self.cap {
            return Err(format!("the {}-byte memory store is full", self.cap));
        }
        let text = String::from_utf8(bytes.to_vec()).map_err(|_| "not UTF-8".to_owned())?;
        self.bytes += text.len();
        self.items.insert(reference.to_string(), text);
        Ok(())
    }

    fn get(&mut self, reference: &Ref) -> Result<Option<String>, String> {
        Ok(self.items.get(&reference.to_string()).cloned())
    }
}

/// Artifacts in Redis, shared by every proxy instance that names the same server and
/// database. Redis expires them (`PX`, the TTL); the total stays under the cap, oldest out
/// first, kept by [`PUT_WITHIN_CAP`] in Redis itself so every instance counts the same. One
/// connection, made on first use and made again after a failure, so a Redis that comes back
/// is used again without a restart.
pub struct Redis {
    client: redis::Client,
    /// `HOST:PORT/DB`, for messages: never the password the URL may hold.
    shown: String,
    ttl: Duration,
    cap: u64,
    conn: Mutex<Option<redis::Connection>>,
}

/// The bookkeeping every instance shares for the total cap: artifact keys by the time they
/// expire (a sorted set), their sizes (a hash) and the sum of those sizes.
const INDEX_KEY: &str = "mcpguard-store:index";
const SIZES_KEY: &str = "mcpguard-store:sizes";
const TOTAL_KEY: &str = "mcpguard-store:bytes";

/// Stores one artifact and keeps the total under the cap, atomically (one script, so two
/// instances storing at once cannot both count the same room): entries past their expiry,
/// which Redis has already dropped, are forgotten first; then those closest to it (the oldest,
/// when instances share a TTL) go until the total fits.
/// KEYS: the artifact, INDEX, SIZES, TOTAL. ARGV: the bytes, the TTL in ms, the cap.
const PUT_WITHIN_CAP: &str = r#"
local t = redis.call('TIME')
local now = tonumber(t[1]) * 1000000 + tonumber(t[2])
local function forget(k)
  local size = tonumber(redis.call('HGET', KEYS[3], k) or '0')
  redis.call('HDEL', KEYS[3], k)
  redis.call('ZREM', KEYS[2], k)
  redis.call('DECRBY', KEYS[4], size)
  redis.call('DEL', k)
end
for _, k in ipairs(redis.call('ZRANGEBYSCORE', KEYS[2], '-inf', now)) do -- microseconds
  forget(k)
end
if redis.call('HEXISTS', KEYS[3], KEYS[1]) == 1 then forget(KEYS[1]) end
local size = string.len(ARGV[1])
local total = redis.call('INCRBY', KEYS[4], size)
while total > tonumber(ARGV[3]) do
  local oldest = redis.call('ZRANGE', KEYS[2], 0, 0)
  if #oldest == 0 then break end
  forget(oldest[1])
  total = tonumber(redis.call('GET', KEYS[4]))
end
redis.call('SET', KEYS[1], ARGV[1], 'PX', ARGV[2])
redis.call('ZADD', KEYS[2], now + tonumber(ARGV[2]) * 1000, KEYS[1])
redis.call('HSET', KEYS[3], KEYS[1], size)
return redis.status_reply('OK')
"#;

/// How long connecting and each command may take: a Redis that is down costs a request this
/// much at most, and the answer is then a preview without a reference.
const REDIS_TIMEOUT: Duration = Duration::from_millis(500);

impl Redis {
    /// Reads a `redis://[USER:PASSWORD@]HOST[:PORT][/DB]` URL; does not connect yet.
    pub fn open(url: &str, ttl: Duration, cap: u64) -> Result<Redis, String> {
        let client = redis::Client::open(url).map_err(|e| {
            format!("--store: not a Redis URL ({e}); expected redis://HOST:PORT/DB")
        })?;
        let info = client.get_connection_info();
        let shown = format!("{}/{}", info.addr(), info.redis_settings().db());
        Ok(Redis {
            client,
            shown,
            ttl,
            cap,
            conn: Mutex::new(None),
        })
    }

    /// `HOST:PORT/DB`.
    pub fn shown(&self) -> &str {
        &self.shown
    }

    /// Whether Redis answers (for /health).
    pub fn ping(&self) -> Result<(), String> {
        self.with(|c| redis::cmd("PING").query::<String>(c).map(drop))
    }

    /// Runs `f` on the connection, connecting first when there is none. A connection that
    /// was made before and fails with a dropped socket (Redis restarted since) is made again
    /// and `f` tried once more: every command here (SET of the same bytes, GET, PING) may run
    /// twice. Any other failure drops the connection, so the next call connects again.
    fn with<T>(
        &self,
        f: impl Fn(&mut redis::Connection) -> redis::RedisResult<T>,
    ) -> Result<T, String> {
        let mut slot = self
            .conn
            .lock()
            .unwrap_or_else(std::sync::PoisonError::into_inner);
        let reused = slot.is_some();
        let first = f(self.connected(&mut slot)?);
        let outcome = match first {
            Err(e) if reused && (e.is_connection_dropped() || e.is_io_error()) => {
                *slot = None;
                f(self.connected(&mut slot)?)
            }
            other => other,
        };
        outcome.map_err(|e| {
            *slot = None;
            format!("Redis at {}: {e}", self.shown)
        })
    }

    fn connected<'a>(
        &self,
        slot: &'a mut Option<redis::Connection>,
    ) -> Result<&'a mut redis::Connection, String> {
        if slot.is_none() {
            let conn = self
                .client
                .get_connection_with_timeout(REDIS_TIMEOUT)
                .and_then(|c| {
                    c.set_read_timeout(Some(REDIS_TIMEOUT * 4))?;
                    c.set_write_timeout(Some(REDIS_TIMEOUT * 4))?;
                    Ok(c)
                })
                .map_err(|e| format!("Redis at {} cannot be reached: {e}", self.shown))?;
            *slot = Some(conn);
        }
        Ok(slot.as_mut().expect("connected above"))
    }

    /// This store as one credential sees it.
    pub fn scope(self: &Arc<Redis>, scope: &str) -> RedisScope {
        RedisScope {
            redis: self.clone(),
            scope: scope.to_owned(),
        }
    }
}

/// The artifacts of one credential in a shared [`Redis`]: a reference stored under another
/// credential is not found (the 2026-07-28 `cacheScope: private` rule for what the proxy
/// keeps).
pub struct RedisScope {
    redis: Arc<Redis>,
    scope: String,
}

impl RedisScope {
    fn key(&self, reference: &Ref) -> String {
        format!("mcpguard:{}:{reference}", self.scope)
    }
}

impl Artifacts for RedisScope {
    fn put(&mut self, reference: &Ref, bytes: &[u8]) -> Result<(), String> {
        if bytes.len() as u64 > self.redis.cap {
            return Err(format!(
                "{} bytes is more than the store's cap of {} bytes (--artifact-cap)",
                bytes.len(),
                self.redis.cap
            ));
        }
        let key = self.key(reference);
        let ttl = self.redis.ttl.as_millis().max(1) as u64;
        self.redis.with(|c| {
            redis::cmd("EVAL")
                .arg(PUT_WITHIN_CAP)
                .arg(4)
                .arg(&key)
                .arg(INDEX_KEY)
                .arg(SIZES_KEY)
                .arg(TOTAL_KEY)
                .arg(bytes)
                .arg(ttl)
                .arg(self.redis.cap)
                .query::<()>(c)
        })
    }

    fn get(&mut self, reference: &Ref) -> Result<Option<String>, String> {
        let key = self.key(reference);
        let bytes: Option<Vec<u8>> = self.redis.with(|c| redis::cmd("GET").arg(&key).query(c))?;
        let Some(bytes) = bytes else {
            return Ok(None);
        };
        if Ref::for_content(reference.domain(), &bytes) != *reference {
            return Err(format!(
                "Redis key {key}: its bytes no longer match {reference}"
            ));
        }
        String::from_utf8(bytes)
            .map(Some)
            .map_err(|_| format!("Redis key {key}: not UTF-8"))
    }
}

/// A store that holds nothing (`--no-artifacts`, and tests of the degraded path).
pub struct NoStore;

impl Artifacts for NoStore {
    fn put(&mut self, _: &Ref, _: &[u8]) -> Result<(), String> {
        Err("artifacts are switched off".to_owned())
    }

    fn get(&mut self, _: &Ref) -> Result<Option<String>, String> {
        Ok(None)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn opens_a_stream_that_checks_the_bytes() {
        let dir = tempfile::tempdir().unwrap();
        let mut store = DirStore::new(dir.path(), Duration::from_secs(3600), 1 << 20);
        let body = "x".repeat(600_000);
        let a = Ref::for_content("text", body.as_bytes());
        store.put(&a, body.as_bytes()).unwrap();
        let mut read = String::new();
        store
            .open(&a)
            .unwrap()
            .unwrap()
            .read_to_string(&mut read)
            .unwrap();
        assert_eq!(read, body);
        // Damaged on disk: the stream ends in an error, not in other bytes.
        let path = store.store.path(&a);
        std::fs::write(&path, "y".repeat(600_000)).unwrap();
        let err = store
            .open(&a)
            .unwrap()
            .unwrap()
            .read_to_string(&mut String::new());
        assert!(err.unwrap_err().to_string().contains("no longer match"));
        let missing = Ref::for_content("text", b"never stored");
        assert!(store.open(&missing).unwrap().is_none());
    }

    #[test]
    fn stores_reads_expires_and_caps() {
        let dir = tempfile::tempdir().unwrap();
        let mut store = DirStore::new(dir.path(), Duration::from_secs(3600), 1000);
        let a = Ref::for_content("text", b"hello");
        store.put(&a, b"hello").unwrap();
        assert_eq!(store.get(&a).unwrap().as_deref(), Some("hello"));
        #[cfg(unix)]
        {
            use std::os::unix::fs::PermissionsExt as _;
            let mode = std::fs::metadata(dir.path().join("text").join(format!(
                "{}.json",
                a.to_string().rsplit('/').next().unwrap()
            )))
            .unwrap()
            .permissions()
            .mode();
            assert_eq!(mode & 0o777, 0o600, "artifacts are private");
        }
        // Over the cap: refused, never half-stored.
        let big = vec![b'x'; 2000];
        assert!(store.put(&Ref::for_content("text", &big), &big).is_err());
        // Oldest out first when the total passes the cap.
        let b_bytes = vec![b'b'; 600];
        let b = Ref::for_content("text", &b_bytes);
        store.put(&b, &b_bytes).unwrap();
        let c_bytes = vec![b'c'; 600];
        let c = Ref::for_content("text", &c_bytes);
        let old = SystemTime::now() - Duration::from_secs(60);
        std::fs::File::options()
            .append(true)
            .open(store.store.path(&a))
            .unwrap()
            .set_modified(old)
            .unwrap();
        store.put(&c, &c_bytes).unwrap();
        store.sweep(SystemTime::now());
        assert_eq!(store.get(&a).unwrap(), None, "the oldest went first");
        assert!(store.get(&c).unwrap().is_some());
        // Expired: gone on read.
        let mut short = DirStore::new(dir.path(), Duration::from_secs(10), 1 << 20);
        std::fs::File::options()
            .append(true)
            .open(short.store.path(&c))
            .unwrap()
            .set_modified(old)
            .unwrap();
        assert_eq!(short.get(&c).unwrap(), None);
    }
}
