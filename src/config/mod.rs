//! Configuration: defaults, a YAML or JSON file, `MCPGUARD_*` environment variables, and the
//! checks that keep a bad value from ever taking effect.
//!
//! Layers are merged as JSON values (defaults, then the file, then the environment; flags are
//! applied by each command on top), and every leaf remembers which layer set it, so
//! `--show-effective` can say where a value came from and an error can point at the file's
//! line and column or at the environment variable. The merged value is checked against
//! `contracts/config.schema.json` (types, ranges, unknown keys) and then against the rules a
//! schema cannot say (hardCap >= tokenBudgetThreshold, defaultPageSize <= maxPageSize, known
//! rule codes). Only a config that passes both becomes a [`Config`].
//!
//! This is the only module that reads YAML (in `file.rs`).

mod checks;
mod defaults;
mod env;
mod file;
mod read_limits;

pub use checks::SCHEMA;
pub use defaults::default_yaml;
pub use env::{CONFIG_ENV, discover};
pub use file::{ParsedFile, parse_text, read_file};
pub use read_limits::{DEFAULT_MAX_CURSOR_BYTES, ReadLimits};

use std::collections::BTreeMap;
use std::fmt;
use std::path::{Path, PathBuf};

use serde::{Deserialize, Serialize};
use serde_json::Value;

pub use crate::contract::pins::PinMode;
use crate::contract::{self, ClientProfile, Limits, RuleLevel};
use crate::json::pointer;
use crate::tokens::Tokenizer;

/// File names looked for in the working directory, in this order.
pub const DEFAULT_FILE_NAMES: [&str; 3] = ["mcpguard.yaml", "mcpguard.yml", "mcpguard.json"];

/// Every setting, after defaults, file and environment are merged and checked.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase", deny_unknown_fields, default)]
pub struct Config {
    pub default_page_size: u64,
    pub max_page_size: u64,
    pub token_budget_threshold: u64,
    pub hard_cap: u64,
    pub chunk_size: u64,
    pub chunk_max_lines: u64,
    pub chunk_whole_below: u64,
    pub cursor_ttl_seconds: u64,
    #[serde(with = "tokenizer_name")]
    pub tokenizer: Tokenizer,
    pub media_tokens: u64,
    pub artifact_dir: String,
    /// What the proxy does to `tools/list`: pass it as it is, trim it, or tier it.
    pub catalog: Catalog,
    /// How many tools a tiered catalog lists in full (seed 004's hot list).
    pub catalog_hot_tools: u64,
    /// Under `catalog: auto`, the most tokens a catalog may cost and still be listed whole.
    pub catalog_budget: u64,
    /// The longest tool or prompt name the gateway exposes (`SERVER__NAME`).
    pub max_tool_name_length: u64,
    /// How long the gateway keeps a server it started without a use.
    pub server_idle_seconds: u64,
    /// What the gateway does with a tool definition that changed since it was pinned.
    pub pins: PinMode,
    /// Tools a tiered catalog lists in full before any call record ranks them (`SERVER__TOOL`
    /// behind the gateway, the tool's name behind one server).
    pub hot: Vec<String>,
    /// The gateway's servers by config key: what the catalog says of each.
    pub servers: BTreeMap<String, ServerSettings>,
    pub limits: Limits,
    /// Bounds on what mcpguard reads from outside (documents, lines, nesting, cursors).
    pub read_limits: ReadLimits,
    pub rules: BTreeMap<String, RuleLevel>,
    pub endpoints: BTreeMap<String, Endpoint>,
    pub projections: BTreeMap<String, Vec<String>>,
    pub clients: BTreeMap<String, ClientProfile>,
}

impl Default for Config {
    fn default() -> Self {
        let fields = |f: &[&str]| f.iter().map(|s| (*s).to_owned()).collect::<Vec<_>>();
        Config {
            default_page_size: 50,
            max_page_size: 200,
            token_budget_threshold: 4_000,
            hard_cap: 12_000,
            chunk_size: 2_000,
            chunk_max_lines: 200,
            chunk_whole_below: 1_000,
            cursor_ttl_seconds: 600,
            tokenizer: Tokenizer::Auto,
            media_tokens: 1_600,
            artifact_dir: ".mcpguard/artifacts".to_owned(),
            catalog: Catalog::Full,
            catalog_hot_tools: 15,
            catalog_budget: 2_000,
            max_tool_name_length: 64,
            server_idle_seconds: 600,
            pins: PinMode::Warn,
            hot: Vec::new(),
            servers: BTreeMap::new(),
            limits: Limits::default(),
            read_limits: ReadLimits::default(),
            rules: BTreeMap::new(),
            endpoints: BTreeMap::new(),
            projections: BTreeMap::from([
                (
                    "booking".to_owned(),
                    fields(&[
                        "id",
                        "status",
                        "guestName",
                        "checkInDate",
                        "checkOutDate",
                        "totalPrice",
                        "propertyId",
                    ]),
                ),
                (
                    "listing".to_owned(),
                    fields(&[
                        "id",
                        "name",
                        "status",
                        "bedrooms",
                        "price.basePrice",
                        "location.city",
                        "location.country",
                    ]),
                ),
            ]),
            clients: contract::default_clients(),
        }
    }
}

