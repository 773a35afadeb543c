//! The live-audit tests' helpers: the rmcp fixture server (examples/fixture_server) over
//! stdio and HTTP, an audit run, and its JSON report checked against the report schema.

use std::io::{BufRead, BufReader};
use std::path::{Path, PathBuf};
use std::process::{Child, Command, Stdio};

use serde_json::Value;

use super::{mcpguard_in, transcript};

/// The fixture server binary (`cargo test` builds the examples).
pub fn fixture() -> PathBuf {
    let bin = PathBuf::from(env!("CARGO_BIN_EXE_mcpguard"));
    let path = bin
        .parent()
        .expect("target dir")
        .join("examples")
        .join("fixture_server");
    assert!(
        path.exists(),
        "build the fixture: cargo build --example fixture_server"
    );
    path
}

/// The example server that serves a recorded catalog (`catalog_server --recorded FILE`).
pub fn catalog_server() -> PathBuf {
    let path = fixture().with_file_name("catalog_server");
    assert!(
        path.exists(),
        "build it: cargo build --example catalog_server"
    );
    path
}

/// The fixture over HTTP on a free port, killed when dropped.
pub struct HttpFixture {
    child: Child,
    pub url: String,
}

impl HttpFixture {
    pub fn start(fault: Option<&str>) -> HttpFixture {
        HttpFixture::with(&fault.map_or(vec![], |f| vec!["--fault", f]))
    }

    /// The fixture over HTTP with these arguments (`--era`, `--fault`).
    pub fn with(args: &[&str]) -> HttpFixture {
        let mut cmd = Command::new(fixture());
        cmd.args(["--http", "127.0.0.1:0"]).args(args);
        let mut child = cmd
            .stdout(Stdio::piped())
            .stderr(Stdio::null())
            .spawn()
            .expect("fixture starts");
        let mut line = String::new();
        BufReader::new(child.stdout.take().unwrap())
            .read_line(&mut line)
            .expect("the fixture prints its address");
        let url = format!("http://{}/mcp", line.trim());
        HttpFixture { child, url }
    }
}

impl Drop for HttpFixture {
    fn drop(&mut self) {
        let _ = self.child.kill();
        let _ = self.child.wait();
    }
}

pub fn audit(dir: &Path, args: &[&str]) -> std::process::Output {
    mcpguard_in(dir)
        .arg("audit")
        .args(args)
        .output()
        .expect("mcpguard runs")
}

/// The JSON report, checked against contracts/schemas/audit.schema.json.
pub fn json_report(out: &std::process::Output) -> Value {
    let report: Value = serde_json::from_slice(&out.stdout)
        .unwrap_or_else(|e| panic!("not JSON ({e}): {}", transcript(out)));
    validated(report)
}

/// A JSON report, after checking it against contracts/schemas/audit.schema.json.
pub fn validated(report: Value) -> Value {
    let schema: Value = serde_json::from_str(
        &std::fs::read_to_string(super::repo("contracts/schemas/audit.schema.json")).unwrap(),
    )
    .unwrap();
    let validator = jsonschema::validator_for(&schema).unwrap();
    let errors: Vec<String> = validator
        .iter_errors(&report)
        .take(5)
        .map(|e| format!("{e} at {}", e.instance_path()))
        .collect();
    assert!(errors.is_empty(), "audit.schema.json: {errors:#?}");
    report
}

/// Findings as (code, pointer, message), sorted: what must agree between transports and
/// between a live run and its saved transcript.
pub fn findings(report: &Value) -> Vec<(String, String, String)> {
    let mut out: Vec<(String, String, String)> = report["documents"]
        .as_array()
        .unwrap()
        .iter()
        .flat_map(|d| d["findings"].as_array().unwrap().clone())
        .map(|f| {
            (
                f["code"].as_str().unwrap().to_owned(),
                f["pointer"].as_str().unwrap().to_owned(),
                f["message"].as_str().unwrap().to_owned(),
            )
        })
        .collect();
    out.sort();
    out
}

pub fn codes(report: &Value) -> Vec<String> {
    let mut c: Vec<String> = findings(report).into_iter().map(|f| f.0).collect();
    c.extend(
        report["corpusFindings"]
            .as_array()
            .unwrap()
            .iter()
            .map(|f| f["code"].as_str().unwrap().to_owned()),
    );
    c.sort();
    c.dedup();
    c
}
