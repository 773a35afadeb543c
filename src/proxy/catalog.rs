//! The proxy's catalog policy for `tools/list` (seed 004): `trim` cuts each description over
//! the client's limit (Claude Code cuts at 2 KB itself, silently and mid-word) at the last
//! sentence that fits, and drops schema boilerplate the model pays for and learns nothing
//! from: `$schema`, a property `title` that only repeats the property's name (what pydantic
//! writes for every field), and empty descriptions. Types, enums, defaults, required fields
//! and real titles stay: the schema still says the same thing.

use serde_json::{Map, Value};

use crate::util::utf8::floor_char_boundary;

/// What trimming did to one page of tools.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct Trimmed {
    pub descriptions_cut: usize,
    pub boilerplate_dropped: usize,
    pub tokens_before: u64,
    pub tokens_after: u64,
}

/// Trims the tools of a `tools/list` result in place.
pub fn trim(
    result: &mut Value,
    max_description_bytes: usize,
    counter: &dyn crate::tokens::TokenCounter,
) -> Trimmed {
    let mut t = Trimmed::default();
    let Some(tools) = result.get_mut("tools").and_then(Value::as_array_mut) else {
        return t;
    };
    for tool in tools.iter_mut() {
        t.tokens_before += counter.count(&tool.to_string()) as u64;
        if let Some(Value::String(d)) = tool.get_mut("description")
            && d.len() > max_description_bytes
        {
            *d = cut_description(d, max_description_bytes);
            t.descriptions_cut += 1;
        }
        for key in ["inputSchema", "outputSchema"] {
            if let Some(schema) = tool.get_mut(key) {
                t.boilerplate_dropped += strip(schema, None);
            }
        }
        t.tokens_after += counter.count(&tool.to_string()) as u64;
    }
    t
}

/// `text` in at most `max` bytes: up to its last sentence end that fits, else its last space,
/// with an ellipsis to say it was cut.
fn cut_description(text: &str, max: usize) -> String {
    let room = max.saturating_sub('…'.len_utf8());
    let end = floor_char_boundary(text, room);
    let head = &text[..end];
    let at = head
        .rfind(". ")
        .map(|i| i + 1)
        .filter(|&i| i > room / 2)
        .or_else(|| head.rfind(char::is_whitespace).filter(|&i| i > room / 2))
        .unwrap_or(end);
    format!("{}…", head[..at].trim_end())
}

/// Drops boilerplate from a schema; `name` is the property this schema describes. Returns
/// how many members went.
fn strip(schema: &mut Value, name: Option<&str>) -> usize {
    let Value::Object(map) = schema else {
        return 0;
    };
    let mut dropped = 0;
    if map.shift_remove("$schema").is_some() {
        dropped += 1;
    }
    if let (Some(name), Some(Value::String(title))) = (name, map.get("title"))
        && same_words(name, title)
    {
        map.shift_remove("title");
        dropped += 1;
    }
    if matches!(map.get("description"), Some(Value::String(d)) if d.trim().is_empty()) {
        map.shift_remove("description");
        dropped += 1;
    }
    if let Some(Value::Object(props)) = map.get_mut("properties") {
        for (prop, sub) in props.iter_mut() {
            dropped += strip(sub, Some(prop));
        }
    }
    for key in ["items", "additionalProperties"] {
        if let Some(sub) = map.get_mut(key) {
            dropped += strip(sub, None);
        }
    }
    for key in ["anyOf", "oneOf", "allOf"] {
        if let Some(Value::Array(subs)) = map.get_mut(key) {
            for sub in subs {
                dropped += strip(sub, None);
            }
        }
    }
    for key in ["$defs", "definitions"] {
        if let Some(Value::Object(defs)) = map.get_mut(key) {
            let defs: &mut Map<String, Value> = defs;
            for (_, sub) in defs.iter_mut() {
                dropped += strip(sub, None);
            }
        }
    }
    dropped
}

/// `repo_path` and "Repo Path", `maxCount` and "Max Count": the same words.
fn same_words(name: &str, title: &str) -> bool {
    let mut words = String::new();
    let mut prev_lower = false;
    for c in name.chars() {
        if c == '_' || c == '-' {
            words.push(' ');
            prev_lower = false;
        } else {
            if c.is_uppercase() && prev_lower {
                words.push(' ');
            }
            prev_lower = c.is_lowercase();
            words.extend(c.to_lowercase());
        }
    }
    words
        .split_whitespace()
        .eq(title.to_lowercase().split_whitespace())
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    #[test]
    fn trims_long_descriptions_and_boilerplate_and_keeps_meaning() {
        let long = "Reads a file. ".repeat(200);
        let mut result = json!({"tools": [{
            "name": "git_log",
            "description": long,
            "inputSchema": {"$schema": "http://json-schema.org/draft-07/schema#", "type": "object",
                "properties": {
                    "repo_path": {"title": "Repo Path", "type": "string"},
                    "max_count": {"title": "Maximum commits", "type": "integer", "default": 10, "description": ""}
                },
                "required": ["repo_path"]}
        }], "nextCursor": "p2"});
        let t = trim(&mut result, 2048, &crate::tokens::Heuristic);
        let tool = &result["tools"][0];
        let d = tool["description"].as_str().unwrap();
        assert!(d.len() <= 2048 && d.ends_with("file.…"), "{d}");
        assert_eq!(
            tool["inputSchema"],
            json!({"type": "object", "properties": {
                "repo_path": {"type": "string"},
                "max_count": {"title": "Maximum commits", "type": "integer", "default": 10}},
                "required": ["repo_path"]})
        );
        assert_eq!(t.descriptions_cut, 1);
        assert_eq!(t.boilerplate_dropped, 3);
        assert!(t.tokens_after < t.tokens_before);
        assert_eq!(result["nextCursor"], "p2");
        assert!(same_words("maxCount", "Max Count"));
        assert!(!same_words("max_count", "Maximum commits"));
    }
}
