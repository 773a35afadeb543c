//! `mcpguard paginate`: one page of a list with a signed cursor for the next, or every page.

use std::io::Write;
use std::path::PathBuf;

use mcpguard::reshape::cursor;
use mcpguard::reshape::paginate::{self, Order, PaginateError, Request, Session, Size};

use super::exit::Code;
use super::{TokenizerArg, render};

const AFTER_HELP: &str = "\
The list is found for you: the document itself if it is an array, else its largest array
(`items`, `bookings`, `results`, ...), looking inside the JSON text of an MCP tool result, which
then comes back as a tool result (structuredContent kept in step). Use --path for another one.

The page keeps the document's shape: the list is replaced by the page, and `nextCursor` (absent
on the last page) and `meta` {totalCount, pageSize, hasMore, offset} are added beside it; a bare
array becomes {items, nextCursor, meta}. A list that fits one page comes back unchanged.

Items are ordered newest first by createdAt / created_at / created when they have one, else kept
in input order. A cursor remembers the order, the filters, the page size and a fingerprint of the
list: later requests may leave them out, and a cursor used with other ones, or on changed data,
is refused.

Cursors are signed with MCPGUARD_CURSOR_SECRET (or --secret-file): one secret per line, the
first signs, all verify. The same format as the seed's reference server, both ways.

Exit codes: 0 a page was written; 1 the cursor was refused (malformed, bad signature, expired,
data changed, other order or filters); 2 it could not run (no secret, no list, bad limit).

Examples:
  export MCPGUARD_CURSOR_SECRET=$(openssl rand -hex 32)
  mcpguard paginate bookings.json --limit 50
  mcpguard paginate bookings.json --cursor \"$(jq -r .nextCursor page1.json)\"
  mcpguard paginate bookings.json --where status=confirmed --order-by checkInDate:asc
  mcpguard paginate bookings.json --where 'total>=500 and checkInDate<2026-12-01'
  mcpguard paginate bookings.json --where 'status in (cancelled, refunded)' --aggregate 'count, sum(totalPrice.amount)' --group-by status
  some-tool | mcpguard paginate - --budget 2000
  mcpguard paginate bookings.json --all --format jsonl";

#[derive(Debug, clap::Args)]
#[command(after_help = AFTER_HELP)]
pub struct Args {
    /// A JSON file holding one document, - for stdin, or an artifact ax://DOMAIN/ID.
    #[arg(value_name = "INPUT", default_value = "-")]
    pub input: String,

    /// JSON pointer of the list (inside a tool result's JSON text), e.g. /data/items.
    #[arg(long, value_name = "POINTER")]
    pub path: Option<String>,

    /// Items per page. Default: the config's defaultPageSize (50); at most maxPageSize (200).
    #[arg(long, value_name = "N")]
    pub limit: Option<usize>,

    /// The nextCursor of the previous page.
    #[arg(long, value_name = "CURSOR")]
    pub cursor: Option<String>,

    /// Sort by FIELD (dotted for nested: price.total), ascending unless :desc. The sort is stable.
    #[arg(long, value_name = "FIELD[:asc|desc]")]
    pub order_by: Option<String>,

    /// Keep only the items that pass: FIELD=VALUE, FIELD!=VALUE, FIELD>N (>=, <, <=; numbers
    /// and ISO dates), FIELD~TEXT (contains, any case), FIELD in (A, B); nested fields dotted
    /// (customer.city). Repeatable, or joined by `and`: all must hold. --filter is the same.
    #[arg(long = "where", visible_alias = "filter", value_name = "CONDITION")]
    pub filters: Vec<String>,

    /// Figures instead of a page: count, sum(FIELD), avg(FIELD), min(FIELD), max(FIELD) over
    /// the items that pass --where (no cursor, no secret needed).
    #[arg(long, value_name = "MEASURES", conflicts_with_all = ["cursor", "all", "order_by"])]
    pub aggregate: Option<String>,

