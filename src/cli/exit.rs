//! Exit codes, chosen on purpose (DESIGN.md section 6) and documented in the README.

use std::process::ExitCode;

/// What a run ended with.
#[derive(Clone, Copy, Debug, PartialEq, Eq, PartialOrd, Ord)]
pub enum Code {
    /// 0: nothing to report.
    Ok,
    /// 1: the command ran and found problems (a document over `--max-tokens`, an invalid
    /// config, findings at or above `--fail-on`).
    Findings,
    /// 2: the command could not do its job (usage, I/O, unparsable input).
    Failure,
    /// `proxy`: the status the server exited with, passed on.
    Server(u8),
}

impl From<Code> for ExitCode {
    fn from(code: Code) -> Self {
        ExitCode::from(match code {
            Code::Ok => 0,
            Code::Findings => 1,
            Code::Failure => 2,
            Code::Server(status) => status,
        })
    }
}

/// True when the error is a write to a closed pipe: the reader went away, which is fine.
pub fn is_broken_pipe(err: &anyhow::Error) -> bool {
    err.chain().any(|cause| {
        cause
            .downcast_ref::<std::io::Error>()
            .is_some_and(|io| io.kind() == std::io::ErrorKind::BrokenPipe)
    })
}
