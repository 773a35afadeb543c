//! CSV and TSV (RFC 4180: fields quoted with `"`, a quote doubled inside, separators and line
//! breaks inside quotes), the delimiter and the header row sniffed: the delimiter is the one of
//! `,` `\t` `;` `|` that splits every row into the same number of fields (two or more), and
//! the first row is a header when its fields are distinct, non-empty and not numbers while a
//! column below it holds numbers only. Without a header, a column of numbers from the first
//! row to the last is what says the rows are records (fields named by position), where a log
//! of evenly punctuated lines has none. A row with another number of fields makes the text not
//! delimited, and says which row.

/// The delimiters tried, in this order of preference on a tie.
const DELIMITERS: [u8; 4] = [b',', b'\t', b';', b'|'];

/// A table read from delimited text: its delimiter, whether it had a header, its rows.
#[derive(Debug)]
pub struct Table {
    pub delimiter: u8,
    pub header: Option<Vec<String>>,
    pub rows: Vec<Vec<String>>,
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
        let width = self.rows.first().map_or(0, Vec::len);
        self.header.is_none() && (0..width).any(|col| self.rows.iter().all(|r| numeric(&r[col])))
    }
}

/// Reads `text` whole as delimited rows.
pub fn parse(text: &str) -> Result<Table, String> {
    let mut why = String::from("no delimiter splits its rows alike");
    for delimiter in DELIMITERS {
        if !text.as_bytes().contains(&delimiter) {
            continue;
        }
        match rows(text, delimiter) {
            Ok(rows) if rows.len() >= 2 && rows[0].len() >= 2 => {
                let (header, rows) = split_header(rows);
                return Ok(Table {
                    delimiter,
                    header,
                    rows,
                });
            }
            Ok(_) => why = "fewer than two rows of two fields".to_owned(),
            Err(e) if delimiter == b',' || delimiter == b'\t' => why = e,
            Err(_) => {}
        }
    }
    Err(format!("not CSV or TSV: {why}"))
}

/// Every row of `text` split at `delimiter`, each with the first row's number of fields.
fn rows(text: &str, delimiter: u8) -> Result<Vec<Vec<String>>, String> {
    let bytes = text.as_bytes();
    let mut rows: Vec<Vec<String>> = Vec::new();
    let mut row: Vec<String> = Vec::new();
    let mut field: Vec<u8> = Vec::new();
    let mut at = 0;
    let mut quoted = false;
    let mut line = 1;
    let end_row = |row: &mut Vec<String>, rows: &mut Vec<Vec<String>>, line: usize| {
        let row = std::mem::take(row);
        if row.len() == 1 && row[0].is_empty() {
            return Ok(()); // a blank line
        }
        if let Some(first) = rows.first()
            && first.len() != row.len()
        {
            return Err(format!(
                "line {line} has {} fields where the first row has {}",
                row.len(),
                first.len()
            ));
        }
        rows.push(row);
        Ok(())
    };
    while at < bytes.len() {
        let c = bytes[at];
        at += 1;
        if quoted {
            match c {
                b'"' if bytes.get(at) == Some(&b'"') => {
                    field.push(b'"');
                    at += 1;
                }
                b'"' => quoted = false,
                b'\n' => {
                    line += 1;
                    field.push(c);
                }
                _ => field.push(c),
            }
            continue;
        }
        match c {
            b'"' if field.is_empty() => quoted = true,
            _ if c == delimiter => row.push(take(&mut field)),
            b'\r' if bytes.get(at) == Some(&b'\n') => {}
            b'\n' => {
                row.push(take(&mut field));
                end_row(&mut row, &mut rows, line)?;
                line += 1;
            }
            _ => field.push(c),
        }
    }
    if quoted {
        return Err(format!("a quote opened before line {line} never closes"));
    }
    if !field.is_empty() || !row.is_empty() {
        row.push(take(&mut field));
        end_row(&mut row, &mut rows, line)?;
    }
    Ok(rows)
}

fn take(field: &mut Vec<u8>) -> String {
    String::from_utf8_lossy(&std::mem::take(field)).into_owned()
}

/// Whether a field reads as a number (as [`super::typed`] would make it one).
fn numeric(field: &str) -> bool {
    let f = field.trim();
    !f.is_empty() && f.parse::<f64>().is_ok_and(f64::is_finite)
}

/// The header row, when the first row is one.
fn split_header(mut rows: Vec<Vec<String>>) -> (Option<Vec<String>>, Vec<Vec<String>>) {
    let first = &rows[0];
    let mut seen = std::collections::HashSet::new();
    let names_like = first
        .iter()
        .all(|f| !f.trim().is_empty() && !numeric(f) && seen.insert(f.trim()));
    let numbers_below = (0..first.len()).any(|col| rows[1..].iter().all(|r| numeric(&r[col])));
    if names_like && numbers_below {
        let header = rows
            .remove(0)
            .into_iter()
            .map(|f| f.trim().to_owned())
            .collect();
        return (Some(header), rows);
    }
    (None, rows)
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
        assert_eq!(
            table.rows[0],
            ["1", "Smith, Jo", "said \"hi\"\nthen left", "12.5"]
        );
        assert_eq!(table.rows[1], ["2", "Ann", "", "3"]);
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
