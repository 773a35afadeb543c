//! Logins kept between processes (DESIGN.md section 10): one JSON file per (canonical resource
//! URL, issuer), mode 0600 in a directory of mode 0700, written whole or not at all; and a lock
//! per resource, so that processes started together (two bridges, a bridge and `auth header`)
//! share one login and one refresh instead of racing to the authorization server.
//!
//! The file names are hashes (the first 16 hex digits of SHA-256 of the resource, then of the
//! issuer): a URL never becomes a path, and the files of one resource are found by prefix
//! before the issuer is known. The lock is `flock` on a file of its own (`std::fs::File::lock`),
//! which the kernel drops when the holder exits, however it exits.
//!
//! A [`Login`] holds tokens: its `Debug` shows none of them, and nothing here puts one in an
//! error.

use std::path::{Path, PathBuf};
use std::time::{Duration, Instant};

use serde::{Deserialize, Serialize};
use sha2::Digest as _;

use super::flow::ClientAuth;

/// The variable that moves the store (the CLI's `--oauth-store` reads it too).
pub const STORE_ENV: &str = "MCPGUARD_OAUTH_STORE";

/// A token this close to its expiry is refreshed before it is used.
pub const EXPIRY_MARGIN_SECS: u64 = 60;

/// One login: the tokens, and what refreshing them needs without discovery.
#[derive(Clone, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct Login {
    /// The MCP server's canonical URL: the key.
    pub resource: String,
    /// The `resource` sent to the authorization server (the server's published one).
    pub audience: String,
    pub issuer: String,
    pub token_endpoint: String,
    /// Where the tokens are revoked at logout (RFC 7009), when the server has such a place.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub revocation_endpoint: Option<String>,
    pub client_id: String,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub client_secret: Option<String>,
    pub client_auth: ClientAuth,
    /// `authorization_code` (a user's login) or `client_credentials`.
    pub grant: String,
    /// The loopback redirect the client was registered with (a registered client is used
    /// again only for the same one).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub redirect_uri: Option<String>,
    pub access_token: String,
    pub token_type: String,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub refresh_token: Option<String>,
    /// Unix seconds; absent when the server gave no `expires_in`.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub expires_at: Option<u64>,
    #[serde(default)]
    pub scopes: Vec<String>,
    /// Unix seconds of the grant or the last refresh.
    pub obtained_at: u64,
}

impl std::fmt::Debug for Login {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("Login")
            .field("resource", &self.resource)
            .field("issuer", &self.issuer)
            .field("client_id", &self.client_id)
            .field("grant", &self.grant)
            .field("refresh_token", &self.refresh_token.as_ref().map(|_| "…"))
            .field("expires_at", &self.expires_at)
            .field("scopes", &self.scopes)
            .finish_non_exhaustive()
    }
}

impl Login {
    /// The `Authorization` header's value.
    pub fn authorization(&self) -> String {
        let kind = if self.token_type.eq_ignore_ascii_case("bearer") {
            "Bearer"
        } else {
            &self.token_type
        };
        format!("{kind} {}", self.access_token)
    }

    /// How the client proves itself at the token and revocation endpoints.
    pub fn client(&self) -> (ClientAuth, &str, Option<&str>) {
        (
            self.client_auth,
            &self.client_id,
            self.client_secret.as_deref(),
        )
    }

    /// Whether the access token is expired (or within [`EXPIRY_MARGIN_SECS`] of it) at `now`.
    pub fn expired(&self, now: u64) -> bool {
        self.expires_at
            .is_some_and(|at| now + EXPIRY_MARGIN_SECS >= at)
    }
}

#[derive(Debug, thiserror::Error)]
pub enum StoreError {
    #[error("the OAuth store {path}: {source}")]
    Io {
        path: PathBuf,
        source: std::io::Error,
    },
    #[error(
        "the OAuth store {path} holds something that is not a login ({why}); delete it with `mcpguard auth logout`"
    )]
    Corrupt { path: PathBuf, why: String },
    #[error(
        "another mcpguard process has been signing in to {resource} for {secs:.0} s; gave up waiting"
    )]
    Busy { resource: String, secs: f64 },
}

/// The directory of logins.
#[derive(Clone, Debug)]
pub struct Store {
    dir: PathBuf,
}

