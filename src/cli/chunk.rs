//! `mcpguard chunk`: large text read piece by piece, cut only at semantic boundaries.

use std::io::{BufRead, Read, Seek, SeekFrom, Write};
use std::path::{Path, PathBuf};

use anyhow::Context as _;
use serde_json::{Map, Value};

use mcpguard::document::{self, PartContent};
use mcpguard::reshape::chunk::lines::{self, Range};
use mcpguard::reshape::chunk::{self, Chunk, Index, Kind, Metadata, Options};
use mcpguard::reshape::cursor::{self, Payload};

use super::exit::Code;
use super::{TokenizerArg, render};

const AFTER_HELP: &str = "\
Chunks hold at most --max-tokens tokens and --max-lines lines and end at a boundary: a log entry
with its stack trace (continuation lines never start a chunk), a Markdown heading, paragraph or
whole fenced code block, a paragraph of text, a JSONL record, a CSV record (its quoted line breaks
included). An entry larger than a chunk is cut at the best place inside it (between lines, between
the records of a list written on one line such as a database's str(rows), after a sentence or a
tag, at a space or a comma) and the chunk says so (metadata.splitEntry). Content under chunkWholeBelow (1000) tokens comes back whole. The input is
read in one streaming pass; concatenating every chunk gives it back byte for byte.

A JSON file holding an MCP tool result is chunked by the text of its first text block.

With --match, the matching entries are written whole (each under `--- lines A-B`; --format jsonl:
one JSON object per line) and how many matched goes to stderr. A line too long to be one entry
(over 2 KB: minified HTML, a list on one line) is never written whole: each hit comes in a window
of a few hundred bytes (the record that holds it, in a list), under `--- line N, bytes A-B`.

Exit codes: 0 a chunk was written (with --match: something matched); 1 the cursor was refused
(with --match: nothing matched); 2 it could not run (unreadable, empty, binary or non-UTF-8
input, a bad range or pattern, no cursor secret).

Examples:
  mcpguard chunk app.log                              # the first chunk, with a nextCursor
  mcpguard chunk app.log --cursor \"$NEXT\"             # the next one
  mcpguard chunk app.log --lines 100:200 --format text
  mcpguard chunk README.md --kind markdown --all --format jsonl
  mcpguard chunk app.log --match 'FATAL|panic' --context 2   # the matching entries, whole
  some-tool | mcpguard chunk - --format text | less";

#[derive(Debug, clap::Args)]
#[command(after_help = AFTER_HELP)]
pub struct Args {
    /// A text file (log, document, JSONL, or a JSON tool result), - for stdin, or an artifact
    /// (ax://DOMAIN/ID).
    #[arg(value_name = "INPUT", default_value = "-")]
    pub input: String,

    /// Tokens per chunk. Default: the config's chunkSize (2000).
    #[arg(long, value_name = "N")]
    pub max_tokens: Option<u64>,

    /// Lines per chunk. Default: the config's chunkMaxLines (200).
    #[arg(long, value_name = "N")]
    pub max_lines: Option<u64>,

    /// What the text is (detected from the name and the first 64 KB otherwise).
    #[arg(long, value_enum, value_name = "KIND")]
    pub kind: Option<KindArg>,

    /// The nextCursor of the previous chunk.
    #[arg(long, value_name = "CURSOR", conflicts_with = "lines")]
    pub cursor: Option<String>,

    /// Just these lines, 1-based and inclusive: 100:200, 100: (to the end), or 100.
    #[arg(long, value_name = "START:END", conflicts_with = "all")]
    pub lines: Option<String>,

    /// Every chunk from here to the end (--format jsonl: one per line; text: the bare content).
    #[arg(long)]
    pub all: bool,

    /// Find instead of chunk: every entry (log entry with its stack trace, Markdown block,
    /// JSONL record; in plain text, the line) that matches this regular expression (the regex
    /// crate's syntax; (?i) for any case), whole, under `--- lines A-B`.
    #[arg(long = "match", value_name = "REGEX", conflicts_with_all = ["cursor", "lines", "all"])]
    pub pattern: Option<String>,

    /// With --match: N lines of context before and after each match (at most 50).
    #[arg(long, value_name = "N", requires = "pattern", default_value_t = 0)]
    pub context: usize,

    /// json: one chunk; jsonl: one chunk per line; text: the bare content, for a pager.
    #[arg(long, value_enum, default_value_t = ChunkFormat::Json)]
    pub format: ChunkFormat,

    /// Token counter for --max-tokens. Default: the config's `tokenizer` (auto).
    #[arg(long, value_enum, value_name = "NAME")]
    pub tokenizer: Option<TokenizerArg>,

    #[command(flatten)]
    pub signing: super::CursorArgs,
}

