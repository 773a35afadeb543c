//! What an attacker or a careless user hands mcpguard, from the command line as they would: a
//! private config that must stay private, a symlinked one, a stream for a config or a secret,
//! a FIFO for `chunk`, an artifact store with an edited file or a planted link. Each case once
//! went wrong; each test fails without its fix.

mod common;

use std::os::unix::fs::PermissionsExt as _;
use std::path::Path;
use std::process::Output;
use std::time::{Duration, Instant};

use common::{code, mcpguard_in};

fn run(dir: &Path, args: &[&str]) -> Output {
    let mut cmd = mcpguard_in(dir);
    cmd.env("HOME", dir).env(
        "MCPGUARD_CURSOR_SECRET",
        "hostile-input-test-secret-0123456789",
    );
    common::run_bounded(cmd, args)
}

fn stdout(out: &Output) -> String {
    String::from_utf8_lossy(&out.stdout).into_owned()
}

fn stderr(out: &Output) -> String {
    String::from_utf8_lossy(&out.stderr).into_owned()
}

fn mode(path: &Path) -> u32 {
    std::fs::metadata(path).unwrap().permissions().mode() & 0o777
}

/// A Claude Desktop config with a token in a server's env and a remote server's headers.
const SECRET_CONFIG: &str = r#"{
  "mcpServers": {
    "github": {"command": "npx", "args": ["-y", "@modelcontextprotocol/server-github"], "env": {"GITHUB_TOKEN": "ghp_secret"}},
    "linear": {"type": "http", "url": "https://mcp.example.com/mcp", "headers": {"Authorization": "Bearer lin_secret"}}
  }
}
"#;

#[test]
fn install_keeps_a_private_config_private_and_its_backup_too() {
    let dir = tempfile::tempdir().unwrap();
    let config = dir.path().join("claude_desktop_config.json");
    std::fs::write(&config, SECRET_CONFIG).unwrap();
    std::fs::set_permissions(&config, std::fs::Permissions::from_mode(0o600)).unwrap();
    let out = run(dir.path(), &["install", config.to_str().unwrap()]);
    assert_eq!(code(&out), 0, "{}", stderr(&out));
    assert_eq!(mode(&config), 0o600, "the config stays 0600");
    let backup = dir
        .path()
        .join("claude_desktop_config.json.mcpguard-backup");
    assert_eq!(mode(&backup), 0o600, "so does its backup");
    assert_eq!(std::fs::read_to_string(&backup).unwrap(), SECRET_CONFIG);
    // A config a user chose to share stays shared.
    std::fs::set_permissions(&config, std::fs::Permissions::from_mode(0o640)).unwrap();
    let out = run(dir.path(), &["uninstall", config.to_str().unwrap()]);
    assert_eq!(code(&out), 0, "{}", stderr(&out));
    assert_eq!(mode(&config), 0o640);
    assert_eq!(std::fs::read_to_string(&config).unwrap(), SECRET_CONFIG);
}

#[test]
fn install_writes_through_a_symlinked_config() {
    let dir = tempfile::tempdir().unwrap();
    let dotfiles = dir.path().join("dotfiles");
    std::fs::create_dir(&dotfiles).unwrap();
    let real = dotfiles.join("mcp.json");
    std::fs::write(&real, SECRET_CONFIG).unwrap();
    let link = dir.path().join(".mcp.json");
    std::os::unix::fs::symlink(&real, &link).unwrap();
    let out = run(dir.path(), &["install", ".mcp.json"]);
    assert_eq!(code(&out), 0, "{}", stderr(&out));
    assert!(
        std::fs::symlink_metadata(&link)
            .unwrap()
            .file_type()
            .is_symlink(),
        "the link is still a link"
    );
    let installed = std::fs::read_to_string(&real).unwrap();
    assert!(installed.contains("\"proxy\""), "{installed}");
    assert!(
        stdout(&out).contains("through the link"),
        "{}",
        stdout(&out)
    );
}

#[test]
fn install_takes_a_byte_order_mark_and_refuses_two_server_lists() {
    let dir = tempfile::tempdir().unwrap();
    let config = dir.path().join("mcp.json");
    let with_bom = format!("\u{feff}{SECRET_CONFIG}");
    std::fs::write(&config, &with_bom).unwrap();
    let out = run(dir.path(), &["install", "mcp.json"]);
    assert_eq!(code(&out), 0, "{}", stderr(&out));
    let installed = std::fs::read_to_string(&config).unwrap();
    assert!(installed.starts_with('\u{feff}') && installed.contains("\"proxy\""));
    let out = run(dir.path(), &["uninstall", "mcp.json"]);
    assert_eq!(code(&out), 0, "{}", stderr(&out));
    assert_eq!(std::fs::read_to_string(&config).unwrap(), with_bom);

    // Two mcpServers keys: clients read the last, so editing the first would change nothing
    // they run. Refused, nothing written, and no line says it was.
    let twice = r#"{"mcpServers": {"a": {"command": "x"}}, "mcpServers": {"b": {"command": "y"}}}"#;
    std::fs::write(&config, twice).unwrap();
    let out = run(dir.path(), &["install", "mcp.json"]);
    assert_eq!(code(&out), 2);
    assert!(stderr(&out).contains("twice"), "{}", stderr(&out));
    assert!(!stdout(&out).contains("now starts"), "{}", stdout(&out));
    assert_eq!(std::fs::read_to_string(&config).unwrap(), twice);
}

