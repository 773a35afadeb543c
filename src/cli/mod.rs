//! The command line: clap structs that mirror the flags, and `run`, which turns them into the
//! core's options and calls one subcommand. The core never sees clap.

use std::collections::BTreeMap;
use std::path::PathBuf;

use clap::{Parser, Subcommand, ValueEnum};

pub mod artifacts;
pub mod audit;
pub mod auth;
pub mod chunk;
pub mod decode_cursor;
pub mod estimate;
pub mod exit;
pub mod generate;
pub mod install;
pub mod live;
pub mod oauth;
pub mod paginate;
pub mod pins;
pub mod proxy;
pub mod render;
pub mod summarize;
pub mod validate_config;
pub mod watch;

use mcpguard::config::{self, Config, Effective};
use mcpguard::document::input::Source;
use mcpguard::reshape::artifact::{Ref, Store};
use mcpguard::reshape::cursor::Secrets;
use mcpguard::tokens::Tokenizer;

const ABOUT: &str = "Keep MCP server output inside a model's context window.";

const LONG_ABOUT: &str = "\
Keep Model Context Protocol (MCP) server output inside a model's context window.

mcpguard measures JSON responses (captured files, directories, JSONL transcripts, stdin), checks
them against a written contract (10 KB per response, 10 items per array, 500 chars per string,
depth 4, a 4000-token budget), and reshapes them so a CI step can fail a build that would flood
the context and a person can pipe a bloated tool result through it.";

const AFTER_HELP: &str = "\
Exit codes: 0 nothing to report; 1 the command ran and found problems; 2 it could not run.

Examples:
  mcpguard audit contracts/examples                   # the contract check CI runs
  mcpguard estimate contracts/examples
  some-mcp-tool | mcpguard estimate - --tokenizer claude
  mcpguard estimate captures/ --max-tokens 10000      # a one-line CI gate
  some-mcp-tool | mcpguard summarize                  # a preview that fits, full result kept
  mcpguard validate-config mcpguard.yaml";

/// `mcpguard --version`: the version, then the commit and the target it was built from (build.rs).
const VERSION: &str = concat!(
    env!("CARGO_PKG_VERSION"),
    " (",
    env!("BUILT_COMMIT"),
    ", ",
    env!("BUILT_TARGET"),
    ")"
);

#[derive(Debug, Parser)]
#[command(name = "mcpguard", version = VERSION, about = ABOUT, long_about = LONG_ABOUT, after_help = AFTER_HELP)]
#[command(propagate_version = true, max_term_width = 100)]
pub struct Cli {
    /// Config file (YAML or JSON). Default: $MCPGUARD_CONFIG, else mcpguard.yaml, .yml or .json
    /// in the working directory, else built-in defaults.
    #[arg(long, global = true, value_name = "FILE")]
    pub config: Option<PathBuf>,

    /// When to use colour on stderr. NO_COLOR in the environment means never.
    #[arg(long, global = true, value_enum, default_value_t = ColorChoice::Auto, value_name = "WHEN")]
    pub color: ColorChoice,

    #[command(subcommand)]
    pub command: Command,
}

