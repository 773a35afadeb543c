//! The checks a config must pass: the JSON Schema in `contracts/config.schema.json` (types,
//! ranges, unknown keys, with a "did you mean" for typos), then the rules across keys that a
//! schema cannot state. Each check yields (pointer, what is wrong, what is allowed); `resolve`
//! locates it.

use serde_json::Value;

use super::Config;
use crate::contract;
use crate::json::pointer;
pub(super) use crate::util::human::type_name;

/// The JSON Schema of the config file, as shipped in `contracts/`.
pub const SCHEMA: &str = include_str!("../../contracts/config.schema.json");

/// The config schema, parsed and compiled once per process.
fn compiled_schema() -> &'static (Value, jsonschema::Validator) {
    static SCHEMA_AND_VALIDATOR: std::sync::OnceLock<(Value, jsonschema::Validator)> =
        std::sync::OnceLock::new();
    SCHEMA_AND_VALIDATOR.get_or_init(|| {
        let schema: Value = serde_json::from_str(SCHEMA)
            .expect("contracts/config.schema.json is JSON (unit-tested)");
        let validator = jsonschema::validator_for(&schema)
            .expect("contracts/config.schema.json is a valid schema (unit-tested)");
        (schema, validator)
    })
}

/// What the schema says is wrong: (pointer, message with the bad value, what is allowed).
pub(super) fn schema_issues(instance: &Value) -> Vec<(String, String, String)> {
    use jsonschema::error::ValidationErrorKind as K;
    let (schema, validator) = compiled_schema();
    let mut out = Vec::new();
    for error in validator.iter_errors(instance) {
        let at = error.instance_path().to_string();
        let bad = error.instance();
        match error.kind() {
            K::AdditionalProperties { unexpected } => {
                let allowed = allowed_keys(schema, &at);
                for key in unexpected {
                    let help = match suggest(key, &allowed) {
                        Some(s) => {
                            format!("did you mean `{s}`? allowed here: {}", allowed.join(", "))
                        }
                        None if allowed.is_empty() => "remove it".to_owned(),
                        None => format!("allowed here: {}", allowed.join(", ")),
                    };
                    out.push((
                        pointer::join(&at, key),
                        format!("unknown key `{key}`"),
                        help,
                    ));
                }
            }
            K::Type { .. } => out.push((
                at.clone(),
                format!("{} is {}", compact(bad), type_name(bad)),
                format!("expected {}", expected_type(schema, &at)),
            )),
            K::Minimum { limit } | K::ExclusiveMinimum { limit } => out.push((
                at.clone(),
                format!("{} is too small", compact(bad)),
                format!("the minimum is {limit}"),
            )),
            K::Maximum { limit } | K::ExclusiveMaximum { limit } => out.push((
                at.clone(),
                format!("{} is too large", compact(bad)),
                format!("the maximum is {limit}"),
            )),
            K::Enum { options } => out.push((
                at.clone(),
                format!("{} is not a known value", compact(bad)),
                format!("expected one of {}", options_list(options)),
            )),
            _ => out.push((
                at.clone(),
                error.to_string(),
                "see contracts/config.schema.json".to_owned(),
            )),
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
        Value::Array(items) => items
            .iter()
            .map(|i| i.as_str().map_or_else(|| i.to_string(), str::to_owned))
            .collect::<Vec<_>>()
            .join(", "),
        other => other.to_string(),
    }
}

/// The schema node that describes the instance at `at` (following `$ref` and maps).
fn schema_at<'s>(schema: &'s Value, at: &str) -> Option<&'s Value> {
    let resolve = |node: &'s Value| -> &'s Value {
        match node.get("$ref").and_then(Value::as_str) {
            Some(r) => r
                .strip_prefix('#')
                .and_then(|p| schema.pointer(p))
                .unwrap_or(node),
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
    let ty = node.and_then(|n| n.get("type").and_then(Value::as_str));
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
        .map(|a| {
            (
                strsim::damerau_levenshtein(&lower, &a.to_ascii_lowercase()),
                a,
            )
        })
        .filter(|(d, a)| *d <= 2.max(a.len() / 4))
        .min_by_key(|(d, _)| *d)
        .map(|(_, a)| a.as_str())
}

/// Rules across keys that a JSON Schema cannot state.
pub(super) fn range_issues(c: &Config) -> Vec<(String, String, String)> {
    let mut out = Vec::new();
    if c.hard_cap < c.token_budget_threshold {
        out.push((
            "/hardCap".to_owned(),
            format!(
                "hardCap {} is below tokenBudgetThreshold {}",
                c.hard_cap, c.token_budget_threshold
            ),
            "hardCap must be >= tokenBudgetThreshold".to_owned(),
        ));
    }
    if c.default_page_size > c.max_page_size {
        out.push((
            "/defaultPageSize".to_owned(),
            format!(
                "defaultPageSize {} is above maxPageSize {}",
                c.default_page_size, c.max_page_size
            ),
            "defaultPageSize must be <= maxPageSize (<= 200)".to_owned(),
        ));
    }
    if c.chunk_whole_below > c.chunk_size {
        out.push((
            "/chunkWholeBelow".to_owned(),
            format!(
                "chunkWholeBelow {} is above chunkSize {}",
                c.chunk_whole_below, c.chunk_size
            ),
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
                format!(
                    "pageSize {size} for `{tool}` is above maxPageSize {}",
                    c.max_page_size
                ),
                "a tool's pageSize must be <= maxPageSize".to_owned(),
            ));
        }
        for code in endpoint
            .rules
            .keys()
            .filter(|k| contract::find_rule(k).is_none())
        {
            out.push(rule_issue(
                pointer::join(&pointer::join(&base, "rules"), code),
                code,
            ));
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
