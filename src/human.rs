//! Numbers and tables for people: shared by the CLI and the library's report emitters, so a
//! count looks the same in `estimate`, `audit` and every other table.

use comfy_table::{CellAlignment, ContentArrangement, Table, presets};

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
/// right-aligned (numbers).
pub fn table(header: &[&str], right_aligned: &[usize]) -> Table {
    let mut table = Table::new();
    table
        .load_style(presets::UTF8_FULL_CONDENSED)
        .set_content_arrangement(ContentArrangement::Disabled)
        .set_header(header.iter().copied());
    for &i in right_aligned {
        if let Some(column) = table.column_mut(i) {
            column.set_cell_alignment(CellAlignment::Right);
        }
    }
    table
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