#[derive(Debug, Subcommand)]
pub enum Command {
    /// Lint captured responses or live servers (stdio, Streamable HTTP, a client's server list)
    /// against the contract: findings with JSON pointers and savings, per-tool statistics,
    /// client verdicts, baselines; table, JSON, SARIF, JUnit, GitHub, Markdown.
    Audit(Box<audit::Args>),
    /// Measure documents: bytes, what the model sees, tokens, budget, client verdicts, and
    /// where the tokens go.
    Estimate(estimate::Args),
    /// Cut one page of a list (a JSON array, a document holding one, an MCP tool result) with a
    /// signed nextCursor; --cursor fetches the next page.
    Paginate(paginate::Args),
    /// Shrink a response so it fits the budget and the contract, with the full data stored as
    /// an artifact (ax://DOMAIN/ID): projected fields, summarized text, bloat removed.
    Summarize(summarize::Args),
    /// Show what a cursor carries, when it was issued, when it expires, and whether it verifies.
    DecodeCursor(decode_cursor::Args),
    /// Read large text (logs, documents, JSONL, a tool result's text) in chunks cut at semantic
    /// boundaries, with a cursor for the next; --lines for a range.
    Chunk(chunk::Args),
    /// Check a config file against the schema and the range rules; print the defaults or the
    /// effective config; watch a file and re-validate on every save.
    ValidateConfig(validate_config::Args),
    /// Stand between an MCP client and a server (stdio): results that fit pass byte for byte,
    /// the rest come back shrunk with the full data one tool call away.
    Proxy(Box<proxy::Args>),
    /// Rewrite a client's MCP config (Claude Code in each scope, Claude Desktop, Cursor, VS
    /// Code, Codex, Gemini CLI, Windsurf, or a file) so its servers start through `mcpguard
    /// proxy`, every other byte kept; `--list` shows them all.
    Install(install::InstallArgs),
    /// Undo `install`: the servers start their own commands again.
    Uninstall(install::UninstallArgs),
    /// Sign in to remote servers (OAuth) and keep the login for the proxy and the audit:
    /// login, status, logout, and a fresh Authorization header for a client's headersHelper.
    Auth(auth::Args),
    /// The tool definitions the gateway has pinned: list them with the changes waiting for
    /// a person, approve a change (a held tool is listed again), forget pins.
    Pins(pins::Args),
    /// List, show and clear out the full results shrunk responses point at (ax://DOMAIN/ID).
    Artifacts(artifacts::Args),
    /// Write shell completions and the man page (for packagers; used to refresh completions/).
    #[command(hide = true)]
    Generate(generate::Args),
}

#[derive(Clone, Copy, Debug, PartialEq, Eq, ValueEnum)]
pub enum ColorChoice {
    Auto,
    Always,
    Never,
}

impl ColorChoice {
    /// Applies the choice to everything written through anstream (errors, clap's help).
    pub fn apply(self) {
        let choice = match self {
            ColorChoice::Auto => anstream::ColorChoice::Auto,
            ColorChoice::Always => anstream::ColorChoice::Always,
            ColorChoice::Never => anstream::ColorChoice::Never,
        };
        choice.write_global();
    }
}

/// `--format` for commands whose output is a report.
#[derive(Clone, Copy, Debug, PartialEq, Eq, ValueEnum)]
pub enum ReportFormat {
    /// A table for people.
    Table,
    /// Pretty JSON with a stable key order (schemas in contracts/schemas/).
    Json,
}

/// `--tokenizer`: the counters of the core, named for clap.
#[derive(Clone, Copy, Debug, PartialEq, Eq, ValueEnum)]
pub enum TokenizerArg {
    /// claude-fast, and the exact claude count wherever the estimate lands near a limit that
    /// decides a verdict (budget, hard cap, a client limit, --max-tokens). The default.
    Auto,
    /// Claude Opus 4.7 and later (Opus 4.8, Sonnet 5): ctok 1.3.0's offline reconstruction of
    /// the current tokenizer, exact against ctok. A reconstruction, not Anthropic's tokenizer.
    Claude,
    /// Claude 3 through Opus 4.6: ctok 1.3.0's reconstruction of that tokenizer.
    ClaudeV3,
    /// An estimate of claude: character classes (GB/s), scaled by 2 KB of each response counted exactly.
    ClaudeFast,
    /// The legacy BPE of @anthropic-ai/tokenizer, made for models before Claude 3: undercounts
    /// current models; kept for comparison.
    ClaudeLegacy,
    /// Seed R001: floor(chars/4) + 20%. What the seed's servers budget with.
    Heuristic,
    /// OpenAI o200k_base (GPT-4o, GPT-4.1, GPT-5).
    O200k,
    /// OpenAI cl100k_base (GPT-4, GPT-3.5).
    Cl100k,
}

/// The counter a command uses: `--tokenizer` when given, else the config's `tokenizer` (its
/// file, its `MCPGUARD_TOKENIZER`, or auto). Every command that counts asks here.
pub fn chosen_tokenizer(flag: Option<TokenizerArg>, config: &config::Config) -> Tokenizer {
    flag.map_or(config.tokenizer, Tokenizer::from)
}

