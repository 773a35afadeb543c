//! Entry points of the fuzz targets in `fuzz/` (cargo-fuzz), one per place that reads bytes
//! from outside. Each runs the real code on arbitrary input and asserts what must hold for
//! any input; a panic, a hang or an allocation past the fuzzer's limit is a finding. They live
//! in the library, not in `fuzz/`, so `cargo test` compiles them and replays the regression
//! inputs kept in `fuzz/regressions/`.

use std::collections::BTreeMap;

use serde_json::Value;

use crate::audit::{Context, Message, audit_document, transcript::Pairing};
use crate::config::Config;
use crate::tokens::Tokenizer;

/// The JSON-RPC message reader of the live client (stdio framing), both eras.
pub fn jsonrpc_reader(data: &[u8]) {
    crate::net::mcp::replay_for_fuzzing(data, false, false);
    crate::net::mcp::replay_for_fuzzing(data, false, true);
}

/// The SSE parser of the Streamable HTTP client.
pub fn sse_parser(data: &[u8]) {
    crate::net::mcp::replay_for_fuzzing(data, true, false);
}

/// Cursor decoding and verification (`paginate --cursor`, `decode-cursor`).
pub fn cursor(data: &[u8]) {
    let text = String::from_utf8_lossy(data);
    let secrets =
        crate::reshape::cursor::Secrets::parse("fuzz-secret-one\nfuzz-secret-two", "fuzz")
            .expect("two");
    if let Ok(decoded) = crate::reshape::cursor::decode(&text) {
        let _ = crate::reshape::cursor::check(&decoded, Some(&secrets), 1.8e9, 3600.0);
        let _ = crate::reshape::cursor::check(&decoded, None, 0.0, 0.0);
    }
}

/// Input decoding and document recognition (JSON, JSONL, transcripts), then every rule of
/// `audit` on what was read, paired as a transcript; the audit on the borrowed tree
/// ([`crate::json::borrowed`]) must report what it reports on serde_json's.
pub fn input(data: &[u8]) {
    let ctx = Context {
        config: Config::default(),
        tokenizer: Tokenizer::Heuristic,
        clients: crate::contract::default_clients(),
        contract: None,
    };
    for jsonl in [false, true] {
        let mut pairing = Pairing::default();
        for doc in crate::document::input::read_unit_bytes(
            "fuzz.json",
            data.to_vec(),
            jsonl,
            &ctx.config.read_limits,
        )
        .into_iter()
        .flatten()
        {
            let call = match pairing.observe(&doc.value) {
                crate::audit::transcript::Line::Response(call) => *call,
                _ => Default::default(),
            };
            let report = audit_document(&Message::of(&doc), &call, &ctx);
            for f in &report.findings {
                assert!(!f.message.is_empty(), "a finding says something");
            }
            let arena = bumpalo::Bump::new();
            if let Ok(tree) = crate::json::borrowed::parse(&doc.text, &arena) {
                let borrowed = Message::of(&doc).with_tree(&tree, &arena);
                assert_eq!(
                    serde_json::to_value(audit_document(&borrowed, &call, &ctx)).ok(),
                    serde_json::to_value(&report).ok(),
                    "the borrowed tree's report"
                );
            }
        }
    }
}

/// Config loading: YAML and JSON files, then the effective config they make.
pub fn config(data: &[u8]) {
    let text = String::from_utf8_lossy(data);
    for json in [false, true] {
        if let Ok(parsed) = crate::config::parse_text("fuzz.yaml", &text, json) {
            let _ = crate::config::resolve(Some(&parsed), &BTreeMap::new());
        }
    }
}

/// `--calls` files, `mcpServers` configs and `${VAR}` expansion.
pub fn live_inputs(data: &[u8]) {
    let text = String::from_utf8_lossy(data);
    let env = |var: &str| var.len().is_multiple_of(3).then(|| format!("<{var}>"));
    let _ = crate::net::mcp::config::expand(&text, &env);
    let _ = crate::net::mcp::config::parse("fuzz.json", &text, None, &env);
    if let Ok(parsed) = crate::config::parse_text("calls.yaml", &text, false) {
        let _ = crate::audit::live::parse_calls(parsed.value);
    }
}

/// The measure pass and the token counters.
pub fn measure_tokens(data: &[u8]) {
    let text = String::from_utf8_lossy(data);
    let exact = Tokenizer::Claude.counter().count(&text);
    let fast = Tokenizer::ClaudeFast.counter().count(&text);
    let rough = Tokenizer::Heuristic.counter().count(&text);
    assert!(text.is_empty() || exact > 0 || text.trim().is_empty() || fast + rough > 0);
    if let Ok(value) = serde_json::from_str::<Value>(&text) {
        let anatomy = crate::document::anatomy(&value, &text);
        let profile =
            crate::measure::profile(&anatomy, true, crate::tokens::media::MediaRule::flat(0));
        let _ = profile.top_paths(Tokenizer::Heuristic.counter(), 5);
    }
}