impl Config {
    /// The token budget of a tool's results: its endpoint's, else the global one.
    pub fn budget_for(&self, tool: &str) -> u64 {
        self.endpoints
            .get(tool)
            .and_then(|e| e.token_budget_threshold)
            .unwrap_or(self.token_budget_threshold)
    }

    /// The limits for a tool: its endpoint overrides over the global ones.
    pub fn limits_for(&self, tool: &str) -> Limits {
        let mut l = self.limits.clone();
        if let Some(o) = self.endpoints.get(tool).and_then(|e| e.limits.as_ref()) {
            let set = |slot: &mut u64, v: Option<u64>| {
                if let Some(v) = v {
                    *slot = v;
                }
            };
            set(&mut l.max_bytes, o.max_bytes);
            set(&mut l.max_array_items, o.max_array_items);
            set(&mut l.max_string_length, o.max_string_length);
            set(&mut l.max_json_depth, o.max_json_depth);
            set(&mut l.max_summary_length, o.max_summary_length);
            set(
                &mut l.max_tool_description_bytes,
                o.max_tool_description_bytes,
            );
            set(&mut l.max_catalog_tokens, o.max_catalog_tokens);
        }
        l
    }
}

/// The proxy's catalog policy (seed 004).
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "lowercase")]
pub enum Catalog {
    /// `tools/list` passes as the server sent it.
    #[default]
    Full,
    /// Descriptions over maxToolDescriptionBytes are cut at a sentence, and schema boilerplate
    /// (`$schema`, titles that repeat the property's name, empty descriptions) is dropped.
    Trim,
    /// The `catalogHotTools` most used tools in full (scored from the proxy's call records),
    /// plus tools to find, describe and call the others (seed 004).
    Tiered,
    /// `full` for a client that defers tool definitions itself (Claude Code) and for a catalog
    /// within `catalogBudget` tokens, else `tiered`. The gateway's default.
    Auto,
}

/// What the config says of one of the gateway's servers.
#[derive(Clone, Debug, Default, PartialEq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase", deny_unknown_fields)]
pub struct ServerSettings {
    /// The category its tools are found under (seed 004's T1); its name when unset.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub category: Option<String>,
}

/// Per-tool overrides and feature flags (FR-035).
#[derive(Clone, Debug, Default, PartialEq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase", deny_unknown_fields)]
pub struct Endpoint {
    #[serde(skip_serializing_if = "Option::is_none")]
    pub pagination: Option<bool>,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub summarization: Option<bool>,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub chunking: Option<bool>,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub page_size: Option<u64>,
    /// Tokens above which this tool's results are shrunk (the proxy; FR-010 per tool).
    #[serde(skip_serializing_if = "Option::is_none")]
    pub token_budget_threshold: Option<u64>,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub fields: Option<Vec<String>>,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub limits: Option<EndpointLimits>,
    #[serde(default, skip_serializing_if = "BTreeMap::is_empty")]
    pub rules: BTreeMap<String, RuleLevel>,
}

/// Limits a tool overrides; the rest come from the global ones.
#[derive(Clone, Debug, Default, PartialEq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase", deny_unknown_fields)]
pub struct EndpointLimits {
    #[serde(skip_serializing_if = "Option::is_none")]
    pub max_bytes: Option<u64>,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub max_array_items: Option<u64>,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub max_string_length: Option<u64>,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub max_json_depth: Option<u64>,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub max_summary_length: Option<u64>,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub max_tool_description_bytes: Option<u64>,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub max_catalog_tokens: Option<u64>,
}

mod tokenizer_name {
    use super::Tokenizer;
    use serde::{Deserialize, Deserializer, Serializer};

