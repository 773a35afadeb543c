//! Generated files stay in step with the CLI: completions/ and the man page are what
//! `mcpguard generate` writes today, and every command's --help is snapshotted so a change to
//! what users read is reviewed.

mod common;

use std::fs;

use common::{code, mcpguard, settings};

#[test]
fn completions_are_up_to_date() {
    let dir = tempfile::tempdir().unwrap();
    let out = mcpguard()
        .args(["generate", "completions", "--out"])
        .arg(dir.path())
        .output()
        .unwrap();
    assert_eq!(code(&out), 0, "{}", String::from_utf8_lossy(&out.stderr));
    let mut stale = Vec::new();
    for name in [
        "mcpguard.bash",
        "_mcpguard",
        "mcpguard.fish",
        "_mcpguard.ps1",
        "mcpguard.elv",
    ] {
        let fresh = fs::read_to_string(dir.path().join(name)).unwrap();
        let committed =
            fs::read_to_string(common::repo("completions").join(name)).unwrap_or_default();
        if fresh != committed {
            stale.push(name);
        }
    }
    assert!(
        stale.is_empty(),
        "completions/ is stale ({stale:?}); refresh it with: cargo run -- generate completions --out completions"
    );
}

#[test]
fn the_wheels_share_files_are_the_committed_completions() {
    // maturin takes the wheel's data from packaging/wheel-data (it does not follow links there).
    let share = common::repo("packaging/wheel-data/data/share");
    let mut stale = Vec::new();
    for (copy, original) in [
        ("man/man1/mcpguard.1", "mcpguard.1"),
        ("bash-completion/completions/mcpguard", "mcpguard.bash"),
        ("zsh/site-functions/_mcpguard", "_mcpguard"),
        ("fish/vendor_completions.d/mcpguard.fish", "mcpguard.fish"),
    ] {
        let copy_text = fs::read_to_string(share.join(copy)).unwrap_or_default();
        let original_text = fs::read_to_string(common::repo("completions").join(original)).unwrap();
        if copy_text != original_text {
            stale.push(format!(
                "cp completions/{original} packaging/wheel-data/data/share/{copy}"
            ));
        }
    }
    assert!(
        stale.is_empty(),
        "the wheel's copies are stale; refresh them:\n{}",
        stale.join("\n")
    );
}

#[test]
fn man_page_is_up_to_date() {
    let dir = tempfile::tempdir().unwrap();
    let out = mcpguard()
        .args(["generate", "man", "--out"])
        .arg(dir.path())
        .output()
        .unwrap();
    assert_eq!(code(&out), 0);
    let fresh = fs::read_to_string(dir.path().join("mcpguard.1")).unwrap();
    assert!(fresh.contains(".TH mcpguard 1"));
    let committed = fs::read_to_string(common::repo("completions/mcpguard.1")).unwrap_or_default();
    assert!(
        fresh == committed,
        "completions/mcpguard.1 is stale; refresh it with: cargo run -- generate man --out completions"
    );
}

#[test]
fn help_teaches() {
    for args in [
        &["--help"][..],
        &["estimate", "--help"],
        &["validate-config", "--help"],
        &["paginate", "--help"],
        &["decode-cursor", "--help"],
        &["audit", "--help"],
        &["chunk", "--help"],
        &["summarize", "--help"],
    ] {
        let out = mcpguard().args(args).output().unwrap();
        assert_eq!(code(&out), 0);
        let name = args.join("_").replace("--", "");
        settings(None).bind(|| insta::assert_snapshot!(name, String::from_utf8_lossy(&out.stdout)));
    }
}

#[test]
fn usage_errors_exit_2() {
    let out = mcpguard().args(["estimate"]).output().unwrap();
    assert_eq!(code(&out), 2);
    let out = mcpguard()
        .args(["estimate", "x.json", "--tokenizer", "gpt2"])
        .output()
        .unwrap();
    assert_eq!(code(&out), 2);
    assert!(
        String::from_utf8_lossy(&out.stderr)
            .contains("possible values: auto, claude, claude-v3, claude-fast, claude-legacy, heuristic, o200k, cl100k")
    );
    let out = mcpguard()
        .args(["estimate", "-", "--client", "cursor"])
        .write_stdin("{}")
        .output()
        .unwrap();
    assert_eq!(code(&out), 2);
    assert!(
        String::from_utf8_lossy(&out.stderr)
            .contains("unknown client `cursor`; known: claude-code, copilot-cli, opencode")
    );
}
