//! Numbers and tables for people: shared by the CLI and the library's report emitters, so a
//! count looks the same in `estimate`, `audit` and every other table.

use std::fmt;
use std::io;

use unicode_width::UnicodeWidthStr;

/// 12345 as "12,345".
pub fn thousands(n: u64) -> String {
    let digits = n.to_string();
    let mut out = String::with_capacity(digits.len() + digits.len() / 3);
    for (i, c) in digits.chars().enumerate() {
        if i > 0 && (digits.len() - i).is_multiple_of(3) {
            out.push(',');
        }
        out.push(c);
    }
    out
}

/// A token count as reports show it: `~12,345` when it is `claude-fast`'s estimate (what
/// `auto` shows away from every limit), `12,345` when it was counted.
pub fn token_count(tokens: u64, counted_with: &str) -> String {
    if counted_with == "claude-fast" {
        format!("~{}", thousands(tokens))
    } else {
        thousands(tokens)
    }
}

/// A table in mcpguard's house style (light box borders, a header, no wrapping, no terminal
/// width detection: the same on a TTY, in a pipe and in a snapshot), with the given columns
/// right-aligned (numbers). Rows are added, then the table is written with `{}`; a table too
/// large to hold is written row by row with [`write_streamed`] instead.
pub fn table(header: &[&str], right_aligned: &[usize]) -> Grid {
    Grid {
        header: header.iter().map(|h| (*h).to_owned()).collect(),
        right_aligned: right_aligned.to_vec(),
        rows: Vec::new(),
    }
}

/// The rows of a [`table`].
pub struct Grid {
    header: Vec<String>,
    right_aligned: Vec<usize>,
    rows: Vec<Vec<String>>,
}

impl Grid {
    pub fn add_row<S: Into<String>>(&mut self, row: impl IntoIterator<Item = S>) {
        self.rows.push(row.into_iter().map(Into::into).collect());
    }
}

impl fmt::Display for Grid {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        let header: Vec<&str> = self.header.iter().map(String::as_str).collect();
        render(f, &header, &self.right_aligned, || {
            self.rows.iter().cloned()
        })
    }
}

/// Writes a [`table`] whose rows `rows` makes twice, once to measure the columns and once to
/// write them, so that a table of millions of rows is never held in memory. The output is the
/// same as adding the rows to a [`table`] and writing it (no final newline).
pub fn write_streamed<I>(
    out: &mut dyn io::Write,
    header: &[&str],
    right_aligned: &[usize],
    rows: impl Fn() -> I,
) -> io::Result<()>
where
    I: Iterator<Item = Vec<String>>,
{
    let mut sink = IoSink { out, error: None };
    match render(&mut sink, header, right_aligned, rows) {
        Ok(()) => Ok(()),
        Err(fmt::Error) => Err(sink
            .error
            .unwrap_or_else(|| io::Error::other("formatting failed"))),
    }
}

/// `fmt::Write` over an `io::Write`, keeping the I/O error `fmt::Error` cannot carry.
struct IoSink<'a> {
    out: &'a mut dyn io::Write,
    error: Option<io::Error>,
}

impl fmt::Write for IoSink<'_> {
    fn write_str(&mut self, s: &str) -> fmt::Result {
        self.out.write_all(s.as_bytes()).map_err(|e| {
            self.error = Some(e);
            fmt::Error
        })
    }
}

/// The house style: `┌─┬─┐` above, `│ a ┆ b │` rows, `╞═╪═╡` under the header, `└─┴─┘` below,
/// one space of padding; a cell with newlines takes several lines. Widths are display widths.
fn render<I>(
    out: &mut dyn fmt::Write,
    header: &[&str],
    right_aligned: &[usize],
    rows: impl Fn() -> I,
) -> fmt::Result
where
    I: Iterator<Item = Vec<String>>,
{
    let mut widths: Vec<usize> = header.iter().map(|h| cell_width(h)).collect();
    for row in rows() {
        if widths.len() < row.len() {
            widths.resize(row.len(), 0);
        }
        for (width, cell) in widths.iter_mut().zip(&row) {
            *width = (*width).max(cell_width(cell));
        }
    }
    let border = |out: &mut dyn fmt::Write, [left, fill, junction, right]: [char; 4]| {
        out.write_char(left)?;
        for (i, width) in widths.iter().enumerate() {
            if i > 0 {
                out.write_char(junction)?;
            }
            for _ in 0..width + 2 {
                out.write_char(fill)?;
            }
        }
        out.write_char(right)
    };
    let line = |out: &mut dyn fmt::Write, cells: &[&str]| -> fmt::Result {
        let height = cells
            .iter()
            .map(|c| c.split('\n').count())
            .max()
            .unwrap_or(1);
        for k in 0..height {
            out.write_str("│")?;
            for (i, width) in widths.iter().enumerate() {
                if i > 0 {
                    out.write_str("┆")?;
                }
                let text = cells
                    .get(i)
                    .and_then(|c| c.split('\n').nth(k))
                    .unwrap_or("");
                let pad = width - text.width();
                if right_aligned.contains(&i) {
                    write!(out, " {:pad$}{text} ", "")?;
                } else {
                    write!(out, " {text}{:pad$} ", "")?;
                }
            }
            out.write_str("│\n")?;
        }
        Ok(())
    };
    border(out, ['┌', '─', '┬', '┐'])?;
    out.write_char('\n')?;
    line(out, header)?;
    border(out, ['╞', '═', '╪', '╡'])?;
    out.write_char('\n')?;
    for row in rows() {
        let cells: Vec<&str> = row.iter().map(String::as_str).collect();
        line(out, &cells)?;
    }
    // No newline after the last line, as a Display value has none.
    border(out, ['└', '─', '┴', '┘'])
}

/// The widest line of a cell, in terminal columns.
fn cell_width(cell: &str) -> usize {
    cell.split('\n')
        .map(UnicodeWidthStr::width)
        .max()
        .unwrap_or(0)
}

/// What kind of JSON value this is, as a message says it: "a string", "a whole number", ...
pub fn type_name(v: &serde_json::Value) -> &'static str {
    match v {
        serde_json::Value::Null => "null",
        serde_json::Value::Bool(_) => "a boolean",
        serde_json::Value::Number(n) if n.is_f64() => "a number with a fraction",
        serde_json::Value::Number(_) => "a whole number",
        serde_json::Value::String(_) => "a string",
        serde_json::Value::Array(_) => "a list",
        serde_json::Value::Object(_) => "an object",
    }
}

#[cfg(test)]
mod tests {
    #[test]
    fn thousands_groups_digits() {
        assert_eq!(super::thousands(0), "0");
        assert_eq!(super::thousands(999), "999");
        assert_eq!(super::thousands(1_000), "1,000");
        assert_eq!(super::thousands(12_345_678), "12,345,678");
    }
}
