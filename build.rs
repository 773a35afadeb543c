//! Build steps Cargo.toml cannot express:
//!
//! - Claude's vocabularies (data/claude/ctok-*.json) laid out as the tiler's tables
//!   (src/tokens/claude/table.rs, included as it is), so a process reads them in place instead
//!   of parsing and building a trie before its first count.
//! - The release binary's debug sections compressed by the linker (zlib, which the standard
//!   library's backtraces read): line numbers in backtraces at a fraction of their size.
//! - What `mcpguard --version` names besides the version: the commit built (from git, or from
//!   the `.cargo_vcs_info.json` that `cargo package` writes into a crate) and the target.

use std::path::Path;

#[allow(dead_code)] // the reader half is the binary's
#[path = "src/tokens/claude/table.rs"]
mod table;

fn main() {
    println!("cargo::rerun-if-changed=build.rs");
    println!("cargo::rerun-if-changed=src/tokens/claude/table.rs");
    let out = std::env::var("OUT_DIR").expect("cargo sets OUT_DIR");
    let big_endian = std::env::var("CARGO_CFG_TARGET_ENDIAN").is_ok_and(|e| e == "big");
    for family in ["v3", "v4_7"] {
        let source = format!("data/claude/ctok-{family}.json");
        println!("cargo::rerun-if-changed={source}");
        let built = vocabulary(&source).unwrap_or_else(|e| panic!("{source}: {e}"));
        let bytes: Vec<u8> = built
            .tables()
            .to_words()
            .into_iter()
            .flat_map(|w| {
                if big_endian {
                    w.to_be_bytes()
                } else {
                    w.to_le_bytes()
                }
            })
            .collect();
        let path = Path::new(&out).join(format!("claude-{family}.tables"));
        std::fs::write(&path, bytes).unwrap_or_else(|e| panic!("{}: {e}", path.display()));
    }

    println!(
        "cargo::rustc-env=BUILT_TARGET={}",
        std::env::var("TARGET").unwrap_or_default()
    );
    println!(
        "cargo::rustc-env=BUILT_COMMIT={}",
        commit().unwrap_or_else(|| "unknown commit".into())
    );

    let release = std::env::var("PROFILE").is_ok_and(|p| p == "release");
    let linux = std::env::var("CARGO_CFG_TARGET_OS").is_ok_and(|os| os == "linux");
    if release && linux {
        println!("cargo::rustc-link-arg-bins=-Wl,--compress-debug-sections=zlib");
    }
}

/// The tables of one vocabulary file, as scripts/ctok-vocab.py writes it.
fn vocabulary(path: &str) -> Result<table::Built, String> {
    let text = std::fs::read_to_string(path).map_err(|e| e.to_string())?;
    let file: serde_json::Value = serde_json::from_str(&text).map_err(|e| e.to_string())?;
    let strings = |key: &str| -> Result<Vec<String>, String> {
        file[key]
            .as_array()
            .ok_or(format!("`{key}` is not a list"))?
            .iter()
            .map(|v| {
                v.as_str()
                    .map(str::to_owned)
                    .ok_or(format!("`{key}` has a non-string"))
            })
            .collect()
    };
    let fold_quotes = file["foldQuotes"]
        .as_bool()
        .ok_or("`foldQuotes` is not a boolean")?;
    let allcaps_min = file["allcapsMin"].as_u64().map(|n| n as u32);
    table::Built::from_file(
        fold_quotes,
        allcaps_min,
        &strings("pieces")?,
        &strings("contractions")?,
        &strings("bytePrefixes")?,
    )
}

/// The commit being built, 12 hex digits: `$BUILT_COMMIT` when set (the release workflow sets
/// it: its builds run in containers where git may not read the checkout), else git's HEAD in a
/// checkout (rebuilt when HEAD or the branch it names moves), else the commit `cargo package`
/// recorded in the crate.
fn commit() -> Option<String> {
    println!("cargo::rerun-if-env-changed=BUILT_COMMIT");
    if let Some(sha) = std::env::var("BUILT_COMMIT").ok().filter(|s| !s.is_empty()) {
        return Some(sha.get(..12).unwrap_or(&sha).to_owned());
    }
    if Path::new(".git").exists() {
        println!("cargo::rerun-if-changed=.git/HEAD");
        if let Some(branch) = std::fs::read_to_string(".git/HEAD")
            .ok()
            .and_then(|head| head.strip_prefix("ref: ").map(|r| r.trim().to_owned()))
        {
            println!("cargo::rerun-if-changed=.git/{branch}");
        }
        let out = std::process::Command::new("git")
            .args(["rev-parse", "--short=12", "HEAD"])
            .output()
            .ok()?;
        let sha = String::from_utf8(out.stdout).ok()?;
        return (out.status.success() && !sha.trim().is_empty()).then(|| sha.trim().to_owned());
    }
    let info = std::fs::read_to_string(".cargo_vcs_info.json").ok()?;
    let info: serde_json::Value = serde_json::from_str(&info).ok()?;
    let sha = info["git"]["sha1"].as_str()?;
    Some(sha.get(..12).unwrap_or(sha).to_owned())
}
