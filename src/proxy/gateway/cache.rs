//! The catalogs the gateway keeps between runs, one file per server, so `tools/list` is
//! answered without starting anything. A file is named by a hash of what starts the server
//! (command, arguments, environment and working directory; or URL and headers): change any of
//! them and the old catalog is not used. The folder is the user's cache
//! (`$XDG_CACHE_HOME/mcpguard/catalogs`, else `~/.cache/mcpguard/catalogs`), 0700, its files
//! 0600: a catalog can name a user's repositories and files.

use std::path::{Path, PathBuf};
use std::time::SystemTime;

use serde::{Deserialize, Serialize};
use sha2::{Digest, Sha256};

use crate::net::mcp::Target;
use crate::util::fsutil::{self, Durability};

use super::routes::Catalog;

/// Where the catalogs live.
#[derive(Clone, Debug)]
pub struct CatalogCache {
    dir: PathBuf,
}

/// A catalog as it was saved.
#[derive(Clone, Debug, Serialize, Deserialize)]
pub struct Saved {
    /// The config key the server had when it was saved (for a person reading the file).
    pub server: String,
    /// Seconds since the Unix epoch.
    #[serde(rename = "savedAt")]
    pub saved_at: u64,
    pub catalog: Catalog,
}

/// The longest catalog file read back (a 10,000-tool catalog is about 5 MB).
const MAX_FILE_BYTES: u64 = 64 << 20;

impl CatalogCache {
    pub fn at(dir: impl Into<PathBuf>) -> CatalogCache {
        CatalogCache { dir: dir.into() }
    }

    /// The user's cache folder for catalogs, when HOME or XDG_CACHE_HOME says where it is.
    pub fn default_dir() -> Option<PathBuf> {
        crate::util::dirs::cache().map(|c| c.join("catalogs"))
    }

    pub fn dir(&self) -> &Path {
        &self.dir
    }

    /// The file of the server `target` starts, run from `cwd`.
    pub fn file(&self, target: &Target, cwd: &Path) -> PathBuf {
        let mut hash = Sha256::new();
        let mut part = |text: &str| {
            hash.update(text.as_bytes());
            hash.update([0]);
        };
        match target {
            Target::Stdio { command, env, .. } => {
                part("stdio");
                command.iter().for_each(|c| part(c));
                part("env");
                for (k, v) in env {
                    part(k);
                    part(v);
                }
                part(&cwd.to_string_lossy());
            }
            Target::Http { url, headers, .. } => {
                part("http");
                part(url);
                for (k, v) in headers {
                    part(k);
                    part(v);
                }
            }
        }
        let digest = hash.finalize();
        let name: String = digest.iter().take(16).map(|b| format!("{b:02x}")).collect();
        self.dir.join(format!("{name}.json"))
    }

    /// The saved catalog in `file`, if there is one that reads.
    pub fn load(&self, file: &Path) -> Option<Saved> {
        let text = fsutil::read_text_capped(file, MAX_FILE_BYTES).ok()?;
        serde_json::from_str(&text).ok()
    }

    /// Saves a server's catalog, atomically and private.
    pub fn save(&self, file: &Path, server: &str, catalog: &Catalog) -> std::io::Result<()> {
        fsutil::create_private_dir_all(&self.dir)?;
        fsutil::keep_private(&self.dir, 0o700)?;
        let saved = Saved {
            server: server.to_owned(),
            saved_at: SystemTime::now()
                .duration_since(SystemTime::UNIX_EPOCH)
                .map_or(0, |d| d.as_secs()),
            catalog: catalog.clone(),
        };
        let bytes = serde_json::to_vec(&saved).map_err(std::io::Error::other)?;
        fsutil::write_with(file, &bytes, Durability::PrivateCache)
    }
}

#[cfg(test)]
mod tests {
    use std::collections::BTreeMap;

    use serde_json::json;

    use super::*;

    fn stdio(args: &[&str], env: &[(&str, &str)]) -> Target {
        Target::Stdio {
            command: args.iter().map(|s| s.to_string()).collect(),
            env: env
                .iter()
                .map(|(k, v)| (k.to_string(), v.to_string()))
                .collect::<BTreeMap<_, _>>(),
            shown: None,
        }
    }

    #[test]
    fn a_catalog_is_kept_private_and_found_only_by_what_starts_the_server() {
        let dir = tempfile::tempdir().unwrap();
        let cache = CatalogCache::at(dir.path().join("catalogs"));
        let cwd = Path::new("/work");
        let target = stdio(&["npx", "-y", "server"], &[("TOKEN", "a")]);
        let file = cache.file(&target, cwd);
        assert_eq!(file, cache.file(&target, cwd));
        for other in [
            cache.file(&stdio(&["npx", "-y", "server"], &[("TOKEN", "b")]), cwd),
            cache.file(&stdio(&["npx", "server", "-y"], &[("TOKEN", "a")]), cwd),
            cache.file(&target, Path::new("/elsewhere")),
        ] {
            assert_ne!(file, other);
        }
        assert!(cache.load(&file).is_none());
        let catalog = Catalog {
            tools: vec![serde_json::value::to_raw_value(&json!({"name": "echo"})).unwrap()],
            ..Catalog::default()
        };
        cache.save(&file, "everything", &catalog).unwrap();
        let saved = cache.load(&file).unwrap();
        assert_eq!(
            (saved.server.as_str(), &saved.catalog),
            ("everything", &catalog)
        );
        #[cfg(unix)]
        {
            use std::os::unix::fs::PermissionsExt as _;
            let mode = |p: &Path| std::fs::metadata(p).unwrap().permissions().mode() & 0o777;
            assert_eq!(mode(&file), 0o600);
            assert_eq!(mode(cache.dir()), 0o700);
        }
        // A file that does not read is no catalog, not an error.
        std::fs::write(&file, "{not json").unwrap();
        assert!(cache.load(&file).is_none());
    }
}
