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
//! This is the only module that reads YAML.

use std::collections::BTreeMap;
use std::fmt;
use std::path::{Path, PathBuf};

use serde::{Deserialize, Serialize};
use serde_json::{Map, Value};

use crate::contract::{self, ClientProfile, Limits, RuleLevel};
use crate::pointer;
use crate::tokens::Tokenizer;

/// The JSON Schema of the config file, as shipped in `contracts/`.
pub const SCHEMA: &str = include_str!("../contracts/config.schema.json");

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
    pub limits: Limits,
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
            tokenizer: Tokenizer::Heuristic,
            media_tokens: 1_600,
            artifact_dir: ".mcpguard/artifacts".to_owned(),
            limits: Limits::default(),
            rules: BTreeMap::new(),
            endpoints: BTreeMap::new(),
            projections: BTreeMap::from([
                (
                    "booking".to_owned(),
                    fields(&["id", "status", "guestName", "checkInDate", "checkOutDate", "totalPrice", "propertyId"]),
                ),
                (
                    "listing".to_owned(),
                    fields(&["id", "name", "status", "bedrooms", "price.basePrice", "location.city", "location.country"]),
                ),
            ]),
            clients: contract::default_clients(),
        }
    }
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
            Origin::File { path, line: Some(l) } => write!(f, "file {path}:{l}"),
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
        write!(
            f,
            ": {}: {} ({})",
            pointer::display(&self.pointer),
            self.message,
            self.help
        )
    }
}

