//! Where meaning breaks in text: which lines start a new unit (a log entry, a Markdown block,
//! a paragraph, a JSONL or CSV record), and where a line too long for one chunk may be cut
//! (between the items of a list written on one line, a sentence end, a tag's end, whitespace,
//! a comma, else a character boundary).

/// What kind of text is being chunked.
#[derive(Clone, Copy, Debug, PartialEq, Eq, serde::Serialize)]
#[serde(rename_all = "lowercase")]
pub enum Kind {
    /// Entries start at a line with a timestamp or a level; other lines continue the entry.
    Log,
    /// Headings, blank-line paragraphs and fenced code blocks.
    Markdown,
    /// Blank-line paragraphs.
    Text,
    /// One record per line.
    Jsonl,
    /// Delimited records (CSV, TSV): a line starts a record unless a quoted field's line
    /// break runs into it.
    Csv,
}

impl Kind {
    pub fn name(self) -> &'static str {
        match self {
            Kind::Log => "log",
            Kind::Markdown => "markdown",
            Kind::Text => "text",
            Kind::Jsonl => "jsonl",
            Kind::Csv => "csv",
        }
    }

    pub fn parse(name: &str) -> Option<Kind> {
        [
            Kind::Log,
            Kind::Markdown,
            Kind::Text,
            Kind::Jsonl,
            Kind::Csv,
        ]
        .into_iter()
        .find(|k| k.name() == name)
    }

    /// Guesses the kind from a file name (if any) and the start of the content.
    pub fn detect(name: Option<&str>, head: &[u8]) -> Kind {
        let ext = name
            .and_then(|n| n.rsplit_once('.'))
            .map(|(_, e)| e.to_ascii_lowercase());
        match ext.as_deref() {
            Some("jsonl" | "ndjson") => return Kind::Jsonl,
            Some("md" | "markdown") => return Kind::Markdown,
            Some("log") => return Kind::Log,
            Some("csv" | "tsv") => return Kind::Csv,
            _ => {}
        }
        let text = String::from_utf8_lossy(head);
        if !matches!(
            text.trim_start().as_bytes().first(),
            Some(b'[' | b'(' | b'|')
        ) && crate::document::records::sniff(&text)
        {
            return Kind::Csv;
        }
        let lines: Vec<&str> = text
            .lines()
            .filter(|l| !l.trim().is_empty())
            .take(200)
            .collect();
        if lines.is_empty() {
            return Kind::Text;
        }
        let share =
            |f: &dyn Fn(&str) -> bool| lines.iter().filter(|l| f(l)).count() * 100 / lines.len();
        if share(&|l| l.starts_with('{') && l.trim_end().ends_with('}')) >= 90 {
            Kind::Jsonl
        } else if share(&|l| starts_log_entry(l.as_bytes())) >= 30 {
            Kind::Log
        } else if lines
            .iter()
            .any(|l| heading(l.as_bytes()) || fence(l.as_bytes()))
        {
            Kind::Markdown
        } else {
            Kind::Text
        }
    }
}

/// Log levels an entry may start with (possibly in brackets).
const LEVELS: [&[u8]; 10] = [
    b"TRACE",
    b"DEBUG",
    b"INFO",
    b"NOTICE",
    b"WARN",
    b"WARNING",
    b"ERROR",
    b"FATAL",
    b"CRITICAL",
    b"SEVERE",
];

/// True when a line starts a log entry: a timestamp (`2026-11-20`, `2026/11/20`, `20/Nov/2026`,
/// `09:00:01`, `Nov 21 09:00:01`, `[2026-...`) or a level (`ERROR`, `[warn]`) at its start.
/// Continuation lines (indented, `at ...`, `Caused by`, `Traceback`, `File "..."`) start
/// with none of these, so they stay with their entry.
pub fn starts_log_entry(line: &[u8]) -> bool {
    let line = line.strip_prefix(b"\xEF\xBB\xBF").unwrap_or(line);
    let l = match line.first() {
        Some(b'[' | b'(' | b'<') => &line[1..],
        _ => line,
    };
    let digit = |i: usize| l.get(i).is_some_and(u8::is_ascii_digit);
    // 2026-11-20 / 2026/11/20 / 2026.11.20
    if (0..4).all(digit) && matches!(l.get(4), Some(b'-' | b'/' | b'.')) && digit(5) && digit(6) {
        return true;
    }
    // 09:00:01
    if digit(0) && digit(1) && l.get(2) == Some(&b':') && digit(3) && digit(4) {
        return true;
    }
    // 20/Nov/2026 or 20-Nov-2026
    if digit(0)
        && digit(1)
        && matches!(l.get(2), Some(b'/' | b'-'))
        && l.get(3).is_some_and(u8::is_ascii_alphabetic)
    {
        return true;
    }
    // Nov 21 09:00:01 (syslog)
    const MONTHS: [&[u8]; 12] = [
        b"Jan", b"Feb", b"Mar", b"Apr", b"May", b"Jun", b"Jul", b"Aug", b"Sep", b"Oct", b"Nov",
        b"Dec",
    ];
    if l.len() > 7
        && MONTHS.iter().any(|m| l.starts_with(m))
        && l[3] == b' '
        && (l[4].is_ascii_digit() || l[4] == b' ')
    {
        return true;
    }
    // A level word, any case, followed by a separator.
    LEVELS.iter().any(|level| {
        l.len() > level.len()
            && l[..level.len()].eq_ignore_ascii_case(level)
            && matches!(l[level.len()], b' ' | b':' | b']' | b'|' | b'\t' | b'-')
    })
}

