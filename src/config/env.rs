//! The environment layer: which `MCPGUARD_*` variable sets which key, and finding the file.

use std::collections::BTreeMap;
use std::path::{Path, PathBuf};

use serde_json::Value;

use super::{ConfigIssue, DEFAULT_FILE_NAMES};

/// Each config variable and the key it sets.
const ENV_KEYS: &[(&str, &str)] = &[
    ("MCPGUARD_DEFAULT_PAGE_SIZE", "/defaultPageSize"),
    ("MCPGUARD_MAX_PAGE_SIZE", "/maxPageSize"),
    ("MCPGUARD_TOKEN_BUDGET_THRESHOLD", "/tokenBudgetThreshold"),
    ("MCPGUARD_HARD_CAP", "/hardCap"),
    ("MCPGUARD_CHUNK_SIZE", "/chunkSize"),
    ("MCPGUARD_CHUNK_MAX_LINES", "/chunkMaxLines"),
    ("MCPGUARD_CHUNK_WHOLE_BELOW", "/chunkWholeBelow"),
    ("MCPGUARD_CURSOR_TTL_SECONDS", "/cursorTtlSeconds"),
    ("MCPGUARD_TOKENIZER", "/tokenizer"),
    ("MCPGUARD_MEDIA_TOKENS", "/mediaTokens"),
    ("MCPGUARD_ARTIFACT_DIR", "/artifactDir"),
    ("MCPGUARD_CATALOG", "/catalog"),
    ("MCPGUARD_CATALOG_HOT_TOOLS", "/catalogHotTools"),
    ("MCPGUARD_CATALOG_BUDGET", "/catalogBudget"),
    ("MCPGUARD_MAX_TOOL_NAME_LENGTH", "/maxToolNameLength"),
    ("MCPGUARD_SERVER_IDLE_SECONDS", "/serverIdleSeconds"),
    ("MCPGUARD_PINS", "/pins"),
    ("MCPGUARD_MAX_BYTES", "/limits/maxBytes"),
    ("MCPGUARD_MAX_ARRAY_ITEMS", "/limits/maxArrayItems"),
    ("MCPGUARD_MAX_STRING_LENGTH", "/limits/maxStringLength"),
    ("MCPGUARD_MAX_JSON_DEPTH", "/limits/maxJsonDepth"),
    ("MCPGUARD_MAX_SUMMARY_LENGTH", "/limits/maxSummaryLength"),
    (
        "MCPGUARD_MAX_TOOL_DESCRIPTION_BYTES",
        "/limits/maxToolDescriptionBytes",
    ),
    (
        "MCPGUARD_MAX_DOCUMENT_BYTES",
        "/readLimits/maxDocumentBytes",
    ),
    ("MCPGUARD_MAX_LINE_BYTES", "/readLimits/maxLineBytes"),
    ("MCPGUARD_MAX_NESTING", "/readLimits/maxNesting"),
    ("MCPGUARD_MAX_CURSOR_BYTES", "/readLimits/maxCursorBytes"),
];

/// The variable that sets the key at `pointer`, if one does.
pub(super) fn variable_for(pointer: &str) -> Option<&'static str> {
    ENV_KEYS
        .iter()
        .find(|(_, key)| *key == pointer)
        .map(|(var, _)| *var)
}

/// The keys whose values are text; every other one is a whole number.
const TEXT_KEYS: [&str; 4] = ["/tokenizer", "/artifactDir", "/catalog", "/pins"];

/// `MCPGUARD_` variables that are not config keys but are known (not typos).
pub(super) const OTHER_ENV: &[&str] = &[
    "MCPGUARD_CONFIG",
    "MCPGUARD_CURSOR_SECRET",
    "MCPGUARD_LOG",
    "MCPGUARD_OAUTH_STORE",
    "MCPGUARD_OAUTH_CLIENT_SECRET",
];

/// The environment variable that names the config file.
pub const CONFIG_ENV: &str = "MCPGUARD_CONFIG";

/// The config file to read: `--config`, else `MCPGUARD_CONFIG`, else the first of
/// [`DEFAULT_FILE_NAMES`] in `dir`.
/// What the environment sets, with the problems it has.
pub(super) struct Layer {
    /// (pointer, value, variable) for every config variable that is set and well formed.
    pub values: Vec<(&'static str, Value, String)>,
    pub issues: Vec<ConfigIssue>,
    pub warnings: Vec<String>,
}

/// Reads the config variables out of `env` (only `MCPGUARD_*` ones are looked at).
pub(super) fn layer(env: &BTreeMap<String, String>) -> Layer {
    let mut layer = Layer {
        values: Vec::new(),
        issues: Vec::new(),
        warnings: Vec::new(),
    };
    for (var, raw) in env.iter().filter(|(k, _)| k.starts_with("MCPGUARD_")) {
        let Some(&(_, pointer)) = ENV_KEYS.iter().find(|(name, _)| name == var) else {
            if !OTHER_ENV.contains(&var.as_str()) {
                layer.warnings.push(format!(
                    "environment variable {var} is not a mcpguard setting; ignored"
                ));
            }
            continue;
        };
        let value = if TEXT_KEYS.contains(&pointer) {
            Value::String(raw.clone())
        } else if let Ok(n) = raw.trim().parse::<u64>() {
            Value::from(n)
        } else {
            layer.issues.push(ConfigIssue {
                source: format!("env {var}"),
                line: None,
                column: None,
                pointer: pointer.to_owned(),
                message: format!("`{raw}` is not a whole number"),
                help: "set it to a whole number, e.g. 4000".to_owned(),
            });
            continue;
        };
        layer.values.push((pointer, value, var.clone()));
    }
    layer
}

/// The config file to read: `--config`, else `MCPGUARD_CONFIG`, else the first of
/// [`DEFAULT_FILE_NAMES`] in `dir`.
pub fn discover(
    explicit: Option<&Path>,
    env: &BTreeMap<String, String>,
    dir: &Path,
) -> Option<PathBuf> {
    if let Some(path) = explicit {
        return Some(path.to_owned());
    }
    if let Some(path) = env.get(CONFIG_ENV).filter(|p| !p.is_empty()) {
        return Some(PathBuf::from(path));
    }
    DEFAULT_FILE_NAMES
        .iter()
        .map(|name| dir.join(name))
        .find(|p| p.is_file())
}