#[derive(Debug, thiserror::Error)]
pub enum ConfigError {
    #[error("{path}: cannot read config: {source}")]
    Read {
        path: String,
        source: std::io::Error,
    },
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
        let mut p = pointer;
        loop {
            if let Some(o) = self.origins.get(p) {
                return o.clone();
            }
            match p.rfind('/') {
                Some(cut) if !p.is_empty() => p = &p[..cut],
                _ => return Origin::Default,
            }
        }
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

/// How a config variable of the environment maps onto a key.
struct EnvKey {
    var: &'static str,
    pointer: &'static str,
    text: bool,
}

const ENV_KEYS: &[EnvKey] = &[
    EnvKey { var: "MCPGUARD_DEFAULT_PAGE_SIZE", pointer: "/defaultPageSize", text: false },
    EnvKey { var: "MCPGUARD_MAX_PAGE_SIZE", pointer: "/maxPageSize", text: false },
    EnvKey { var: "MCPGUARD_TOKEN_BUDGET_THRESHOLD", pointer: "/tokenBudgetThreshold", text: false },
    EnvKey { var: "MCPGUARD_HARD_CAP", pointer: "/hardCap", text: false },
    EnvKey { var: "MCPGUARD_CHUNK_SIZE", pointer: "/chunkSize", text: false },
    EnvKey { var: "MCPGUARD_CHUNK_MAX_LINES", pointer: "/chunkMaxLines", text: false },
    EnvKey { var: "MCPGUARD_CHUNK_WHOLE_BELOW", pointer: "/chunkWholeBelow", text: false },
    EnvKey { var: "MCPGUARD_CURSOR_TTL_SECONDS", pointer: "/cursorTtlSeconds", text: false },
    EnvKey { var: "MCPGUARD_TOKENIZER", pointer: "/tokenizer", text: true },
    EnvKey { var: "MCPGUARD_MEDIA_TOKENS", pointer: "/mediaTokens", text: false },
    EnvKey { var: "MCPGUARD_ARTIFACT_DIR", pointer: "/artifactDir", text: true },
    EnvKey { var: "MCPGUARD_MAX_BYTES", pointer: "/limits/maxBytes", text: false },
    EnvKey { var: "MCPGUARD_MAX_ARRAY_ITEMS", pointer: "/limits/maxArrayItems", text: false },
    EnvKey { var: "MCPGUARD_MAX_STRING_LENGTH", pointer: "/limits/maxStringLength", text: false },
    EnvKey { var: "MCPGUARD_MAX_JSON_DEPTH", pointer: "/limits/maxJsonDepth", text: false },
    EnvKey { var: "MCPGUARD_MAX_SUMMARY_LENGTH", pointer: "/limits/maxSummaryLength", text: false },
    EnvKey { var: "MCPGUARD_MAX_TOOL_DESCRIPTION_BYTES", pointer: "/limits/maxToolDescriptionBytes", text: false },
];

/// `MCPGUARD_` variables that are not config keys but are known (not typos).
const OTHER_ENV: &[&str] = &["MCPGUARD_CONFIG", "MCPGUARD_CURSOR_SECRET", "MCPGUARD_LOG"];

/// The environment variable that names the config file.
pub const CONFIG_ENV: &str = "MCPGUARD_CONFIG";

/// The config file to read: `--config`, else `MCPGUARD_CONFIG`, else the first of
/// [`DEFAULT_FILE_NAMES`] in `dir`.
pub fn discover(explicit: Option<&Path>, env: &BTreeMap<String, String>, dir: &Path) -> Option<PathBuf> {
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

/// A parsed config file: its value and where each key sits.
pub struct ParsedFile {
    pub path: String,
    pub value: Value,
    locations: BTreeMap<String, (usize, usize)>,
}

impl ParsedFile {
    /// Line and column of the key at `pointer` (or of the nearest located parent).
    fn locate(&self, pointer: &str) -> Option<(usize, usize)> {
        let mut p = pointer;
        loop {
            if let Some(&loc) = self.locations.get(p) {
                return Some(loc);
            }
            let cut = p.rfind('/')?;
            p = &p[..cut];
        }
    }
}

/// Reads and parses a config file (YAML, or JSON by its `.json` extension).
pub fn read_file(path: &Path) -> Result<ParsedFile, ConfigError> {
    let name = path.display().to_string();
    let text = std::fs::read_to_string(path).map_err(|source| ConfigError::Read {
        path: name.clone(),
        source,
    })?;
    let json = path
        .extension()
        .is_some_and(|e| e.eq_ignore_ascii_case("json"));
    parse_text(&name, &text, json)
}

/// Parses config text. JSON syntax errors come from serde_json (it knows JSON best); locations
/// of keys come from the YAML parser, which reads JSON too.
pub fn parse_text(name: &str, text: &str, json: bool) -> Result<ParsedFile, ConfigError> {
    if json && let Err(e) = serde_json::from_str::<serde::de::IgnoredAny>(text) {
        let message = e.to_string();
        let message = message
            .rfind(" at line ")
            .map_or(message.clone(), |cut| message[..cut].to_owned());
        return Err(ConfigError::Syntax {
            path: name.to_owned(),
            format: "JSON",
            line: Some(e.line()),
            column: Some(e.column()),
            message,
        });
    }
    if text.trim().is_empty() {
        // An empty file is a config that sets nothing.
        return Ok(ParsedFile {
            path: name.to_owned(),
            value: Value::Object(Map::new()),
            locations: BTreeMap::new(),
        });
    }
    // YAML 1.2 booleans only: `MG003: off` means the level `off`, not `false` (the YAML 1.1
    // "Norway problem").
    let options = serde_saphyr::options! { strict_booleans: true };
    let tree: yaml_tree::Node = serde_saphyr::from_str_with_options(text, options).map_err(|e| {
        let location = e.location();
        ConfigError::Syntax {
            path: name.to_owned(),
            format: if json { "JSON" } else { "YAML" },
            line: location.map(|l| l.line() as usize),
            column: location.map(|l| l.column() as usize),
            message: first_line(&e.to_string()),
        }
    })?;
    let mut locations = BTreeMap::new();
    let value = tree.into_value(&mut String::new(), &mut locations);
    Ok(ParsedFile {
        path: name.to_owned(),
        value,
        locations,
    })
}

fn first_line(message: &str) -> String {
    message.lines().next().unwrap_or(message).trim().to_owned()
}

/// Builds the effective config from an optional file and the `MCPGUARD_*` environment.
pub fn resolve(file: Option<&ParsedFile>, env: &BTreeMap<String, String>) -> Result<Effective, ConfigError> {
    let mut merged = serde_json::to_value(Config::default()).unwrap_or(Value::Null);
    let mut origins = BTreeMap::new();
    let mut issues = Vec::new();
    let mut warnings = Vec::new();

    if let Some(file) = file {
        if !file.value.is_object() {
            issues.push(ConfigIssue {
                source: file.path.clone(),
                line: Some(1),
                column: Some(1),
                pointer: String::new(),
                message: format!("the config is {}, not a mapping of keys", type_name(&file.value)),
                help: "write `key: value` lines, e.g. `hardCap: 12000`".to_owned(),
            });
            return Err(ConfigError::Invalid { issues });
        }
        overlay(&mut merged, &file.value, &mut String::new(), &mut |p| {
            origins.insert(
                p.to_owned(),
                Origin::File {
                    path: file.path.clone(),
                    line: file.locate(p).map(|l| l.0),
                },
            );
        });
    }

    for (var, raw) in env.iter().filter(|(k, _)| k.starts_with("MCPGUARD_")) {
        let Some(key) = ENV_KEYS.iter().find(|k| k.var == var) else {
            if !OTHER_ENV.contains(&var.as_str()) {
                warnings.push(format!("environment variable {var} is not a mcpguard setting; ignored"));
            }
            continue;
        };
        let value = if key.text {
            Value::String(raw.clone())
        } else {
            match raw.trim().parse::<u64>() {
                Ok(n) => Value::from(n),
                Err(_) => {
                    issues.push(ConfigIssue {
                        source: format!("env {var}"),
                        line: None,
                        column: None,
                        pointer: key.pointer.to_owned(),
                        message: format!("`{raw}` is not a whole number"),
                        help: "set it to a whole number, e.g. 4000".to_owned(),
                    });
                    continue;
                }
            }
        };
        if let Some(slot) = merged.pointer_mut(key.pointer) {
            *slot = value;
        }
        origins.insert(key.pointer.to_owned(), Origin::Env { var: var.clone() });
    }

    let locate = |p: &str, origins: &BTreeMap<String, Origin>| -> (String, Option<(usize, usize)>) {
        let effective = Effective {
            config: Config::default(),
            file: None,
            origins: origins.clone(),
            warnings: Vec::new(),
        };
        match effective.origin(p) {
            Origin::Env { var } => (format!("env {var}"), None),
            Origin::File { path, .. } => (path, file.and_then(|f| f.locate(p))),
            Origin::Default => ("defaults".to_owned(), None),
        }
    };

    issues.extend(schema_issues(&merged).into_iter().map(|(p, message, help)| {
        let (source, loc) = locate(&p, &origins);
        ConfigIssue {
            source,
            line: loc.map(|l| l.0),
            column: loc.map(|l| l.1),
            pointer: p,
            message,
            help,
        }
    }));
    if !issues.is_empty() {
        return Err(ConfigError::Invalid { issues });
    }

    let config: Config = serde_json::from_value(merged).map_err(|e| ConfigError::Invalid {
        issues: vec![ConfigIssue {
            source: file.map_or_else(|| "config".to_owned(), |f| f.path.clone()),
            line: None,
            column: None,
            pointer: String::new(),
            message: e.to_string(),
            help: "see contracts/config.schema.json".to_owned(),
        }],
    })?;

    for (p, message, help) in range_issues(&config) {
        let (source, loc) = locate(&p, &origins);
        issues.push(ConfigIssue {
            source,
            line: loc.map(|l| l.0),
            column: loc.map(|l| l.1),
            pointer: p,
            message,
            help,
        });
    }
    if !issues.is_empty() {
        return Err(ConfigError::Invalid { issues });
    }
    Ok(Effective {
        config,
        file: file.map(|f| PathBuf::from(&f.path)),
        origins,
        warnings,
    })
}

/// Discovers, reads and resolves in one call: what every command does at start.
pub fn load(explicit: Option<&Path>, env: &BTreeMap<String, String>, dir: &Path) -> Result<Effective, ConfigError> {
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

fn type_name(v: &Value) -> &'static str {
    match v {
        Value::Null => "null",
        Value::Bool(_) => "a boolean",
        Value::Number(n) if n.is_f64() => "a number with a fraction",
        Value::Number(_) => "a whole number",
        Value::String(_) => "a string",
        Value::Array(_) => "a list",
        Value::Object(_) => "a mapping",
    }
}

fn compiled_schema() -> &'static jsonschema::Validator {
    static VALIDATOR: std::sync::OnceLock<jsonschema::Validator> = std::sync::OnceLock::new();
    VALIDATOR.get_or_init(|| {
        let schema: Value = serde_json::from_str(SCHEMA).expect("contracts/config.schema.json is JSON (unit-tested)");
        jsonschema::validator_for(&schema).expect("contracts/config.schema.json is a valid schema (unit-tested)")
    })
}

/// What the schema says is wrong: (pointer, message with the bad value, what is allowed).
fn schema_issues(instance: &Value) -> Vec<(String, String, String)> {
    use jsonschema::error::ValidationErrorKind as K;
    let schema: Value = serde_json::from_str(SCHEMA).unwrap_or(Value::Null);
    let mut out = Vec::new();
    for error in compiled_schema().iter_errors(instance) {
        let at = error.instance_path().to_string();
        let bad = error.instance();
        match error.kind() {
            K::AdditionalProperties { unexpected } => {
                let allowed = allowed_keys(&schema, &at);
                for key in unexpected {
                    let help = match suggest(key, &allowed) {
                        Some(s) => format!("did you mean `{s}`? allowed here: {}", allowed.join(", ")),
                        None if allowed.is_empty() => "remove it".to_owned(),
                        None => format!("allowed here: {}", allowed.join(", ")),
                    };
                    out.push((pointer::join(&at, key), format!("unknown key `{key}`"), help));
                }
            }
            K::Type { .. } => out.push((
                at.clone(),
                format!("{} is {}", compact(&bad), type_name(&bad)),
                format!("expected {}", expected_type(&schema, &at)),
            )),
            K::Minimum { limit } | K::ExclusiveMinimum { limit } => out.push((
                at.clone(),
                format!("{} is too small", compact(&bad)),
                format!("the minimum is {limit}"),
            )),
            K::Maximum { limit } | K::ExclusiveMaximum { limit } => out.push((
                at.clone(),
                format!("{} is too large", compact(&bad)),
                format!("the maximum is {limit}"),
            )),
            K::Enum { options } => out.push((
                at.clone(),
                format!("{} is not a known value", compact(&bad)),
                format!("expected one of {}", options_list(options)),
            )),
            _ => out.push((at.clone(), error.to_string(), "see contracts/config.schema.json".to_owned())),
        }
    }
    out.sort();
    out.dedup();
    out
}

fn compact(v: &Value) -> String {
    let s = v.to_string();
    if s.chars().count() > 60 {
        format!("{}…", s.chars().take(60).collect::<String>())
    } else {
        s
    }
}

fn options_list(options: &Value) -> String {
    match options {
        Value::Array(items) => items.iter().map(|i| i.as_str().map_or_else(|| i.to_string(), str::to_owned)).collect::<Vec<_>>().join(", "),
        other => other.to_string(),
    }
}

/// The schema node that describes the instance at `at` (following `$ref` and maps).
fn schema_at<'s>(schema: &'s Value, at: &str) -> Option<&'s Value> {
    let resolve = |node: &'s Value| -> &'s Value {
        match node.get("$ref").and_then(Value::as_str) {
            Some(r) => r.strip_prefix('#').and_then(|p| schema.pointer(p)).unwrap_or(node),
            None => node,
        }
    };
    let mut node = resolve(schema);
    for token in at.split('/').skip(1) {
        let key = token.replace("~1", "/").replace("~0", "~");
        node = match node.get("properties").and_then(|p| p.get(&key)) {
            Some(child) => resolve(child),
            None => match node.get("additionalProperties").filter(|a| a.is_object()) {
                Some(child) => resolve(child),
                None => resolve(node.get("items")?),
            },
        };
    }
    Some(node)
}

