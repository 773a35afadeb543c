//! `mcpguard validate-config` as a user runs it: valid and invalid files (YAML and JSON), the
//! defaults, the effective values with their origins, and `--watch` on a file being edited.

mod common;

use std::fs;
use std::io::{BufRead, BufReader};
use std::process::Stdio;
use std::sync::mpsc;
use std::time::Duration;

use common::{code, mcpguard_in, repo, settings, transcript};
use serde_json::Value;

#[test]
fn valid_file() {
    let dir = tempfile::tempdir().unwrap();
    fs::write(
        dir.path().join("mcpguard.yaml"),
        "tokenBudgetThreshold: 3000\nhardCap: 9000\nrules:\n  MG003: off\n  too-deep: error\nendpoints:\n  search_bookings:\n    pageSize: 20\n    fields: [id, status]\n",
    )
    .unwrap();
    // Found in the working directory without being named.
    let out = mcpguard_in(dir.path())
        .arg("validate-config")
        .output()
        .unwrap();
    assert_eq!(code(&out), 0, "{}", transcript(&out));
    assert_eq!(
        String::from_utf8_lossy(&out.stdout),
        format!("{}: valid\n", dir.path().join("mcpguard.yaml").display())
    );
}

#[test]
fn invalid_yaml_names_line_column_key_value_and_fix() {
    let dir = tempfile::tempdir().unwrap();
    fs::write(
        dir.path().join("bad.yaml"),
        "# team config\ndefaultPageSize: 500\nhardCap: \"12k\"\nlimits:\n  maxBytes: 10240\n  maxArrayItem: 10\nrules:\n  MG003: sometimes\ntokenizer: gpt2\n",
    )
    .unwrap();
    let out = mcpguard_in(dir.path())
        .args(["validate-config", "bad.yaml"])
        .output()
        .unwrap();
    assert_eq!(code(&out), 1);
    settings(Some(dir.path())).bind(|| insta::assert_snapshot!(transcript(&out)));
}

#[test]
fn cross_key_rules() {
    let dir = tempfile::tempdir().unwrap();
    fs::write(
        dir.path().join("mcpguard.json"),
        "{\n  \"tokenBudgetThreshold\": 8000,\n  \"hardCap\": 6000,\n  \"maxPageSize\": 100,\n  \"endpoints\": {\n    \"list_logs\": { \"pageSize\": 150, \"rules\": { \"MG042\": \"off\" } }\n  }\n}\n",
    )
    .unwrap();
    let out = mcpguard_in(dir.path())
        .args(["validate-config", "mcpguard.json"])
        .output()
        .unwrap();
    assert_eq!(code(&out), 1);
    settings(Some(dir.path())).bind(|| insta::assert_snapshot!(transcript(&out)));
}

#[test]
fn syntax_errors_and_missing_files() {
    let dir = tempfile::tempdir().unwrap();
    fs::write(
        dir.path().join("broken.yaml"),
        "limits:\n  maxBytes: 10240\n   maxJsonDepth: 4\n",
    )
    .unwrap();
    fs::write(dir.path().join("broken.json"), "{\"hardCap\": 12000,}\n").unwrap();
    let yaml = mcpguard_in(dir.path())
        .args(["validate-config", "broken.yaml"])
        .output()
        .unwrap();
    let json = mcpguard_in(dir.path())
        .args(["validate-config", "broken.json"])
        .output()
        .unwrap();
    let missing = mcpguard_in(dir.path())
        .args(["validate-config", "nope.yaml"])
        .output()
        .unwrap();
    assert_eq!((code(&yaml), code(&json), code(&missing)), (1, 1, 2));
    settings(Some(dir.path())).bind(|| {
        insta::assert_snapshot!(format!(
            "{}\n{}\n{}",
            transcript(&yaml),
            transcript(&json),
            transcript(&missing)
        ))
    });
}

