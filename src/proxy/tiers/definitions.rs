//! The tool definitions a tiered catalog knows, kept as the servers wrote them: one text per
//! tool, in the catalog's order, one per name. A search, a summary or a describe parses the few
//! it needs; the listing never builds a tree of the whole catalog (10,000 tools are 6 MB of
//! text and ten times that as `serde_json` trees).

use std::collections::HashMap;

use serde_json::Value;
use serde_json::value::RawValue;

#[derive(Default)]
pub struct Definitions {
    texts: Vec<Box<RawValue>>,
    names: Vec<String>,
    at: HashMap<String, usize>,
}

impl Definitions {
    /// The definitions of `tools` (a test's or the audit's catalog), unnamed ones left out.
    pub fn of(tools: &[Value]) -> Self {
        let mut definitions = Definitions::default();
        for tool in tools {
            if let Some(name) = tool.get("name").and_then(Value::as_str)
                && let Ok(text) = serde_json::value::to_raw_value(tool)
            {
                definitions.insert(name, text);
            }
        }
        definitions
    }

    /// Remembers `name`'s definition: in its old place when the name is known, else last.
    pub fn insert(&mut self, name: &str, text: Box<RawValue>) {
        match self.at.get(name) {
            Some(&i) => self.texts[i] = text,
            None => {
                self.at.insert(name.to_owned(), self.names.len());
                self.names.push(name.to_owned());
                self.texts.push(text);
            }
        }
    }

    pub fn len(&self) -> usize {
        self.names.len()
    }

    pub fn is_empty(&self) -> bool {
        self.names.is_empty()
    }

    pub fn index_of(&self, name: &str) -> Option<usize> {
        self.at.get(name).copied()
    }

    pub fn contains(&self, name: &str) -> bool {
        self.at.contains_key(name)
    }

    pub fn name(&self, index: usize) -> &str {
        &self.names[index]
    }

    pub fn names(&self) -> impl Iterator<Item = &str> {
        self.names.iter().map(String::as_str)
    }

    /// The definition's JSON text, as the server wrote it.
    pub fn text(&self, index: usize) -> &str {
        self.texts[index].get()
    }

    /// The definition as a tree (the text was checked JSON when it was kept).
    pub fn tree(&self, index: usize) -> Value {
        serde_json::from_str(self.text(index)).unwrap_or(Value::Null)
    }
}

#[cfg(test)]
mod tests {
    use serde_json::json;

    use super::*;

    #[test]
    fn a_name_keeps_its_place_and_takes_its_new_text() {
        let mut definitions =
            Definitions::of(&[json!({"name": "a", "description": "one"}), json!({"x": 1})]);
        definitions.insert(
            "b",
            serde_json::value::to_raw_value(&json!({"name": "b"})).unwrap(),
        );
        definitions.insert(
            "a",
            RawValue::from_string(r#"{"name": "a", "description": "two"}"#.to_owned()).unwrap(),
        );
        assert_eq!(definitions.names().collect::<Vec<_>>(), ["a", "b"]);
        assert_eq!(definitions.index_of("b"), Some(1));
        assert_eq!(
            definitions.text(0),
            r#"{"name": "a", "description": "two"}"#
        );
        assert_eq!(definitions.tree(0)["description"], "two");
        assert!(!definitions.contains("x"));
    }
}