    pub fn serialize<S: Serializer>(t: &Tokenizer, s: S) -> Result<S::Ok, S::Error> {
        s.serialize_str(t.name())
    }

    pub fn deserialize<'de, D: Deserializer<'de>>(d: D) -> Result<Tokenizer, D::Error> {
        let name = String::deserialize(d)?;
        name.parse().map_err(serde::de::Error::custom)
    }
}

/// Where an effective value came from.
#[derive(Clone, Debug, PartialEq, Eq, Serialize)]
#[serde(tag = "from", rename_all = "lowercase")]
pub enum Origin {
    Default,
    File {
        path: String,
        #[serde(skip_serializing_if = "Option::is_none")]
        line: Option<usize>,
    },
    Env {
        var: String,
    },
}

impl fmt::Display for Origin {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            Origin::Default => f.write_str("default"),
            Origin::File {
                path,
                line: Some(l),
            } => write!(f, "file {path}:{l}"),
            Origin::File { path, line: None } => write!(f, "file {path}"),
            Origin::Env { var } => write!(f, "env {var}"),
        }
    }
}

/// One thing wrong with a config, located as precisely as the source allows.
#[derive(Clone, Debug, PartialEq, Eq, Serialize)]
pub struct ConfigIssue {
    /// The file, `env MCPGUARD_X`, or `defaults`.
    pub source: String,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub line: Option<usize>,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub column: Option<usize>,
    /// JSON pointer of the key, `/limits/maxBytes`.
    pub pointer: String,
    /// What is wrong, with the bad value.
    pub message: String,
    /// What is allowed, or how to fix it.
    pub help: String,
}

impl fmt::Display for ConfigIssue {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(&self.source)?;
        if let Some(line) = self.line {
            write!(f, ":{line}")?;
            if let Some(column) = self.column {
                write!(f, ":{column}")?;
            }
        }
        if !self.pointer.is_empty() {
            write!(f, ": {}", self.pointer)?;
        }
        write!(f, ": {} ({})", self.message, self.help)
    }
}

#[derive(Debug, thiserror::Error)]
pub enum ConfigError {
    #[error("{path}: cannot read config: {cause}")]
    Read { path: String, cause: std::io::Error },
    #[error("{path}{}: not valid {format}: {message}", position(*.line, *.column))]
    Syntax {
        path: String,
        format: &'static str,
        line: Option<usize>,
        column: Option<usize>,
        message: String,
    },
    #[error("invalid config: {}", .issues.iter().map(ToString::to_string).collect::<Vec<_>>().join("; "))]
    Invalid { issues: Vec<ConfigIssue> },
}

fn position(line: Option<usize>, column: Option<usize>) -> String {
    match (line, column) {
        (Some(l), Some(c)) => format!(":{l}:{c}"),
        (Some(l), None) => format!(":{l}"),
        _ => String::new(),
    }
}

/// A config with every value's origin.
#[derive(Clone, Debug)]
pub struct Effective {
    pub config: Config,
    /// The file that was read, if any.
    pub file: Option<PathBuf>,
    /// Origin of every leaf (JSON pointer) a layer other than the defaults set.
    origins: BTreeMap<String, Origin>,
    /// Things worth telling the user that are not errors (an unknown MCPGUARD_ variable).
    pub warnings: Vec<String>,
}

/// One effective setting, for `--show-effective`.
#[derive(Clone, Debug, PartialEq, Serialize)]
pub struct Setting {
    pub key: String,
    pub value: Value,
    pub origin: Origin,
}

impl Effective {
    /// Where the value at `pointer` (or the nearest set parent) came from.
    pub fn origin(&self, pointer: &str) -> Origin {
        origin_at(&self.origins, pointer)
    }

    /// Every leaf setting with its origin, in key order. Lists are one setting.
    pub fn settings(&self) -> Vec<Setting> {
        let value = serde_json::to_value(&self.config).unwrap_or(Value::Null);
        let mut leaves = Vec::new();
        flatten(&value, &mut String::new(), &mut leaves);
        leaves
            .into_iter()
            .map(|(pointer, value)| Setting {
                key: dotted(&pointer),
                origin: self.origin(&pointer),
                value,
            })
            .collect()
    }
}

/// `/limits/maxBytes` as `limits.maxBytes`.
fn dotted(pointer: &str) -> String {
    pointer
        .trim_start_matches('/')
        .split('/')
        .map(|t| t.replace("~1", "/").replace("~0", "~"))
        .collect::<Vec<_>>()
        .join(".")
}

