//! CSV and TSV (RFC 4180: fields quoted with `"`, a quote doubled inside, separators and line
//! breaks inside quotes), the delimiter and the header row sniffed: the delimiter is the one of
//! `,` `\t` `;` `|` that splits every row into the same number of fields (two or more), and
//! the first row is a header when its fields are distinct, non-empty and not numbers while a
//! column below it holds numbers only. Without a header, a column of numbers from the first
//! row to the last is what says the rows are records (fields named by position), where a log
//! of evenly punctuated lines has none. A row with another number of fields makes the text not
//! delimited, and says which row.

use std::ops::Range;

/// The delimiters tried, in this order of preference on a tie.
const DELIMITERS: [u8; 4] = [b',', b'\t', b';', b'|'];

/// A table found in delimited text: its delimiter, its header when it had one, and where each
/// row is (the text is not copied: [`fields`] reads a row when it is wanted).
#[derive(Debug)]
pub struct Table {
    pub delimiter: u8,
    pub header: Option<Vec<String>>,
    /// Fields in every row.
    pub width: usize,
    /// The rows after the header, as byte ranges of the text (blank lines left out).
    pub rows: Vec<Range<usize>>,
    /// A column holds numbers in every row, the first included.
    numbered: bool,
}

impl Table {
    /// Whether the rows are records: they have a header row, or a column holds numbers in
    /// every row (the first included: then it is a row, not a header).
    pub fn holds_records(&self) -> bool {
        self.header.is_some() || self.numbered()
    }

    /// Header-less rows with a column of numbers all through, the evidence that they are
    /// records rather than lines that happen to split alike.
    pub fn numbered(&self) -> bool {
        self.header.is_none() && self.numbered
    }
}

/// Reads `text` whole as delimited rows: one pass per delimiter tried, each row's fields
/// checked and let go.
pub fn parse(text: &str) -> Result<Table, String> {
    let mut why = String::from("no delimiter splits its rows alike");
    for delimiter in DELIMITERS {
        if !text.as_bytes().contains(&delimiter) {
            continue;
        }
        match table(text, delimiter) {
            Ok(Some(table)) => return Ok(table),
            Ok(None) => why = "fewer than two rows of two fields".to_owned(),
            Err(e) if delimiter == b',' || delimiter == b'\t' => why = e,
            Err(_) => {}
        }
    }
    Err(format!("not CSV or TSV: {why}"))
}

/// The fields of one row of a [`Table`] (`row`: its range in the text the table was read
/// from, where it parsed).
pub fn fields(row: &str, delimiter: u8) -> Vec<String> {
    let mut fields = Vec::new();
    let mut line = 1;
    // The row was read whole before: it ends, and its quotes close.
    let _ = next_row(row, 0, delimiter, &mut line, &mut fields);
    fields
}

/// The table `text` makes at `delimiter`, every row with the first row's number of fields;
/// `None` when that is fewer than two rows of two fields.
fn table(text: &str, delimiter: u8) -> Result<Option<Table>, String> {
    let mut rows = Vec::new();
    let mut first: Vec<String> = Vec::new();
    // Per column: a number in the first row; a number in every row after it.
    let mut first_numeric: Vec<bool> = Vec::new();
    let mut below_numeric: Vec<bool> = Vec::new();
    let mut fields = Vec::new();
    let mut at = 0;
    let mut line = 1;
    while at < text.len() {
        let start = at;
        let row_line = line;
        fields.clear();
        at = next_row(text, at, delimiter, &mut line, &mut fields)?;
        if fields.len() == 1 && fields[0].is_empty() {
            continue; // a blank line
        }
        if rows.is_empty() {
            first_numeric = fields.iter().map(|f| numeric(f)).collect();
            below_numeric = vec![true; fields.len()];
            first = std::mem::take(&mut fields);
        } else if fields.len() != first.len() {
            return Err(format!(
                "line {row_line} has {} fields where the first row has {}",
                fields.len(),
                first.len()
            ));
        } else {
            for (all, field) in below_numeric.iter_mut().zip(&fields) {
                *all = *all && numeric(field);
            }
        }
        rows.push(start..at);
    }
    if rows.len() < 2 || first.len() < 2 {
        return Ok(None);
    }
    let mut seen = std::collections::HashSet::new();
    let names_like = first
        .iter()
        .all(|f| !f.trim().is_empty() && !numeric(f) && seen.insert(f.trim()));
    let header = (names_like && below_numeric.contains(&true)).then(|| {
        rows.remove(0);
        first.iter().map(|f| f.trim().to_owned()).collect()
    });
    let numbered = (first_numeric.iter().zip(&below_numeric)).any(|(a, b)| *a && *b);
    Ok(Some(Table {
        delimiter,
        header,
        width: first.len(),
        rows,
        numbered,
    }))
}

