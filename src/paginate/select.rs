//! Records picked by a question: those that pass a filter (and, when given, whose JSON matches a
//! pattern), in an order, narrowed to some fields. What `mcpguard_more` pages when the model
//! asks for `where`, `match` over records, `order_by` or `fields`; the result is a document of
//! its own (`{"items": [...]}`, or a map of records keyed as before) that pages like any list.

use regex::bytes::Regex;
use serde_json::{Map, Value, json};

use super::filter::Where;
use super::locate::Located;
use super::order::{Order, SortKey, field};

/// The records a question picked, and how many there were to pick from.
pub struct Selection {
    pub doc: Value,
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
    /// True when `item` passes the filter and the pattern.
    pub fn keeps(&self, item: &Value) -> bool {
        self.filter.is_none_or(|f| f.matches(item))
            && self
                .pattern
                .is_none_or(|p| serde_json::to_vec(item).is_ok_and(|text| p.is_match(&text)))
    }
}

/// The records of `located` that `question` keeps, ordered (stably) and narrowed.
pub fn select(located: &Located<'_>, question: &Question<'_>) -> Selection {
    let total = located.len();
    let mut kept: Vec<usize> = (0..total)
        .filter(|&i| question.keeps(&located.item(i)))
        .collect();
    if let Some(order) = question.order {
        let items: Vec<_> = (0..total).map(|i| located.item(i)).collect();
        let keys: Vec<SortKey<'_>> = items
            .iter()
            .map(|item| SortKey::of(field(item, &order.field)))
            .collect();
        kept.sort_by(|a, b| keys[*a].compare(&keys[*b], order.descending));
    }
    let shown = |i: usize| {
        let item = located.item(i);
        match question.fields {
            Some(names) => project(&item, names),
            None => item.into_owned(),
        }
    };
    let doc = match &located.map {
        Some(map) => Value::Object(
            kept.iter()
                .map(|&i| (map.keys[i].clone(), shown(i)))
                .collect::<Map<String, Value>>(),
        ),
        None => json!({ "items": kept.iter().map(|&i| shown(i)).collect::<Vec<_>>() }),
    };
    Selection {
        matched: kept.len(),
        doc,
        total,
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
    use crate::paginate::locate;

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
            picked.doc,
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
        assert_eq!(picked.doc["items"][0]["id"], 2);
        let (missing, known) = unknown_fields(&located, &["statsu", "guest.name"]);
        assert_eq!(missing, ["statsu"]);
        assert_eq!(known, ["id", "status", "total", "guest"]);
    }
}