fn flatten(value: &Value, at: &mut String, out: &mut Vec<(String, Value)>) {
    match value {
        Value::Object(map) if !map.is_empty() => {
            for (k, v) in map {
                let len = at.len();
                pointer::push_key(at, k);
                flatten(v, at, out);
                at.truncate(len);
            }
        }
        leaf => out.push((at.clone(), leaf.clone())),
    }
}

/// One changed value between two configs, for `--watch`.
#[derive(Clone, Debug, PartialEq, Serialize)]
pub struct Change {
    pub key: String,
    pub old: Option<Value>,
    pub new: Option<Value>,
}

impl Change {
    /// The old and the new value as a person reads them, `(unset)` for a missing one.
    pub fn shown(&self) -> (String, String) {
        let show = |v: &Option<Value>| v.as_ref().map_or("(unset)".to_owned(), Value::to_string);
        (show(&self.old), show(&self.new))
    }
}

/// What changed from `old` to `new`, in key order.
pub fn diff(old: &Config, new: &Config) -> Vec<Change> {
    let leaves = |c: &Config| {
        let mut out = Vec::new();
        flatten(
            &serde_json::to_value(c).unwrap_or(Value::Null),
            &mut String::new(),
            &mut out,
        );
        out.into_iter().collect::<BTreeMap<_, _>>()
    };
    let (a, b) = (leaves(old), leaves(new));
    let keys: std::collections::BTreeSet<_> = a.keys().chain(b.keys()).collect();
    keys.into_iter()
        .filter(|k| a.get(*k) != b.get(*k))
        .map(|k| Change {
            key: dotted(k),
            old: a.get(k).cloned(),
            new: b.get(k).cloned(),
        })
        .collect()
}

/// The lines that say what a reload changed: one a key for the first [`SHOWN_CHANGES`], then
/// one that counts the rest (a save of a config with 40,000 endpoints is one event, not 40,000
/// lines of log).
pub fn describe(changes: &[Change]) -> Vec<String> {
    let mut lines: Vec<String> = changes
        .iter()
        .take(SHOWN_CHANGES)
        .map(|c| {
            let (old, new) = c.shown();
            format!("config reloaded: {} {old} -> {new}", c.key)
        })
        .collect();
    if changes.len() > SHOWN_CHANGES {
        lines.push(format!(
            "config reloaded: and {} more keys changed",
            changes.len() - SHOWN_CHANGES
        ));
    }
    lines
}

/// Changes of a reload logged one by one.
pub const SHOWN_CHANGES: usize = 20;

/// Where the value at `pointer` came from: the layer that set it or its nearest parent.
fn origin_at(origins: &BTreeMap<String, Origin>, pointer: &str) -> Origin {
    let mut p = pointer;
    loop {
        if let Some(o) = origins.get(p) {
            return o.clone();
        }
        match p.rfind('/') {
            Some(cut) if !p.is_empty() => p = &p[..cut],
            _ => return Origin::Default,
        }
    }
}

/// Builds the effective config from an optional file and the `MCPGUARD_*` environment.
pub fn resolve(
    file: Option<&ParsedFile>,
    env: &BTreeMap<String, String>,
) -> Result<Effective, ConfigError> {
    let mut merged = serde_json::to_value(Config::default()).unwrap_or(Value::Null);
    let mut origins = BTreeMap::new();

    if let Some(file) = file {
        if !file.value.is_object() {
            return Err(ConfigError::Invalid {
                issues: vec![ConfigIssue {
                    source: file.path.clone(),
                    line: Some(1),
                    column: Some(1),
                    pointer: String::new(),
                    message: format!(
                        "the config is {}, not a mapping of keys",
                        checks::type_name(&file.value)
                    ),
                    help: "write `key: value` lines, e.g. `hardCap: 12000`".to_owned(),
                }],
            });
        }
        overlay(&mut merged, &file.value, &mut String::new(), &mut |p| {
            let line = file.locate(p).map(|l| l.0);
            origins.insert(
                p.to_owned(),
                Origin::File {
                    path: file.path.clone(),
                    line,
                },
            );
        });
    }

    let env = env::layer(env);
    let mut issues = env.issues;
    // With no file and no variable the merged value is the defaults, which the schema accepts
    // (`schema_and_defaults_agree`): compiling the schema would be most of such a process's
    // start-up.
    let overlaid = file.is_some() || !env.values.is_empty();
    for (pointer, value, var) in env.values {
        if let Some(slot) = merged.pointer_mut(pointer) {
            *slot = value;
        }
        origins.insert(pointer.to_owned(), Origin::Env { var });
    }

    // Every problem is reported where the value came from: a file position or a variable.
    let located = |(pointer, message, help): (String, String, String)| {
        let (source, at) = match origin_at(&origins, &pointer) {
            Origin::Env { var } => (format!("env {var}"), None),
            Origin::File { path, .. } => (path, file.and_then(|f| f.locate(&pointer))),
            Origin::Default => ("defaults".to_owned(), None),
        };
        ConfigIssue {
            source,
            line: at.map(|l| l.0),
            column: at.map(|l| l.1),
            pointer,
            message,
            help,
        }
    };

    if overlaid {
        issues.extend(checks::schema_issues(&merged).into_iter().map(located));
    }
    if !issues.is_empty() {
        return Err(ConfigError::Invalid { issues });
    }
    // The schema is complete (types, ranges, no unknown keys), so this cannot fail on input
    // that passed it; should the two ever disagree, it is still an error, not a panic.
    let config: Config = serde_json::from_value(merged).map_err(|e| ConfigError::Invalid {
        issues: vec![located((
            String::new(),
            e.to_string(),
            "see contracts/config.schema.json".to_owned(),
        ))],
    })?;
    issues.extend(checks::range_issues(&config).into_iter().map(located));
    if !issues.is_empty() {
        return Err(ConfigError::Invalid { issues });
    }
    Ok(Effective {
        config,
        file: file.map(|f| PathBuf::from(&f.path)),
        origins,
        warnings: env.warnings,
    })
}