fn allowed_keys(schema: &Value, at: &str) -> Vec<String> {
    schema_at(schema, at)
        .and_then(|n| n.get("properties"))
        .and_then(Value::as_object)
        .map(|p| p.keys().filter(|k| !k.starts_with('$')).cloned().collect())
        .unwrap_or_default()
}

fn expected_type(schema: &Value, at: &str) -> String {
    let node = schema_at(schema, at);
    let ty = node.and_then(|n| {
        n.get("type")
            .or_else(|| n.get("$ref").and_then(|_| None))
            .and_then(Value::as_str)
    });
    let what = match ty {
        Some("integer") => "a whole number",
        Some("boolean") => "true or false",
        Some("string") => "a string",
        Some("array") => "a list",
        Some("object") => "a mapping",
        Some(other) => other,
        None => "another type",
    };
    match node.and_then(|n| n.get("minimum")).and_then(Value::as_u64) {
        Some(min) => format!("{what} >= {min}"),
        None => what.to_owned(),
    }
}

/// The closest allowed key, if one is close enough to be a typo.
fn suggest<'a>(key: &str, allowed: &'a [String]) -> Option<&'a str> {
    let lower = key.to_ascii_lowercase();
    allowed
        .iter()
        .map(|a| (strsim::damerau_levenshtein(&lower, &a.to_ascii_lowercase()), a))
        .filter(|(d, a)| *d <= 2.max(a.len() / 4))
        .min_by_key(|(d, _)| *d)
        .map(|(_, a)| a.as_str())
}

