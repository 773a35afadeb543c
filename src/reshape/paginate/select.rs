//! Records picked by a question: those that pass a filter (and, when given, whose JSON matches a
//! pattern), in an order, narrowed to some fields. What `mcpguard_more` pages when the model
//! asks for `where`, `match` over records, `order_by` or `fields`; the result is a document of
//! its own (`{"items": [...]}`, or a map of records keyed as before) that pages like any list.

use regex::bytes::Regex;
use std::borrow::Cow;

use serde_json::{Map, Value};

use super::filter::Where;
use super::locate::Located;
use super::order::{Order, SortKey, field};

/// The records a question picked, and how many there were to pick from.
pub struct Selection {
    /// The picked records as a document's JSON text: `{"items": [...]}`, or a map of records
    /// keyed as before.
    pub text: String,
    /// Their indices in the list, in the order picked.
    pub kept: Vec<usize>,
    pub matched: usize,
    pub total: usize,
}

/// What to pick.
#[derive(Default)]
pub struct Question<'a> {
    pub filter: Option<&'a Where>,
    /// Matched against each record's compact JSON text.
    pub pattern: Option<&'a Regex>,
    pub order: Option<&'a Order>,
    /// Members to keep (dotted paths reach inside), in the order named.
    pub fields: Option<&'a [&'a str]>,
}

impl Question<'_> {
    /// True when `item` passes the filter and the pattern (matched against `text`, the item's
    /// JSON as the document has it, when known).
    pub fn keeps(&self, item: &Value, text: Option<&str>) -> bool {
        self.filter.is_none_or(|f| f.matches(item))
            && self.pattern.is_none_or(|p| match text {
                Some(t) => p.is_match(t.as_bytes()),
                None => serde_json::to_vec(item).is_ok_and(|t| p.is_match(&t)),
            })
    }

    /// The items of `located` this question keeps, each parsed once and handed on (a list
    /// read lazily is never held as a tree).
    pub fn kept<'l>(
        &'l self,
        located: &'l Located<'_>,
    ) -> impl Iterator<Item = (usize, std::borrow::Cow<'l, Value>)> + 'l {
        (0..located.len()).filter_map(move |i| {
            let item = located.item(i);
            self.keeps(&item, located.item_text(i)).then_some((i, item))
        })
    }
}

/// The records of `located` that `question` keeps, ordered (stably) and narrowed.
pub fn select(located: &Located<'_>, question: &Question<'_>) -> Selection {
    let total = located.len();
    // Each item parsed once: its index kept, and its sort key when there is an order.
    let mut order_keys: Vec<Value> = Vec::new();
    let mut kept: Vec<usize> = question
        .kept(located)
        .map(|(i, item)| {
            if let Some(order) = question.order {
                order_keys.push(field(&item, &order.field).cloned().unwrap_or(Value::Null));
            }
            i
        })
        .collect();
    if let Some(order) = question.order {
        let keys: Vec<SortKey<'_>> = order_keys.iter().map(|v| SortKey::of(Some(v))).collect();
        let mut at: Vec<usize> = (0..kept.len()).collect();
        at.sort_by(|a, b| keys[*a].compare(&keys[*b], order.descending));
        kept = at.into_iter().map(|j| kept[j]).collect();
    }
    let mut text = String::with_capacity(kept.len() * 64 + 16);
    match &located.map {
        Some(map) => {
            text.push('{');
            for (n, &i) in kept.iter().enumerate() {
                if n > 0 {
                    text.push(',');
                }
                text.push_str(&Value::from(map.keys[i].as_str()).to_string());
                text.push(':');
                text.push_str(&record_text(located, i, question.fields));
            }
            text.push('}');
        }
        None => {
            text.push_str("{\"items\":[");
            for (n, &i) in kept.iter().enumerate() {
                if n > 0 {
                    text.push(',');
                }
                text.push_str(&record_text(located, i, question.fields));
            }
            text.push_str("]}");
        }
    }
    Selection {
        matched: kept.len(),
        kept,
        text,
        total,
    }
}

/// Record `i` as JSON: its text as the document has it when the list is read lazily (never
/// parsed and printed again), else printed; narrowed to `fields` when given.
pub fn record_text<'l>(
    located: &'l Located<'_>,
    i: usize,
    fields: Option<&[&str]>,
) -> Cow<'l, str> {
    match (fields, located.item_text(i)) {
        (None, Some(raw)) => Cow::Borrowed(raw),
        (None, None) => Cow::Owned(located.item(i).to_string()),
        (Some(names), _) => Cow::Owned(project(&located.item(i), names).to_string()),
    }
}

