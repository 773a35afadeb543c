//! What `mcpguard proxy --mcp-config FILE --status` shows: the running gateway writes each
//! server's state (started or not, catalog cached when, tools, last error) to a small file in
//! the catalog cache whenever it changes, and the status command reads it.

use std::path::{Path, PathBuf};

use serde::{Deserialize, Serialize};
use serde_json::Value;

use crate::util::fsutil::{self, Durability};

/// One server's line of the status.
#[derive(Clone, Debug, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct ServerStatus {
    pub name: String,
    /// The command or URL, as `describe` shows it (never a secret).
    pub target: String,
    /// `running`, `stopped` or `failed`.
    pub state: String,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub last_error: Option<String>,
    #[serde(default)]
    pub tools: Option<usize>,
    /// When its catalog was saved, in seconds since the Unix epoch.
    #[serde(default)]
    pub cached_at: Option<u64>,
    /// How many times it was started by this gateway.
    #[serde(default)]
    pub starts: u64,
}

impl ServerStatus {
    pub fn to_value(&self) -> Value {
        serde_json::to_value(self).unwrap_or_default()
    }
}

/// The whole status file.
#[derive(Clone, Debug, Serialize, Deserialize)]
pub struct Status {
    /// The gateway's process, while it runs.
    pub pid: Option<u32>,
    pub servers: Vec<ServerStatus>,
}

/// The status file of the gateway over the config file `config` (by its absolute path).
pub fn file_for(cache_dir: &Path, config: &Path) -> PathBuf {
    cache_dir.join(crate::util::dirs::name_for("status", config))
}

/// Writes the status (private: it names the user's servers and their errors).
pub fn write(file: &Path, running: bool, servers: Vec<Value>) -> std::io::Result<()> {
    if let Some(dir) = file.parent() {
        fsutil::create_private_dir_all(dir)?;
    }
    let status = serde_json::json!({
        "pid": running.then(std::process::id),
        "servers": servers,
    });
    fsutil::write_with(
        file,
        status.to_string().as_bytes(),
        Durability::PrivateCache,
    )
}

/// The status a gateway wrote, if one did.
pub fn read(file: &Path) -> Option<Status> {
    let text = fsutil::read_text_capped(file, 16 << 20).ok()?;
    serde_json::from_str(&text).ok()
}
