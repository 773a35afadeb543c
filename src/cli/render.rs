//! Shared output helpers: tables, numbers, JSON, and the error printer.
//!
//! Results go to stdout; errors and notes go to stderr. Tables have no colour and no terminal
//! width detection, so output is the same on a TTY, in a pipe and in a snapshot.

use std::io::Write;

pub use mcpguard::human::thousands;

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
