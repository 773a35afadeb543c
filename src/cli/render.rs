//! Shared output helpers: tables, numbers, JSON, and the error printer.
//!
//! Results go to stdout; errors and notes go to stderr. Tables have no colour and no terminal
//! width detection, so output is the same on a TTY, in a pipe and in a snapshot.

use std::io::Write;

pub use mcpguard::util::human::thousands;

/// A fraction as a percentage with one decimal: 0.4567 as "45.7%".
pub fn percent(fraction: f64) -> String {
    format!("{:.1}%", fraction * 100.0)
}

/// Writes a value as pretty JSON with a final newline.
pub fn write_json(out: &mut impl Write, value: &impl serde::Serialize) -> anyhow::Result<()> {
    serde_json::to_writer_pretty(&mut *out, value)?;
    writeln!(out)?;
    Ok(())
}

/// Prints an error and its causes to stderr, ripgrep-style: `mcpguard: error: ...`.
pub fn error(err: &anyhow::Error) {
    let style = anstyle::Style::new()
        .bold()
        .fg_color(Some(anstyle::AnsiColor::Red.into()));
    let mut stderr = anstream::stderr();
    let _ = write!(stderr, "mcpguard: {style}error{style:#}: {err}");
    for cause in err.chain().skip(1) {
        let _ = write!(stderr, ": {cause}");
    }
    let _ = writeln!(stderr);
}

/// Prints a warning to stderr.
pub fn warning(message: &str) {
    let style = anstyle::Style::new()
        .bold()
        .fg_color(Some(anstyle::AnsiColor::Yellow.into()));
    let _ = writeln!(
        anstream::stderr(),
        "mcpguard: {style}warning{style:#}: {message}"
    );
}

/// Matches of `--match` as people read them: each block under a `--- lines A-B` line on stdout
/// (JSON Lines with --format json), and how many matched on stderr.
pub fn write_matches(
    out: &mut impl Write,
    found: &mcpguard::reshape::chunk::search::Found,
    pattern: &str,
    json: bool,
) -> anyhow::Result<()> {
    for b in &found.shown {
        if json {
            let mut block = serde_json::json!({"startLine": b.start_line, "endLine": b.end_line, "text": b.text});
            if let Some((from, to)) = b.bytes {
                block["bytes"] = serde_json::json!([from, to]);
            }
            serde_json::to_writer(&mut *out, &block)?;
            writeln!(out)?;
        } else {
            writeln!(out, "--- {}", b.place())?;
            out.write_all(b.text.as_bytes())?;
            if !b.text.ends_with('\n') {
                writeln!(out)?;
            }
        }
    }
    out.flush()?;
    let mut e = anstream::stderr();
    let (one, many) = match found.kind {
        mcpguard::reshape::chunk::Kind::Text => ("line", "lines"),
        mcpguard::reshape::chunk::Kind::Log => ("log entry", "log entries"),
        mcpguard::reshape::chunk::Kind::Markdown => ("block", "blocks"),
        mcpguard::reshape::chunk::Kind::Jsonl | mcpguard::reshape::chunk::Kind::Csv => {
            ("record", "records")
        }
    };
    let _ = writeln!(
        e,
        "{} {} match{} `{pattern}` in {} lines ({})",
        mcpguard::util::human::thousands(found.entries),
        if found.entries == 1 { one } else { many },
        if found.entries == 1 { "es" } else { "" },
        mcpguard::util::human::thousands(found.total_lines),
        found.kind.name()
    );
    Ok(())
}

/// Everything a search finds, for a person: no budget, no page.
pub fn whole_window(
    tokenizer: mcpguard::tokens::Tokenizer,
) -> mcpguard::reshape::chunk::search::Window {
    mcpguard::reshape::chunk::search::Window {
        skip: 0,
        max_blocks: usize::MAX,
        max_tokens: u64::MAX,
        tokenizer,
    }
}
