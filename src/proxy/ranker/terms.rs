//! The words the ranker compares: a text cut into words the way tool names and descriptions
//! are written (snake_case, kebab-case, camelCase, `SERVER__TOOL`, digits apart from letters),
//! lowercased, English stop words dropped, and each word reduced to its Snowball stem so that
//! "reads", "reading" and "read" meet. Scripts written without spaces (Chinese, Japanese) give
//! overlapping character pairs instead of words, so a query in them still meets a description
//! in them. Query and catalog go through the same function: what one side gets, both do.

use rust_stemmers::{Algorithm, Stemmer};

/// English words too common in tool descriptions and requests to tell tools apart.
const STOP_WORDS: &[&str] = &[
    "a", "about", "all", "also", "an", "and", "any", "are", "as", "at", "be", "been", "but", "by",
    "can", "could", "do", "does", "for", "from", "give", "has", "have", "how", "i", "if", "in",
    "into", "is", "it", "its", "let", "me", "my", "of", "on", "one", "or", "our", "please",
    "should", "so", "some", "than", "that", "the", "their", "them", "then", "there", "these",
    "this", "those", "to", "us", "use", "using", "via", "want", "was", "we", "what", "when",
    "where", "which", "while", "who", "will", "with", "would", "you", "your",
];

/// Cuts texts into stemmed terms; holds the stemmer so it is built once per index.
pub struct Terms {
    stemmer: Stemmer,
}

impl Default for Terms {
    fn default() -> Self {
        Terms {
            stemmer: Stemmer::create(Algorithm::English),
        }
    }
}

impl Terms {
    /// Appends the terms of `text` to `out`, in the text's order.
    pub fn push(&self, text: &str, out: &mut Vec<String>) {
        for run in text.split(|c: char| !c.is_alphanumeric()) {
            if run.is_empty() {
                continue;
            }
            if run.chars().any(is_unspaced) {
                self.push_unspaced(run, out);
            } else {
                for word in words(run) {
                    self.push_word(word, out);
                }
            }
        }
    }

    /// The terms of `text`, in order.
    pub fn of(&self, text: &str) -> Vec<String> {
        let mut out = Vec::new();
        self.push(text, &mut out);
        out
    }

    fn push_word(&self, word: &str, out: &mut Vec<String>) {
        let lower = word.to_lowercase();
        if lower.is_empty() || STOP_WORDS.binary_search(&lower.as_str()).is_ok() {
            return;
        }
        out.push(self.stemmer.stem(&lower).into_owned());
    }

    /// A run holding characters of a script written without spaces: its letters of other
    /// scripts as words, its unspaced letters as overlapping pairs (a lone one as itself).
    fn push_unspaced(&self, run: &str, out: &mut Vec<String>) {
        let mut pending = String::new();
        let mut unspaced: Vec<char> = Vec::new();
        let flush_unspaced = |unspaced: &mut Vec<char>, out: &mut Vec<String>| {
            match unspaced.len() {
                0 => {}
                1 => out.push(unspaced[0].to_string()),
                _ => out.extend(unspaced.windows(2).map(|w| w.iter().collect::<String>())),
            }
            unspaced.clear();
        };
        for c in run.chars() {
            if is_unspaced(c) {
                if !pending.is_empty() {
                    for word in words(&pending) {
                        self.push_word(word, out);
                    }
                    pending.clear();
                }
                unspaced.push(c);
            } else {
                flush_unspaced(&mut unspaced, out);
                pending.push(c);
            }
        }
        flush_unspaced(&mut unspaced, out);
        for word in words(&pending) {
            self.push_word(word, out);
        }
    }
}

/// The words of an alphanumeric run: split where lowercase turns uppercase (`getFile`), where
/// an uppercase run meets a word (`HTTPServer`), and between letters and digits (`utf8`).
fn words(run: &str) -> impl Iterator<Item = &str> {
    let chars: Vec<(usize, char)> = run.char_indices().collect();
    let mut cuts = vec![0];
    for i in 1..chars.len() {
        let (prev, c) = (chars[i - 1].1, chars[i].1);
        let next_lower = chars.get(i + 1).is_some_and(|n| n.1.is_lowercase());
        let cut = (prev.is_lowercase() && c.is_uppercase())
            || (prev.is_uppercase() && c.is_uppercase() && next_lower)
            || (prev.is_numeric() != c.is_numeric());
        if cut {
            cuts.push(chars[i].0);
        }
    }
    cuts.push(run.len());
    (0..cuts.len() - 1).map(move |i| &run[cuts[i]..cuts[i + 1]])
}

/// Characters of scripts written without spaces between words.
fn is_unspaced(c: char) -> bool {
    matches!(c as u32,
        0x3040..=0x30FF      // Hiragana, Katakana
        | 0x3400..=0x4DBF    // CJK extension A
        | 0x4E00..=0x9FFF    // CJK unified ideographs
        | 0xF900..=0xFAFF    // CJK compatibility ideographs
        | 0x20000..=0x2FA1F  // CJK extensions B-F, compatibility supplement
        | 0x0E00..=0x0E7F    // Thai
    )
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn stop_words_are_sorted_for_the_binary_search() {
        assert!(STOP_WORDS.windows(2).all(|w| w[0] < w[1]));
    }

    #[test]
    fn names_split_as_they_are_written() {
        let t = Terms::default();
        assert_eq!(
            t.of("list_directory_with_sizes"),
            ["list", "directori", "size"]
        );
        assert_eq!(t.of("getCurrentTime"), ["get", "current", "time"]);
        assert_eq!(t.of("HTTPServer utf8"), ["http", "server", "utf", "8"]);
        assert_eq!(t.of("git__git-log"), ["git", "git", "log"]);
        assert_eq!(t.of("Reads the files"), ["read", "file"]);
    }

    #[test]
    fn unspaced_scripts_give_pairs_and_keep_latin_words() {
        let t = Terms::default();
        assert_eq!(t.of("读取文件"), ["读取", "取文", "文件"]);
        assert_eq!(t.of("SQLクエリ"), ["sql", "クエ", "エリ"]);
        assert_eq!(t.of("日"), ["日"]);
    }
}
