//! What the measuring pass reads of a JSON tree, for either of two trees: `serde_json::Value`,
//! which every command parses, and [`crate::json::borrowed::Json`] (strings borrowed from the text,
//! objects as lists of members, nothing hashed, all in one arena), which is read in less than
//! half the time.
//! What is written against [`Node`] (the anatomy, the estimate, the measures, the audit's
//! rules, compact JSON) is written once for both.

use std::borrow::Cow;

use serde_json::{Map, Number, Value};

/// What a node is, with what it holds borrowed.
pub enum NodeKind<'v, N: Node> {
    Null,
    Bool(bool),
    Number(&'v Number),
    String(&'v str),
    Array(&'v [N]),
    Object(&'v N::Members),
}

impl<N: Node> Clone for NodeKind<'_, N> {
    fn clone(&self) -> Self {
        *self
    }
}

impl<N: Node> Copy for NodeKind<'_, N> {}

/// A JSON value read in place. The provided methods answer as `serde_json::Value`'s of the
/// same names do.
pub trait Node: Sized {
    /// An object's members, in the order the text gives them.
    type Members: Members<Node = Self>;

    fn kind(&self) -> NodeKind<'_, Self>;

    fn get(&self, key: &str) -> Option<&Self> {
        self.as_object()?.get(key)
    }

    /// The value at an RFC 6901 pointer (`""` is the value itself).
    fn pointer(&self, pointer: &str) -> Option<&Self> {
        if pointer.is_empty() {
            return Some(self);
        }
        let tokens = pointer.strip_prefix('/')?;
        tokens.split('/').try_fold(self, |node, token| {
            let token = token.replace("~1", "/").replace("~0", "~");
            match node.kind() {
                NodeKind::Object(members) => members.get(&token),
                NodeKind::Array(items) => array_index(&token).and_then(|i| items.get(i)),
                _ => None,
            }
        })
    }

    fn as_str(&self) -> Option<&str> {
        match self.kind() {
            NodeKind::String(s) => Some(s),
            _ => None,
        }
    }

    fn as_array(&self) -> Option<&[Self]> {
        match self.kind() {
            NodeKind::Array(items) => Some(items),
            _ => None,
        }
    }

    fn as_object(&self) -> Option<&Self::Members> {
        match self.kind() {
            NodeKind::Object(members) => Some(members),
            _ => None,
        }
    }

    fn as_number(&self) -> Option<&Number> {
        match self.kind() {
            NodeKind::Number(n) => Some(n),
            _ => None,
        }
    }

    fn as_u64(&self) -> Option<u64> {
        self.as_number()?.as_u64()
    }

    fn as_i64(&self) -> Option<i64> {
        self.as_number()?.as_i64()
    }

    fn as_bool(&self) -> Option<bool> {
        match self.kind() {
            NodeKind::Bool(b) => Some(b),
            _ => None,
        }
    }

    fn is_null(&self) -> bool {
        matches!(self.kind(), NodeKind::Null)
    }

    fn is_array(&self) -> bool {
        matches!(self.kind(), NodeKind::Array(_))
    }

    fn is_object(&self) -> bool {
        matches!(self.kind(), NodeKind::Object(_))
    }

    fn is_string(&self) -> bool {
        matches!(self.kind(), NodeKind::String(_))
    }

    /// The same value as a `serde_json::Value`, for what only takes one (a contract's schema,
    /// a catalog's tools).
    fn to_value(&self) -> Value {
        match self.kind() {
            NodeKind::Null => Value::Null,
            NodeKind::Bool(b) => Value::Bool(b),
            NodeKind::Number(n) => Value::Number(n.clone()),
            NodeKind::String(s) => Value::String(s.to_owned()),
            NodeKind::Array(items) => Value::Array(items.iter().map(Node::to_value).collect()),
            NodeKind::Object(members) => Value::Object(
                members
                    .iter()
                    .map(|(k, v)| (k.to_owned(), v.to_value()))
                    .collect(),
            ),
        }
    }

    /// The value as a `serde_json::Value`: itself when it is one, else a copy.
    fn as_value(&self) -> Cow<'_, Value> {
        Cow::Owned(self.to_value())
    }
}

/// An object's members: each key once, in the text's order.
pub trait Members {
    /// What the members' values are.
    type Node: Node;

    fn len(&self) -> usize;

    fn is_empty(&self) -> bool {
        self.len() == 0
    }

    fn get(&self, key: &str) -> Option<&Self::Node>;

    fn contains_key(&self, key: &str) -> bool {
        self.get(key).is_some()
    }

    fn iter(&self) -> impl ExactSizeIterator<Item = (&str, &Self::Node)>;
}

/// A tree that can be read from a JSON text borrowed for `'a` (the JSON inside a text block).
pub trait ReadText<'a>: Node {
    /// What reading needs besides the text: nothing for serde_json's tree, the arena the
    /// borrowed tree is built in.
    type Reader: Copy;

    /// The text's value, `None` when it is not JSON.
    fn read(text: &'a str, reader: Self::Reader) -> Option<Self>;
}

impl ReadText<'_> for Value {
    type Reader = ();

    fn read(text: &str, (): ()) -> Option<Value> {
        crate::json::parse::parse(text).ok()
    }
}