/// Rules across keys that a JSON Schema cannot state.
fn range_issues(c: &Config) -> Vec<(String, String, String)> {
    let mut out = Vec::new();
    if c.hard_cap < c.token_budget_threshold {
        out.push((
            "/hardCap".to_owned(),
            format!("hardCap {} is below tokenBudgetThreshold {}", c.hard_cap, c.token_budget_threshold),
            "hardCap must be >= tokenBudgetThreshold".to_owned(),
        ));
    }
    if c.default_page_size > c.max_page_size {
        out.push((
            "/defaultPageSize".to_owned(),
            format!("defaultPageSize {} is above maxPageSize {}", c.default_page_size, c.max_page_size),
            "defaultPageSize must be <= maxPageSize (<= 200)".to_owned(),
        ));
    }
    if c.chunk_whole_below > c.chunk_size {
        out.push((
            "/chunkWholeBelow".to_owned(),
            format!("chunkWholeBelow {} is above chunkSize {}", c.chunk_whole_below, c.chunk_size),
            "content returned whole must fit one chunk: chunkWholeBelow <= chunkSize".to_owned(),
        ));
    }
    let rule_issue = |at: String, code: &str| {
        let known: Vec<_> = contract::RULES.iter().map(|r| r.code).collect();
        (
            at,
            format!("unknown rule `{code}`"),
            format!("use a rule code or name: {}", known.join(", ")),
        )
    };
    for code in c.rules.keys().filter(|k| contract::find_rule(k).is_none()) {
        out.push(rule_issue(pointer::join("/rules", code), code));
    }
    for (tool, endpoint) in &c.endpoints {
        let base = pointer::join("/endpoints", tool);
        if let Some(size) = endpoint.page_size.filter(|s| *s > c.max_page_size) {
            out.push((
                pointer::join(&base, "pageSize"),
                format!("pageSize {size} for `{tool}` is above maxPageSize {}", c.max_page_size),
                "a tool's pageSize must be <= maxPageSize".to_owned(),
            ));
        }
        for code in endpoint.rules.keys().filter(|k| contract::find_rule(k).is_none()) {
            out.push(rule_issue(pointer::join(&pointer::join(&base, "rules"), code), code));
        }
    }
    for (name, client) in &c.clients {
        if let (Some(w), Some(m)) = (client.warn_tokens, client.max_tokens)
            && w > m
        {
            out.push((
                pointer::join(&pointer::join("/clients", name), "warnTokens"),
                format!("warnTokens {w} is above maxTokens {m} for client `{name}`"),
                "warnTokens must be <= maxTokens".to_owned(),
            ));
        }
    }
    out
}