#[test]
fn a_config_or_secret_that_never_ends_is_refused_at_a_small_size() {
    let dir = tempfile::tempdir().unwrap();
    let d = dir.path();
    for args in [
        &["validate-config", "/dev/zero"][..],
        &["estimate", "--config", "/dev/zero", "-"],
        &["decode-cursor", "--secret-file", "/dev/zero", "abc"],
        &["proxy", "--mcp-config", "/dev/zero", "--name", "x"],
    ] {
        let out = run(d, args);
        assert_eq!(code(&out), 2, "{args:?}: {}", stderr(&out));
        assert!(
            stderr(&out).contains("/dev/zero"),
            "{args:?}: {}",
            stderr(&out)
        );
        assert!(stderr(&out).contains("bytes"), "{args:?}: {}", stderr(&out));
    }
    // A sparse 2 GB config is refused without being read.
    let sparse = d.join("mcpguard.yaml");
    std::fs::File::create(&sparse)
        .unwrap()
        .set_len(2 << 30)
        .unwrap();
    let started = Instant::now();
    let out = run(d, &["validate-config", "mcpguard.yaml"]);
    assert_eq!(code(&out), 2, "{}", stderr(&out));
    assert!(started.elapsed() < Duration::from_secs(5));
}

#[test]
fn chunk_reads_a_fifo_once() {
    let dir = tempfile::tempdir().unwrap();
    let fifo = dir.path().join("log.fifo");
    let made = std::process::Command::new("mkfifo")
        .arg(&fifo)
        .status()
        .expect("mkfifo runs");
    assert!(made.success());
    let log: String = (1..=3000)
        .map(|i| format!("2026-11-30T10:00:{:02}Z INFO worker {i} done\n", i % 60))
        .collect();
    let writer = {
        let fifo = fifo.clone();
        let log = log.clone();
        std::thread::spawn(move || std::fs::write(fifo, log))
    };
    let out = run(dir.path(), &["chunk", "log.fifo", "--format", "text"]);
    // Had mcpguard not opened it, the writer would wait for a reader: one that takes nothing.
    let _unblock = {
        use std::os::unix::fs::OpenOptionsExt as _;
        std::fs::OpenOptions::new()
            .read(true)
            .custom_flags(libc::O_NONBLOCK)
            .open(&fifo)
    };
    let _ = writer.join().unwrap();
    assert_eq!(code(&out), 0, "{}", stderr(&out));
    let first = stdout(&out);
    assert!(
        first.starts_with("2026-11-30T10:00:01Z INFO worker 1 done\n"),
        "{first:.200}"
    );
    assert!(first.len() < log.len(), "one chunk, not the whole log");
}

/// A summarized list in `dir`'s store: its reference and the artifact's path.
fn stored(dir: &Path) -> (String, std::path::PathBuf) {
    let items: Vec<serde_json::Value> = (0..300)
        .map(|i| serde_json::json!({"id": i, "name": format!("booking {i}"), "notes": "x".repeat(80)}))
        .collect();
    std::fs::write(
        dir.join("list.json"),
        serde_json::json!({"bookings": items}).to_string(),
    )
    .unwrap();
    let out = run(dir, &["summarize", "list.json"]);
    assert_eq!(code(&out), 0, "{}", stderr(&out));
    let summary: serde_json::Value = serde_json::from_slice(&out.stdout).unwrap();
    let reference = summary["artifactRef"].as_str().unwrap().to_owned();
    let (domain, id) = reference["ax://".len()..].split_once('/').unwrap();
    let path = dir
        .join(".mcpguard/artifacts")
        .join(domain)
        .join(format!("{id}.json"));
    (reference, path)
}

#[test]
fn artifacts_are_private_and_an_edited_or_linked_one_is_refused_by_every_reader() {
    let dir = tempfile::tempdir().unwrap();
    let d = dir.path();
    let (reference, path) = stored(d);
    assert_eq!(mode(&path), 0o600, "the artifact is the user's data");
    assert_eq!(mode(path.parent().unwrap()), 0o700);
    assert_eq!(mode(&d.join(".mcpguard/artifacts")), 0o700);

    let readers: [&[&str]; 5] = [
        &["summarize", &reference],
        &["paginate", &reference, "--limit", "5"],
        &["chunk", &reference],
        &["estimate", &reference],
        &["audit", &reference],
    ];
    for args in readers {
        let out = run(d, args);
        assert_ne!(
            code(&out),
            2,
            "{args:?} reads the artifact: {}",
            stderr(&out)
        );
    }
    // Edited by hand: its bytes no longer hash to its name.
    let original = std::fs::read(&path).unwrap();
    let mut edited = original.clone();
    let at = edited.iter().position(|b| *b == b'7').unwrap();
    edited[at] = b'8';
    std::fs::write(&path, &edited).unwrap();
    for args in readers {
        let out = run(d, args);
        assert_eq!(code(&out), 2, "{args:?}: {}", stdout(&out));
        assert!(
            stderr(&out).contains("no longer match"),
            "{args:?}: {}",
            stderr(&out)
        );
    }
    // A link planted where the artifact goes (a cloned repository can ship one).
    let secret = d.join("private.txt");
    std::fs::write(&secret, "ssh-private-key\n").unwrap();
    std::fs::remove_file(&path).unwrap();
    std::os::unix::fs::symlink(&secret, &path).unwrap();
    for args in readers {
        let out = run(d, args);
        assert_eq!(code(&out), 2, "{args:?}");
        assert!(!stdout(&out).contains("ssh-private-key"), "{args:?}");
        assert!(
            stderr(&out).contains("symbolic link"),
            "{args:?}: {}",
            stderr(&out)
        );
    }
}
