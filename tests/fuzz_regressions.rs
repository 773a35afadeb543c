//! The fuzz targets' entry points (mcpguard::fuzz) on every input kept in fuzz/regressions/
//! (inputs that once crashed, hung or blew up a target, named by target), and on a few real
//! and hostile inputs, so `cargo test` keeps them compiling and passing without cargo-fuzz.

mod common;

use std::path::Path;

type Target = fn(&[u8]);

const TARGETS: [(&str, Target); 14] = [
    ("jsonrpc_reader", mcpguard::fuzz::jsonrpc_reader),
    ("sse_parser", mcpguard::fuzz::sse_parser),
    ("cursor", mcpguard::fuzz::cursor),
    ("input", mcpguard::fuzz::input),
    ("config", mcpguard::fuzz::config),
    ("live_inputs", mcpguard::fuzz::live_inputs),
    ("measure_tokens", mcpguard::fuzz::measure_tokens),
    ("chunk", mcpguard::fuzz::chunk),
    ("summarize", mcpguard::fuzz::summarize),
    ("paginate", mcpguard::fuzz::paginate),
    ("proxy_policy", mcpguard::fuzz::proxy_policy),
    ("lean_paging", mcpguard::fuzz::lean_paging),
    ("proxy_http_request", mcpguard::fuzz::proxy_http_request),
    ("proxy_result", mcpguard::fuzz::proxy_result),
];

#[test]
fn every_kept_input_still_passes_its_target() {
    let root = common::repo("fuzz/regressions");
    let mut replayed = 0;
    for (name, target) in TARGETS {
        let dir = root.join(name);
        let Ok(entries) = std::fs::read_dir(&dir) else {
            continue;
        };
        for entry in entries {
            let path = entry.unwrap().path();
            target(&std::fs::read(&path).unwrap());
            replayed += 1;
        }
    }
    eprintln!("{replayed} regression inputs replayed");
}

#[test]
fn every_target_takes_real_and_hostile_input() {
    let real: Vec<Vec<u8>> = ["contracts/examples", "tests/fixtures"]
        .iter()
        .flat_map(|d| std::fs::read_dir(common::repo(d)).unwrap())
        .map(|e| e.unwrap().path())
        .filter(|p| p.extension().is_some_and(|x| x == "json") && small(p))
        .map(|p| std::fs::read(p).unwrap())
        .collect();
    let hostile: [&[u8]; 8] = [
        b"",
        b"\xff\xfe\x00",
        b"{\"a\":\"\\ud800\"}\n\n{",
        b"data: {\"jsonrpc\":\"2.0\",\"id\":1,\"method\":\"roots/list\"}\n\ndata: {\"jsonrpc\":\"2.0\",\"id\":1,\"result\":{}}\n\n",
        b"{\"jsonrpc\":\"2.0\",\"id\":7,\"method\":\"elicitation/create\",\"params\":{}}\n{\"jsonrpc\":\"2.0\",\"id\":1,\"result\":{}}\n",
        b"a0: &a [x, x]\nb: [*a, *a, *a]\n",
        b"[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[",
        b"eyJwYXlsb2FkIjp7fSwic2lnIjoiIn0=",
    ];
    for (_, target) in TARGETS {
        for input in real.iter().map(Vec::as_slice).chain(hostile) {
            target(input);
        }
    }
}

fn small(path: &Path) -> bool {
    std::fs::metadata(path).is_ok_and(|m| m.len() < 200_000)
}
