//! Answers about records without the records: `count`, and `sum`, `min`, `max`, `avg` of a field,
//! over the items a filter keeps, overall or grouped by a field. "How many cancelled, and their
//! total" is one small object, whatever the list's length.

use std::cmp::Ordering;

use serde_json::{Map, Value, json};

use super::filter::instant;
use super::order::field;

/// One figure asked for.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum Measure {
    Count,
    Sum(String),
    Min(String),
    Max(String),
    Avg(String),
}

impl Measure {
    /// How the answer names it: `count`, `sum(total)`.
    pub fn name(&self) -> String {
        match self {
            Measure::Count => "count".into(),
            Measure::Sum(f) => format!("sum({f})"),
            Measure::Min(f) => format!("min({f})"),
            Measure::Max(f) => format!("max({f})"),
            Measure::Avg(f) => format!("avg({f})"),
        }
    }
}

/// What to work out: figures, optionally per value of a field.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Aggregate {
    pub measures: Vec<Measure>,
    pub group_by: Option<String>,
}

/// Groups listed at most; the rest are counted.
pub const MAX_GROUPS: usize = 200;

impl Aggregate {
    /// `count, sum(total), avg(total)` (also `sum:total`), and a field to group by.
    pub fn parse(text: &str, group_by: Option<&str>) -> Result<Aggregate, String> {
        let mut measures = Vec::new();
        for part in text.split(',').map(str::trim).filter(|p| !p.is_empty()) {
            let (name, arg) = match part.split_once('(') {
                Some((n, rest)) => (
                    n.trim(),
                    Some(
                        rest.strip_suffix(')')
                            .ok_or_else(|| format!("`{part}`: a `)` is missing"))?
                            .trim(),
                    ),
                ),
                None => match part.split_once(':') {
                    Some((n, f)) => (n.trim(), Some(f.trim())),
                    None => (part, None),
                },
            };
            let field = |arg: Option<&str>| match arg {
                Some(f) if !f.is_empty() && !f.contains(char::is_whitespace) => Ok(f.to_owned()),
                _ => Err(format!(
                    "`{part}`: {name} needs a field, e.g. {name}(total)"
                )),
            };
            measures.push(match name.to_ascii_lowercase().as_str() {
                "count" if arg.is_none_or(|a| a.is_empty() || a == "*") => Measure::Count,
                "sum" => Measure::Sum(field(arg)?),
                "min" => Measure::Min(field(arg)?),
                "max" => Measure::Max(field(arg)?),
                "avg" | "mean" => Measure::Avg(field(arg)?),
                _ => {
                    return Err(format!(
                        "`{part}`: expected count, sum(FIELD), min(FIELD), max(FIELD) or avg(FIELD)"
                    ));
                }
            });
        }
        if measures.is_empty() {
            measures.push(Measure::Count);
        }
        let group_by = group_by.map(str::trim).filter(|g| !g.is_empty());
        if let Some(g) = group_by
            && g.contains(char::is_whitespace)
        {
            return Err(format!("group by `{g}`: one field, dotted for nested ones"));
        }
        Ok(Aggregate {
            measures,
            group_by: group_by.map(str::to_owned),
        })
    }

    /// The figures over `items`: `{count, sum(f), ...}`, or `{groups: [...]}` largest first.
    pub fn over<V: std::borrow::Borrow<Value>>(&self, items: impl Iterator<Item = V>) -> Value {
        let mut groups: Vec<(Value, Tally)> = Vec::new();
        let mut index: std::collections::HashMap<String, usize> = Default::default();
        for item in items {
            let item = item.borrow();
            let slot = match &self.group_by {
                None => 0,
                Some(g) => {
                    let key = field(item, g).cloned().unwrap_or(Value::Null);
                    let text = key.to_string();
                    *index.entry(text).or_insert_with(|| {
                        groups.push((key, Tally::new(self.measures.len())));
                        groups.len() - 1
                    })
                }
            };
            if groups.is_empty() {
                groups.push((Value::Null, Tally::new(self.measures.len())));
            }
            groups[slot].1.add(item, &self.measures);
        }
        let Some(group_by) = &self.group_by else {
            let tally = groups
                .pop()
                .map_or_else(|| Tally::new(self.measures.len()), |(_, t)| t);
            return Value::Object(tally.figures(&self.measures));
        };
        // Largest groups first; ties in the order first seen.
        groups.sort_by_key(|g| std::cmp::Reverse(g.1.count));
        let total = groups.len();
        let listed: Vec<Value> = groups
            .into_iter()
            .take(MAX_GROUPS)
            .map(|(key, tally)| {
                let mut m = Map::new();
                m.insert(group_by.clone(), key);
                m.extend(tally.figures(&self.measures));
                Value::Object(m)
            })
            .collect();
        let mut out = json!({ "groups": listed });
        if total > MAX_GROUPS {
            out["moreGroups"] = (total - MAX_GROUPS).into();
        }
        out
    }
}

/// The running figures of one group.
struct Tally {
    count: u64,
    /// Per measure: numbers seen, their sum, the least and greatest values.
    numbers: Vec<u64>,
    sums: Vec<f64>,
    least: Vec<Option<Value>>,
    most: Vec<Option<Value>>,
    /// Per measure: items whose field was missing or not a number (for sum and avg).
    skipped: Vec<u64>,
}

impl Tally {
    fn new(n: usize) -> Tally {
        Tally {
            count: 0,
            numbers: vec![0; n],
            sums: vec![0.0; n],
            least: vec![None; n],
            most: vec![None; n],
            skipped: vec![0; n],
        }
    }

