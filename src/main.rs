//! The `mcpguard` binary: parse the command line, run the command, turn the outcome into an
//! exit code (see `cli::exit`). A closed stdout (`mcpguard ... | head`) is not an error.

use std::process::ExitCode;

use clap::Parser as _;

mod cli;

/// Parsing and walking JSON trees allocates small objects by the million; mimalloc makes that
/// markedly cheaper than the system allocator (measured in the audit benchmark).
#[global_allocator]
static ALLOCATOR: mimalloc::MiMalloc = mimalloc::MiMalloc;

fn main() -> ExitCode {
    // Started by a proxy to end its servers when it is gone: that, and nothing else.
    if mcpguard::proxy::warden::keep_watch_if_asked() {
        return ExitCode::SUCCESS;
    }
    let args = cli::Cli::parse();
    if matches!(args.command, cli::Command::Proxy(_)) {
        give_freed_memory_back_at_once();
    }
    args.color.apply();
    match cli::run(args) {
        Ok(code) => code.into(),
        Err(err) if cli::exit::is_broken_pipe(&err) => cli::exit::Code::Ok.into(),
        Err(err) => {
            cli::render::error(&err);
            cli::exit::Code::Failure.into()
        }
    }
}

/// `mi_option_purge_delay` in the mimalloc 3.x that libmimalloc-sys 0.1.49 builds (its
/// `mimalloc.h`; the crate names only some of the options).
const PURGE_DELAY: libmimalloc_sys::mi_option_t = 15;

/// A proxy lives beside its client all day, so memory it frees goes back to the system at once
/// rather than after mimalloc's default second: a gateway's cold start lists a hundred servers on
/// a hundred threads, and what they freed, held that long, was a third of its peak.
fn give_freed_memory_back_at_once() {
    // SAFETY: sets one of mimalloc's options, which it reads at each purge; no memory is touched.
    unsafe { libmimalloc_sys::mi_option_set(PURGE_DELAY, 0) }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_purge_delay_is_the_option_it_is_named_after() {
        // Its default (1,000 ms), then what was set; the options around it default otherwise.
        let get = || unsafe { libmimalloc_sys::mi_option_get(PURGE_DELAY) };
        assert_eq!(get(), 1000);
        give_freed_memory_back_at_once();
        assert_eq!(get(), 0);
    }
}