/// Whether two values are equal as `serde_json::Value`'s `==` has them: objects as maps (the
/// same keys with equal values, in any order), numbers as `serde_json` keeps them.
pub fn equal<N: Node>(a: &N, b: &N) -> bool {
    match (a.kind(), b.kind()) {
        (NodeKind::Null, NodeKind::Null) => true,
        (NodeKind::Bool(x), NodeKind::Bool(y)) => x == y,
        (NodeKind::Number(x), NodeKind::Number(y)) => x == y,
        (NodeKind::String(x), NodeKind::String(y)) => x == y,
        (NodeKind::Array(x), NodeKind::Array(y)) => {
            x.len() == y.len() && x.iter().zip(y).all(|(x, y)| equal(x, y))
        }
        (NodeKind::Object(x), NodeKind::Object(y)) => {
            x.len() == y.len()
                && x.iter()
                    .all(|(key, x)| y.get(key).is_some_and(|y| equal(x, y)))
        }
        _ => false,
    }
}

/// An array index as RFC 6901 (and serde_json) reads one: digits, no sign, no leading zero.
fn array_index(token: &str) -> Option<usize> {
    if token.starts_with('+') || (token.starts_with('0') && token.len() != 1) {
        return None;
    }
    token.parse().ok()
}

impl Node for Value {
    type Members = Map<String, Value>;

    fn kind(&self) -> NodeKind<'_, Self> {
        match self {
            Value::Null => NodeKind::Null,
            Value::Bool(b) => NodeKind::Bool(*b),
            Value::Number(n) => NodeKind::Number(n),
            Value::String(s) => NodeKind::String(s),
            Value::Array(items) => NodeKind::Array(items),
            Value::Object(members) => NodeKind::Object(members),
        }
    }

    fn to_value(&self) -> Value {
        self.clone()
    }

    fn as_value(&self) -> Cow<'_, Value> {
        Cow::Borrowed(self)
    }
}

impl Members for Map<String, Value> {
    type Node = Value;

    fn len(&self) -> usize {
        Map::len(self)
    }

    fn get(&self, key: &str) -> Option<&Value> {
        Map::get(self, key)
    }

    fn iter(&self) -> impl ExactSizeIterator<Item = (&str, &Value)> {
        Map::iter(self).map(|(k, v)| (k.as_str(), v))
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    #[test]
    fn a_pointer_finds_what_serde_json_s_finds() {
        let doc = json!({"a/b": {"~x": [10, 20, {"": 3}]}, "0": [1], "list": [5, 6]});
        for pointer in [
            "",
            "/",
            "/a~1b",
            "/a~1b/~0x",
            "/a~1b/~0x/1",
            "/a~1b/~0x/2/",
            "/0",
            "/0/0",
            "/list/01",
            "/list/+1",
            "/list/1",
            "/list/2",
            "/list/-",
            "a",
            "/missing",
            "/a~1b/~0x/1/x",
        ] {
            assert_eq!(
                Node::pointer(&doc, pointer),
                doc.pointer(pointer),
                "{pointer}"
            );
        }
    }
}
