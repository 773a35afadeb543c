//! Collections in a JSON document: arrays, and objects that are maps of records.
//!
//! Many APIs key their records by id (`{"user-0": {"name": ...}, "user-1": {...}, ...}`). Such
//! an object is a list in all but syntax: its keys are data, not field names, so it is measured
//! with its keys folded (`/{key}/name`, as an array's indexes fold to `/*/name`), counted and
//! paged like a list. An object is taken for a map of records when it has at least
//! [`MIN_ENTRIES`] members, every value is a non-empty object, and every value shares a field
//! with the first (records of one kind, not a config's unrelated sections).

use std::collections::HashSet;

#[cfg(test)]
use serde_json::{Map, Value};

use crate::json::node::{Members, Node};

/// The fewest members a map of records has: below this, an object of object-valued fields is
/// as likely a record with nested parts.
pub const MIN_ENTRIES: usize = 8;

/// How a folded map key is written in a path pattern.
pub const KEY_PATTERN: &str = "{key}";

/// Whether an object is a map of records. Linear in the members and the first record's fields.
pub fn is_record_map<M: Members>(members: &M) -> bool {
    if members.len() < MIN_ENTRIES {
        return false;
    }
    let mut values = members.iter().map(|(_, v)| v);
    let Some(first) = values.next().and_then(Node::as_object) else {
        return false;
    };
    if first.is_empty() {
        return false;
    }
    let fields: HashSet<&str> = first.iter().map(|(k, _)| k).collect();
    values.all(|v| {
        v.as_object()
            .is_some_and(|record| record.iter().any(|(k, _)| fields.contains(k)))
    })
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    fn members(v: Value) -> Map<String, Value> {
        match v {
            Value::Object(m) => m,
            _ => unreachable!(),
        }
    }

    #[test]
    fn maps_of_records_are_told_from_objects() {
        let users: Map<String, Value> = (0..20)
            .map(|i| {
                (
                    format!("user-{i}"),
                    json!({"name": format!("U{i}"), "age": i}),
                )
            })
            .collect();
        assert!(is_record_map(&users));
        // Too few members, a scalar among the values, an empty record, unrelated sections.
        let few: Map<String, Value> = users.clone().into_iter().take(MIN_ENTRIES - 1).collect();
        assert!(!is_record_map(&few));
        let mut mixed = users.clone();
        mixed.insert("total".into(), json!(20));
        assert!(!is_record_map(&mixed));
        let mut empty = users.clone();
        empty.insert("user-x".into(), json!({}));
        assert!(!is_record_map(&empty));
        let config = members(json!({
            "server": {"port": 80}, "db": {"url": "x"}, "log": {"level": "info"},
            "cache": {"ttl": 1}, "auth": {"issuer": "y"}, "tls": {"cert": "z"},
            "metrics": {"path": "/m"}, "trace": {"rate": 0.1}}));
        assert!(!is_record_map(&config));
    }
}