/// A held lock on one resource's logins; released when dropped (or when the process ends).
#[must_use = "the lock is released when this is dropped"]
pub struct Held {
    _file: std::fs::File,
}

/// Now, in Unix seconds.
pub fn now_secs() -> u64 {
    std::time::SystemTime::now()
        .duration_since(std::time::UNIX_EPOCH)
        .map_or(0, |d| d.as_secs())
}

fn digest(text: &str) -> String {
    let hash = sha2::Sha256::digest(text.as_bytes());
    hash[..8].iter().map(|b| format!("{b:02x}")).collect()
}

impl Store {
    pub fn at(dir: impl Into<PathBuf>) -> Store {
        Store { dir: dir.into() }
    }

    /// The default place: `$XDG_CONFIG_HOME/mcpguard/oauth`, else `~/.config/mcpguard/oauth`
    /// (`%APPDATA%\mcpguard\oauth` on Windows).
    pub fn default_dir() -> Option<PathBuf> {
        crate::util::dirs::config().map(|c| c.join("oauth"))
    }

    pub fn dir(&self) -> &Path {
        &self.dir
    }

    fn io(&self, path: &Path) -> impl FnOnce(std::io::Error) -> StoreError + use<> {
        let path = path.to_owned();
        move |source| StoreError::Io { path, source }
    }

    fn ensure_dir(&self) -> Result<(), StoreError> {
        crate::util::fsutil::create_private_dir_all(&self.dir).map_err(self.io(&self.dir))
    }

    fn path_of(&self, resource: &str, issuer: &str) -> PathBuf {
        self.dir
            .join(format!("{}-{}.json", digest(resource), digest(issuer)))
    }

    /// The newest login for `resource` (a canonical URL), if any.
    pub fn find(&self, resource: &str) -> Result<Option<Login>, StoreError> {
        let prefix = format!("{}-", digest(resource));
        let (logins, mut corrupt) = self.read_all(Some(&prefix))?;
        if let Some(e) = corrupt.pop() {
            return Err(e);
        }
        Ok(logins
            .into_iter()
            .filter(|l| l.resource == resource)
            .max_by_key(|l| l.obtained_at))
    }

    /// Every login kept, oldest first, and the files that hold no login (each one's error):
    /// one damaged file does not hide the others.
    pub fn all(&self) -> Result<(Vec<Login>, Vec<StoreError>), StoreError> {
        let (mut all, corrupt) = self.read_all(None)?;
        all.sort_by(|a, b| (a.obtained_at, &a.resource).cmp(&(b.obtained_at, &b.resource)));
        Ok((all, corrupt))
    }

    /// The logins (of files whose names start with `prefix`), and the files that are not one.
    /// A store another program loosened (a 0755 folder, a 0644 login) is made private again
    /// first: it holds tokens.
    fn read_all(&self, prefix: Option<&str>) -> Result<(Vec<Login>, Vec<StoreError>), StoreError> {
        let entries = match std::fs::read_dir(&self.dir) {
            Ok(entries) => entries,
            Err(e) if e.kind() == std::io::ErrorKind::NotFound => {
                return Ok((Vec::new(), Vec::new()));
            }
            Err(e) => return Err(self.io(&self.dir)(e)),
        };
        crate::util::fsutil::keep_private(&self.dir, 0o700).map_err(self.io(&self.dir))?;
        let mut logins = Vec::new();
        let mut corrupt = Vec::new();
        for entry in entries {
            let entry = entry.map_err(self.io(&self.dir))?;
            let name = entry.file_name();
            let name = name.to_string_lossy();
            if !name.ends_with(".json") || name.starts_with('.') {
                continue;
            }
            if prefix.is_some_and(|p| !name.starts_with(p)) {
                continue;
            }
            let path = entry.path();
            let text = match crate::util::fsutil::read_text_capped(
                &path,
                crate::util::fsutil::MAX_SECRET_BYTES,
            ) {
                Ok(text) => text,
                // Removed by a logout in another process since the listing.
                Err(e) if e.kind() == std::io::ErrorKind::NotFound => continue,
                Err(e) if e.kind() == std::io::ErrorKind::InvalidData => {
                    corrupt.push(StoreError::Corrupt {
                        path,
                        why: e.to_string(),
                    });
                    continue;
                }
                Err(e) => return Err(self.io(&path)(e)),
            };
            crate::util::fsutil::keep_private(&path, 0o600).map_err(self.io(&path))?;
            match serde_json::from_str(&text) {
                Ok(login) => logins.push(login),
                Err(e) => corrupt.push(StoreError::Corrupt {
                    path,
                    why: format!("line {}, column {}", e.line(), e.column()),
                }),
            }
        }
        Ok((logins, corrupt))
    }