#[test]
fn json_report_matches_its_schema() {
    let dir = tempfile::tempdir().unwrap();
    fs::write(
        dir.path().join("mcpguard.yaml"),
        "hardCap: 1\nlimits: {maxBytes: 0}\n",
    )
    .unwrap();
    let out = mcpguard_in(dir.path())
        .args(["validate-config", "--format", "json"])
        .env("MCPGUARD_CHUNK_SIZE", "-3")
        .output()
        .unwrap();
    assert_eq!(code(&out), 1);
    let report: Value = serde_json::from_slice(&out.stdout).unwrap();
    let schema: Value = serde_json::from_str(
        &fs::read_to_string(repo("contracts/schemas/validate-config.schema.json")).unwrap(),
    )
    .unwrap();
    let validator = jsonschema::validator_for(&schema).unwrap();
    assert!(validator.is_valid(&report), "{report:#}");
    let issues = report["issues"].as_array().unwrap();
    let where_: Vec<(&str, &str)> = issues
        .iter()
        .map(|i| {
            (
                i["source"].as_str().unwrap(),
                i["pointer"].as_str().unwrap(),
            )
        })
        .collect();
    assert!(
        where_.contains(&("env MCPGUARD_CHUNK_SIZE", "/chunkSize")),
        "{where_:?}"
    );
    assert!(
        where_
            .iter()
            .any(|(s, p)| s.ends_with("mcpguard.yaml") && *p == "/limits/maxBytes"),
        "{where_:?}"
    );
    let max_bytes = issues
        .iter()
        .find(|i| i["pointer"] == "/limits/maxBytes")
        .unwrap();
    assert_eq!(
        (max_bytes["line"].as_u64(), max_bytes["column"].as_u64()),
        (Some(2), Some(10))
    );
}

#[test]
fn print_defaults_is_a_valid_config_of_the_defaults() {
    let dir = tempfile::tempdir().unwrap();
    let out = mcpguard_in(dir.path())
        .args(["validate-config", "--print-defaults"])
        .output()
        .unwrap();
    assert_eq!(code(&out), 0);
    fs::write(dir.path().join("mcpguard.yaml"), &out.stdout).unwrap();
    let shown = mcpguard_in(dir.path())
        .args(["validate-config", "--show-effective", "--format", "json"])
        .output()
        .unwrap();
    assert_eq!(code(&shown), 0, "{}", transcript(&shown));
    let report: Value = serde_json::from_slice(&shown.stdout).unwrap();
    let empty = tempfile::tempdir().unwrap();
    let defaults_out = mcpguard_in(empty.path())
        .args(["validate-config", "--show-effective", "--format", "json"])
        .output()
        .unwrap();
    let defaults: Value = serde_json::from_slice(&defaults_out.stdout).unwrap();
    let values = |r: &Value| {
        r["settings"]
            .as_array()
            .unwrap()
            .iter()
            .map(|s| (s["key"].clone(), s["value"].clone()))
            .collect::<Vec<_>>()
    };
    assert_eq!(
        values(&report),
        values(&defaults),
        "the printed file sets exactly the defaults"
    );
    settings(None).bind(|| insta::assert_snapshot!(String::from_utf8_lossy(&out.stdout)));
}

#[test]
fn show_effective_says_where_each_value_came_from() {
    let dir = tempfile::tempdir().unwrap();
    fs::write(dir.path().join("team.yaml"), "# shared\nhardCap: 20000\nlimits:\n  maxBytes: 20480\nclients:\n  claude-code:\n    maxTokens: 50000\n").unwrap();
    let out = mcpguard_in(dir.path())
        .args(["validate-config", "--show-effective"])
        .env("MCPGUARD_CONFIG", "team.yaml")
        .env("MCPGUARD_TOKENIZER", "claude")
        .env("MCPGUARD_CURSOR_SECRET", "never-printed-s3cret")
        .output()
        .unwrap();
    assert_eq!(code(&out), 0, "{}", transcript(&out));
    let text = transcript(&out);
    assert!(!text.contains("never-printed-s3cret"));
    settings(Some(dir.path())).bind(|| insta::assert_snapshot!(text));
}

/// Reads stdout lines of a running `--watch` until `until` matches, or fails after a timeout.
fn read_until(rx: &mpsc::Receiver<String>, until: &str) -> Vec<String> {
    let mut seen = Vec::new();
    loop {
        match rx.recv_timeout(Duration::from_secs(20)) {
            Ok(line) => {
                let done = line.contains(until);
                seen.push(line);
                if done {
                    return seen;
                }
            }
            Err(_) => panic!("no line with {until:?} within 20 s; saw {seen:#?}"),
        }
    }
}