    /// With --aggregate: the figures per value of this field, largest groups first.
    #[arg(long, value_name = "FIELD", conflicts_with_all = ["cursor", "all", "order_by"])]
    pub group_by: Option<String>,

    /// Shrink the page until its output fits this many tokens; meta.heldBack says how many
    /// items were left for the next page.
    #[arg(long, value_name = "TOKENS")]
    pub budget: Option<u64>,

    /// Token counter for --budget. Default: the config's `tokenizer` (auto).
    #[arg(long, value_enum, value_name = "NAME")]
    pub tokenizer: Option<TokenizerArg>,

    /// Every page from here to the end, one per line (--format jsonl).
    #[arg(long)]
    pub all: bool,

    /// json: one page; jsonl: one page per line (the format of --all).
    #[arg(long, value_enum)]
    pub format: Option<PageFormat>,

    #[command(flatten)]
    pub signing: super::CursorArgs,
}

#[derive(Clone, Copy, Debug, PartialEq, Eq, clap::ValueEnum)]
pub enum PageFormat {
    Json,
    Jsonl,
}

pub fn run(args: Args, config: &Option<PathBuf>) -> anyhow::Result<Code> {
    let effective = super::load_config(config)?;
    let c = &effective.config;
    // One page is one line of compact JSON either way; --all needs the line-per-page form.
    if args.all && args.format == Some(PageFormat::Json) {
        anyhow::bail!("--all writes one page per line: use --format jsonl (or leave --format out)");
    }
    if args.aggregate.is_some() || args.group_by.is_some() {
        return aggregate(&args, c);
    }
    let Some(secrets) = args.signing.secrets()? else {
        anyhow::bail!(super::NO_SECRET_HELP);
    };
    let request = Request {
        limit: args.limit,
        order: args.order_by.as_deref().map(Order::parse).transpose()?,
        filters: (!args.filters.is_empty())
            .then(|| paginate::Where::parse(&args.filters))
            .transpose()
            .map_err(PaginateError::from)?,
        input_order: false,
    };
    let now = args.signing.now();
    let signing = (&secrets, now);

    // A large plain list asked for in its own order is paged from its text, in about its own
    // size; anything else is parsed whole.
    if let Some((name, text)) = lean_text(&args, c)? {
        if let Some(lean) = paginate::LeanDocument::read(&text)
            && paginate::default_order(lean.first_item().as_slice()).is_none()
        {
            return pages(&args, c, &request, &lean.located(), &text, signing);
        }
        let text = mcpguard::document::records::as_result_text(text);
        let docs = mcpguard::document::input::documents_of_text(&name, text, &c.read_limits);
        return paged_whole(
            &args,
            c,
            &request,
            super::one_document(&args.input, docs)?,
            signing,
        );
    }
    let doc = super::read_one_or_records(&args.input, c)?;
    paged_whole(&args, c, &request, doc, signing)
}

/// The input's text, when it may be paged lazily: a whole file or standard input (not a
/// directory, not a JSONL file), asked for in the list's own order (no --order-by, --where or
/// --path, and a cursor that carries neither order nor filters).
fn lean_text(
    args: &Args,
    c: &mcpguard::config::Config,
) -> anyhow::Result<Option<(String, String)>> {
    if args.order_by.is_some() || !args.filters.is_empty() || args.path.is_some() {
        return Ok(None);
    }
    if let Some(text) = &args.cursor
        && !cursor::decode_up_to(text, c.read_limits.cursor_bytes())
            .is_ok_and(|d| d.payload.order.is_none() && d.payload.filters.is_none())
    {
        return Ok(None);
    }
    let source = super::source(&args.input, c)?;
    let whole = match &source {
        mcpguard::document::input::Source::Stdin => true,
        mcpguard::document::input::Source::Path(p) => {
            p.is_file() && !mcpguard::document::input::is_jsonl(p)
        }
        mcpguard::document::input::Source::Artifact { .. } => true,
    };
    if !whole {
        return Ok(None);
    }
    let (name, text) =
        mcpguard::document::input::read_text(&source, std::io::stdin().lock(), &c.read_limits)?;
    mcpguard::document::input::check_nesting(&name, &text, &c.read_limits)?;
    Ok(Some((name, text)))
}