#[derive(Clone, Copy, Debug, PartialEq, Eq, clap::ValueEnum)]
pub enum KindArg {
    Log,
    Markdown,
    Text,
    Jsonl,
    Csv,
}

impl From<KindArg> for Kind {
    fn from(k: KindArg) -> Self {
        match k {
            KindArg::Log => Kind::Log,
            KindArg::Markdown => Kind::Markdown,
            KindArg::Text => Kind::Text,
            KindArg::Jsonl => Kind::Jsonl,
            KindArg::Csv => Kind::Csv,
        }
    }
}

#[derive(Clone, Copy, Debug, PartialEq, Eq, clap::ValueEnum)]
pub enum ChunkFormat {
    Json,
    Jsonl,
    Text,
}

/// Where the text is: a file read twice (index, then the chunk), or bytes in memory.
enum Source {
    File { name: String, path: PathBuf },
    Memory { name: String, bytes: Vec<u8> },
}

impl Source {
    fn name(&self) -> &str {
        match self {
            Source::File { name, .. } | Source::Memory { name, .. } => name,
        }
    }

    fn reader(&self) -> anyhow::Result<Box<dyn BufRead + '_>> {
        Ok(match self {
            Source::File { path, name } => Box::new(std::io::BufReader::with_capacity(
                1 << 20,
                std::fs::File::open(path).with_context(|| format!("{name}: cannot read"))?,
            )),
            Source::Memory { bytes, .. } => Box::new(bytes.as_slice()),
        })
    }

    /// The first 64 KB, to tell the kind of text.
    fn head(&self) -> anyhow::Result<Vec<u8>> {
        let mut head = Vec::with_capacity(64 << 10);
        self.reader()?.take(64 << 10).read_to_end(&mut head)?;
        Ok(head)
    }

    fn range(&self, start: u64, end: u64) -> anyhow::Result<String> {
        let bytes = match self {
            Source::Memory { bytes, .. } => bytes[start as usize..end as usize].to_vec(),
            Source::File { path, name } => {
                let mut f =
                    std::fs::File::open(path).with_context(|| format!("{name}: cannot read"))?;
                f.seek(SeekFrom::Start(start))?;
                let mut buf = vec![0; (end - start) as usize];
                f.read_exact(&mut buf)
                    .with_context(|| format!("{name}: changed while it was being read"))?;
                buf
            }
        };
        String::from_utf8(bytes).context("the input changed while it was being read")
    }
}

/// Opens the input: a JSON tool result is chunked by its text, anything else as it is.
fn open(arg: &str, config: &mcpguard::config::Config) -> anyhow::Result<Source> {
    // A file is streamed; a stream (standard input, a FIFO, `<(cmd)`) can be read only once, so
    // it is held, within the document limit.
    let held = |name: &str, reader: &mut dyn Read| -> anyhow::Result<Source> {
        let bytes = mcpguard::document::input::read_bytes(reader, name, None, &config.read_limits)?;
        Ok(tool_text(name, &bytes).unwrap_or(Source::Memory {
            name: name.into(),
            bytes,
        }))
    };
    if arg == "-" {
        return held("<stdin>", &mut std::io::stdin().lock());
    }
    let path = match super::source(arg, config)? {
        mcpguard::document::input::Source::Artifact { path, .. } => path,
        _ => PathBuf::from(arg),
    };
    let meta = std::fs::metadata(&path).with_context(|| format!("{arg}: cannot read"))?;
    if meta.is_dir() {
        anyhow::bail!("{arg}: is a directory; chunk takes one file");
    }
    if !meta.is_file() {
        let mut stream =
            std::fs::File::open(&path).with_context(|| format!("{arg}: cannot read"))?;
        return held(arg, &mut stream);
    }
    // Only a JSON file of reasonable size is read whole to look for a tool result.
    if meta.len() <= 256 << 20
        && !mcpguard::document::input::is_jsonl(&path)
        && starts_with_brace(&path)
    {
        let bytes = std::fs::read(&path).with_context(|| format!("{arg}: cannot read"))?;
        if let Some(source) = tool_text(arg, &bytes) {
            return Ok(source);
        }
    }
    Ok(Source::File {
        name: arg.to_owned(),
        path,
    })
}

fn starts_with_brace(path: &Path) -> bool {
    let mut head = [0u8; 64];
    let n = std::fs::File::open(path)
        .and_then(|mut f| f.read(&mut head))
        .unwrap_or(0);
    head[..n].iter().find(|b| !b.is_ascii_whitespace()) == Some(&b'{')
}