/// Chunk boundary detection: the chunks cover the input exactly, in order.
pub fn chunk(data: &[u8]) {
    let opts = crate::reshape::chunk::Options {
        max_tokens: 64,
        max_lines: 20,
        kind: None,
        tokenizer: Tokenizer::Heuristic,
    };
    if let Ok(index) = crate::reshape::chunk::index("fuzz.log", data, &opts) {
        let mut at = 0;
        for c in &index.chunks {
            assert_eq!(c.start, at, "chunks are contiguous");
            assert!(c.end >= c.start);
            at = c.end;
        }
        assert_eq!(at, data.len() as u64, "chunks cover the input");
        // Cut only as far as chunk 2: the same first chunks, the whole input's figures.
        let part = crate::reshape::chunk::index_until("fuzz.log", data, &opts, 1)
            .expect("what indexes whole indexes in part");
        let known = part.chunks.len().min(2);
        assert_eq!(part.chunks[..known], index.chunks[..known]);
        assert_eq!(part.complete, index.chunks.len() <= part.chunks.len());
        assert_eq!(
            (part.total_lines, part.total_bytes, &part.fingerprint),
            (index.total_lines, index.total_bytes, &index.fingerprint)
        );
    }
}

/// summarize on any JSON: the output is JSON within maxBytes whenever it is not the input.
pub fn summarize(data: &[u8]) {
    let Ok(text) = std::str::from_utf8(data) else {
        return;
    };
    let limits = crate::contract::Limits::default();
    let max_bytes = limits.max_bytes;
    let projections = BTreeMap::new();
    let opts = crate::reshape::summarize::Options {
        limits,
        budget: 4000,
        tokenizer: Tokenizer::Heuristic,
        media_tokens: 1600,
        fields: crate::reshape::summarize::Fields::Auto,
        projections: &projections,
        drop_empty: true,
        table: false,
        force: false,
        output_schema: None,
        domain: None,
        artifact: false,
        more_tool: None,
    };
    if let Ok(summary) =
        crate::reshape::summarize::summarize("fuzz.json", text.to_owned(), &opts, |_, _| Ok(()))
        && summary.output != text
    {
        let value: Value = serde_json::from_str(&summary.output).expect("summarize writes JSON");
        assert!(value.is_object());
        assert!(
            summary.output.len() as u64 <= max_bytes,
            "{} bytes",
            summary.output.len()
        );
    }
}

/// paginate: the first page, then every cursor to the end; every item once.
pub fn paginate(data: &[u8]) {
    let Ok(doc) = serde_json::from_slice::<Value>(data) else {
        return;
    };
    let Ok(located) = crate::reshape::paginate::locate(&doc, None) else {
        return;
    };
    let secrets = crate::reshape::cursor::Secrets::parse("fuzz-secret", "fuzz").expect("one");
    let request = crate::reshape::paginate::Request {
        limit: Some(7),
        ..Default::default()
    };
    let Ok(pager) = crate::reshape::paginate::Pager::new(&located, &request, None, 200) else {
        return;
    };
    let mut offset = 0;
    let mut seen = 0;
    while offset < pager.total() {
        let page = pager.page(offset, 7, 1.8e9, &secrets, None);
        seen += page.count;
        assert!(page.count > 0, "a page moves forward");
        offset += page.count;
    }
    assert_eq!(seen, pager.total());
}