/// Discovers, reads and resolves in one call: what every command does at start.
pub fn load(
    explicit: Option<&Path>,
    env: &BTreeMap<String, String>,
    dir: &Path,
) -> Result<Effective, ConfigError> {
    let path = discover(explicit, env, dir);
    let file = path.as_deref().map(read_file).transpose()?;
    resolve(file.as_ref(), env)
}

/// Overlays `layer` on `base`: objects merge key by key, everything else is replaced.
/// `set` is called with the pointer of every value the layer sets.
fn overlay(base: &mut Value, layer: &Value, at: &mut String, set: &mut impl FnMut(&str)) {
    match (base, layer) {
        (Value::Object(base), Value::Object(layer)) => {
            for (k, v) in layer {
                let len = at.len();
                pointer::push_key(at, k);
                match base.get_mut(k) {
                    Some(slot) if slot.is_object() && v.is_object() => overlay(slot, v, at, set),
                    _ => {
                        base.insert(k.clone(), v.clone());
                        set(at);
                    }
                }
                at.truncate(len);
            }
        }
        (base, layer) => {
            *base = layer.clone();
            set(at);
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn resolve_yaml(text: &str) -> Result<Effective, ConfigError> {
        let file = parse_text("c.yaml", text, false)?;
        resolve(Some(&file), &BTreeMap::new())
    }

    fn issues(text: &str) -> Vec<String> {
        match resolve_yaml(text) {
            Err(ConfigError::Invalid { issues }) => {
                issues.iter().map(ToString::to_string).collect()
            }
            other => panic!("expected issues, got {other:?}"),
        }
    }

    /// contracts/invariants.yaml writes the defaults down with their sources: it must say
    /// exactly what the code does.
    #[test]
    fn invariants_yaml_matches_the_built_in_defaults() {
        let text = include_str!("../../contracts/invariants.yaml");
        let doc = parse_text("invariants.yaml", text, false)
            .expect("invariants.yaml parses")
            .value;
        let defaults = serde_json::to_value(Config::default()).unwrap();
        let limit_of = |key: &str| -> Value {
            let p = format!("/{}", key.replace('.', "/"));
            defaults.pointer(&p).cloned().unwrap_or(Value::Null)
        };
        for inv in doc["invariants"].as_array().unwrap() {
            let key = inv["key"].as_str().unwrap();
            assert_eq!(inv["limit"], limit_of(key), "{}", inv["id"]);
        }
        for (key, entry) in doc["budgets"].as_object().unwrap() {
            let at = if defaults.get(key).is_some() {
                key.clone()
            } else {
                format!("limits.{key}")
            };
            assert_eq!(entry["limit"], limit_of(&at), "budgets.{key}");
        }
        for (name, client) in doc["clients"].as_object().unwrap() {
            let mut client = client.clone();
            client.as_object_mut().unwrap().remove("notes");
            assert_eq!(client, defaults["clients"][name], "clients.{name}");
        }
        assert_eq!(
            doc["clients"].as_object().unwrap().len(),
            defaults["clients"].as_object().unwrap().len()
        );
    }

    #[test]
    fn schema_and_defaults_agree() {
        let defaults = serde_json::to_value(Config::default()).unwrap();
        assert!(
            checks::schema_issues(&defaults).is_empty(),
            "{:?}",
            checks::schema_issues(&defaults)
        );
        // The printed defaults are themselves a valid config equal to the defaults.
        let printed = resolve_yaml(&default_yaml()).unwrap();
        assert_eq!(printed.config, Config::default());
    }

    #[test]
    fn wrong_type_is_located() {
        let got = issues("hardCap: 12000\nlimits:\n  maxBytes: \"ten\"\n");
        assert_eq!(
            got,
            ["c.yaml:3:3: /limits/maxBytes: \"ten\" is a string (expected a whole number >= 1)"]
        );
    }

    #[test]
    fn unknown_key_gets_a_suggestion() {
        let got = issues("maxPageSze: 100\n");
        assert_eq!(got.len(), 1);
        assert!(
            got[0].starts_with(
                "c.yaml:1:1: /maxPageSze: unknown key `maxPageSze` (did you mean `maxPageSize`?"
            ),
            "{}",
            got[0]
        );
    }

    #[test]
    fn cross_field_rules() {
        let got = issues(
            "tokenBudgetThreshold: 5000\nhardCap: 4000\ndefaultPageSize: 150\nmaxPageSize: 100\nrules:\n  MG999: off\n",
        );
        assert_eq!(got.len(), 3, "{got:?}");
        assert!(
            got[0].starts_with(
                "c.yaml:2:1: /hardCap: hardCap 4000 is below tokenBudgetThreshold 5000"
            )
        );
        assert!(got[1].starts_with("c.yaml:3:1: /defaultPageSize:"));
        assert!(got[2].starts_with("c.yaml:6:3: /rules/MG999: unknown rule `MG999`"));
    }

    #[test]
    fn env_overrides_file_and_is_named() {
        let file = parse_text("c.yaml", "hardCap: 20000\n", false).unwrap();
        let env = BTreeMap::from([
            ("MCPGUARD_HARD_CAP".to_owned(), "30000".to_owned()),
            ("MCPGUARD_HARDCAP".to_owned(), "1".to_owned()),
        ]);
        let eff = resolve(Some(&file), &env).unwrap();
        assert_eq!(eff.config.hard_cap, 30_000);
        assert_eq!(
            eff.origin("/hardCap"),
            Origin::Env {
                var: "MCPGUARD_HARD_CAP".into()
            }
        );
        assert_eq!(eff.warnings.len(), 1);
        let env = BTreeMap::from([("MCPGUARD_MAX_BYTES".to_owned(), "lots".to_owned())]);
        let err = resolve(None, &env).unwrap_err().to_string();
        assert!(
            err.contains("env MCPGUARD_MAX_BYTES: /limits/maxBytes: `lots` is not a whole number"),
            "{err}"
        );
        // Every text setting with a variable is read as text.
        let env = BTreeMap::from([
            ("MCPGUARD_CATALOG".to_owned(), "auto".to_owned()),
            ("MCPGUARD_TOKENIZER".to_owned(), "claude".to_owned()),
            ("MCPGUARD_ARTIFACT_DIR".to_owned(), "/tmp/a".to_owned()),
        ]);
        let eff = resolve(None, &env).unwrap();
        assert_eq!(eff.config.catalog, Catalog::Auto);
        assert_eq!(eff.config.artifact_dir, "/tmp/a");
    }

    #[test]
    fn json_files_are_located_too() {
        let file = parse_text(
            "c.json",
            "{\n  \"limits\": {\n    \"maxJsonDepth\": 0\n  }\n}\n",
            true,
        )
        .unwrap();
        let err = resolve(Some(&file), &BTreeMap::new())
            .unwrap_err()
            .to_string();
        assert!(
            err.contains("c.json:3:5: /limits/maxJsonDepth: 0 is too small (the minimum is 1)"),
            "{err}"
        );
        let bad = parse_text("c.json", "{\"a\": }", true)
            .err()
            .unwrap()
            .to_string();
        assert_eq!(bad, "c.json:1:7: not valid JSON: expected value");
    }

    #[test]
    fn diff_lists_changes() {
        let new = Config {
            hard_cap: 20_000,
            ..Config::default()
        };
        let changes = diff(&Config::default(), &new);
        assert_eq!(changes.len(), 1);
        assert_eq!(changes[0].key, "hardCap");
    }
}
