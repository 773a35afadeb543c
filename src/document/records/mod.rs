//! Records wherever servers write them. Many real servers answer in text that is not JSON:
//! a database server's `str(rows)` (a Python list of dicts, or of tuples holding
//! `datetime.date(...)`), a CSV file read through a filesystem server, a Markdown table made
//! for people. [`index`] recognises each of them in a text read whole ([`python`],
//! [`delimited`], [`markdown`]) and finds its rows, each read as a JSON record when it is
//! wanted, so they can be filtered, sorted, counted and paged as JSON lists are without the
//! text ever being held as one tree. It never guesses: a text it cannot read whole as one of
//! these stays text, and the error says why.
//!
//! Records without field names (tuples, lists, header-less CSV) get positional ones: `1`, `2`,
//! ... Delimited text needs evidence that its rows are records, a header row or a column of
//! numbers in every row: without it a log of evenly punctuated lines would pass for CSV. Cells
//! of delimited text and tables that read as numbers become numbers (`007` stays text: a
//! leading zero is an identifier's), the rest stay strings.

pub mod delimited;
pub mod markdown;
pub mod python;

use std::ops::Range;

use serde_json::{Map, Value};

use crate::util::utf8::floor_char_boundary;

/// The rows of a text found and checked but not built: where each row is, read as a JSON
/// record when it is wanted ([`Index::row`]). A text of a million rows is held as itself and
/// 16 bytes a row, where its records as one tree would take about 35 times the text.
#[derive(Clone, Debug)]
pub struct Index<'t> {
    /// What the text was, in words: "a Python list of tuples with 6 fields".
    pub what: String,
    text: &'t str,
    shape: Shape,
    rows: Vec<Range<usize>>,
}

/// How a row's text becomes a record.
#[derive(Clone, Debug)]
enum Shape {
    /// A Python literal; tuples and lists get positional names.
    Python,
    Delimited {
        delimiter: u8,
        header: Vec<String>,
    },
    Markdown {
        header: Vec<String>,
    },
}

impl Index<'_> {
    /// How many rows.
    pub fn len(&self) -> usize {
        self.rows.len()
    }

    /// True when there are none (never, for an index [`index`] made).
    pub fn is_empty(&self) -> bool {
        self.rows.is_empty()
    }

    /// Row `i` as a JSON record (`Null` past the end).
    pub fn row(&self, i: usize) -> Value {
        let Some(span) = self.rows.get(i) else {
            return Value::Null;
        };
        let text = &self.text[span.clone()];
        match &self.shape {
            // Every row parsed when the index was made.
            Shape::Python => match python::parse(text).unwrap_or_default() {
                Value::Array(values) => positional(values),
                record => record,
            },
            Shape::Delimited { delimiter, header } => {
                named(header, delimited::fields(text, *delimiter))
            }
            Shape::Markdown { header } => named(header, markdown::cells(text).unwrap_or_default()),
        }
    }

    /// Every row, built one at a time.
    pub fn rows(&self) -> impl Iterator<Item = Value> + '_ {
        (0..self.len()).map(|i| self.row(i))
    }
}

/// Where the text's rows are, each checked to read as a record, or why it holds none: one
/// pass that holds no row but the one being read (and, for delimited text, one pass per
/// delimiter tried).
pub fn index(text: &str) -> Result<Index<'_>, String> {
    let trimmed = text.trim_start();
    match trimmed.as_bytes().first() {
        Some(b'[' | b'(') => from_python(trimmed),
        Some(b'|') => from_markdown(text),
        Some(_) => from_delimited(text),
        None => Err("the text is empty".to_owned()),
    }
}

/// How much of a text [`sniff`] reads.
pub const SNIFF_BYTES: usize = 64 << 10;

/// The first [`SNIFF_BYTES`] of `text`, never cut inside a character.
fn head(text: &str) -> &str {
    &text[..floor_char_boundary(text, SNIFF_BYTES)]
}

