//! The tool ranker behind `mcpguard_find_tools` (seed 004's T2 search, DESIGN.md section 12):
//! BM25F over the fields a tool is described by, built once per catalog change and asked many
//! times. Each field's term frequency is normalised by that field's length and weighted before
//! the saturation (so a word in the name counts for more than the same word in a long
//! description, and repeating a word cannot outweigh a rarer one); a query that names a tool
//! exactly ranks it first. Pure and deterministic: ties keep the catalog's order. Its quality is
//! measured in `scripts/bench-find.sh` (recall@k and MRR on graded queries).

pub mod quality;
mod terms;
mod thesaurus;

use std::collections::HashMap;

use serde_json::Value;

pub use terms::Terms;
use thesaurus::{SYNONYM_WEIGHT, Thesaurus};

/// The fields of a tool the ranker reads, in the order of [`WEIGHTS`].
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Field {
    /// The tool's own name, split into words.
    Name,
    /// The server's name and its category.
    Server,
    Description,
    /// Parameter names and their descriptions.
    Parameters,
}

const FIELDS: usize = 4;

/// How much a term in each field counts, and how much a field's length tempers it (BM25's
/// `b`): names are short and every word of them matters; descriptions vary in length.
const WEIGHTS: [f32; FIELDS] = [3.0, 1.5, 1.0, 0.5];
const LENGTH_NORM: [f32; FIELDS] = [0.3, 0.3, 0.75, 0.75];
/// BM25's saturation: how fast more occurrences stop adding. It applies to the weighted term
/// frequency, whose scale the name's weight sets: at BM25's usual 1.2 one word in a name
/// already saturated, and a tool with the query's word in its name and its description scored
/// hardly more than one with it in its name alone.
const K1: f32 = 3.0;
/// Added to the score of a tool the query names exactly.
const EXACT_NAME: f32 = 100.0;
/// A query word and a catalog word meet when one begins the other and the shorter has at least
/// this many characters ("relationship" and "relations"' stem "relat"), at [`PREFIX_WEIGHT`]:
/// what the stemmer leaves apart.
const PREFIX_LEN: usize = 5;
const PREFIX_WEIGHT: f32 = 0.5;

/// One tool as the ranker sees it.
#[derive(Clone, Debug, Default)]
pub struct Tool<'a> {
    pub name: &'a str,
    pub server: &'a str,
    pub category: &'a str,
    pub description: &'a str,
    /// `(name, description)` of each top-level parameter.
    pub parameters: Vec<(&'a str, &'a str)>,
}

impl<'a> Tool<'a> {
    /// A tool of a `tools/list` result, read as the ranker needs it.
    pub fn from_definition(server: &'a str, category: &'a str, tool: &'a Value) -> Self {
        let text = |v: Option<&'a Value>| v.and_then(Value::as_str).unwrap_or("");
        let parameters = tool
            .pointer("/inputSchema/properties")
            .and_then(Value::as_object)
            .map(|props| {
                props
                    .iter()
                    .map(|(name, p)| (name.as_str(), text(p.get("description"))))
                    .collect()
            })
            .unwrap_or_default();
        Tool {
            name: text(tool.get("name")),
            server,
            category,
            description: text(tool.get("description")),
            parameters,
        }
    }
}

/// A tool found, with how well it matched.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct Hit {
    /// The tool's index in the catalog the ranker was built from.
    pub tool: usize,
    pub score: f32,
}

/// Where a term occurs: the tool and its count in each field.
#[derive(Clone, Copy)]
struct Posting {
    tool: u32,
    counts: [u16; FIELDS],
}

/// The index of one catalog.
pub struct Ranker {
    terms: Terms,
    thesaurus: Thesaurus,
    postings: HashMap<String, Vec<Posting>>,
    /// The catalog's words, sorted, for the prefix rule.
    vocabulary: Vec<String>,
    lengths: Vec<[u16; FIELDS]>,
    mean_length: [f32; FIELDS],
    /// The tools by their name, lowercased, for the exact-name rule: names of more than one
    /// word only (`git_log`), as a one-word name (`search`, `fetch`) is also a word of
    /// requests that do not mean that tool.
    names: HashMap<String, Vec<u32>>,
}

/// A [`Ranker`] built one tool at a time, for a catalog whose tools are read one by one (a
/// tool's text parsed, indexed and dropped before the next).
#[derive(Default)]
pub struct Builder {
    terms: Terms,
    postings: HashMap<String, Vec<Posting>>,
    lengths: Vec<[u16; FIELDS]>,
    names: HashMap<String, Vec<u32>>,
    buffer: Vec<String>,
}

