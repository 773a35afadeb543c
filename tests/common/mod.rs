//! Shared helpers for the CLI tests: the binary with a clean environment, a scratch directory,
//! insta settings that write to the top-level snapshots/ and hide temp paths and versions.
#![allow(dead_code)]

pub mod listen;
pub mod live;
pub mod processes;
pub mod session;

use std::path::{Path, PathBuf};

use assert_cmd::Command;

/// The repository root (tests run with it as the working directory by default).
pub fn root() -> PathBuf {
    PathBuf::from(env!("CARGO_MANIFEST_DIR"))
}

/// A path under the repository root.
pub fn repo(path: &str) -> PathBuf {
    root().join(path)
}

/// `mcpguard` run from `dir`, with no MCPGUARD_* variables and no colour from the host.
pub fn mcpguard_in(dir: &Path) -> Command {
    let mut cmd = Command::cargo_bin("mcpguard").expect("binary built");
    for (key, _) in std::env::vars().filter(|(k, _)| k.starts_with("MCPGUARD_")) {
        cmd.env_remove(key);
    }
    cmd.env("NO_COLOR", "1").current_dir(dir);
    cmd
}

/// `mcpguard` run from the repository root.
pub fn mcpguard() -> Command {
    mcpguard_in(&root())
}

/// What a run printed and how it ended, as one text for a snapshot.
pub fn transcript(output: &std::process::Output) -> String {
    format!(
        "exit: {}\n--- stdout\n{}--- stderr\n{}",
        output
            .status
            .code()
            .map_or("signal".to_owned(), |c| c.to_string()),
        String::from_utf8_lossy(&output.stdout),
        String::from_utf8_lossy(&output.stderr)
    )
}

/// insta settings: snapshots in <root>/snapshots, temp dirs and the version filtered out.
pub fn settings(scratch: Option<&Path>) -> insta::Settings {
    let mut s = insta::Settings::clone_current();
    s.set_snapshot_path(root().join("snapshots"));
    s.set_prepend_module_to_snapshot(true);
    s.add_filter(&regex_escape(env!("CARGO_PKG_VERSION")), "[VERSION]");
    if let Some(dir) = scratch {
        s.add_filter(&regex_escape(&dir.display().to_string()), "[TMP]");
        if let Ok(canonical) = dir.canonicalize() {
            s.add_filter(&regex_escape(&canonical.display().to_string()), "[TMP]");
        }
    }
    s.add_filter(&regex_escape(&root().display().to_string()), "[ROOT]");
    s
}

fn regex_escape(text: &str) -> String {
    text.chars()
        .flat_map(|c| {
            let special = "\\.+*?()|[]{}^$#&-~".contains(c);
            special
                .then_some('\\')
                .into_iter()
                .chain(std::iter::once(c))
        })
        .collect()
}

/// Exit code of a finished command.
pub fn code(output: &std::process::Output) -> i32 {
    output.status.code().unwrap_or(-1)
}

/// Runs `cmd` with `args`, bounded: a run that takes a minute (hangs) or panics fails the test
/// with what it printed.
pub fn run_bounded(mut cmd: Command, args: &[&str]) -> std::process::Output {
    let started = std::time::Instant::now();
    let out = cmd
        .args(args)
        .timeout(std::time::Duration::from_secs(60))
        .output()
        .expect("mcpguard runs");
    assert!(
        started.elapsed() < std::time::Duration::from_secs(60),
        "{args:?} took {:?}",
        started.elapsed()
    );
    let text = transcript(&out);
    assert!(!text.contains("panicked"), "{args:?} panicked:\n{text}");
    out
}

/// A run's stdout as JSON, or a failure that shows everything the run printed.
pub fn stdout_json(out: &std::process::Output) -> serde_json::Value {
    serde_json::from_slice(&out.stdout)
        .unwrap_or_else(|e| panic!("stdout is not JSON ({e}):\n{}", transcript(out)))
}

/// Random JSON for property tests: `leaf` values in arrays of up to `items` and objects of up
/// to `members` whose keys match `key`, `depth` levels deep and about `size` nodes in all.
pub fn random_json(
    leaf: proptest::strategy::BoxedStrategy<serde_json::Value>,
    key: &'static str,
    (depth, size): (u32, u32),
    (items, members): (usize, usize),
) -> impl proptest::strategy::Strategy<Value = serde_json::Value> {
    use proptest::prelude::*;
    use serde_json::Value;
    leaf.prop_recursive(depth, size, items.max(members) as u32, move |inner| {
        prop_oneof![
            prop::collection::vec(inner.clone(), 0..items).prop_map(Value::Array),
            prop::collection::vec((key, inner), 0..members)
                .prop_map(|kv| Value::Object(kv.into_iter().collect())),
        ]
    })
}
