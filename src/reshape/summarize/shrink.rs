//! Making one JSON value smaller at a given level of tightness: arrays cut to a number of
//! items, strings shortened (base64 described, prose summarized), objects cut to their most
//! important fields, nesting below a depth replaced by a short description. Also the two
//! optional rewrites: dropping empty members and turning a list of records into a table.

use serde_json::{Map, Value};

use super::project::rank;
use super::sample::Lengths;
use super::text::{self, Shortener};
use crate::json::compact;

/// How tight a preview is.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Level {
    /// Items kept per array.
    pub items: usize,
    /// Characters per string.
    pub string: usize,
    /// Members kept per object.
    pub fields: usize,
    /// Levels of nesting below a preview's records.
    pub depth: usize,
}

/// Shrinks values at one level, remembering whether anything was left out.
pub struct Shrinker<'a> {
    pub level: Level,
    /// Words that make a sentence worth keeping in an extractive summary.
    pub terms: &'a [String],
    /// Full lengths of the arrays the parse cut.
    pub lengths: &'a Lengths,
    pub shortener: &'a Shortener,
    /// Set when anything was cut, shortened or described.
    pub lossy: bool,
}

impl Shrinker<'_> {
    /// `value` with at most `depth` levels of nesting below it.
    pub fn value(&mut self, value: &Value, depth: usize) -> Value {
        match value {
            Value::String(s) => Value::String(self.string(s)),
            Value::Array(a) if a.is_empty() => Value::Array(Vec::new()),
            Value::Object(m) if m.is_empty() => Value::Object(Map::new()),
            Value::Array(_) | Value::Object(_) if depth == 0 => self.describe(value),
            Value::Array(a) => {
                if self.lengths.of(a) > self.level.items {
                    self.lossy = true;
                }
                Value::Array(
                    a.iter()
                        .take(self.level.items)
                        .map(|v| self.value(v, depth - 1))
                        .collect(),
                )
            }
            Value::Object(m) => Value::Object(self.object(m, depth)),
            other => other.clone(),
        }
    }

    /// A record through a projection (`None`: every field): only the paths' members are
    /// visited, and shrunk as they are copied. Paths that match nothing give `{}`.
    pub fn record(&mut self, record: &Value, paths: Option<&[Vec<String>]>, depth: usize) -> Value {
        let Some(paths) = paths else {
            return self.value(record, depth);
        };
        let split: Vec<&[String]> = paths.iter().map(Vec::as_slice).collect();
        self.projected(record, &split, depth)
            .unwrap_or_else(|| Value::Object(Map::new()))
    }

    fn projected(&mut self, value: &Value, paths: &[&[String]], depth: usize) -> Option<Value> {
        if paths.iter().any(|p| p.is_empty()) {
            return Some(self.value(value, depth));
        }
        match value {
            Value::Array(_) | Value::Object(_) if depth == 0 => Some(self.describe(value)),
            Value::Object(map) => {
                let mut out = Map::new();
                for (key, v) in map {
                    let rest: Vec<&[String]> = paths
                        .iter()
                        .filter(|p| p[0] == *key)
                        .map(|p| &p[1..])
                        .collect();
                    if rest.is_empty() {
                        continue;
                    }
                    if out.len() == self.level.fields {
                        self.lossy = true;
                        break;
                    }
                    if let Some(projected) = self.projected(v, &rest, depth - 1) {
                        out.insert(key.clone(), projected);
                    }
                }
                (!out.is_empty()).then_some(Value::Object(out))
            }
            Value::Array(items) => {
                if self.lengths.of(items) > self.level.items {
                    self.lossy = true;
                }
                let out: Vec<Value> = items
                    .iter()
                    .take(self.level.items)
                    .filter_map(|item| self.projected(item, paths, depth - 1))
                    .collect();
                (!out.is_empty()).then_some(Value::Array(out))
            }
            _ => None,
        }
    }

    /// A list or object below the depth limit, as a short description: `[500 items]`.
    fn describe(&mut self, value: &Value) -> Value {
        self.lossy = true;
        let text = match value {
            Value::Array(a) => format!("[{} items]", self.lengths.of(a)),
            Value::Object(m) => format!("{{{} fields}}", m.len()),
            _ => return value.clone(),
        };
        Value::String(self.string(&text))
    }

    /// An object's most important members (at most `level.fields`), in its own order.
    pub fn object(&mut self, m: &Map<String, Value>, depth: usize) -> Map<String, Value> {
        let keep: Vec<bool> = if m.len() <= self.level.fields {
            vec![true; m.len()]
        } else {
            self.lossy = true;
            let mut order: Vec<(usize, u8)> = m
                .iter()
                .enumerate()
                .map(|(i, (k, v))| (i, rank(k, v).unwrap_or(u8::MAX)))
                .collect();
            order.sort_by_key(|(_, r)| *r);
            let mut keep = vec![false; m.len()];
            for (i, _) in order.into_iter().take(self.level.fields) {
                keep[i] = true;
            }
            keep
        };
        let mut out = Map::new();
        for ((k, v), keep) in m.iter().zip(keep) {
            if keep {
                let key = if k.chars().count() > self.level.string {
                    self.lossy = true;
                    text::cut(k, self.level.string)
                } else {
                    k.clone()
                };
                out.insert(key, self.value(v, depth.saturating_sub(1)));
            }
        }
        out
    }

    pub fn string(&mut self, s: &str) -> String {
        let short = self.shortener.shorten(s, self.level.string, self.terms);
        if short.len() != s.len() {
            self.lossy = true;
        }
        short
    }
}