impl From<TokenizerArg> for Tokenizer {
    fn from(t: TokenizerArg) -> Self {
        match t {
            TokenizerArg::Auto => Tokenizer::Auto,
            TokenizerArg::Claude => Tokenizer::Claude,
            TokenizerArg::ClaudeV3 => Tokenizer::ClaudeV3,
            TokenizerArg::ClaudeFast => Tokenizer::ClaudeFast,
            TokenizerArg::ClaudeLegacy => Tokenizer::ClaudeLegacy,
            TokenizerArg::Heuristic => Tokenizer::Heuristic,
            TokenizerArg::O200k => Tokenizer::O200k,
            TokenizerArg::Cl100k => Tokenizer::Cl100k,
        }
    }
}

/// Runs the chosen command.
pub fn run(cli: Cli) -> anyhow::Result<exit::Code> {
    match cli.command {
        Command::Audit(args) => audit::run(*args, &cli.config),
        Command::Estimate(args) => estimate::run(args, &cli.config),
        Command::Paginate(args) => paginate::run(args, &cli.config),
        Command::Summarize(args) => summarize::run(args, &cli.config),
        Command::DecodeCursor(args) => decode_cursor::run(args, &cli.config),
        Command::Chunk(args) => chunk::run(args, &cli.config),
        Command::ValidateConfig(args) => validate_config::run(args, &cli.config),
        Command::Proxy(args) => proxy::run(*args, &cli.config),
        Command::Artifacts(args) => artifacts::run(args, &cli.config),
        Command::Auth(args) => auth::run(args),
        Command::Pins(args) => pins::run(args),
        Command::Install(args) => install::install(args),
        Command::Uninstall(args) => install::uninstall(args),
        Command::Generate(args) => generate::run(args),
    }
}

/// The `MCPGUARD_*` part of the environment: all the config module may see.
pub fn mcpguard_env() -> BTreeMap<String, String> {
    std::env::vars()
        .filter(|(k, _)| k.starts_with("MCPGUARD_"))
        .collect()
}

/// `--client`: which clients' limits to judge responses against.
#[derive(Debug, clap::Args)]
pub struct ClientArgs {
    /// Clients to judge each response against (comma-separated): claude-code, copilot-cli,
    /// opencode, or a profile from the config's `clients`.
    #[arg(
        long = "client",
        value_delimiter = ',',
        value_name = "NAMES",
        default_value = "claude-code"
    )]
    pub names: Vec<String>,
}

impl ClientArgs {
    /// The named profiles, or an error listing the known ones.
    pub fn resolve(
        &self,
        config: &config::Config,
    ) -> anyhow::Result<BTreeMap<String, mcpguard::contract::ClientProfile>> {
        self.names
            .iter()
            .map(|name| match config.clients.get(name) {
                Some(profile) => Ok((name.clone(), profile.clone())),
                None => {
                    let known: Vec<_> = config.clients.keys().map(String::as_str).collect();
                    anyhow::bail!("unknown client `{name}`; known: {}", known.join(", "))
                }
            })
            .collect()
    }
}

/// `--secret-file` and `--at`: what every command that signs or checks cursors takes.
#[derive(Debug, clap::Args)]
pub struct CursorArgs {
    /// File of cursor secrets, one per line (the first signs, all verify). Default:
    /// $MCPGUARD_CURSOR_SECRET.
    #[arg(long, value_name = "FILE")]
    pub secret_file: Option<PathBuf>,

    /// Take this Unix time as now (reproducible cursors and expiry checks).
    #[arg(long, value_name = "UNIX_SECONDS")]
    pub at: Option<f64>,
}

impl CursorArgs {
    pub fn secrets(&self) -> anyhow::Result<Option<Secrets>> {
        load_secrets(self.secret_file.as_deref())
    }

    pub fn now(&self) -> f64 {
        self.at.unwrap_or_else(mcpguard::reshape::cursor::now)
    }
}

/// The environment variable that holds the cursor secret(s), one per line.
pub const SECRET_ENV: &str = "MCPGUARD_CURSOR_SECRET";

/// The cursor secrets: `--secret-file`, else `MCPGUARD_CURSOR_SECRET`, else none. Never taken
/// from a plain flag (it would show in the process list) and never printed.
pub fn load_secrets(secret_file: Option<&std::path::Path>) -> anyhow::Result<Option<Secrets>> {
    use anyhow::Context as _;
    if let Some(path) = secret_file {
        let text = mcpguard::util::fsutil::read_text_capped(
            path,
            mcpguard::util::fsutil::MAX_SECRET_BYTES,
        )
        .with_context(|| format!("cannot read the secret file {}", path.display()))?;
        return Ok(Some(checked(&text, &path.display().to_string())?));
    }
    match std::env::var(SECRET_ENV) {
        Ok(text) => Ok(Some(checked(&text, SECRET_ENV)?)),
        Err(std::env::VarError::NotPresent) => Ok(None),
        Err(std::env::VarError::NotUnicode(_)) => {
            anyhow::bail!("{SECRET_ENV} is not valid UTF-8")
        }
    }
}

