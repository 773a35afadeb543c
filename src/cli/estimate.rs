//! `mcpguard estimate`: what each document costs, and a one-line CI gate (`--max-tokens`).

use std::io::Write;
use std::path::PathBuf;

use serde::Serialize;

use mcpguard::measure::estimate::{self, DocumentEstimate, Options, Totals};
use mcpguard::tokens::Tokenizer;

use super::exit::Code;
use super::render::{self, percent, thousands};
use super::{ReportFormat, TokenizerArg};

const AFTER_HELP: &str = "\
Wire bytes are the message as sent. What the model sees is measured apart: the text of content
blocks, structuredContent, the result itself for other messages, for plain JSON the text as it
stands, and media. An image (PNG, JPEG, GIF, WebP) is counted by its pixels as Claude bills it:
ceil(w/28) x ceil(h/28) patches after the model family scales it down (Opus 4.7+: 2,576 px and
4,784 patches at most; claude-v3's family: 1,568 px and 1,568 patches). Audio, PDFs, an image
whose header does not read, and every image under a non-Claude tokenizer cost mediaTokens
(1,600) and say why. Each media block is listed with its size and how it was counted.

Tokenizers (all offline): auto, the default, estimates with claude-fast and counts exactly with
claude a response of up to 2 KB of text and wherever the estimate lands near a limit that
decides a verdict (budget, hard cap, a client's limits, --max-tokens); the table marks exact
counts. claude-fast is a model of character classes scaled on each response by the exact count
of four 512-byte windows of it. claude (Opus 4.7 and later) and
claude-v3 (Claude 3 to Opus 4.6) reproduce ctok 1.3.0's reconstruction of Claude's tokenizers
(not an official tokenizer; ctok measured it against count_tokens). claude-legacy is the
pre-Claude 3 BPE of @anthropic-ai/tokenizer, heuristic the seed's floor(chars/4) + 20%, o200k and
cl100k OpenAI's encodings. --compare shows them all with their error against claude.

Examples:
  mcpguard estimate contracts/examples
  mcpguard estimate response.json --compare
  curl -s ... | mcpguard estimate - --format json
  mcpguard estimate captures/ --max-tokens 10000 --top 0";

#[derive(Debug, clap::Args)]
#[command(after_help = AFTER_HELP)]
pub struct Args {
    /// Files, directories (walked for .json, .jsonl, .ndjson), - for stdin, or artifacts
    /// (ax://DOMAIN/ID, written by summarize).
    #[arg(value_name = "INPUT", required = true)]
    pub inputs: Vec<String>,

    /// Token counter. Default: the config's `tokenizer` (auto).
    #[arg(long, value_enum, value_name = "NAME")]
    pub tokenizer: Option<TokenizerArg>,

    /// Count with every counter, side by side, each with its error against claude.
    #[arg(long)]
    pub compare: bool,

    /// How many JSON paths to list under "where the tokens go" (0 for none).
    #[arg(long, value_name = "N", default_value_t = 3)]
    pub top: usize,

    /// Exit 1 when any document is over N tokens: a one-line CI gate.
    #[arg(long, value_name = "N")]
    pub max_tokens: Option<u64>,

    #[command(flatten)]
    pub clients: super::ClientArgs,

    /// Output format.
    #[arg(long, value_enum, default_value_t = ReportFormat::Table)]
    pub format: ReportFormat,
}

/// The JSON report (contracts/schemas/estimate.schema.json).
#[derive(Serialize)]
#[serde(rename_all = "camelCase")]
struct Report<'a> {
    tokenizer: &'static str,
    documents: &'a [DocumentEstimate],
    totals: &'a Totals,
    #[serde(skip_serializing_if = "Option::is_none")]
    max_tokens: Option<u64>,
    over_max_tokens: Vec<&'a str>,
    errors: Vec<String>,
}

pub fn run(args: Args, config: &Option<PathBuf>) -> anyhow::Result<Code> {
    let effective = super::load_config(config)?;
    let c = &effective.config;
    let clients = args.clients.resolve(c)?;
    let opts = Options {
        tokenizer: super::chosen_tokenizer(args.tokenizer, c),
        compare: args.compare,
        top: args.top,
        threshold: c.token_budget_threshold,
        hard_cap: c.hard_cap,
        media_tokens: c.media_tokens,
        clients,
        limits: args.max_tokens.into_iter().collect(),
    };

    let sources = super::sources(&args.inputs, c)?;
    let mut estimates = Vec::new();
    let mut errors = Vec::new();
    let mut totals = Totals::default();
    estimate::for_each(
        &sources,
        std::io::stdin().lock(),
        &c.read_limits,
        &opts,
        |e| match e {
            Ok(e) => {
                totals.add(&e);
                estimates.push(e);
            }
            Err(err) => errors.push(err.to_string()),
        },
    );

    let over: Vec<&str> = match args.max_tokens {
        Some(max) => estimates
            .iter()
            .filter(|e| e.tokens > max)
            .map(|e| e.name.as_str())
            .collect(),
        None => Vec::new(),
    };

    let mut out = std::io::stdout().lock();
    match args.format {
        ReportFormat::Json => render::write_json(
            &mut out,
            &Report {
                tokenizer: opts.tokenizer.name(),
                documents: &estimates,
                totals: &totals,
                max_tokens: args.max_tokens,
                over_max_tokens: over.clone(),
                errors: errors.clone(),
            },
        )?,
        ReportFormat::Table if args.compare => write_compare(&mut out, &estimates)?,
        ReportFormat::Table => write_table(&mut out, &estimates, &totals, &opts)?,
    }
    out.flush()?;

    for err in &errors {
        render::error(&anyhow::anyhow!("{err}"));
    }
    if let Some(max) = args.max_tokens {
        for e in estimates.iter().filter(|e| e.tokens > max) {
            // auto counted exactly wherever the estimate was near the limit; far over it, the
            // estimate shows as one.
            eprintln!(
                "mcpguard: {}: {} tokens, over --max-tokens {}",
                e.name,
                mcpguard::util::human::token_count(e.tokens, e.counted_with),
                thousands(max)
            );
        }
    }
    Ok(if !errors.is_empty() {
        Code::Failure
    } else if !over.is_empty() {
        Code::Findings
    } else {
        Code::Ok
    })
}

fn write_table(
    out: &mut impl Write,
    estimates: &[DocumentEstimate],
    totals: &Totals,
    opts: &Options,
) -> anyhow::Result<()> {
    if estimates.is_empty() {
        return Ok(());
    }
    let tokens_header = format!("tokens ({})", opts.tokenizer.name());
    let mut header = vec![
        "document",
        "kind",
        "wire bytes",
        "visible chars",
        tokens_header.as_str(),
        "budget",
        "remaining",
        "hard cap",
    ];
    header.extend(opts.clients.keys().map(String::as_str));
    let auto = opts.tokenizer == Tokenizer::Auto;
    let row = |e: &DocumentEstimate| {
        // auto says which count a row shows: exact near a limit, estimated elsewhere.
        let tokens = if !auto {
            thousands(e.tokens)
        } else if e.counted_with == Tokenizer::Claude.name() {
            format!("{} exact", thousands(e.tokens))
        } else {
            mcpguard::util::human::token_count(e.tokens, e.counted_with)
        };
        let mut row = vec![
            e.name.clone(),
            e.kind.to_owned(),
            thousands(e.wire_bytes),
            thousands(e.visible_chars),
            tokens,
            percent(e.budget.used),
            thousands(e.budget.remaining),
            if e.budget.over_hard_cap { "over" } else { "ok" }.to_owned(),
        ];
        row.extend(e.clients.values().map(|v| v.to_string()));
        row
    };
    let total = (estimates.len() > 1).then(|| {
        let mut row = vec![
            format!("total ({} documents)", totals.documents),
            String::new(),
            thousands(totals.wire_bytes),
            thousands(totals.visible_chars),
            thousands(totals.tokens),
            format!("{} over", totals.over_budget),
            String::new(),
            format!("{} over", totals.over_hard_cap),
        ];
        row.extend(opts.clients.keys().map(|_| String::new()));
        row
    });
    // Written row by row (a JSONL file of millions of lines is a table of millions of rows).
    mcpguard::util::human::write_streamed(out, &header, &[2, 3, 4, 5, 6], || {
        estimates.iter().map(row).chain(total.clone())
    })?;
    writeln!(out)?;
    writeln!(
        out,
        "budget: {} tokens (tokenBudgetThreshold), hard cap {}",
        thousands(opts.threshold),
        thousands(opts.hard_cap)
    )?;
    if auto {
        writeln!(
            out,
            "tokens: ~ estimated with claude-fast; exact: counted with claude (Opus 4.7+), the response being small (up to 2 KB of text) or the estimate near a limit"
        )?;
    }

    if opts.top > 0 {
        writeln!(out, "\nwhere the tokens go (top {} paths):", opts.top)?;
        for e in estimates {
            writeln!(out, "  {} ({} tokens)", e.name, thousands(e.tokens))?;
            for p in &e.top_paths {
                let share = if e.tokens > 0 {
                    p.tokens as f64 / e.tokens as f64
                } else {
                    0.0
                };
                let count = if p.count > 1 {
                    format!(" ({}x)", p.count)
                } else {
                    String::new()
                };
                writeln!(
                    out,
                    "    {:>6}  {:>8} tok  {:>9} B  {}{count}",
                    percent(share),
                    thousands(p.tokens as u64),
                    thousands(p.bytes as u64),
                    mcpguard::json::pointer::display(&p.path),
                )?;
            }
        }
    }
    write_media(out, estimates, false)?;
    Ok(())
}

/// Each document's media blocks, one line each: the image's size (and the size the model reads
/// it at), its tokens and the rule; with `compare`, every rule's figure side by side.
fn write_media(
    out: &mut impl Write,
    estimates: &[DocumentEstimate],
    compare: bool,
) -> anyhow::Result<()> {
    if estimates.iter().all(|e| e.media.is_empty()) {
        return Ok(());
    }
    writeln!(
        out,
        "\nmedia (images by their pixels, as Claude bills them):"
    )?;
    for e in estimates.iter().filter(|e| !e.media.is_empty()) {
        writeln!(out, "  {}", e.name)?;
        for m in &e.media {
            let c = &m.cost;
            let size = match (c.width, c.height) {
                (Some(w), Some(h)) => match c.seen_as {
                    Some([sw, sh]) => format!(" {w}x{h} (read as {sw}x{sh})"),
                    None => format!(" {w}x{h}"),
                },
                _ => String::new(),
            };
            let how = if compare {
                m.compare
                    .iter()
                    .map(|r| format!("{} {}", r.counted_with, thousands(r.tokens)))
                    .collect::<Vec<_>>()
                    .join(" · ")
            } else {
                match c.note {
                    Some(note) => {
                        format!("{} tok, {}: {note}", thousands(c.tokens), c.counted_with)
                    }
                    None => format!("{} tok, {}", thousands(c.tokens), c.counted_with),
                }
            };
            writeln!(
                out,
                "    {}  {}{size}, {} B of base64: {how}",
                mcpguard::json::pointer::display(&m.pointer),
                if m.mime.is_empty() {
                    "no MIME type"
                } else {
                    &m.mime
                },
                thousands(m.base64_bytes),
            )?;
        }
    }
    Ok(())
}

fn write_compare(out: &mut impl Write, estimates: &[DocumentEstimate]) -> anyhow::Result<()> {
    if estimates.is_empty() {
        return Ok(());
    }
    // One column per counter; every one but claude with its error against claude.
    let mut header = vec!["document"];
    header.extend(Tokenizer::COMPARED.iter().map(|t| t.name()));
    let numeric: Vec<usize> = (1..header.len()).collect();
    let mut table = mcpguard::util::human::table(&header, &numeric);
    let with_error = |tokens: u64, claude: u64, first: bool| {
        if first || claude == 0 {
            thousands(tokens)
        } else {
            let err = (tokens as f64 - claude as f64) * 100.0 / claude as f64;
            format!("{} ({err:+.1}%)", thousands(tokens))
        }
    };
    let mut sums = vec![0u64; Tokenizer::COMPARED.len()];
    for e in estimates {
        let claude = e.compare.first().map_or(0, |c| c.tokens);
        let mut row = vec![e.name.clone()];
        for (i, c) in e.compare.iter().enumerate() {
            sums[i] += c.tokens;
            row.push(with_error(c.tokens, claude, i == 0));
        }
        table.add_row(row);
    }
    if estimates.len() > 1 {
        let mut row = vec![format!("total ({} documents)", estimates.len())];
        row.extend(
            sums.iter()
                .enumerate()
                .map(|(i, &s)| with_error(s, sums[0], i == 0)),
        );
        table.add_row(row);
    }
    writeln!(out, "{table}")?;
    writeln!(
        out,
        "claude (Opus 4.7+) and claude-v3 (Claude 3 to Opus 4.6) reproduce ctok 1.3.0's offline\n\
         reconstruction of Claude's tokenizers; errors are against claude. claude-legacy is the\n\
         pre-Claude 3 BPE of @anthropic-ai/tokenizer; heuristic is the seed's chars/4 + 20%.\n\
         Images: pixels for claude and claude-fast (v4.7) and claude-v3 (v3), mediaTokens for the rest."
    )?;
    write_media(out, estimates, true)?;
    Ok(())
}