/// [`pages`] of a document parsed whole.
fn paged_whole(
    args: &Args,
    c: &mcpguard::config::Config,
    request: &Request,
    doc: mcpguard::document::input::Document,
    signing: (&cursor::Secrets, f64),
) -> anyhow::Result<Code> {
    let located = paginate::locate(&doc.value, args.path.as_deref())?;
    let code = pages(args, c, request, &located, &doc.text, signing);
    // Freeing a large document tree costs tens of milliseconds the process exit does for free.
    drop(located);
    std::mem::forget(doc);
    code
}

/// The page (or, with --all, every page) of `located`, the list in a document whose text is
/// `text`, written to stdout.
fn pages(
    args: &Args,
    c: &mcpguard::config::Config,
    request: &Request,
    located: &paginate::Located<'_>,
    text: &str,
    signing: (&cursor::Secrets, f64),
) -> anyhow::Result<Code> {
    let settings = paginate::Settings {
        default_page_size: c.default_page_size as usize,
        max_page_size: c.max_page_size as usize,
        max_cursor_bytes: c.read_limits.cursor_bytes(),
        cursor_ttl_seconds: c.cursor_ttl_seconds as f64,
    };
    let size = match args.budget {
        Some(tokens) => Size::Tokens(tokens, super::chosen_tokenizer(args.tokenizer, c)),
        None => Size::Items,
    };
    let mut session = match Session::start(
        located,
        request,
        args.cursor.as_deref(),
        size,
        settings,
        signing,
    ) {
        Ok(session) => session,
        Err(err) if err.is_refusal() => {
            render::error(&anyhow::Error::new(err));
            return Ok(Code::Findings);
        }
        Err(err) => return Err(err.into()),
    };

    let mut out = std::io::BufWriter::new(std::io::stdout().lock());
    if args.cursor.is_none() && !args.all && args.budget.is_none() && session.fits_unchanged() {
        // The whole list fits one page: the input goes out as it came (US1.3, FR-034).
        out.write_all(text.as_bytes())?;
        out.flush()?;
        return Ok(Code::Ok);
    }
    while let Some(page) = session.next_page()? {
        serde_json::to_writer(&mut out, &page.output)?;
        writeln!(out)?;
        if !args.all {
            break;
        }
    }
    out.flush()?;
    drop(session);
    Ok(Code::Ok)
}

/// `--aggregate`: the figures over the items that pass `--where`, as one JSON object.
fn aggregate(args: &Args, c: &mcpguard::config::Config) -> anyhow::Result<Code> {
    let filter = paginate::Where::parse(&args.filters).map_err(PaginateError::from)?;
    let measures = paginate::aggregate::Aggregate::parse(
        args.aggregate.as_deref().unwrap_or("count"),
        args.group_by.as_deref(),
    )
    .map_err(|e| anyhow::anyhow!("--aggregate {e}"))?;
    let doc = super::read_one_or_records(&args.input, c)?;
    let located = paginate::locate(&doc.value, args.path.as_deref())?;
    let question = paginate::select::Question {
        filter: Some(&filter),
        ..Default::default()
    };
    let mut matched = 0usize;
    let over = measures.over(question.kept(&located).map(|(_, item)| {
        matched += 1;
        item
    }));
    let mut figures = serde_json::Map::new();
    figures.insert("matched".into(), matched.into());
    figures.insert("of".into(), located.len().into());
    if let serde_json::Value::Object(m) = over {
        figures.extend(m);
    }
    let mut out = std::io::stdout().lock();
    render::write_json(&mut out, &serde_json::Value::Object(figures))?;
    Ok(Code::Ok)
}
