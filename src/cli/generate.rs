//! `mcpguard generate` (hidden): shell completions and the man page, written from the clap
//! definition so they never drift. `completions/` is generated this way and a test fails when
//! the committed files differ from what the current binary would write.

use std::path::PathBuf;

use anyhow::Context as _;
use clap::CommandFactory as _;
use clap_complete::Shell;

use super::exit::Code;

#[derive(Debug, clap::Args)]
pub struct Args {
    /// What to write.
    #[arg(value_enum)]
    pub what: What,
    /// Directory to write into (created if missing).
    #[arg(long, value_name = "DIR")]
    pub out: PathBuf,
}

#[derive(Clone, Copy, Debug, PartialEq, Eq, clap::ValueEnum)]
pub enum What {
    /// bash, zsh, fish, powershell and elvish completions.
    Completions,
    /// The man page, mcpguard.1.
    Man,
}

pub fn run(args: Args) -> anyhow::Result<Code> {
    std::fs::create_dir_all(&args.out)
        .with_context(|| format!("cannot create {}", args.out.display()))?;
    // The files are committed: the plain version, not the commit and target --version adds.
    let mut cmd = super::Cli::command().version(env!("CARGO_PKG_VERSION"));
    match args.what {
        What::Completions => {
            for shell in [
                Shell::Bash,
                Shell::Zsh,
                Shell::Fish,
                Shell::PowerShell,
                Shell::Elvish,
            ] {
                clap_complete::generate_to(shell, &mut cmd, "mcpguard", &args.out)
                    .with_context(|| format!("cannot write {shell} completions"))?;
            }
        }
        What::Man => {
            let mut page = Vec::new();
            clap_mangen::Man::new(cmd).render(&mut page)?;
            std::fs::write(args.out.join("mcpguard.1"), page)?;
        }
    }
    Ok(Code::Ok)
}