/// The members of `value` named (dotted paths reach inside), in the order named; a value that
/// is not an object stays as it is.
pub fn project(value: &Value, names: &[&str]) -> Value {
    let Value::Object(_) = value else {
        return value.clone();
    };
    let mut out = Map::new();
    for name in names {
        if let Some(v) = field(value, name) {
            out.insert((*name).to_owned(), v.clone());
        }
    }
    Value::Object(out)
}

/// Fields a question names that no record has (a typo, most often), and the fields records do
/// have (those of the first records, in order), to say so.
pub fn unknown_fields(located: &Located<'_>, names: &[&str]) -> (Vec<String>, Vec<String>) {
    let missing = names
        .iter()
        .filter(|name| (0..located.len()).all(|i| field(&located.item(i), name).is_none()))
        .map(|name| (*name).to_owned())
        .collect();
    let mut known: Vec<String> = Vec::new();
    for i in 0..located.len().min(20) {
        if let Value::Object(m) = &*located.item(i) {
            for k in m.keys() {
                if !known.contains(k) {
                    known.push(k.clone());
                }
            }
        }
    }
    known.truncate(40);
    (missing, known)
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::reshape::paginate::locate;
    use serde_json::json;

    #[test]
    fn filters_orders_and_narrows() {
        let doc = json!({"bookings": [
            {"id": 1, "status": "cancelled", "total": 30, "guest": {"name": "Ana"}},
            {"id": 2, "status": "confirmed", "total": 10, "guest": {"name": "Bo"}},
            {"id": 3, "status": "cancelled", "total": 50, "guest": {"name": "Cy"}}
        ]});
        let located = locate(&doc, None).unwrap();
        let filter = Where::parse(&["status=cancelled"]).unwrap();
        let order = Order::parse("total:desc").unwrap();
        let fields = ["id", "guest.name"];
        let picked = select(
            &located,
            &Question {
                filter: Some(&filter),
                order: Some(&order),
                fields: Some(&fields),
                ..Question::default()
            },
        );
        assert_eq!((picked.matched, picked.total), (2, 3));
        assert_eq!(
            serde_json::from_str::<Value>(&picked.text).unwrap(),
            json!({"items": [{"id": 3, "guest.name": "Cy"}, {"id": 1, "guest.name": "Ana"}]})
        );
        let pattern = Regex::new("(?i)\"bo\"").unwrap();
        let picked = select(
            &located,
            &Question {
                pattern: Some(&pattern),
                ..Question::default()
            },
        );
        assert_eq!(picked.kept, [1]);
        let doc: Value = serde_json::from_str(&picked.text).unwrap();
        assert_eq!(doc["items"][0]["id"], 2);
        let (missing, known) = unknown_fields(&located, &["statsu", "guest.name"]);
        // A map of records stays a map, keyed as before.
        let users: Value = serde_json::from_str(
            &std::fs::read_to_string(
                std::path::Path::new(env!("CARGO_MANIFEST_DIR"))
                    .join("tests/fixtures/users-by-id-250.json"),
            )
            .unwrap(),
        )
        .unwrap();
        let map = locate(&users, None).unwrap();
        let team = Where::parse(&["plan=team and city in (Oslo, Turin)"]).unwrap();
        let picked = select(
            &map,
            &Question {
                filter: Some(&team),
                ..Question::default()
            },
        );
        let doc: Value = serde_json::from_str(&picked.text).unwrap();
        let want: Vec<&String> = users["users"]
            .as_object()
            .unwrap()
            .iter()
            .filter(|(_, u)| u["plan"] == "team" && (u["city"] == "Oslo" || u["city"] == "Turin"))
            .map(|(k, _)| k)
            .collect();
        assert!(!want.is_empty());
        let mut got: Vec<&String> = doc.as_object().unwrap().keys().collect();
        got.sort();
        let mut want = want;
        want.sort();
        assert_eq!(got, want);
        assert!(
            doc.as_object()
                .unwrap()
                .values()
                .all(|u| u["plan"] == "team")
        );
        assert_eq!(missing, ["statsu"]);
        assert_eq!(known, ["id", "status", "total", "guest"]);
    }
}