/// The text of the first text block, when `bytes` is one JSON document holding an MCP result.
fn tool_text(name: &str, bytes: &[u8]) -> Option<Source> {
    let value: Value = serde_json::from_slice(bytes).ok()?;
    let anatomy = document::anatomy(&value, "");
    anatomy.parts.iter().find_map(|p| match &p.content {
        PartContent::Text { text, .. } => Some(Source::Memory {
            name: format!("{name}#{}", p.pointer),
            bytes: text.as_bytes().to_vec(),
        }),
        _ => None,
    })
}

pub fn run(args: Args, config: &Option<PathBuf>) -> anyhow::Result<Code> {
    let effective = super::load_config(config)?;
    let c = &effective.config;
    let source = open(&args.input, c)?;
    let mut out = std::io::BufWriter::new(std::io::stdout().lock());

    if let Some(pattern) = &args.pattern {
        let regex = mcpguard::reshape::chunk::search::compile(pattern)
            .map_err(|e| anyhow::anyhow!("--match {pattern}: {e}"))?;
        if args.context > mcpguard::reshape::chunk::search::MAX_CONTEXT {
            anyhow::bail!(
                "--context {}: at most {} lines",
                args.context,
                mcpguard::reshape::chunk::search::MAX_CONTEXT
            );
        }
        let kind = match args.kind {
            Some(k) => Kind::from(k),
            None => Kind::detect(Some(source.name()), &source.head()?),
        };
        let query = mcpguard::reshape::chunk::search::Query {
            pattern: regex,
            context: args.context,
            kind: Some(kind),
        };
        let tokenizer = super::chosen_tokenizer(args.tokenizer, c);
        let mut searcher =
            mcpguard::reshape::chunk::search::Searcher::new(query, render::whole_window(tokenizer));
        let mut reader = source.reader()?;
        loop {
            let buf = reader
                .fill_buf()
                .with_context(|| format!("{}: cannot read", source.name()))?;
            if buf.is_empty() {
                break;
            }
            searcher.feed(buf);
            let n = buf.len();
            reader.consume(n);
        }
        let found = searcher.finish();
        // Text for people unless JSON Lines is asked for (json is chunk's default, not a choice).
        render::write_matches(&mut out, &found, pattern, args.format == ChunkFormat::Jsonl)?;
        return Ok(if found.entries > 0 {
            Code::Ok
        } else {
            Code::Findings
        });
    }

    if let Some(spec) = &args.lines {
        let range = Range::parse(spec).map_err(anyhow::Error::msg)?;
        let got = lines::extract(source.reader()?, range)
            .with_context(|| format!("{}: cannot read", source.name()))?;
        let Some(e) = got else {
            let total = lines::extract(source.reader()?, Range { start: 1, end: 1 })?
                .map_or(0, |e| e.total_lines);
            anyhow::bail!(
                "--lines {spec}: {} has {total} lines; the range starts past the end",
                source.name()
            );
        };
        let content = String::from_utf8(e.content)
            .map_err(|_| anyhow::anyhow!("{}: lines {spec} are not valid UTF-8", source.name()))?;
        match args.format {
            ChunkFormat::Text => out.write_all(content.as_bytes())?,
            _ => {
                let mut meta = Map::new();
                meta.insert("startLine".into(), e.start_line.into());
                meta.insert("endLine".into(), e.end_line.into());
                meta.insert("totalLines".into(), e.total_lines.into());
                meta.insert("bytesInChunk".into(), content.len().into());
                let mut obj = Map::new();
                obj.insert("content".into(), content.into());
                obj.insert("metadata".into(), Value::Object(meta));
                serde_json::to_writer(&mut out, &obj)?;
                writeln!(out)?;
            }
        }
        out.flush()?;
        return Ok(Code::Ok);
    }

    let now = args.signing.now();
    let secrets = args.signing.secrets()?;
    // A cursor fixes the chunking it was issued for; flags may repeat it, not contradict it.
    let issued = match &args.cursor {
        Some(text) => {
            let Some(secrets) = &secrets else {
                anyhow::bail!(super::NO_SECRET_HELP);
            };
            let decoded = match cursor::decode_up_to(text, c.read_limits.cursor_bytes()) {
                Ok(d) => d,
                Err(e) => return refuse(&e.to_string()),
            };
            let verdict = cursor::check(&decoded, Some(secrets), now, c.cursor_ttl_seconds as f64);
            if !verdict.usable() {
                return refuse(&verdict.explain(decoded.payload.ts));
            }
            if decoded.payload.kind.as_deref() != Some("chunk") {
                return refuse(
                    "this cursor is not for a chunk (it came from paginate, or another tool)",
                );
            }
            Some(decoded.payload)
        }
        None => None,
    };
    let from_cursor = |key: &str| issued.as_ref().and_then(|p| p.unknown.get(key).cloned());
    let opts = Options {
        max_tokens: args
            .max_tokens
            .or_else(|| issued.as_ref().and_then(|p| p.limit))
            .unwrap_or(c.chunk_size),
        max_lines: args
            .max_lines
            .or_else(|| from_cursor("maxLines").and_then(|v| v.as_u64()))
            .unwrap_or(c.chunk_max_lines),
        kind: args
            .kind
            .map(Kind::from)
            .or_else(|| from_cursor("textKind").and_then(|v| v.as_str().and_then(Kind::parse))),
        tokenizer: super::chosen_tokenizer(args.tokenizer, c),
    };
    if opts.max_tokens == 0 || opts.max_lines == 0 {
        anyhow::bail!("--max-tokens and --max-lines must be at least 1");
    }
    let index = chunk::index(source.name(), source.reader()?, &opts)?;

    if let Some(p) = &issued {
        if p.fingerprint.as_deref() != Some(index.fingerprint.as_str()) {
            return refuse(
                "this cursor is for another file, or the file changed since it was issued; start again without --cursor",
            );
        }
        let contradicts = |flag: &str, issued: Option<String>, now: String| {
            issued.filter(|i| *i != now).map(|i| format!("this cursor was issued for {flag} {i}; this request has {now}. Repeat it, or start again without --cursor"))
        };
        let clash = contradicts(
            "--max-tokens",
            p.limit.map(|l| l.to_string()),
            opts.max_tokens.to_string(),
        )
        .or_else(|| {
            contradicts(
                "--max-lines",
                from_cursor("maxLines").map(|v| v.to_string()),
                opts.max_lines.to_string(),
            )
        })
        .or_else(|| {
            contradicts(
                "--kind",
                from_cursor("textKind").and_then(|v| v.as_str().map(str::to_owned)),
                index.kind.name().to_owned(),
            )
        });
        if let Some(message) = clash {
            return refuse(&message);
        }
    }

    let first = issued.as_ref().map_or(0, |p| p.offset.max(0) as usize);
    if first >= index.chunks.len() {
        return refuse(&format!(
            "the cursor points at chunk {first}, but there are {} chunks",
            index.chunks.len()
        ));
    }
    // Small content comes back whole, with no chunk metadata (US4.4).
    if issued.is_none() && index.tokens < c.chunk_whole_below && !args.all {
        let content = source.range(0, index.total_bytes)?;
        match args.format {
            ChunkFormat::Text => out.write_all(content.as_bytes())?,
            _ => {
                serde_json::to_writer(&mut out, &serde_json::json!({ "content": content }))?;
                writeln!(out)?;
            }
        }
        out.flush()?;
        return Ok(Code::Ok);
    }
    let last = if args.all {
        index.chunks.len()
    } else {
        first + 1
    };
    let needs_cursor = last < index.chunks.len() || (args.all && index.chunks.len() > first + 1);
    let secrets = match (&secrets, needs_cursor && args.format != ChunkFormat::Text) {
        (Some(s), _) => Some(s),
        (None, false) => None,
        (None, true) => anyhow::bail!(super::NO_SECRET_HELP),
    };
    for i in first..last {
        let b = index.chunks[i];
        let content = source.range(b.start, b.end)?;
        if args.format == ChunkFormat::Text {
            out.write_all(content.as_bytes())?;
            continue;
        }
        let next_cursor = (i + 1 < index.chunks.len())
            .then_some(secrets)
            .flatten()
            .map(|s| cursor::encode(&next_payload(i + 1, now, &opts, &index), s));
        let chunk = Chunk {
            content,
            chunk_index: i,
            total_chunks: index.chunks.len(),
            next_cursor,
            metadata: Metadata {
                start_line: b.start_line,
                end_line: b.end_line,
                total_lines: index.total_lines,
                bytes_in_chunk: b.end - b.start,
                kind: index.kind,
                split_entry: b.split_entry,
            },
        };
        serde_json::to_writer(&mut out, &chunk)?;
        writeln!(out)?;
    }
    out.flush()?;
    Ok(Code::Ok)
}

fn next_payload(offset: usize, now: f64, opts: &Options, index: &Index) -> Payload {
    let mut p = Payload::new(offset as u64, now);
    p.kind = Some("chunk".to_owned());
    p.limit = Some(opts.max_tokens);
    p.fingerprint = Some(index.fingerprint.clone());
    p.unknown.insert("maxLines".into(), opts.max_lines.into());
    p.unknown
        .insert("textKind".into(), index.kind.name().into());
    p
}

fn refuse(message: &str) -> anyhow::Result<Code> {
    render::error(&anyhow::anyhow!("{message}"));
    Ok(Code::Findings)
}