/// The proxy's policy on a conversation of arbitrary lines: a line starting with `>` comes
/// from the client, `<` from the server, `?` is a call of the injected tool with the rest as
/// its arguments, anything else alternates sides. Every message the policy sends must be one
/// line of JSON, and every request still waiting when the server goes gets an answer.
pub fn proxy_policy(data: &[u8]) {
    use crate::proxy::policy::{Policy, Route};
    use std::time::{Duration, Instant};

    let secrets = crate::reshape::cursor::Secrets::parse("fuzz-secret-proxy", "fuzz").expect("one");
    let store = crate::proxy::store::MemStore::new(1 << 20);
    let config = Config {
        tokenizer: Tokenizer::ClaudeFast,
        ..Config::default()
    };
    let mut policy = Policy::new(std::sync::Arc::new(config), secrets, Box::new(store), false);
    let start = Instant::now();
    let check = |sends: &[Route]| {
        for route in sends {
            let (Route::Client(bytes) | Route::Server(bytes)) = route;
            let text = std::str::from_utf8(bytes).expect("the policy writes UTF-8");
            assert!(!text.trim_end().contains('\n'), "one message, one line");
        }
    };
    for (i, line) in data.split(|&b| b == b'\n').enumerate() {
        let now = start + Duration::from_secs(i as u64);
        let fx = match line.first() {
            Some(b'>') => policy.from_client(&line[1..], now, 1.8e9),
            Some(b'<') => policy.from_server(&line[1..], now, 1.8e9),
            Some(b'?') => {
                let call = format!(
                    "{{\"jsonrpc\":\"2.0\",\"id\":\"m{i}\",\"method\":\"tools/call\",\"params\":{{\"name\":\"mcpguard_more\",\"arguments\":{}}}}}",
                    String::from_utf8_lossy(&line[1..])
                );
                policy.from_client(call.as_bytes(), now, 1.8e9)
            }
            _ if i % 2 == 0 => policy.from_client(line, now, 1.8e9),
            _ => policy.from_server(line, now, 1.8e9),
        };
        check(&fx.sends);
        check(&policy.expire(now, Duration::from_secs(30)).sends);
    }
    let owed = policy.in_flight();
    let fx = policy.server_gone("exited");
    check(&fx.sends);
    assert_eq!(fx.sends.len(), owed, "an error for every request owed");
}

