//! Markdown tables (GitHub's pipe tables), as servers that format for people write them: a
//! header row, a delimiter row of dashes (with the colons of alignment), then the rows; cells
//! split at each `|` not escaped as `\|`. Text around the table, or a row with another number
//! of cells, makes the text not a table.

use std::ops::Range;

/// Reads `text` whole as one pipe table: its header, and where each row is (byte ranges of
/// the text, read by [`cells`] when wanted).
pub fn parse(text: &str) -> Result<(Vec<String>, Vec<Range<usize>>), String> {
    let mut lines = lines(text).filter(|(_, span)| !text[span.clone()].trim().is_empty());
    let not = |why: String| format!("not a Markdown table: {why}");
    let (_, head) = lines.next().ok_or_else(|| not("it is empty".into()))?;
    let header =
        cells(&text[head]).ok_or_else(|| not("its first line is not a row of `|` cells".into()))?;
    let (n, delimiter) = lines
        .next()
        .ok_or_else(|| not("no delimiter row (| --- |) under the header".into()))?;
    let marks = cells(&text[delimiter]).unwrap_or_default();
    let is_mark = |c: &String| {
        let c = c.trim_matches(':');
        c.len() >= 3 && c.bytes().all(|b| b == b'-')
    };
    if marks.len() != header.len() || !marks.iter().all(is_mark) {
        return Err(not(format!(
            "line {n} is not the delimiter row of its header"
        )));
    }
    let mut rows = Vec::new();
    for (n, span) in lines {
        let row =
            cells(&text[span.clone()]).ok_or_else(|| not(format!("line {n} is not a row")))?;
        if row.len() != header.len() {
            return Err(not(format!(
                "line {n} has {} cells where the header has {}",
                row.len(),
                header.len()
            )));
        }
        rows.push(span);
    }
    Ok((header, rows))
}

/// The lines of `text`, numbered from 1, as byte ranges without their line breaks.
fn lines(text: &str) -> impl Iterator<Item = (usize, Range<usize>)> + '_ {
    let mut at = 0;
    text.split_inclusive('\n')
        .enumerate()
        .map(move |(n, line)| {
            let start = at;
            at += line.len();
            let content = line.trim_end_matches(['\n', '\r']);
            (n + 1, start..start + content.len())
        })
}

/// The cells of a `| a | b |` line (the outer pipes optional when there are inner ones).
pub fn cells(line: &str) -> Option<Vec<String>> {
    let line = line.trim();
    let mut cells = Vec::new();
    let mut cell = String::new();
    let mut chars = line.chars().peekable();
    let mut pipes = 0;
    while let Some(c) = chars.next() {
        match c {
            '\\' if chars.peek() == Some(&'|') => {
                cell.push('|');
                chars.next();
            }
            '|' => {
                pipes += 1;
                cells.push(std::mem::take(&mut cell));
            }
            _ => cell.push(c),
        }
    }
    cells.push(cell);
    if pipes == 0 {
        return None;
    }
    if line.starts_with('|') {
        cells.remove(0);
    }
    if line.ends_with('|') && !line.ends_with("\\|") {
        cells.pop();
    }
    Some(cells.into_iter().map(|c| c.trim().to_owned()).collect())
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_pipe_table_reads_as_its_header_and_rows() {
        let text = "\n| id | name | total |\n|---:|:-----|------:|\n| 1 | a \\| b | 12.5 |\n| 2 | Zoë |  |\n";
        let (header, rows) = parse(text).unwrap();
        assert_eq!(header, ["id", "name", "total"]);
        let rows: Vec<_> = rows.into_iter().map(|r| cells(&text[r]).unwrap()).collect();
        assert_eq!(rows, [["1", "a | b", "12.5"], ["2", "Zoë", ""]]);
    }

    #[test]
    fn text_around_a_table_or_a_ragged_row_is_not_one() {
        assert!(
            parse("Orders:\n| a | b |\n|---|---|\n| 1 | 2 |")
                .unwrap_err()
                .contains("its first line is not a row")
        );
        assert!(
            parse("| a | b |\n| 1 | 2 |")
                .unwrap_err()
                .contains("line 2 is not the delimiter row")
        );
        assert!(
            parse("| a | b |\n|---|---|\n| 1 |")
                .unwrap_err()
                .contains("line 3 has 1 cells where the header has 2")
        );
        assert!(
            parse("| a | b |\n|---|---|\n| 1 | 2 |\nthe end")
                .unwrap_err()
                .contains("line 4 is not a row")
        );
    }
}
