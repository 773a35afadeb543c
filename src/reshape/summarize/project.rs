//! Field projection (seed 001 R003, FR-015..017): which fields of a record a preview keeps.
//!
//! In order of precedence: the paths asked for (`--fields id,status,price.total`, nested paths
//! rebuild their structure, a path through a list applies to each element), a projection map
//! from the config chosen by record type (the list's name, singular: `bookings` -> `booking`;
//! else the map most of whose fields the records have), and without either, a ranking that
//! keeps identifying and primary fields (ids, names, status, dates, amounts, counts, severity,
//! error messages) and leaves out verbose ones (descriptions, notes, bodies, metadata, long
//! text, large nested objects).

use std::collections::BTreeMap;

use serde_json::{Map, Value};

use crate::json::compact;

/// What `--fields` asked for.
#[derive(Clone, Debug, PartialEq, Eq, Default)]
pub enum Fields {
    /// A projection map, else the ranking.
    #[default]
    Auto,
    /// Every field (the limits still apply).
    All,
    /// These dotted paths.
    Paths(Vec<String>),
}

impl Fields {
    /// `all`, or a comma-separated list of dotted paths.
    pub fn parse(text: &str) -> Fields {
        if text.trim() == "all" {
            return Fields::All;
        }
        let paths: Vec<String> = text
            .split(',')
            .map(str::trim)
            .filter(|p| !p.is_empty())
            .map(str::to_owned)
            .collect();
        if paths.is_empty() {
            Fields::Auto
        } else {
            Fields::Paths(paths)
        }
    }
}

/// The fields chosen for the records of one preview.
#[derive(Clone, Debug, PartialEq)]
pub struct Projection {
    /// Dotted paths, or `None` for every field.
    pub paths: Option<Vec<String>>,
    /// Where they came from, for the report: `--fields`, `projection map booking`, `ranking`.
    pub source: String,
}

/// At most this many fields are kept by the ranking.
const RANKED_FIELDS: usize = 8;
/// The ranking fills up to this many with other short fields when few are primary.
const RANKED_MIN: usize = 5;

/// Chooses the projection for `records` (a sample of the list, or the one object).
pub fn choose(
    fields: &Fields,
    list_name: Option<&str>,
    records: &[&Map<String, Value>],
    maps: &BTreeMap<String, Vec<String>>,
) -> Projection {
    match fields {
        Fields::All => Projection {
            paths: None,
            source: "--fields all".into(),
        },
        Fields::Paths(p) => Projection {
            paths: Some(p.clone()),
            source: "--fields".into(),
        },
        Fields::Auto => match choose_map(list_name, records, maps) {
            Some((name, paths)) => Projection {
                paths: Some(paths.clone()),
                source: format!("projection map {name}"),
            },
            None => Projection {
                paths: Some(ranked(records)),
                source: "ranking".into(),
            },
        },
    }
}

/// The config's map for these records: by the list's name made singular, else the map with
/// the largest share (at least half) of its top-level fields present in the first record.
fn choose_map<'m>(
    list_name: Option<&str>,
    records: &[&Map<String, Value>],
    maps: &'m BTreeMap<String, Vec<String>>,
) -> Option<(&'m String, &'m Vec<String>)> {
    if let Some(name) = list_name {
        let lower = name.to_ascii_lowercase();
        let singular = [
            lower.as_str(),
            lower.strip_suffix("es").unwrap_or(""),
            lower.strip_suffix('s').unwrap_or(""),
        ];
        if let Some(found) = maps
            .iter()
            .find(|(k, _)| singular.contains(&k.to_ascii_lowercase().as_str()))
        {
            return Some(found);
        }
    }
    let first = records.first()?;
    maps.iter()
        .map(|(name, paths)| {
            let present = paths
                .iter()
                .filter(|p| first.contains_key(p.split('.').next().unwrap_or(p)))
                .count();
            (present * 100 / paths.len().max(1), name, paths)
        })
        .filter(|(share, _, _)| *share >= 50)
        .max_by_key(|(share, _, _)| *share)
        .map(|(_, name, paths)| (name, paths))
}

/// How important a field is to a preview: lower is kept first, `None` is verbose and left out.
pub fn rank(key: &str, value: &Value) -> Option<u8> {
    let k = key.to_ascii_lowercase();
    const VERBOSE: [&str; 24] = [
        "description",
        "desc",
        "notes",
        "note",
        "body",
        "content",
        "html",
        "raw",
        "details",
        "metadata",
        "meta",
        "debug",
        "schema",
        "trace",
        "stack",
        "stacktrace",
        "logs",
        "history",
        "comments",
        "attachments",
        "payload",
        "headers",
        "extra",
        "_links",
    ];
    if VERBOSE.contains(&k.as_str()) {
        return None;
    }
    let id = k == "id"
        || k == "uuid"
        || k == "key"
        || k == "slug"
        || k == "ref"
        || key.ends_with("Id")
        || key.ends_with("ID")
        || k.ends_with("_id");
    let name = [
        "name", "title", "label", "subject", "username", "email", "path", "url",
    ]
    .iter()
    .any(|n| k == *n || k.ends_with(n));
    let state = [
        "status", "state", "severity", "level", "priority", "type", "kind", "error", "message",
        "code",
    ]
    .iter()
    .any(|n| k == *n || k.ends_with(n));
    let date = k.contains("date")
        || k.contains("time")
        || key.ends_with("At")
        || k.ends_with("_at")
        || k.starts_with("created")
        || k.starts_with("updated");
    let amount = [
        "price", "total", "amount", "cost", "currency", "balance", "count", "quantity", "size",
        "score", "rating", "nights",
    ]
    .iter()
    .any(|n| k.contains(n));
    let small = match value {
        Value::String(s) => s.chars().count() <= 200,
        Value::Array(a) => a.is_empty(),
        Value::Object(_) => compact::len(value) <= 120,
        _ => true,
    };
    if !small && !id {
        return None;
    }
    Some(if id {
        0
    } else if name {
        1
    } else if state {
        2
    } else if date {
        3
    } else if amount {
        4
    } else if matches!(value, Value::Object(_) | Value::Array(_)) {
        6
    } else {
        5
    })
}