impl Builder {
    /// Indexes the next tool of the catalog.
    pub fn add(&mut self, tool: &Tool<'_>) {
        let terms = &self.terms;
        let buffer = &mut self.buffer;
        let id = self.lengths.len() as u32;
        if terms.of(tool.name).len() > 1 {
            self.names
                .entry(tool.name.to_lowercase())
                .or_default()
                .push(id);
        }
        let mut length = [0u16; FIELDS];
        let mut counts: HashMap<String, [u16; FIELDS]> = HashMap::new();
        for (field, texts) in [
            (Field::Name, vec![tool.name]),
            (Field::Server, vec![tool.server, tool.category]),
            (Field::Description, vec![tool.description]),
            (
                Field::Parameters,
                tool.parameters.iter().flat_map(|(n, d)| [*n, *d]).collect(),
            ),
        ] {
            let f = field as usize;
            buffer.clear();
            for text in texts {
                terms.push(text, buffer);
            }
            if field == Field::Server && tool.server == tool.category {
                buffer.truncate(buffer.len() / 2);
            }
            length[f] = saturate(buffer.len());
            for term in buffer.drain(..) {
                let c = &mut counts.entry(term).or_default()[f];
                *c = c.saturating_add(1);
            }
        }
        self.lengths.push(length);
        for (term, counts) in counts {
            self.postings
                .entry(term)
                .or_default()
                .push(Posting { tool: id, counts });
        }
    }

    pub fn finish(self) -> Ranker {
        let Builder {
            terms,
            postings,
            lengths,
            names,
            ..
        } = self;
        let n = lengths.len().max(1) as f32;
        let mut mean_length = [0f32; FIELDS];
        for length in &lengths {
            for f in 0..FIELDS {
                mean_length[f] += f32::from(length[f]) / n;
            }
        }
        let mut vocabulary: Vec<String> = postings.keys().cloned().collect();
        vocabulary.sort_unstable();
        Ranker {
            thesaurus: Thesaurus::new(&terms),
            terms,
            postings,
            vocabulary,
            lengths,
            mean_length,
            names,
        }
    }
}

impl Ranker {
    pub fn new<'a>(tools: impl IntoIterator<Item = Tool<'a>>) -> Self {
        let mut builder = Builder::default();
        for tool in tools {
            builder.add(&tool);
        }
        builder.finish()
    }

    pub fn len(&self) -> usize {
        self.lengths.len()
    }

    pub fn is_empty(&self) -> bool {
        self.lengths.is_empty()
    }

    /// The tools that match `query`, best first, at most `limit`; a tool no word of the query
    /// occurs in is never returned.
    pub fn rank(&self, query: &str, limit: usize) -> Vec<Hit> {
        let mut scores = vec![0f32; self.lengths.len()];
        let n = self.lengths.len() as f32;
        for (term, weight) in self.expand(query) {
            let Some(postings) = self.postings.get(term) else {
                continue;
            };
            let df = postings.len() as f32;
            let idf = (1.0 + (n - df + 0.5) / (df + 0.5)).ln();
            for p in postings {
                let length = &self.lengths[p.tool as usize];
                let mut tf = 0f32;
                for f in 0..FIELDS {
                    if p.counts[f] == 0 {
                        continue;
                    }
                    let norm = 1.0 - LENGTH_NORM[f]
                        + LENGTH_NORM[f] * f32::from(length[f]) / self.mean_length[f].max(1.0);
                    tf += WEIGHTS[f] * f32::from(p.counts[f]) / norm;
                }
                scores[p.tool as usize] += weight * idf * tf / (K1 + tf);
            }
        }
        for word in query.split_whitespace() {
            let word = word.trim_matches(|c: char| !(c.is_alphanumeric() || c == '_' || c == '-'));
            if let Some(ids) = self.names.get(&word.to_lowercase()) {
                for &id in ids {
                    scores[id as usize] += EXACT_NAME;
                }
            }
        }
        let mut hits: Vec<Hit> = scores
            .into_iter()
            .enumerate()
            .filter(|(_, s)| *s > 0.0)
            .map(|(tool, score)| Hit { tool, score })
            .collect();
        let by_score = |a: &Hit, b: &Hit| b.score.total_cmp(&a.score).then(a.tool.cmp(&b.tool));
        if hits.len() > limit {
            hits.select_nth_unstable_by(limit, by_score);
            hits.truncate(limit);
        }
        hits.sort_by(by_score);
        hits
    }
}

