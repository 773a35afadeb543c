//! The user's folders mcpguard keeps files in, as each platform names them: the config folder
//! (stored logins, pins: what a user would back up) and the cache folder (server catalogs,
//! the gateway's status: what can be made again). `None` when the environment names neither.

use std::path::{Path, PathBuf};

use sha2::{Digest, Sha256};

fn var(name: &str) -> Option<std::ffi::OsString> {
    std::env::var_os(name).filter(|v| !v.is_empty())
}

/// `$XDG_CONFIG_HOME/mcpguard`, else `~/.config/mcpguard` (`%APPDATA%\mcpguard` on Windows).
pub fn config() -> Option<PathBuf> {
    user_dir("APPDATA", "XDG_CONFIG_HOME", ".config")
}

/// `$XDG_CACHE_HOME/mcpguard`, else `~/.cache/mcpguard` (`%LOCALAPPDATA%\mcpguard` on Windows).
pub fn cache() -> Option<PathBuf> {
    user_dir("LOCALAPPDATA", "XDG_CACHE_HOME", ".cache")
}

/// mcpguard's folder under the platform's base: Windows' variable, else the XDG one, else
/// the folder of that name in HOME.
fn user_dir(windows: &str, xdg: &str, in_home: &str) -> Option<PathBuf> {
    let base = if cfg!(windows) {
        var(windows).map(PathBuf::from)
    } else {
        var(xdg)
            .map(PathBuf::from)
            .or_else(|| var("HOME").map(|h| PathBuf::from(h).join(in_home)))
    };
    base.map(|b| b.join("mcpguard"))
}

/// A file name for what belongs to one file of the user's (a gateway's config): `PREFIX-`
/// and a hash of its absolute path, so two configs never share it and a move starts afresh.
pub fn name_for(prefix: &str, file: &Path) -> String {
    let absolute = std::path::absolute(file).unwrap_or_else(|_| file.to_owned());
    let digest = Sha256::digest(absolute.to_string_lossy().as_bytes());
    let hex: String = digest.iter().take(8).map(|b| format!("{b:02x}")).collect();
    format!("{prefix}-{hex}.json")
}