    /// Keeps `login` (replacing the one of its resource and issuer), 0600, whole or not at all.
    pub fn save(&self, login: &Login) -> Result<(), StoreError> {
        self.ensure_dir()?;
        let path = self.path_of(&login.resource, &login.issuer);
        let mut text = serde_json::to_vec_pretty(login).expect("a login serialises");
        text.push(b'\n');
        crate::util::fsutil::write_with(&path, &text, crate::util::fsutil::Durability::Private)
            .map_err(self.io(&path))
    }

    /// Forgets every login of `resource`: the logins removed.
    pub fn remove(&self, resource: &str) -> Result<Vec<Login>, StoreError> {
        let prefix = format!("{}-", digest(resource));
        let mut removed = Vec::new();
        // A damaged file of this resource's goes too: a logout forgets what there is.
        let (logins, corrupt) = self.read_all(Some(&prefix))?;
        for e in corrupt {
            if let StoreError::Corrupt { path, .. } = e {
                let _ = std::fs::remove_file(path);
            }
        }
        for login in logins {
            if login.resource != resource {
                continue;
            }
            let path = self.path_of(&login.resource, &login.issuer);
            match std::fs::remove_file(&path) {
                Ok(()) => removed.push(login),
                Err(e) if e.kind() == std::io::ErrorKind::NotFound => {}
                Err(e) => return Err(self.io(&path)(e)),
            }
        }
        Ok(removed)
    }