/// A Markdown ATX heading: `#` to `######` then a space.
pub fn heading(line: &[u8]) -> bool {
    let hashes = line.iter().take_while(|&&b| b == b'#').count();
    (1..=6).contains(&hashes)
        && matches!(line.get(hashes), Some(b' ' | b'\t' | b'\r' | b'\n') | None)
}

/// A fenced code block's opening or closing line: three or more backticks or tildes.
pub fn fence(line: &[u8]) -> bool {
    let line = trim_start(line);
    line.starts_with(b"```") || line.starts_with(b"~~~")
}

/// Only spaces, tabs and the line end.
pub fn blank(line: &[u8]) -> bool {
    line.iter()
        .all(|b| matches!(b, b' ' | b'\t' | b'\r' | b'\n'))
}

fn trim_start(line: &[u8]) -> &[u8] {
    let n = line
        .iter()
        .take_while(|&&b| b == b' ' || b == b'\t')
        .count();
    &line[n..]
}

/// True when the line's text ends a sentence (`.`, `!`, `?`, `:` and closing quotes).
pub fn ends_sentence(line: &[u8]) -> bool {
    let mut end = line.len();
    while end > 0
        && matches!(
            line[end - 1],
            b'\n' | b'\r' | b' ' | b'\t' | b'"' | b'\'' | b')'
        )
    {
        end -= 1;
    }
    end > 0 && matches!(line[end - 1], b'.' | b'!' | b'?' | b':')
}

/// Where each item of a list written on one line starts (after the opening bracket, and after
/// each comma between items): a JSON array or a Python list or tuple of records, as a database
/// server's `str(rows)` writes 600 KB on one line. Strings are skipped whole (both quotes,
/// backslash escapes), so a comma or bracket inside one is no boundary. `None` when the line
/// is not such a list of two or more items.
pub fn item_starts(line: &[u8]) -> Option<Vec<usize>> {
    let open = line.iter().position(|b| !b.is_ascii_whitespace())?;
    if !matches!(line[open], b'[' | b'(') {
        return None;
    }
    let skip_space = |mut at: usize| {
        while line.get(at).is_some_and(u8::is_ascii_whitespace) {
            at += 1;
        }
        at
    };
    let mut starts = vec![skip_space(open + 1)];
    let (mut depth, mut at) = (1usize, open + 1);
    while at < line.len() {
        match line[at] {
            quote @ (b'"' | b'\'') => {
                at += 1;
                while at < line.len() && line[at] != quote {
                    at += if line[at] == b'\\' { 2 } else { 1 };
                }
            }
            b'[' | b'(' | b'{' => depth += 1,
            b']' | b')' | b'}' => {
                depth -= 1;
                if depth == 0 {
                    break;
                }
            }
            b',' if depth == 1 => starts.push(skip_space(at + 1)),
            _ => {}
        }
        at += 1;
    }
    starts.retain(|&s| s < line.len() && !matches!(line[s], b']' | b')' | b'\n' | b'\r'));
    (starts.len() >= 2).then_some(starts)
}