/// Whether the start of a text (its first [`SNIFF_BYTES`]) looks like records [`read`] would
/// take: a Python list or tuple of dicts or tuples, a Markdown table, or delimited lines under
/// a header row (or with a column of numbers in every line). For a reader that must choose before it has the whole text (a search that
/// streams lines, or matches records), or that would rather not parse what is not records:
/// `false` is never wrong to act on, `true` is checked by reading the whole.
pub fn sniff(text: &str) -> bool {
    let head = head(text);
    let trimmed = head.trim_start();
    let mut chars = trimmed.chars();
    match chars.next() {
        Some('[' | '(') => {
            matches!(chars.as_str().trim_start().chars().next(), Some('{' | '('))
        }
        Some('|') => true,
        Some(_) => {
            // Whole lines only; a cut inside a quoted line break is cut a line earlier.
            let mut end = head.len();
            for _ in 0..8 {
                let Some(at) = head[..end].rfind('\n') else {
                    return false;
                };
                match delimited::parse(&head[..at + 1]) {
                    Ok(table) => return table.holds_records(),
                    Err(e) if e.contains("never closes") => end = at,
                    Err(_) => return false,
                }
            }
            false
        }
        None => false,
    }
}

/// A text given where a JSON document is read (a file on the command line) that is not JSON
/// but holds records (a CSV file, a saved `str(rows)`, a Markdown table): the tool result that
/// would carry it as its text, so every command reads its records as it reads a server's. Any
/// other text comes back as it is, to be read (or refused) as JSON.
pub fn as_result_text(text: String) -> String {
    let head = head(&text).trim_start();
    // JSON starts alike: `[{"` or `[[` is JSON's, `[{'` and `[(` a Python repr's.
    let python = |rest: &str| {
        let rest = rest.trim_start();
        rest.starts_with('(')
            || rest
                .strip_prefix('{')
                .is_some_and(|r| r.trim_start().starts_with('\''))
    };
    let records = match head.as_bytes().first() {
        Some(b'{' | b'"') | None => false,
        Some(b'[') => python(&head[1..]),
        Some(_) => sniff(head),
    };
    if !records {
        return text;
    }
    serde_json::json!({"content": [{"type": "text", "text": text}]}).to_string()
}

fn from_python(text: &str) -> Result<Index<'_>, String> {
    let container = if text.starts_with('(') {
        "tuple"
    } else {
        "list"
    };
    let mixed = || {
        format!("a Python {container} whose items are not all dicts or all tuples holds no records")
    };
    // The first item decides what every item must be: dicts, or tuples (lists) of values.
    let mut first: Option<(&str, usize)> = None;
    let mut rows = Vec::new();
    python::each_item(text, |span, item| {
        let (kind, fields) = match &item {
            Value::Object(m) => ("dicts", m.len()),
            Value::Array(values) if text[span.clone()].starts_with('(') => ("tuples", values.len()),
            Value::Array(values) => ("lists", values.len()),
            _ => return Err(mixed()),
        };
        match first {
            None => first = Some((kind, fields)),
            Some((seen, _)) if (seen == "dicts") != (kind == "dicts") => return Err(mixed()),
            Some(_) => {}
        }
        rows.push(span);
        Ok(())
    })?;
    let Some((of, fields)) = first else {
        return Err(format!("an empty Python {container} holds no records"));
    };
    Ok(Index {
        what: format!("a Python {container} of {of} with {fields} fields"),
        text,
        shape: Shape::Python,
        rows,
    })
}