/// Reads the row starting at byte `at` into `fields` (RFC 4180 quoting: a quote opens only at
/// a field's start, doubled inside it); where the next row starts. `line` counts the line
/// breaks passed, for messages.
fn next_row(
    text: &str,
    mut at: usize,
    delimiter: u8,
    line: &mut usize,
    fields: &mut Vec<String>,
) -> Result<usize, String> {
    let bytes = text.as_bytes();
    let mut field = String::new();
    // Bytes since `from` go into the field as they are when it ends (delimiters and quotes
    // are ASCII: a cut there is always on a character's boundary).
    let mut from = at;
    let mut quoted = false;
    while at < bytes.len() {
        let c = bytes[at];
        if quoted {
            match c {
                b'"' if bytes.get(at + 1) == Some(&b'"') => {
                    field.push_str(&text[from..at + 1]);
                    at += 2;
                    from = at;
                }
                b'"' => {
                    field.push_str(&text[from..at]);
                    quoted = false;
                    at += 1;
                    from = at;
                }
                b'\n' => {
                    *line += 1;
                    at += 1;
                }
                _ => at += 1,
            }
            continue;
        }
        match c {
            b'"' if field.is_empty() && from == at => {
                quoted = true;
                at += 1;
                from = at;
            }
            _ if c == delimiter => {
                field.push_str(&text[from..at]);
                fields.push(std::mem::take(&mut field));
                at += 1;
                from = at;
            }
            b'\r' if bytes.get(at + 1) == Some(&b'\n') => {
                field.push_str(&text[from..at]);
                at += 1;
                from = at;
            }
            b'\n' => {
                field.push_str(&text[from..at]);
                fields.push(field);
                *line += 1;
                return Ok(at + 1);
            }
            _ => at += 1,
        }
    }
    if quoted {
        return Err(format!("a quote opened before line {line} never closes"));
    }
    field.push_str(&text[from..at]);
    fields.push(field);
    Ok(at)
}

/// Whether a field reads as a number (as [`super::typed`] would make it one).
fn numeric(field: &str) -> bool {
    let f = field.trim();
    !f.is_empty() && f.parse::<f64>().is_ok_and(f64::is_finite)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn quoted_separators_doubled_quotes_and_line_breaks_stay_in_their_field() {
        let text = "id,name,note,total\r\n1,\"Smith, Jo\",\"said \"\"hi\"\"\nthen left\",12.5\r\n2,Ann,,3\n";
        let table = parse(text).unwrap();
        assert_eq!(table.delimiter, b',');
        assert_eq!(table.header.unwrap(), ["id", "name", "note", "total"]);
        let row = |i: usize| fields(&text[table.rows[i].clone()], table.delimiter);
        assert_eq!(row(0), ["1", "Smith, Jo", "said \"hi\"\nthen left", "12.5"]);
        assert_eq!(row(1), ["2", "Ann", "", "3"]);
    }

    #[test]
    fn tabs_semicolons_and_header_less_rows_are_sniffed() {
        let tsv = parse("a\tb\n1\t2\n3\t4\n").unwrap();
        assert_eq!((tsv.delimiter, tsv.rows.len()), (b'\t', 2));
        let semi = parse("x;y\n1,5;2\n").unwrap();
        assert_eq!(semi.delimiter, b';');
        // No column of numbers under it: the first row is a row, and nothing says the rows
        // are records.
        let names = parse("ann,bob\ncid,dee\n").unwrap();
        assert!(names.header.is_none());
        assert_eq!(names.rows.len(), 2);
        assert!(!names.holds_records());
        // Numbers from the first row on: header-less records.
        let numbered = parse("1,ann,2.5\n2,\"bob, jr\",3\n").unwrap();
        assert!(numbered.header.is_none() && numbered.numbered());
        assert_eq!(numbered.rows.len(), 2);
        assert!(parse("id,name\n1,ann\n").unwrap().holds_records());
    }

    #[test]
    fn ragged_or_single_column_text_is_not_a_table() {
        let e = parse("a,b,c\n1,2\n").unwrap_err();
        assert!(
            e.contains("line 2 has 2 fields where the first row has 3"),
            "{e}"
        );
        assert!(parse("just one line of words\n").is_err());
        assert!(parse("a,\"b\n").unwrap_err().contains("never closes"));
    }
}