    /// Waits (at most `wait`) for the lock on `resource`'s logins. Whoever holds it may sign
    /// in or refresh; the others read what it saved once it lets go.
    pub fn lock(&self, resource: &str, wait: Duration) -> Result<Held, StoreError> {
        self.ensure_dir()?;
        let path = self.dir.join(format!("{}.lock", digest(resource)));
        let mut options = std::fs::OpenOptions::new();
        options.read(true).write(true).create(true).truncate(false);
        #[cfg(unix)]
        std::os::unix::fs::OpenOptionsExt::mode(&mut options, 0o600);
        let file = options.open(&path).map_err(self.io(&path))?;
        let started = Instant::now();
        loop {
            match file.try_lock() {
                Ok(()) => return Ok(Held { _file: file }),
                Err(std::fs::TryLockError::WouldBlock) => {
                    if started.elapsed() >= wait {
                        return Err(StoreError::Busy {
                            resource: resource.to_owned(),
                            secs: started.elapsed().as_secs_f64(),
                        });
                    }
                    std::thread::sleep(Duration::from_millis(25));
                }
                Err(std::fs::TryLockError::Error(e)) => return Err(self.io(&path)(e)),
            }
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn login(resource: &str, issuer: &str, at: u64) -> Login {
        Login {
            resource: resource.into(),
            audience: resource.into(),
            issuer: issuer.into(),
            token_endpoint: format!("{issuer}/token"),
            revocation_endpoint: None,
            client_id: "client-1".into(),
            client_secret: Some("s3cret-client".into()),
            client_auth: ClientAuth::Basic,
            grant: "authorization_code".into(),
            redirect_uri: Some("http://127.0.0.1:1234/callback".into()),
            access_token: "at-0123456789".into(),
            token_type: "bearer".into(),
            refresh_token: Some("rt-9876543210".into()),
            expires_at: Some(at + 3600),
            scopes: vec!["read".into()],
            obtained_at: at,
        }
    }

    fn temp_store(name: &str) -> Store {
        let dir = std::env::temp_dir().join(format!(
            "mcpguard-oauth-store-{name}-{}",
            std::process::id()
        ));
        let _ = std::fs::remove_dir_all(&dir);
        Store::at(dir)
    }

    #[test]
    fn saves_privately_and_finds_the_newest_login_of_a_resource() {
        let store = temp_store("find");
        let r = "https://mcp.example.com/mcp";
        assert!(store.find(r).unwrap().is_none());
        store.save(&login(r, "https://a.example", 100)).unwrap();
        store.save(&login(r, "https://b.example", 200)).unwrap();
        store
            .save(&login(
                "https://other.example/mcp",
                "https://a.example",
                300,
            ))
            .unwrap();
        let found = store.find(r).unwrap().unwrap();
        assert_eq!(found.issuer, "https://b.example");
        assert_eq!(found.authorization(), "Bearer at-0123456789");
        assert_eq!(store.all().unwrap().0.len(), 3);
        #[cfg(unix)]
        {
            use std::os::unix::fs::PermissionsExt as _;
            let mode = |p: &Path| std::fs::metadata(p).unwrap().permissions().mode() & 0o777;
            assert_eq!(mode(store.dir()), 0o700);
            for entry in std::fs::read_dir(store.dir()).unwrap() {
                assert_eq!(mode(&entry.unwrap().path()), 0o600);
            }
        }
        assert_eq!(store.remove(r).unwrap().len(), 2);
        assert!(store.find(r).unwrap().is_none());
        assert_eq!(store.all().unwrap().0.len(), 1);
        std::fs::remove_dir_all(store.dir()).unwrap();
    }

    #[test]
    fn a_loosened_store_is_made_private_and_a_damaged_login_hides_no_other() {
        use std::os::unix::fs::PermissionsExt as _;
        let store = temp_store("loose");
        let kept = login("https://mcp.example.com/mcp", "https://a.example", 100);
        store.save(&kept).unwrap();
        let file = store.path_of(&kept.resource, &kept.issuer);
        let mode = |p: &Path| std::fs::metadata(p).unwrap().permissions().mode() & 0o777;
        std::fs::set_permissions(store.dir(), std::fs::Permissions::from_mode(0o755)).unwrap();
        std::fs::set_permissions(&file, std::fs::Permissions::from_mode(0o644)).unwrap();
        let damaged = store.dir().join(format!(
            "{}-0000000000000000.json",
            digest("https://x.example/mcp")
        ));
        std::fs::write(&damaged, "{ not a login").unwrap();
        let (logins, corrupt) = store.all().unwrap();
        assert_eq!(logins.len(), 1, "the good login is listed");
        assert_eq!(corrupt.len(), 1, "the damaged one is named");
        assert!(corrupt[0].to_string().contains("not a login"));
        assert_eq!((mode(store.dir()), mode(&file)), (0o700, 0o600));
        assert!(store.find("https://x.example/mcp").is_err());
        assert!(store.remove("https://x.example/mcp").unwrap().is_empty());
        assert!(!damaged.exists(), "logout forgets a damaged file too");
        std::fs::remove_dir_all(store.dir()).unwrap();
    }

    #[test]
    fn debug_shows_no_token_and_expiry_has_a_margin() {
        let l = login("https://mcp.example.com/mcp", "https://a.example", 1000);
        let shown = format!("{l:?}");
        for secret in ["at-0123456789", "rt-9876543210", "s3cret-client"] {
            assert!(!shown.contains(secret), "{shown}");
        }
        assert!(!l.expired(1000));
        assert!(l.expired(1000 + 3600 - EXPIRY_MARGIN_SECS));
        assert!(
            !Login {
                expires_at: None,
                ..l
            }
            .expired(u64::MAX - EXPIRY_MARGIN_SECS)
        );
    }

    #[test]
    fn a_corrupt_file_is_named() {
        let store = temp_store("corrupt");
        store.ensure_dir().unwrap();
        let r = "https://mcp.example.com/mcp";
        std::fs::write(store.path_of(r, "https://a.example"), "{not json").unwrap();
        let e = store.find(r).unwrap_err().to_string();
        assert!(
            e.contains(".json holds something that is not a login"),
            "{e}"
        );
        std::fs::remove_dir_all(store.dir()).unwrap();
    }

    #[test]
    fn the_lock_is_held_until_dropped_even_within_one_process() {
        let store = temp_store("lock");
        let r = "https://mcp.example.com/mcp";
        let held = store.lock(r, Duration::ZERO).unwrap();
        let e = store.lock(r, Duration::from_millis(60)).err().unwrap();
        assert!(matches!(e, StoreError::Busy { .. }), "{e}");
        // Another resource is not held back.
        drop(
            store
                .lock("https://other.example/mcp", Duration::ZERO)
                .unwrap(),
        );
        drop(held);
        drop(store.lock(r, Duration::ZERO).unwrap());
        std::fs::remove_dir_all(store.dir()).unwrap();
    }
}