impl Ranker {
    /// The catalog words `query` is looked for as, each with its weight: the query's own words
    /// (1), catalog words one of them begins or is begun by, and their synonyms; a word reached
    /// two ways counts once, at its best weight.
    fn expand(&self, query: &str) -> Vec<(&str, f32)> {
        let mut weights: HashMap<&str, f32> = HashMap::new();
        let mut raise = |term: &str, weight: f32| {
            if let Some((key, _)) = self.postings.get_key_value(term) {
                let w = weights.entry(key.as_str()).or_insert(0.0);
                *w = w.max(weight);
            }
        };
        for term in self.terms.of(query) {
            raise(&term, 1.0);
            for synonym in self.thesaurus.of(&term) {
                raise(synonym, SYNONYM_WEIGHT);
            }
            if term.chars().count() < PREFIX_LEN {
                continue;
            }
            let from = self
                .vocabulary
                .partition_point(|w| w.as_str() < term.as_str());
            for word in self.vocabulary[from..]
                .iter()
                .take_while(|w| w.starts_with(&term))
            {
                raise(word, PREFIX_WEIGHT);
            }
            for (end, _) in term.char_indices().skip(PREFIX_LEN) {
                raise(&term[..end], PREFIX_WEIGHT);
            }
        }
        let mut expanded: Vec<(&str, f32)> = weights.into_iter().collect();
        expanded.sort_unstable_by(|a, b| a.0.cmp(b.0));
        expanded
    }
}

fn saturate(n: usize) -> u16 {
    u16::try_from(n).unwrap_or(u16::MAX)
}

#[cfg(test)]
mod tests {
    use super::*;

    fn tool<'a>(server: &'a str, name: &'a str, description: &'a str) -> Tool<'a> {
        Tool {
            name,
            server,
            category: server,
            description,
            parameters: Vec::new(),
        }
    }

    fn catalog() -> Vec<Tool<'static>> {
        vec![
            tool("git", "git_log", "Shows the commit logs"),
            tool(
                "filesystem",
                "read_text_file",
                "Read the complete contents of a file as text.",
            ),
            tool(
                "filesystem",
                "list_directory",
                "Get a detailed listing of all files and directories in a specified path.",
            ),
            tool(
                "memory",
                "search_nodes",
                "Search for nodes in the knowledge graph based on a query",
            ),
            tool(
                "time",
                "get_current_time",
                "Get current time in a specific timezones",
            ),
        ]
    }

    fn names(ranker: &Ranker, query: &str) -> Vec<&'static str> {
        let catalog = catalog();
        ranker
            .rank(query, 10)
            .iter()
            .map(|h| catalog[h.tool].name)
            .collect()
    }

    #[test]
    fn a_name_word_outranks_the_same_word_in_a_description() {
        let ranker = Ranker::new(catalog());
        assert_eq!(names(&ranker, "log")[0], "git_log");
        assert_eq!(names(&ranker, "reading a text file")[0], "read_text_file");
        assert_eq!(names(&ranker, "what time is it now")[0], "get_current_time");
    }

    #[test]
    fn an_exact_name_comes_first_and_nothing_matching_gives_nothing() {
        let ranker = Ranker::new(catalog());
        assert_eq!(names(&ranker, "list_directory files")[0], "list_directory");
        assert!(names(&ranker, "zebra").is_empty());
        assert!(names(&ranker, "").is_empty());
    }

    #[test]
    fn the_server_name_is_searched_and_ties_keep_the_catalog_order() {
        let ranker = Ranker::new(catalog());
        assert_eq!(
            names(&ranker, "filesystem"),
            ["read_text_file", "list_directory"]
        );
        assert_eq!(ranker.rank("filesystem", 1).len(), 1);
    }

    #[test]
    fn parameters_are_read_from_the_input_schema() {
        let definition = serde_json::json!({"name": "query", "description": "Runs SQL",
            "inputSchema": {"type": "object", "properties": {
                "sql": {"type": "string", "description": "the SELECT statement"}}}});
        let t = Tool::from_definition("db", "db", &definition);
        assert_eq!(t.parameters, [("sql", "the SELECT statement")]);
        let ranker = Ranker::new([t]);
        assert_eq!(ranker.rank("select statement", 5).len(), 1);
    }
}