/// The documented default config, as YAML with a comment on every key.
pub fn default_yaml() -> String {
    let c = Config::default();
    let l = &c.limits;
    let mut out = String::from(
        "# mcpguard configuration: every key below is the built-in default.\n\
         # Precedence: flags > MCPGUARD_* environment > this file > defaults.\n\
         # Schema: contracts/config.schema.json. Check a file with `mcpguard validate-config FILE`.\n\n",
    );
    let mut line = |key: &str, value: String, comment: &str| {
        out.push_str(&format!("{key}: {value}  # {comment}\n"));
    };
    line("defaultPageSize", c.default_page_size.to_string(), "items per page when no limit is given (FR-002); env MCPGUARD_DEFAULT_PAGE_SIZE");
    line("maxPageSize", c.max_page_size.to_string(), "largest page a caller may ask for, at most 200; env MCPGUARD_MAX_PAGE_SIZE");
    line("tokenBudgetThreshold", c.token_budget_threshold.to_string(), "summarize above this many tokens (FR-010); env MCPGUARD_TOKEN_BUDGET_THRESHOLD");
    line("hardCap", c.hard_cap.to_string(), "no response above this many tokens, >= tokenBudgetThreshold; env MCPGUARD_HARD_CAP");
    line("chunkSize", c.chunk_size.to_string(), "tokens per chunk (FR-020); env MCPGUARD_CHUNK_SIZE");
    line("chunkMaxLines", c.chunk_max_lines.to_string(), "lines per chunk; env MCPGUARD_CHUNK_MAX_LINES");
    line("chunkWholeBelow", c.chunk_whole_below.to_string(), "content under this many tokens comes back whole (US4.4)");
    line("cursorTtlSeconds", c.cursor_ttl_seconds.to_string(), "cursor lifetime (FR-007); env MCPGUARD_CURSOR_TTL_SECONDS");
    line("tokenizer", c.tokenizer.name().to_owned(), "heuristic | claude | o200k | cl100k; env MCPGUARD_TOKENIZER");
    line("mediaTokens", c.media_tokens.to_string(), "tokens charged per image or audio block");
    line("artifactDir", c.artifact_dir.clone(), "where full results are stored; env MCPGUARD_ARTIFACT_DIR");
    out.push_str("limits:  # the response contract (seed 003), env MCPGUARD_MAX_BYTES etc.\n");
    let mut limit = |key: &str, value: u64, comment: &str| {
        out.push_str(&format!("  {key}: {value}  # {comment}\n"));
    };
    limit("maxBytes", l.max_bytes, "INV-MCP-RESP-001: bytes per response");
    limit("maxArrayItems", l.max_array_items, "INV-MCP-RESP-002: items per array without hasMore/nextCursor");
    limit("maxStringLength", l.max_string_length, "INV-MCP-RESP-003: characters per string");
    limit("maxJsonDepth", l.max_json_depth, "INV-MCP-RESP-004: nesting levels");
    limit("maxSummaryLength", l.max_summary_length, "INV-MCP-RESP-006: characters of summary");
    limit("maxToolDescriptionBytes", l.max_tool_description_bytes, "Claude Code cuts tool descriptions at 2 KB");
    out.push_str("rules: {}  # per rule (code MG003 or name string-too-long): off | info | warning | error\n");
    out.push_str("endpoints: {}  # per tool: pagination, summarization, chunking, pageSize, fields, limits, rules\n");
    out.push_str("#  search_bookings:\n#    pageSize: 20\n#    fields: [id, status, totalPrice]\n");
    out.push_str("projections:  # fields kept per record type when summarizing (seed 001 R003)\n");
    for (kind, fields) in &c.projections {
        out.push_str(&format!("  {kind}: [{}]\n", fields.join(", ")));
    }
    out.push_str("clients:  # what each client does with large output; numbers may change, check the source\n");
    for (name, p) in &c.clients {
        out.push_str(&format!("  {name}:\n"));
        let opt = [
            ("warnTokens", p.warn_tokens),
            ("maxTokens", p.max_tokens),
            ("spillChars", p.spill_chars),
            ("cutBytes", p.cut_bytes),
            ("cutLines", p.cut_lines),
            ("maxDescriptionBytes", p.max_description_bytes),
        ];
        for (key, value) in opt {
            if let Some(v) = value {
                out.push_str(&format!("    {key}: {v}\n"));
            }
        }
        out.push_str(&format!("    source: \"{}\"\n", p.source.replace('"', "'")));
    }
    out
}