/// Removes null, "", [] and {} members, deepest first; returns the bytes they took.
pub fn drop_empty(value: &mut Value) -> u64 {
    let mut saved = 0;
    match value {
        Value::Array(items) => {
            for item in items {
                saved += drop_empty(item);
            }
        }
        Value::Object(map) => {
            for v in map.values_mut() {
                saved += drop_empty(v);
            }
            map.retain(|k, v| {
                let empty = match v {
                    Value::Null => true,
                    Value::String(s) => s.is_empty(),
                    Value::Array(a) => a.is_empty(),
                    Value::Object(o) => o.is_empty(),
                    _ => false,
                };
                if empty {
                    // "key":value plus its comma.
                    saved += (compact::member_len(k, compact::len(v)) + 1) as u64;
                }
                !empty
            });
        }
        _ => {}
    }
    saved
}

/// A list of records as `columns` and `rows` (keys written once), when every item is an
/// object and each has at least half of the columns.
pub fn table(items: &[Value]) -> Option<(Vec<String>, Vec<Value>)> {
    let mut columns: Vec<String> = Vec::new();
    for item in items {
        for key in item.as_object()?.keys() {
            if !columns.contains(key) {
                columns.push(key.clone());
            }
        }
    }
    if columns.is_empty()
        || items
            .iter()
            .any(|i| i.as_object().is_some_and(|o| o.len() * 2 < columns.len()))
    {
        return None;
    }
    let rows = items
        .iter()
        .map(|item| {
            Value::Array(
                columns
                    .iter()
                    .map(|c| item.get(c).cloned().unwrap_or(Value::Null))
                    .collect(),
            )
        })
        .collect();
    Some((columns, rows))
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    #[test]
    fn depth_is_replaced_by_a_description() {
        let mut s = Shrinker {
            level: Level {
                items: 2,
                string: 50,
                fields: 10,
                depth: 1,
            },
            terms: &[],
            lengths: &Lengths::default(),
            shortener: &Shortener::default(),
            lossy: false,
        };
        let v = s.value(&json!({"a": {"b": {"c": 1}}, "list": [1, 2, 3]}), 1);
        assert_eq!(v, json!({"a": "{1 fields}", "list": "[3 items]"}));
        assert!(s.lossy);
    }

    #[test]
    fn empty_members_go_and_are_counted() {
        let mut v = json!({"a": null, "b": "", "c": {"d": []}, "e": 1});
        let saved = drop_empty(&mut v);
        assert_eq!(v, json!({"e": 1}));
        // "a":null, "b":"", "d":[] then "c":{} once emptied.
        assert_eq!(saved, 9 + 7 + 7 + 7);
    }

    #[test]
    fn table_writes_keys_once() {
        let items = vec![json!({"id": 1, "s": "a"}), json!({"id": 2, "s": "b"})];
        let (columns, rows) = table(&items).unwrap();
        assert_eq!(columns, ["id", "s"]);
        assert_eq!(rows, vec![json!([1, "a"]), json!([2, "b"])]);
        assert!(table(&[json!(1)]).is_none());
    }
}
