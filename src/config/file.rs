//! Reading a config file, YAML or JSON, keeping the line and column of every key so that a
//! problem found later (by the schema, by a range rule) can still point into the file.

use std::collections::BTreeMap;
use std::path::Path;

use serde_json::{Map, Value};

use super::ConfigError;

/// A parsed config file: its value and where each key sits.
pub struct ParsedFile {
    pub path: String,
    pub value: Value,
    locations: BTreeMap<String, (usize, usize)>,
}

impl ParsedFile {
    /// Line and column of the key at `pointer` (or of the nearest located parent).
    pub(super) fn locate(&self, pointer: &str) -> Option<(usize, usize)> {
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
    let text = crate::util::fsutil::read_text_capped(path, crate::util::fsutil::MAX_CONFIG_BYTES)
        .map_err(|cause| ConfigError::Read {
        path: name.clone(),
        cause,
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
    let tree: yaml_tree::Node =
        serde_saphyr::from_str_with_options(text, options).map_err(|e| {
            let location = e.location();
            ConfigError::Syntax {
                path: name.to_owned(),
                format: if json { "JSON" } else { "YAML" },
                line: location.map(|l| l.line() as usize),
                column: location.map(|l| l.column() as usize),
                message: syntax_message(&e.to_string(), has_aliases(text)),
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

/// saphyr's message without its own "error: line L column C: " prefix (we print the position
/// ourselves, compiler-style) and without the snippet that follows on later lines.
fn syntax_message(message: &str, aliases: bool) -> String {
    let first = message.lines().next().unwrap_or(message).trim();
    let rest = first.strip_prefix("error: ").unwrap_or(first);
    let text = match rest.strip_prefix("line ").and_then(|r| r.split_once(": ")) {
        Some((_, text)) => text,
        None => rest,
    };
    // saphyr's resource budget stops an alias bomb ("billion laughs") before it grows: say so
    // in words, not in its Debug output.
    if let Some(breach) = text.strip_prefix("budget breached") {
        let breach = breach.trim_start_matches(": ");
        return if aliases {
            format!(
                "the document expands past the parser's budget ({breach}): anchors and aliases that multiply (an alias bomb?); a config needs none of that"
            )
        } else {
            format!(
                "the document is larger than a config is read ({breach}); a config is kilobytes: is it the right file?"
            )
        };
    }
    text.to_owned()
}

/// Whether YAML text names an anchor and uses an alias (`&a`, `*a`): what can make a short
/// document expand.
fn has_aliases(text: &str) -> bool {
    let marks = |mark: char| {
        text.match_indices(mark).any(|(i, _)| {
            text[i + 1..]
                .chars()
                .next()
                .is_some_and(|c| c.is_alphanumeric() || c == '_' || c == '-')
        })
    };
    marks('&') && marks('*')
}

/// A YAML document read with the location of every key, so errors can name line and column.
mod yaml_tree {
    use std::collections::BTreeMap;

    use serde::de::{self, Deserialize, Deserializer, MapAccess, SeqAccess, Visitor};
    use serde_json::{Map, Number, Value};
    use serde_saphyr::Spanned;

    use crate::json::pointer;

    pub enum Node {
        Scalar(Value),
        Seq(Vec<Spanned<Node>>),
        Map(Vec<(Spanned<String>, Spanned<Node>)>),
    }

    impl Node {
        pub fn into_value(
            self,
            at: &mut String,
            locations: &mut BTreeMap<String, (usize, usize)>,
        ) -> Value {
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

    fn record(
        locations: &mut BTreeMap<String, (usize, usize)>,
        at: &str,
        loc: &serde_saphyr::Location,
    ) {
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
            Ok(Node::Scalar(
                Number::from_f64(v).map_or(Value::Null, Value::Number),
            ))
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
            // Keys seen, for duplicates in one look each (a scan of the members was quadratic:
            // 40,000 endpoints took 5 s).
            let mut seen = std::collections::HashSet::new();
            while let Some(key) = map.next_key::<Spanned<String>>()? {
                let value = map.next_value::<Spanned<Node>>()?;
                if !seen.insert(key.value.clone()) {
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