/// `validate-config mcpguard.yaml --watch` in `dir`, and its stdout a line at a time.
fn watch(dir: &std::path::Path) -> (std::process::Child, mpsc::Receiver<String>) {
    let mut child = std::process::Command::new(env!("CARGO_BIN_EXE_mcpguard"))
        .args(["validate-config", "mcpguard.yaml", "--watch"])
        .current_dir(dir)
        .env("NO_COLOR", "1")
        .stdout(Stdio::piped())
        .stderr(Stdio::null())
        .spawn()
        .unwrap();
    let stdout = child.stdout.take().unwrap();
    let (tx, rx) = mpsc::channel();
    std::thread::spawn(move || {
        for line in BufReader::new(stdout).lines().map_while(Result::ok) {
            if tx.send(line).is_err() {
                break;
            }
        }
    });
    (child, rx)
}

#[test]
fn watch_reloads_good_saves_and_keeps_the_last_good_config() {
    let dir = tempfile::tempdir().unwrap();
    let path = dir.path().join("mcpguard.yaml");
    fs::write(&path, "hardCap: 12000\n").unwrap();
    let (mut child, rx) = watch(dir.path());

    read_until(&rx, "mcpguard.yaml: valid");
    // Give the watcher a moment to be in place before the first edit.
    std::thread::sleep(Duration::from_millis(300));
    fs::write(&path, "hardCap: 20000\nlimits:\n  maxBytes: 20480\n").unwrap();
    let reload = read_until(&rx, "limits.maxBytes");
    assert!(
        reload.iter().any(|l| l == "  hardCap: 12000 -> 20000"),
        "{reload:#?}"
    );
    assert!(
        reload
            .iter()
            .any(|l| l == "  limits.maxBytes: 10240 -> 20480"),
        "{reload:#?}"
    );

    // An editor-style save: write a temp file, rename it over the config.
    fs::write(
        dir.path().join(".mcpguard.yaml.swp"),
        "hardCap: 100\ntokenBudgetThreshold: 4000\n",
    )
    .unwrap();
    fs::rename(dir.path().join(".mcpguard.yaml.swp"), &path).unwrap();
    let rejected = read_until(&rx, "keeping the last good config");
    assert!(
        rejected
            .iter()
            .any(|l| l.contains("/hardCap: hardCap 100 is below tokenBudgetThreshold 4000")),
        "{rejected:#?}"
    );

    fs::write(&path, "hardCap: 30000\n").unwrap();
    // Changes are listed in key order: hardCap before limits.
    let back = read_until(&rx, "limits.maxBytes: 20480 -> 10240");
    assert!(
        back.iter().any(|l| l == "  hardCap: 20000 -> 30000"),
        "compared with the last good config: {back:#?}"
    );

    assert!(
        child.try_wait().unwrap().is_none(),
        "--watch never exits on a bad file"
    );
    child.kill().unwrap();
    child.wait().unwrap();
}

#[test]
fn watch_follows_a_symlinked_config_and_waits_out_a_save_that_truncates_first() {
    let dir = tempfile::tempdir().unwrap();
    let dotfiles = dir.path().join("dotfiles");
    fs::create_dir(&dotfiles).unwrap();
    let real = dotfiles.join("mcpguard.yaml");
    fs::write(&real, "hardCap: 12000\n").unwrap();
    std::os::unix::fs::symlink(&real, dir.path().join("mcpguard.yaml")).unwrap();
    let (mut child, rx) = watch(dir.path());
    read_until(&rx, "mcpguard.yaml: valid");
    std::thread::sleep(Duration::from_millis(300));
    // The file the link points at, saved where it is (as the dotfiles manager's editor does).
    fs::write(&real, "hardCap: 20000\n").unwrap();
    let reload = read_until(&rx, "hardCap: 12000 -> 20000");
    assert!(!reload.is_empty());
    // A save that empties the file, then writes it a moment later: one reload, never the
    // defaults in between.
    fs::write(&real, "").unwrap();
    std::thread::sleep(Duration::from_millis(300));
    fs::write(&real, "hardCap: 30000\n").unwrap();
    let next = read_until(&rx, "hardCap: 20000 -> 30000");
    assert!(
        !next.iter().any(|l| l.contains("-> 12000")),
        "the empty moment was not taken as a config: {next:#?}"
    );
    child.kill().unwrap();
    child.wait().unwrap();
}