    fn add(&mut self, item: &Value, measures: &[Measure]) {
        self.count += 1;
        for (i, m) in measures.iter().enumerate() {
            let (Measure::Sum(f) | Measure::Avg(f) | Measure::Min(f) | Measure::Max(f)) = m else {
                continue;
            };
            let v = field(item, f);
            match m {
                Measure::Sum(_) | Measure::Avg(_) => match v.and_then(number) {
                    Some(n) => {
                        self.numbers[i] += 1;
                        self.sums[i] += n;
                    }
                    None => self.skipped[i] += 1,
                },
                Measure::Min(_) | Measure::Max(_) => match v {
                    Some(v) if !v.is_null() => {
                        let slot = if matches!(m, Measure::Min(_)) {
                            &mut self.least[i]
                        } else {
                            &mut self.most[i]
                        };
                        let better = slot.as_ref().is_none_or(|best| {
                            let ord = compare(v, best);
                            if matches!(m, Measure::Min(_)) {
                                ord == Ordering::Less
                            } else {
                                ord == Ordering::Greater
                            }
                        });
                        if better {
                            *slot = Some(v.clone());
                        }
                    }
                    _ => self.skipped[i] += 1,
                },
                Measure::Count => {}
            }
        }
    }

    fn figures(self, measures: &[Measure]) -> Map<String, Value> {
        let mut out = Map::new();
        let mut skipped = Map::new();
        for (i, m) in measures.iter().enumerate() {
            let value = match m {
                Measure::Count => self.count.into(),
                Measure::Sum(_) => tidy(self.sums[i]),
                Measure::Avg(_) if self.numbers[i] == 0 => Value::Null,
                Measure::Avg(_) => tidy(self.sums[i] / self.numbers[i] as f64),
                Measure::Min(_) => self.least[i].clone().unwrap_or(Value::Null),
                Measure::Max(_) => self.most[i].clone().unwrap_or(Value::Null),
            };
            out.insert(m.name(), value);
            if self.skipped[i] > 0 {
                skipped.insert(m.name(), self.skipped[i].into());
            }
        }
        if !skipped.is_empty() {
            // Items whose field was missing or not a number: the figure leaves them out.
            out.insert("itemsLeftOut".into(), Value::Object(skipped));
        }
        out
    }
}

/// A number, or a string that is one.
fn number(v: &Value) -> Option<f64> {
    match v {
        Value::Number(n) => n.as_f64(),
        Value::String(s) => s.trim().parse().ok().filter(|n: &f64| n.is_finite()),
        _ => None,
    }
}

/// Numbers as numbers, dates as instants, other text by its bytes; numbers before text.
fn compare(a: &Value, b: &Value) -> Ordering {
    match (number(a), number(b)) {
        (Some(x), Some(y)) => return x.total_cmp(&y),
        (Some(_), None) => return Ordering::Less,
        (None, Some(_)) => return Ordering::Greater,
        _ => {}
    }
    match (a.as_str(), b.as_str()) {
        (Some(x), Some(y)) => match (instant(x), instant(y)) {
            (Some(p), Some(q)) => p.total_cmp(&q),
            _ => x.cmp(y),
        },
        _ => a.to_string().cmp(&b.to_string()),
    }
}

/// A sum as people write it: whole numbers without `.0`, others to 6 significant decimals.
fn tidy(n: f64) -> Value {
    if n.fract() == 0.0 && n.abs() < 9e15 {
        (n as i64).into()
    } else {
        let rounded = (n * 1e6).round() / 1e6;
        serde_json::Number::from_f64(rounded).map_or(Value::Null, Value::Number)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn bookings() -> Vec<Value> {
        vec![
            json!({"status": "cancelled", "total": 100.5, "at": "2026-11-02"}),
            json!({"status": "confirmed", "total": 20, "at": "2026-11-01"}),
            json!({"status": "cancelled", "total": "30", "at": "2026-11-03"}),
            json!({"status": "cancelled", "at": "2026-10-30"}),
        ]
    }

    #[test]
    fn figures_overall() {
        let a =
            Aggregate::parse("count, sum(total), avg:total, min(at), max(total)", None).unwrap();
        let out = a.over(bookings().iter());
        assert_eq!(
            out,
            json!({"count": 4, "sum(total)": 150.5, "avg(total)": 50.166667,
                   "min(at)": "2026-10-30", "max(total)": 100.5,
                   "itemsLeftOut": {"sum(total)": 1, "avg(total)": 1, "max(total)": 1}})
        );
    }

    #[test]
    fn grouped_largest_first() {
        let a = Aggregate::parse("count,sum(total)", Some("status")).unwrap();
        let out = a.over(bookings().iter());
        assert_eq!(out["groups"][0]["status"], "cancelled");
        assert_eq!(out["groups"][0]["count"], 3);
        assert_eq!(out["groups"][0]["sum(total)"], 130.5);
        assert_eq!(
            out["groups"][1],
            json!({"status": "confirmed", "count": 1, "sum(total)": 20})
        );
        assert_eq!(
            Aggregate::parse("", None).unwrap().over([].iter()),
            json!({"count": 0})
        );
    }

    #[test]
    fn bad_measures() {
        assert!(
            Aggregate::parse("sum", None)
                .unwrap_err()
                .contains("sum needs a field")
        );
        assert!(
            Aggregate::parse("median(x)", None)
                .unwrap_err()
                .contains("expected count")
        );
        assert!(
            Aggregate::parse("sum(total", None)
                .unwrap_err()
                .contains("`)` is missing")
        );
    }
}