fn from_delimited(text: &str) -> Result<Index<'_>, String> {
    let table = delimited::parse(text)?;
    let kind = match table.delimiter {
        b',' => "CSV".to_owned(),
        b'\t' => "TSV".to_owned(),
        d => format!("text delimited by {:?}", d as char),
    };
    let width = table.width;
    // Without a header row, a log whose lines hold the same number of commas would read as
    // CSV: a header, or a column of numbers in every row, is the evidence; without either the
    // text stays text.
    let numbered = table.numbered();
    let (header, what) = match table.header {
        Some(header) => (header, format!("{kind} with a header row, {width} fields")),
        None if numbered => (
            (1..=width).map(|i| i.to_string()).collect(),
            format!("{kind} without a header row, {width} fields named by position"),
        ),
        None => {
            return Err(format!(
                "not CSV or TSV: every line splits into {width} fields at {kind}'s delimiter, but no header row names them and no column holds a number in every line (a log's lines can split alike)"
            ));
        }
    };
    Ok(Index {
        what,
        text,
        shape: Shape::Delimited {
            delimiter: table.delimiter,
            header,
        },
        rows: table.rows,
    })
}

fn from_markdown(text: &str) -> Result<Index<'_>, String> {
    let (header, rows) = markdown::parse(text)?;
    let header: Vec<String> = header
        .into_iter()
        .enumerate()
        .map(|(i, h)| if h.is_empty() { (i + 1).to_string() } else { h })
        .collect();
    Ok(Index {
        what: format!("a Markdown table with {} columns", header.len()),
        text,
        shape: Shape::Markdown { header },
        rows,
    })
}

/// A row under its header's names.
fn named(header: &[String], row: Vec<String>) -> Value {
    let mut record = Map::new();
    for (name, cell) in header.iter().zip(row) {
        record.insert(name.clone(), typed(&cell));
    }
    Value::Object(record)
}

/// Values named by their place, from 1.
fn positional(values: Vec<Value>) -> Value {
    Value::Object(
        values
            .into_iter()
            .enumerate()
            .map(|(i, v)| ((i + 1).to_string(), v))
            .collect(),
    )
}

/// A cell as a number when it reads as one (not with a leading zero, an identifier's), else
/// as its text.
fn typed(cell: &str) -> Value {
    let c = cell.trim();
    let digits = c.strip_prefix('-').unwrap_or(c);
    let leading_zero = digits.len() > 1 && digits.starts_with('0') && !digits.starts_with("0.");
    if !leading_zero && !c.is_empty() && !c.starts_with('+') {
        if let Ok(i) = c.parse::<i64>() {
            return Value::from(i);
        }
        if let Some(n) = c
            .parse::<f64>()
            .ok()
            .filter(|f| f.is_finite())
            .and_then(serde_json::Number::from_f64)
        {
            return Value::Number(n);
        }
    }
    Value::from(cell)
}

#[cfg(test)]
mod tests {
    use serde_json::json;

    use super::*;

    #[test]
    fn each_format_reads_as_records_that_say_what_they_were() {
        let dicts = index("[{'id': 1, 'status': 'cancelled', 'total': 45.49}, {'id': 2, 'status': 'paid', 'total': 3}]").unwrap();
        assert_eq!(dicts.what, "a Python list of dicts with 3 fields");
        assert_eq!(
            dicts.row(0),
            json!({"id": 1, "status": "cancelled", "total": 45.49})
        );
        let tuples = index("[(55, 'customer_710', datetime.date(2026, 1, 3)), (56, 'c', datetime.date(2026, 1, 4))]").unwrap();
        assert_eq!(tuples.what, "a Python list of tuples with 3 fields");
        assert_eq!(tuples.row(1), json!({"1": 56, "2": "c", "3": "2026-01-04"}));
        let csv = index("id,code,total\n1,007,12.50\n2,010,-3\n").unwrap();
        assert_eq!(csv.what, "CSV with a header row, 3 fields");
        assert_eq!(csv.row(0), json!({"id": 1, "code": "007", "total": 12.5}));
        let tsv = index("name\tn\nx\t1\n").unwrap();
        assert_eq!(tsv.what, "TSV with a header row, 2 fields");
        assert_eq!(tsv.row(0), json!({"name": "x", "n": 1}));
        let md = index("| id | who |\n|---|---|\n| 1 | ann |\n").unwrap();
        assert_eq!(md.what, "a Markdown table with 2 columns");
        assert_eq!(
            md.rows().collect::<Vec<_>>(),
            [json!({"id": 1, "who": "ann"})]
        );
    }

