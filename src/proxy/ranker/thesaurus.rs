//! Words that mean the same in requests for tools: an agent asks to "remove" what a tool
//! "deletes", to list a "folder" where the tool says "directory". Each group is a set of
//! words of general English as software uses it (verbs of creating, reading, changing and
//! removing; the nouns tools act on), not the names of any server's tools. A query word gets
//! the other words of its groups at a lower weight than its own, so a tool that uses the
//! query's own word still comes first.

use std::collections::HashMap;

use super::Terms;

/// How much a synonym counts against the query's own word.
pub const SYNONYM_WEIGHT: f32 = 0.5;

const GROUPS: &[&[&str]] = &[
    // creating
    &[
        "create", "make", "new", "add", "generate", "build", "produce", "insert",
    ],
    // reading
    &[
        "read", "get", "retrieve", "fetch", "load", "obtain", "view", "show", "display", "open",
    ],
    &["list", "enumerate", "listing", "browse", "index"],
    // changing
    &[
        "update", "edit", "modify", "change", "alter", "revise", "patch",
    ],
    &["write", "save", "store", "persist", "record"],
    &[
        "delete", "remove", "erase", "drop", "destroy", "discard", "purge", "strip",
    ],
    &["move", "rename", "relocate"],
    &["copy", "duplicate", "clone"],
    &["convert", "translate", "transform", "turn"],
    &["compare", "diff", "difference", "differ"],
    &["merge", "combine", "join"],
    &["split", "divide", "separate"],
    // finding
    &["search", "find", "locate", "lookup", "query", "look"],
    &["filter", "match", "pattern", "wildcard", "glob"],
    // running
    &["run", "execute", "invoke", "launch", "start", "evaluate"],
    &["stop", "kill", "terminate", "end", "abort", "cancel"],
    &["download", "fetch", "pull"],
    &["upload", "push", "send", "post"],
    &["connect", "link", "attach", "associate", "relate"],
    // things
    &["directory", "folder", "subfolder", "subdirectory"],
    &["file", "document", "doc"],
    &["image", "picture", "photo", "png", "jpeg", "icon"],
    &["url", "link", "webpage", "website", "page", "site"],
    &["relation", "relationship", "link", "connection", "edge"],
    &["history", "log", "past", "previous"],
    &["node", "entity", "vertex"],
    &["fact", "observation"],
    &["tree", "nested", "recursive", "hierarchy", "hierarchical"],
    &["size", "large", "big", "bytes"],
    &[
        "information",
        "info",
        "metadata",
        "detail",
        "details",
        "stats",
    ],
];

/// The synonyms of each stemmed word, stemmed.
pub struct Thesaurus {
    synonyms: HashMap<String, Vec<String>>,
}

impl Thesaurus {
    pub fn new(terms: &Terms) -> Self {
        let mut synonyms: HashMap<String, Vec<String>> = HashMap::new();
        for group in GROUPS {
            let stems: Vec<String> = group.iter().flat_map(|w| terms.of(w)).collect();
            for stem in &stems {
                let entry = synonyms.entry(stem.clone()).or_default();
                for other in &stems {
                    if other != stem && !entry.contains(other) {
                        entry.push(other.clone());
                    }
                }
            }
        }
        Thesaurus { synonyms }
    }

    /// The other words of `stem`'s groups.
    pub fn of(&self, stem: &str) -> &[String] {
        self.synonyms.get(stem).map_or(&[], Vec::as_slice)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_word_meets_its_group_stemmed_and_not_itself() {
        let terms = Terms::default();
        let thesaurus = Thesaurus::new(&terms);
        let removing = thesaurus.of("remov");
        assert!(removing.iter().any(|s| s == "delet"), "{removing:?}");
        assert!(!removing.iter().any(|s| s == "remov"));
        assert!(thesaurus.of("folder").iter().any(|s| s == "directori"));
        assert!(thesaurus.of("node").iter().any(|s| s == "entiti"));
        assert!(thesaurus.of("nest").iter().any(|s| s == "tree"));
        assert!(thesaurus.of("zebra").is_empty());
    }
}