/// The ranking's choice over the records' fields (in the first record's order): every primary
/// field up to [`RANKED_FIELDS`], topped up with the next most important to [`RANKED_MIN`].
fn ranked(records: &[&Map<String, Value>]) -> Vec<String> {
    // First-seen order in `seen`; membership in a set (a list made wide records quadratic).
    let mut seen: Vec<(&String, u8)> = Vec::new();
    let mut known: std::collections::HashSet<&String> = std::collections::HashSet::new();
    for record in records {
        for (key, value) in record.iter() {
            if !known.insert(key) {
                continue;
            }
            // Verbose fields rank last: they only fill a record that has little else.
            seen.push((key, rank(key, value).unwrap_or(u8::MAX)));
        }
    }
    let mut order: Vec<usize> = (0..seen.len()).collect();
    order.sort_by_key(|&i| seen[i].1);
    let primary = order.iter().filter(|&&i| seen[i].1 <= 4).count();
    let keep = primary.clamp(RANKED_MIN.min(order.len()), RANKED_FIELDS);
    let mut chosen: Vec<usize> = order.into_iter().take(keep).collect();
    chosen.sort_unstable();
    chosen.into_iter().map(|i| seen[i].0.clone()).collect()
}

/// True when `path` leads somewhere in `value` (through lists too).
pub fn path_exists(value: &Value, path: &str) -> bool {
    fn walk(value: &Value, parts: &[&str]) -> bool {
        let Some((first, rest)) = parts.split_first() else {
            return true;
        };
        match value {
            Value::Object(map) => map.get(*first).is_some_and(|v| walk(v, rest)),
            Value::Array(items) => items.iter().any(|i| walk(i, parts)),
            _ => false,
        }
    }
    walk(value, &path.split('.').collect::<Vec<_>>())
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::reshape::summarize::sample::Lengths;
    use crate::reshape::summarize::shrink::{Level, Shrinker};
    use crate::reshape::summarize::text::Shortener;
    use serde_json::json;

    /// `record` through `paths` the way a preview projects it, with nothing else cut.
    fn project(record: &Value, paths: &[String]) -> Value {
        let mut s = Shrinker {
            level: Level {
                items: usize::MAX,
                string: usize::MAX,
                fields: usize::MAX,
                depth: usize::MAX,
            },
            terms: &[],
            lengths: &Lengths::default(),
            shortener: &Shortener::default(),
            lossy: false,
        };
        let split: Vec<Vec<String>> = paths
            .iter()
            .map(|p| p.split('.').map(str::to_owned).collect())
            .collect();
        s.record(record, Some(&split), usize::MAX)
    }

    fn booking() -> Value {
        json!({
            "id": "bk_1", "propertyId": "p_7", "guestName": "Ingrid Nowak",
            "guestEmail": "g@example.com", "status": "confirmed", "checkInDate": "2026-12-01",
            "nights": 3, "totalPrice": {"amount": 500, "currency": "EUR"},
            "priceBreakdown": {"nightly": 150, "cleaningFee": 50},
            "notes": "Late arrival.", "description": "x".repeat(400),
            "rooms": [{"type": "double", "beds": 1}, {"type": "single", "beds": 1}]
        })
    }

    #[test]
    fn nested_paths_rebuild_their_structure_in_record_order() {
        let p = project(
            &booking(),
            &["totalPrice.amount".into(), "id".into(), "rooms.type".into()],
        );
        assert_eq!(
            p,
            json!({"id": "bk_1", "totalPrice": {"amount": 500}, "rooms": [{"type": "double"}, {"type": "single"}]})
        );
        assert!(path_exists(&booking(), "rooms.beds"));
        assert!(!path_exists(&booking(), "price.total"));
    }

    #[test]
    fn a_section_comes_back_whole() {
        let p = project(&booking(), &["priceBreakdown".into()]);
        assert_eq!(
            p,
            json!({"priceBreakdown": {"nightly": 150, "cleaningFee": 50}})
        );
    }

    #[test]
    fn ranking_keeps_identifying_fields_and_drops_verbose_ones() {
        let b = booking();
        let map = b.as_object().unwrap();
        let chosen = ranked(&[map]);
        assert_eq!(
            chosen,
            [
                "id",
                "propertyId",
                "guestName",
                "guestEmail",
                "status",
                "checkInDate",
                "nights",
                "totalPrice"
            ]
        );
    }

    #[test]
    fn maps_are_chosen_by_list_name_or_by_overlap() {
        let maps = crate::config::Config::default().projections;
        let b = booking();
        let records = [b.as_object().unwrap()];
        let by_name = choose(&Fields::Auto, Some("bookings"), &records, &maps);
        assert_eq!(by_name.source, "projection map booking");
        let by_overlap = choose(&Fields::Auto, Some("results"), &records, &maps);
        assert_eq!(by_overlap.source, "projection map booking");
        let other = json!({"sha": "abc", "author": "x"});
        let none = choose(&Fields::Auto, None, &[other.as_object().unwrap()], &maps);
        assert_eq!(none.source, "ranking");
    }
}
