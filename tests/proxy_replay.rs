//! Every response of the bundled corpus (tests/fixtures/corpus, captured from published servers)
//! sent through the proxy's policy as the answer to the request that produced it: results that
//! fit pass as the same bytes; oversized ones come back within budget, and their reference,
//! read through the injected tool to the end, gives back the whole of the original.

use std::path::PathBuf;
use std::sync::Arc;
use std::time::{Duration, Instant};

use mcpguard::config::Config;
use mcpguard::proxy::Policy;
use mcpguard::proxy::policy::Route;
use mcpguard::proxy::store::DirStore;
use mcpguard::reshape::cursor::Secrets;
use serde_json::{Value, json};

fn corpus() -> Vec<PathBuf> {
    let dir = PathBuf::from(env!("CARGO_MANIFEST_DIR")).join("tests/fixtures/corpus");
    let mut files: Vec<PathBuf> = std::fs::read_dir(&dir)
        .unwrap_or_else(|e| panic!("{}: {e}; the corpus ships with the project", dir.display()))
        .map(|e| e.unwrap().path())
        .filter(|p| p.extension().is_some_and(|e| e == "json"))
        .collect();
    files.sort();
    assert!(files.len() >= 10, "{} corpus files", files.len());
    files
}

struct Replay {
    policy: Policy,
    next: u64,
}

impl Replay {
    fn new(store: &std::path::Path) -> Replay {
        Replay {
            policy: Policy::new(
                Arc::new(Config::default()),
                Secrets::parse("replay-secret-0123456789", "test").unwrap(),
                Box::new(DirStore::new(store, Duration::from_secs(3600), 1 << 30)),
                false,
            ),
            next: 1000,
        }
    }

    /// The client's request, then the server's line; what the client receives.
    fn exchange(&mut self, request: &Value, answer: &[u8]) -> Vec<u8> {
        let fx = self
            .policy
            .from_client(request.to_string().as_bytes(), Instant::now(), now());
        assert!(matches!(&fx.sends[..], [Route::Server(_)]), "forwarded");
        let fx = self.policy.from_server(answer, Instant::now(), now());
        match &fx.sends[..] {
            [Route::Client(bytes)] => bytes.clone(),
            other => panic!("one message to the client, got {other:?}"),
        }
    }

    /// A call of the injected tool, answered by the policy itself.
    fn more(&mut self, arguments: Value) -> Value {
        self.next += 1;
        let request = json!({"jsonrpc": "2.0", "id": self.next, "method": "tools/call",
            "params": {"name": "mcpguard_more", "arguments": arguments}});
        let fx = self
            .policy
            .from_client(request.to_string().as_bytes(), Instant::now(), now());
        let [Route::Client(bytes)] = &fx.sends[..] else {
            panic!("answered by the proxy: {:?}", fx.sends)
        };
        let v: Value = serde_json::from_slice(bytes).unwrap();
        let result = v["result"].clone();
        assert_ne!(result["isError"], json!(true), "{arguments}: {result}");
        result
    }
}

fn now() -> f64 {
    mcpguard::reshape::cursor::now()
}

/// The tool a capture was made with: `server__tools_call__TOOL__what.json`.
fn tool_of(name: &str) -> Option<&str> {
    name.split("__tools_call__").nth(1)?.split("__").next()
}

fn texts(result: &Value) -> Vec<String> {
    result["content"]
        .as_array()
        .map(|blocks| {
            blocks
                .iter()
                .filter_map(|b| b["text"].as_str().map(str::to_owned))
                .collect()
        })
        .unwrap_or_default()
}

#[test]
fn the_corpus_through_the_proxy_fits_or_passes_untouched_and_nothing_is_lost() {
    let store = tempfile::tempdir().unwrap();
    let mut replay = Replay::new(store.path());
    let (mut shrunk, mut passed) = (Vec::new(), Vec::new());
    let mut reductions = Vec::new();
    for path in corpus() {
        let name = path.file_name().unwrap().to_string_lossy().into_owned();
        let bytes = std::fs::read(&path).unwrap();
        let captured: Value = serde_json::from_slice(&bytes).unwrap();
        let Some(tool) = tool_of(&name) else {
            continue;
        };
        let id = captured["id"].clone();
        let request = json!({"jsonrpc": "2.0", "id": id, "method": "tools/call",
            "params": {"name": tool, "arguments": {}}});
        let got = replay.exchange(&request, &bytes);
        if got == bytes {
            passed.push(name);
            continue;
        }
        let answer: Value = serde_json::from_slice(&got).unwrap();
        assert_eq!(answer["id"], id, "{name}");
        let result = &answer["result"];
        let meta = &result["_meta"]["mcpguard/budget"];
        let tokens = meta["estimatedTokens"].as_u64().unwrap();
        let before = meta["originalTokens"].as_u64().unwrap();
        assert!(tokens <= 4000, "{name}: {tokens} tokens");
        assert!(got.len() <= 10240 + 2048, "{name}: {} bytes", got.len());
        reductions.push(1.0 - tokens as f64 / before as f64);
        assert_eq!(
            result.get("isError"),
            captured["result"].get("isError"),
            "{name}: isError kept"
        );

        // Read the whole of it back through the tool, from its reference to the end.
        let reference = meta["artifactRef"].as_str().unwrap().to_owned();
        let original = &captured["result"];
        match mcpguard::proxy::more::reads_as(original, 4000, Default::default()) {
            "pages" => {
                let located = mcpguard::reshape::paginate::locate(original, None).unwrap();
                let want = located.items().len();
                let mut seen = 0;
                let mut page = replay.more(json!({"ref": reference}));
                loop {
                    let body: Value = serde_json::from_str(&texts(&page)[0]).unwrap();
                    let items = body
                        .as_object()
                        .and_then(|o| o.values().find_map(Value::as_array))
                        .map_or(0, Vec::len);
                    seen += items;
                    let Some(next) = page["nextCursor"].as_str().map(str::to_owned) else {
                        break;
                    };
                    page = replay.more(json!({ "cursor": next }));
                }
                assert_eq!(seen, want, "{name}: every item once");
            }
            _ => {
                let want = texts(original).join("\n");
                let mut joined = String::new();
                let mut piece = replay.more(json!({"ref": reference}));
                loop {
                    joined.push_str(&texts(&piece)[0]);
                    let Some(next) = piece["nextCursor"].as_str().map(str::to_owned) else {
                        break;
                    };
                    piece = replay.more(json!({ "cursor": next }));
                }
                assert_eq!(joined, want, "{name}: the text, byte for byte");
            }
        }
        shrunk.push(name);
    }
    assert!(shrunk.len() >= 5, "shrunk: {shrunk:?}");
    assert!(passed.len() >= 3, "passed: {passed:?}");
    let mean = reductions.iter().sum::<f64>() / reductions.len() as f64;
    assert!(mean >= 0.8, "mean token reduction {mean:.3}");
    eprintln!(
        "{} shrunk (mean token reduction {:.1}%), {} passed byte for byte",
        shrunk.len(),
        mean * 100.0,
        passed.len()
    );
}
