//! structuredContent that stays valid against the tool's outputSchema (MCP: a tool that
//! declares one must return conforming structuredContent): required properties are always
//! kept, optional ones by importance up to the level's field count, arrays cut to the level's
//! items (never below `minItems`) with `hasMore: true` beside them where the schema allows,
//! strings shortened unless a pattern, format, enum or const constrains them. The result is
//! validated; a level that cannot produce a valid value is skipped.

use serde_json::{Map, Value};

use super::SummarizeError;
use super::project::rank;
use super::shrink::Level;
use super::text;

pub struct Target<'a> {
    schema: &'a Value,
    validator: jsonschema::Validator,
    source: Option<Value>,
}

impl<'a> Target<'a> {
    /// `schema` is an outputSchema, or a tool definition holding one.
    pub fn new(schema: &'a Value, source: Option<&Value>) -> Result<Target<'a>, SummarizeError> {
        let schema = schema.get("outputSchema").unwrap_or(schema);
        let validator = jsonschema::validator_for(schema)
            .map_err(|e| SummarizeError::Schema(format!("not a valid JSON Schema: {e}")))?;
        Ok(Target {
            schema,
            validator,
            source: source.cloned(),
        })
    }

    /// structuredContent at `level`, or `None` if it would not validate.
    pub fn fit(&self, level: &Level, terms: &[String]) -> Option<Value> {
        let source = self.source.as_ref()?;
        let value = shrink(source, self.schema, level, terms, level.depth + 2);
        self.validator.is_valid(&value).then_some(value)
    }
}

fn shrink(value: &Value, schema: &Value, level: &Level, terms: &[String], depth: usize) -> Value {
    match value {
        Value::Object(m) => {
            let props = schema.get("properties").and_then(Value::as_object);
            let required: Vec<&str> = schema
                .get("required")
                .and_then(Value::as_array)
                .map(|r| r.iter().filter_map(Value::as_str).collect())
                .unwrap_or_default();
            let mut optional: Vec<(usize, u8)> = m
                .iter()
                .enumerate()
                .filter(|(_, (k, _))| !required.contains(&k.as_str()))
                .map(|(i, (k, v))| (i, rank(k, v).unwrap_or(u8::MAX)))
                .collect();
            optional.sort_by_key(|(_, r)| *r);
            let room = level.fields.saturating_sub(required.len());
            let keep_optional: Vec<usize> = if depth == 0 {
                Vec::new()
            } else {
                optional.iter().take(room).map(|(i, _)| *i).collect()
            };
            let additional_ok = schema.get("additionalProperties") != Some(&Value::Bool(false))
                || props.is_some_and(|p| p.contains_key("hasMore"));
            let mut out = Map::new();
            let mut cut = false;
            for (i, (k, v)) in m.iter().enumerate() {
                if !required.contains(&k.as_str()) && !keep_optional.contains(&i) {
                    continue;
                }
                let sub = props.and_then(|p| p.get(k)).unwrap_or(&Value::Bool(true));
                if let Value::Array(a) = v {
                    let min = sub.get("minItems").and_then(Value::as_u64).unwrap_or(0) as usize;
                    if a.len() > level.items.max(min) {
                        cut = true;
                    }
                }
                out.insert(
                    k.clone(),
                    shrink(v, sub, level, terms, depth.saturating_sub(1)),
                );
            }
            if cut && additional_ok && !out.contains_key("hasMore") {
                out.insert("hasMore".into(), Value::Bool(true));
            }
            Value::Object(out)
        }
        Value::Array(a) => {
            let min = schema.get("minItems").and_then(Value::as_u64).unwrap_or(0) as usize;
            let item_schema = schema.get("items").unwrap_or(&Value::Bool(true));
            Value::Array(
                a.iter()
                    .take(level.items.max(min))
                    .map(|v| shrink(v, item_schema, level, terms, depth.saturating_sub(1)))
                    .collect(),
            )
        }
        Value::String(s) => {
            let constrained = ["pattern", "format", "enum", "const"]
                .iter()
                .any(|k| schema.get(k).is_some());
            if constrained {
                value.clone()
            } else {
                Value::String(text::shorten(s, level.string, terms))
            }
        }
        other => other.clone(),
    }
}