/// A YAML document read with the location of every key, so errors can name line and column.
mod yaml_tree {
    use std::collections::BTreeMap;

    use serde::de::{self, Deserialize, Deserializer, MapAccess, SeqAccess, Visitor};
    use serde_json::{Map, Number, Value};
    use serde_saphyr::Spanned;

    use crate::pointer;

    pub enum Node {
        Scalar(Value),
        Seq(Vec<Spanned<Node>>),
        Map(Vec<(Spanned<String>, Spanned<Node>)>),
    }

    impl Node {
        pub fn into_value(self, at: &mut String, locations: &mut BTreeMap<String, (usize, usize)>) -> Value {
            match self {
                Node::Scalar(v) => v,
                Node::Seq(items) => {
                    let mut out = Vec::with_capacity(items.len());
                    for (i, item) in items.into_iter().enumerate() {
                        let len = at.len();
                        pointer::push_index(at, i);
                        record(locations, at, &item.referenced);
                        out.push(item.value.into_value(at, locations));
                        at.truncate(len);
                    }
                    Value::Array(out)
                }
                Node::Map(members) => {
                    let mut out = Map::new();
                    for (key, value) in members {
                        let len = at.len();
                        pointer::push_key(at, &key.value);
                        record(locations, at, &key.referenced);
                        out.insert(key.value, value.value.into_value(at, locations));
                        at.truncate(len);
                    }
                    Value::Object(out)
                }
            }
        }
    }