/// The secrets in `text`, with a warning on stderr for one too short to be safe.
fn checked(text: &str, origin: &str) -> anyhow::Result<Secrets> {
    let secrets = Secrets::parse(text, origin)?;
    if let Some(weak) = secrets.weakness(origin) {
        render::warning(&weak);
    }
    Ok(secrets)
}

/// What to tell someone who has no secret set.
pub const NO_SECRET_HELP: &str = "no cursor secret: set MCPGUARD_CURSOR_SECRET (one secret per line; the first signs, all verify) \
or pass --secret-file FILE, e.g. `export MCPGUARD_CURSOR_SECRET=$(openssl rand -hex 32)`";

/// An input argument as a source: `-` for stdin, an `ax://DOMAIN/ID` artifact (looked up in
/// the config's artifactDir), or a path.
pub fn source(arg: &str, config: &Config) -> anyhow::Result<Source> {
    if !Ref::is_ref(arg) {
        return Ok(Source::from_arg(arg));
    }
    let reference = Ref::parse(arg)?;
    let path = Store::new(&config.artifact_dir).resolve(&reference)?;
    Ok(Source::Artifact {
        reference: arg.to_owned(),
        path,
    })
}

/// The sources behind a command's input arguments.
pub fn sources(args: &[String], config: &Config) -> anyhow::Result<Vec<Source>> {
    args.iter().map(|a| source(a, config)).collect()
}

/// Reads exactly one document from an input argument (`-` for stdin, a path, an artifact).
pub fn read_one(arg: &str, config: &Config) -> anyhow::Result<mcpguard::document::input::Document> {
    let source = source(arg, config)?;
    let docs = mcpguard::document::input::load_all(
        std::slice::from_ref(&source),
        std::io::stdin().lock(),
        &config.read_limits,
    );
    one_document(arg, docs)
}

/// [`read_one`] where a file (or standard input) of records in plain text, a CSV file, a
/// saved `str(rows)` or a Markdown table, reads as the tool result that carries that text.
pub fn read_one_or_records(
    arg: &str,
    config: &Config,
) -> anyhow::Result<mcpguard::document::input::Document> {
    use mcpguard::document::input;
    let source = source(arg, config)?;
    if let Source::Path(p) = &source
        && (!p.is_file() || input::is_jsonl(p))
    {
        return read_one(arg, config);
    }
    let (name, text) = input::read_text(&source, std::io::stdin().lock(), &config.read_limits)?;
    let text = mcpguard::document::records::as_result_text(text);
    one_document(
        arg,
        input::documents_of_text(&name, text, &config.read_limits),
    )
}

/// The one document of `docs`, read from `arg`, or why there is not exactly one.
pub fn one_document(
    arg: &str,
    mut docs: Vec<
        Result<mcpguard::document::input::Document, mcpguard::document::input::InputError>,
    >,
) -> anyhow::Result<mcpguard::document::input::Document> {
    match docs.len() {
        1 => Ok(docs.pop().expect("one document")?),
        0 => anyhow::bail!("{arg}: no document"),
        n => anyhow::bail!(
            "{arg}: holds {n} documents; this command takes one (name a single file or JSONL line)"
        ),
    }
}

/// Loads the effective config for a command, printing its warnings to stderr.
pub fn load_config(explicit: &Option<PathBuf>) -> anyhow::Result<Effective> {
    let env = mcpguard_env();
    let dir = std::env::current_dir()?;
    let effective = config::load(explicit.as_deref(), &env, &dir)?;
    for warning in &effective.warnings {
        render::warning(warning);
    }
    Ok(effective)
}

#[cfg(test)]
mod tests {
    use clap::CommandFactory as _;

    #[test]
    fn cli_definition_is_consistent() {
        super::Cli::command().debug_assert();
    }
}