/// Where to cut `text` so the first part is at most `max` bytes: after the last sentence end
/// in the second half of the window, else after the last tag's end (`>`) there, else after the
/// last whitespace, else after the last comma, else at the last character boundary. Always
/// cuts at least one character.
pub fn cut_point(text: &str, max: usize) -> usize {
    if text.len() <= max {
        return text.len();
    }
    let mut limit = max.max(1);
    while !text.is_char_boundary(limit) {
        limit -= 1;
    }
    if limit == 0 {
        // One character wider than the budget: take it whole.
        return text.char_indices().nth(1).map_or(text.len(), |(i, _)| i);
    }
    let window = &text.as_bytes()[..limit];
    let half = limit / 2;
    let sentence = window
        .windows(2)
        .enumerate()
        .rev()
        .take_while(|(i, _)| *i >= half)
        .find(|(_, w)| matches!(w[0], b'.' | b'!' | b'?') && w[1] == b' ')
        .map(|(i, _)| i + 2);
    if let Some(at) = sentence {
        return at;
    }
    if let Some(at) = window[half..].iter().rposition(|b| *b == b'>') {
        return half + at + 1;
    }
    for boundary in [b" \t".as_slice(), b",;"] {
        if let Some(at) = window
            .iter()
            .rposition(|b| boundary.contains(b))
            .filter(|&i| i > 0)
        {
            return at + 1;
        }
    }
    limit
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn log_entries_and_continuations() {
        for entry in [
            "2026-11-20 06:00:00.123 INFO  started",
            "[2026-11-20T06:00:00Z] request",
            "09:15:02 worker ready",
            "Nov 21 09:00:01 host sshd[42]: accepted",
            "ERROR: disk full",
            "[warn] slow query",
            "127.0.0.1 - - [20/Nov/2026:06:00:00 +0000]",
        ] {
            // The access-log line starts with an address, not a time: it is not an entry start.
            assert_eq!(
                starts_log_entry(entry.as_bytes()),
                !entry.starts_with("127"),
                "{entry}"
            );
        }
        for continuation in [
            "\tat com.acme.Foo.bar(Foo.java:12)",
            "Caused by: java.lang.IllegalStateException",
            "Traceback (most recent call last):",
            "  File \"app.py\", line 3, in <module>",
            "\t... 41 more",
            "",
        ] {
            assert!(!starts_log_entry(continuation.as_bytes()), "{continuation}");
        }
    }

    #[test]
    fn detects_kinds() {
        assert_eq!(Kind::detect(Some("a.jsonl"), b""), Kind::Jsonl);
        assert_eq!(Kind::detect(None, b"{\"a\":1}\n{\"a\":2}\n"), Kind::Jsonl);
        assert_eq!(
            Kind::detect(None, b"2026-11-20 INFO a\n\tat x\n2026-11-20 WARN b\n"),
            Kind::Log
        );
        assert_eq!(
            Kind::detect(None, b"# Title\n\nSome text.\n"),
            Kind::Markdown
        );
        assert_eq!(
            Kind::detect(None, b"Just words.\n\nMore words.\n"),
            Kind::Text
        );
    }

    #[test]
    fn items_of_a_list_on_one_line_start_after_its_commas_not_those_in_strings() {
        let line = b"[(1, 'a, b', Decimal('1.50')), (2, 'it\\'s (so)', None), (3, \"]\", 4)]\n";
        let starts = item_starts(line).unwrap();
        let items: Vec<&str> = starts
            .iter()
            .map(|&s| std::str::from_utf8(&line[s..s + 3]).unwrap())
            .collect();
        assert_eq!(items, ["(1,", "(2,", "(3,"]);
        let dicts = br#"[{"id": 1, "n": [1, 2]}, {"id": 2}]"#;
        assert_eq!(item_starts(dicts).unwrap(), [1, 25]);
        for not_a_list in [&b"plain, words"[..], b"[1]", b"{\"a\": [1, 2]}"] {
            assert_eq!(item_starts(not_a_list), None);
        }
    }

    #[test]
    fn tags_and_commas_are_boundaries_before_any_character() {
        let html = "<div><span>alpha</span><span>beta</span></div>";
        assert_eq!(
            &html[..cut_point(html, 30)],
            "<div><span>alpha</span><span>"
        );
        let csv = "1,2,3,4,5,6,7,8,9";
        assert_eq!(&csv[..cut_point(csv, 8)], "1,2,3,4,");
    }

    #[test]
    fn cuts_at_sentences_then_spaces() {
        let text = "One sentence here. Another one follows and goes on";
        assert_eq!(&text[..cut_point(text, 30)], "One sentence here. ");
        assert_eq!(
            &text[..cut_point(text, 40)],
            "One sentence here. Another one follows ",
            "a sentence end in the first half gives way to whitespace"
        );
        let words = "alpha beta gamma delta";
        assert_eq!(&words[..cut_point(words, 12)], "alpha beta ");
        let solid = "ééééé";
        assert_eq!(cut_point(solid, 3), 2, "never inside a character");
        assert_eq!(cut_point("é", 1), 2, "at least one character");
    }
}