/// The proxy's result path on results its parser refuses as well as ones it reads: the first
/// byte picks how the rest becomes a tools/call result (its text ending in a lone surrogate,
/// beside a number beyond f64, beside nesting past 128 levels, with a byte of invalid UTF-8,
/// its bytes as the result itself, or its bytes inside a string unescaped) and how many times
/// the text is repeated, up to a megabyte. Whatever the bytes, the client gets one line for the
/// call, never over the tool's maxBytes and the room of the line that says how to read on; and
/// anything but the server's own line is JSON a client reads.
pub fn proxy_result(data: &[u8]) {
    use crate::proxy::policy::{Policy, Route};
    use std::time::Instant;

    let Some((&mode, body)) = data.split_first() else {
        return;
    };
    let repeat = 1 + usize::from(mode >> 4) * 64;
    let text: String = String::from_utf8_lossy(body)
        .repeat(repeat)
        .chars()
        .take(1 << 20)
        .collect();
    let string = Value::from(text.as_str()).to_string();
    let inside = &string[1..string.len() - 1];
    let result: Vec<u8> = match mode & 0x7 {
        0 => format!(r#"{{"content":[{{"type":"text","text":"{inside}\ud83d"}}]}}"#).into_bytes(),
        1 => format!(r#"{{"content":[{{"type":"text","text":{string}}}],"_meta":{{"n":1e999}}}}"#)
            .into_bytes(),
        2 => format!(
            r#"{{"content":[{{"type":"text","text":{string}}}],"_meta":{{"d":{}{}}}}}"#,
            "[".repeat(200),
            "]".repeat(200)
        )
        .into_bytes(),
        3 => [
            &br#"{"content":[{"type":"text","text":""#[..],
            inside.as_bytes(),
            b"\xff\"}]}",
        ]
        .concat(),
        4 => body.repeat(repeat.min((1 << 20) / body.len().max(1)).max(1)),
        _ => [
            &br#"{"content":[{"type":"text","text":""#[..],
            body,
            b"\"}]}",
        ]
        .concat(),
    };
    let line = [&br#"{"jsonrpc":"2.0","id":1,"result":"#[..], &result, b"}"].concat();
    let config = Config {
        tokenizer: Tokenizer::ClaudeFast,
        ..Config::default()
    };
    let cap = config.limits.max_bytes as usize + crate::proxy::shrink::HOWTO_RESERVE_BYTES as usize;
    let secrets =
        crate::reshape::cursor::Secrets::parse("fuzz-secret-proxy-result", "fuzz").expect("one");
    let store = crate::proxy::store::MemStore::new(4 << 20);
    let mut policy = Policy::new(std::sync::Arc::new(config), secrets, Box::new(store), false);
    let call = br#"{"jsonrpc":"2.0","id":1,"method":"tools/call","params":{"name":"echo"}}"#;
    policy.from_client(call, Instant::now(), 1.8e9);
    let fx = policy.from_server(&line, Instant::now(), 1.8e9);
    let [Route::Client(sent)] = &fx.sends[..] else {
        panic!("one message for the call, got {}", fx.sends.len());
    };
    assert!(
        sent.len() <= cap,
        "{} bytes reached the client, over {cap}",
        sent.len()
    );
    if sent.as_slice() != line.as_slice() {
        serde_json::from_slice::<Value>(sent).expect("what the proxy writes, a client reads");
    }
}

/// The lean readers against serde_json: a result taken apart by [`crate::json::large`], and any
/// text read by [`crate::json::parse`] (key order and all), is the value (or the error)
/// serde_json makes of it, and a list paged from its text ([`crate::reshape::paginate::locate_lean`])
/// is the list `locate` finds, with the same fingerprint and the same pages. The input is
/// read as a result, and as the text of one.
pub fn lean_paging(data: &[u8]) {
    let Ok(text) = std::str::from_utf8(data) else {
        return;
    };
    let wrapped = serde_json::json!({"content": [{"type": "text", "text": text}]}).to_string();
    for result in [text, wrapped.as_str()] {
        let show = |r: serde_json::Result<Value>| r.map_err(|e| e.to_string());
        let full = show(serde_json::from_str::<Value>(result));
        let lean = show(crate::json::large::parse_result_with(result, 0, 0));
        assert_eq!(lean, full, "json::large and serde_json disagree");
        // Written out, so that key order counts.
        let written =
            |r: &Result<Value, String>| r.as_ref().map(Value::to_string).map_err(Clone::clone);
        let (tree, full) = (
            written(&show(crate::json::parse::parse(result))),
            written(&full),
        );
        assert_eq!(tree, full, "json::parse and serde_json disagree");
    }
    let Ok(doc) = serde_json::from_str::<Value>(&wrapped) else {
        return;
    };
    let Some(lean) = crate::reshape::paginate::locate_lean(&doc) else {
        return;
    };
    let full =
        crate::reshape::paginate::locate(&doc, None).expect("locate finds what locate_lean finds");
    assert_eq!((&lean.pointer, lean.len()), (&full.pointer, full.len()));
    let secrets = crate::reshape::cursor::Secrets::parse("fuzz-secret", "fuzz").expect("one");
    let request = crate::reshape::paginate::Request {
        limit: Some(7),
        input_order: true,
        ..Default::default()
    };
    let pagers = crate::reshape::paginate::Pager::new(&lean, &request, None, 200).and_then(|a| {
        Ok((
            a,
            crate::reshape::paginate::Pager::new(&full, &request, None, 200)?,
        ))
    });
    let Ok((a, b)) = pagers else {
        return;
    };
    assert_eq!(a.fingerprint, b.fingerprint);
    let mut offset = 0;
    while offset < b.total() {
        let (pa, pb) = (
            a.page(offset, 7, 1.8e9, &secrets, None),
            b.page(offset, 7, 1.8e9, &secrets, None),
        );
        assert_eq!(pa.output, pb.output, "page at {offset}");
        offset += pb.count.max(1);
    }
}

/// The HTTP proxy's reading of a client's request: header lines (`Name: value`) up to a blank
/// line, then the body, parsed as the proxy parses it; then the 2026-07-28 header checks
/// (`Mcp-Method`, `Mcp-Name` in its Base64 sentinel form, the protocol version against
/// `_meta`), the headers forwarded upstream and the credential scope, which must carry only a
/// hash of the credentials, never one of them.
pub fn proxy_http_request(data: &[u8]) {
    use crate::proxy::http::headers;
    use axum::http::{HeaderMap, HeaderName, HeaderValue};
    let split = data
        .windows(2)
        .position(|w| w == b"\n\n")
        .unwrap_or(data.len());
    let (head, body) = (&data[..split], data.get(split + 2..).unwrap_or(&[]));
    let mut map = HeaderMap::new();
    for line in head.split(|b| *b == b'\n') {
        let Some(colon) = line.iter().position(|b| *b == b':') else {
            continue;
        };
        let name = HeaderName::from_bytes(&line[..colon]);
        let value = HeaderValue::from_bytes(line[colon + 1..].trim_ascii());
        if let (Ok(name), Ok(value)) = (name, value) {
            map.append(name, value);
        }
    }
    let scope = headers::scope(&map);
    assert!(
        scope == "anonymous" || (scope.len() == 32 && scope.bytes().all(|b| b.is_ascii_hexdigit())),
        "a scope is a hash: {scope}"
    );
    let forwarded = headers::forwarded(&map);
    assert!(
        forwarded.len() <= map.len(),
        "nothing is added to what is forwarded"
    );
    let _ = headers::is_modern(&map);
    if let Ok(message) = serde_json::from_slice::<Value>(body) {
        let _ = headers::check_modern(&map, &message);
    }
}