    fn record(locations: &mut BTreeMap<String, (usize, usize)>, at: &str, loc: &serde_saphyr::Location) {
        if loc.line() > 0 {
            locations.insert(at.to_owned(), (loc.line() as usize, loc.column() as usize));
        }
    }

    impl<'de> Deserialize<'de> for Node {
        fn deserialize<D: Deserializer<'de>>(d: D) -> Result<Self, D::Error> {
            d.deserialize_any(NodeVisitor)
        }
    }

    struct NodeVisitor;

    impl<'de> Visitor<'de> for NodeVisitor {
        type Value = Node;

        fn expecting(&self, f: &mut std::fmt::Formatter) -> std::fmt::Result {
            f.write_str("a YAML value")
        }
        fn visit_bool<E: de::Error>(self, v: bool) -> Result<Node, E> {
            Ok(Node::Scalar(Value::Bool(v)))
        }
        fn visit_i64<E: de::Error>(self, v: i64) -> Result<Node, E> {
            Ok(Node::Scalar(Value::from(v)))
        }
        fn visit_u64<E: de::Error>(self, v: u64) -> Result<Node, E> {
            Ok(Node::Scalar(Value::from(v)))
        }
        fn visit_f64<E: de::Error>(self, v: f64) -> Result<Node, E> {
            Ok(Node::Scalar(Number::from_f64(v).map_or(Value::Null, Value::Number)))
        }
        fn visit_str<E: de::Error>(self, v: &str) -> Result<Node, E> {
            Ok(Node::Scalar(Value::String(v.to_owned())))
        }
        fn visit_string<E: de::Error>(self, v: String) -> Result<Node, E> {
            Ok(Node::Scalar(Value::String(v)))
        }
        fn visit_unit<E: de::Error>(self) -> Result<Node, E> {
            Ok(Node::Scalar(Value::Null))
        }
        fn visit_none<E: de::Error>(self) -> Result<Node, E> {
            Ok(Node::Scalar(Value::Null))
        }
        fn visit_some<D: Deserializer<'de>>(self, d: D) -> Result<Node, D::Error> {
            Node::deserialize(d)
        }
        fn visit_seq<A: SeqAccess<'de>>(self, mut seq: A) -> Result<Node, A::Error> {
            let mut items = Vec::new();
            while let Some(item) = seq.next_element::<Spanned<Node>>()? {
                items.push(item);
            }
            Ok(Node::Seq(items))
        }
        fn visit_map<A: MapAccess<'de>>(self, mut map: A) -> Result<Node, A::Error> {
            let mut members: Vec<(Spanned<String>, Spanned<Node>)> = Vec::new();
            while let Some(key) = map.next_key::<Spanned<String>>()? {
                let value = map.next_value::<Spanned<Node>>()?;
                if members.iter().any(|(k, _)| k.value == key.value) {
                    return Err(de::Error::custom(format!(
                        "duplicate key `{}` at line {}",
                        key.value,
                        key.referenced.line()
                    )));
                }
                members.push((key, value));
            }
            Ok(Node::Map(members))
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
            Err(ConfigError::Invalid { issues }) => issues.iter().map(ToString::to_string).collect(),
            other => panic!("expected issues, got {other:?}"),
        }
    }

    #[test]
    fn schema_and_defaults_agree() {
        let defaults = serde_json::to_value(Config::default()).unwrap();
        assert!(schema_issues(&defaults).is_empty(), "{:?}", schema_issues(&defaults));
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
        assert!(got[0].starts_with("c.yaml:1:1: /maxPageSze: unknown key `maxPageSze` (did you mean `maxPageSize`?"), "{}", got[0]);
    }

    #[test]
    fn cross_field_rules() {
        let got = issues("tokenBudgetThreshold: 5000\nhardCap: 4000\ndefaultPageSize: 150\nmaxPageSize: 100\nrules:\n  MG999: off\n");
        assert_eq!(got.len(), 3, "{got:?}");
        assert!(got[0].starts_with("c.yaml:2:1: /hardCap: hardCap 4000 is below tokenBudgetThreshold 5000"));
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
        assert_eq!(eff.origin("/hardCap"), Origin::Env { var: "MCPGUARD_HARD_CAP".into() });
        assert_eq!(eff.warnings.len(), 1);
        let env = BTreeMap::from([("MCPGUARD_MAX_BYTES".to_owned(), "lots".to_owned())]);
        let err = resolve(None, &env).unwrap_err().to_string();
        assert!(err.contains("env MCPGUARD_MAX_BYTES: /limits/maxBytes: `lots` is not a whole number"), "{err}");
    }

    #[test]
    fn json_files_are_located_too() {
        let file = parse_text("c.json", "{\n  \"limits\": {\n    \"maxJsonDepth\": 0\n  }\n}\n", true).unwrap();
        let err = resolve(Some(&file), &BTreeMap::new()).unwrap_err().to_string();
        assert!(err.contains("c.json:3:5: /limits/maxJsonDepth: 0 is too small (the minimum is 1)"), "{err}");
        let bad = parse_text("c.json", "{\"a\": }", true).err().unwrap().to_string();
        assert_eq!(bad, "c.json:1:7: not valid JSON: expected value");
    }

    #[test]
    fn diff_lists_changes() {
        let mut new = Config::default();
        new.hard_cap = 20_000;
        let changes = diff(&Config::default(), &new);
        assert_eq!(changes.len(), 1);
        assert_eq!(changes[0].key, "hardCap");
    }
}