    #[test]
    fn a_head_is_sniffed_as_records_when_the_whole_would_read_as_them() {
        for head in [
            "[{'id': 1, 'customer': 'c'}, {'id': 2, 'cust",
            "[(55, 'customer_710', datetime.date(2026, 1, 3)), (56, 'c",
            "| id | who |\n|---|---|\n| 1 | a",
            "id,note,total\n1,\"line one\nline two\",3\n2,\"a, b\",4\n3,\"cut inside a quo",
            "1,ann,2.5\n2,bob,3\n3,c",
        ] {
            assert!(sniff(head), "{head:?}");
        }
        for head in [
            "The build passed.\nNo warnings.\n",
            "10:00 worker-1 handled 1, ok\n10:01 worker-2 handled 2, ok\n",
            "[1, 2, 3]",
            "one line, no end",
        ] {
            assert!(!sniff(head), "{head:?}");
        }
    }

    #[test]
    fn records_on_the_command_line_read_as_a_result_text_and_json_stays_json() {
        for records in [
            "id,total\n1,2.5\n",
            "[{'id': 1}, {'id': 2}]",
            "[(1, 'a'), (2, 'b')]",
            "| id |\n|---|\n| 1 |\n",
        ] {
            let wrapped: Value = serde_json::from_str(&as_result_text(records.into())).unwrap();
            assert_eq!(wrapped["content"][0]["text"], records);
        }
        for other in [
            "[{\"id\": 1}]",
            "{\"a\": 1,}",
            "[[1, 2]]",
            "plain words, not a table\n",
            "",
        ] {
            assert_eq!(as_result_text(other.into()), other);
        }
    }

    #[test]
    fn header_less_rows_with_a_column_of_numbers_get_positional_fields() {
        let records = index("7,\"Smith, Jo\",2.5\n8,Ann,3\n").unwrap();
        assert_eq!(
            records.what,
            "CSV without a header row, 3 fields named by position"
        );
        assert_eq!(
            records.rows().collect::<Vec<_>>(),
            [
                serde_json::json!({"1": 7, "2": "Smith, Jo", "3": 2.5}),
                serde_json::json!({"1": 8, "2": "Ann", "3": 3})
            ]
        );
    }

    #[test]
    fn a_text_of_many_megabytes_is_indexed_and_its_rows_built_one_at_a_time() {
        let rows = 1_200_000;
        let mut text = String::from("id,status,total\n");
        for i in 0..rows {
            text.push_str(&format!("{i},\"a, b\",{}.5\n", i % 7));
        }
        assert!(text.len() > 16 << 20);
        let index = index(&text).unwrap();
        assert_eq!(index.len(), rows);
        assert_eq!(
            index.row(rows - 1),
            json!({"id": rows - 1, "status": "a, b", "total": ((rows - 1) % 7) as f64 + 0.5})
        );
        assert_eq!(index.row(rows), Value::Null);
    }

    #[test]
    fn text_that_is_none_of_them_stays_text_and_says_why() {
        for (text, says) in [
            ("", "empty"),
            ("[1, 2, 3]", "not all dicts or all tuples"),
            ("[]", "empty Python list"),
            ("The build passed.\nNo warnings.", "not CSV or TSV"),
            ("| a |\n| b |", "not the delimiter row"),
            ("a\tb\nx\ty\n", "no header row names them"),
            (
                "10:00 worker-1 handled request 1, status ok, in 3 ms\n10:01 worker-2 handled request 2, status ok, in 4 ms",
                "no header row names them",
            ),
        ] {
            let e = index(text).unwrap_err();
            assert!(e.contains(says), "{text:?}: {e}");
        }
    }
}
