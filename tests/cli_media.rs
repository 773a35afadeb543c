//! Images counted as Claude bills them, from the command line: real PNG, JPEG, GIF and WebP
//! files of chosen sizes (encoded by the image crate, not by mcpguard) inside MCP tool results,
//! the captured tiny image of server-everything, a small and a large screenshot in one result,
//! media with no published rule, `--compare`, the audit's budget, the clients' image limits and
//! the proxy's budget.

mod common;

use std::io::Cursor;
use std::sync::Arc;
use std::time::{Duration, Instant};

use base64::Engine;
use common::{code, mcpguard, repo};
use image::{ImageFormat, RgbImage};
use serde_json::{Value, json};

/// A real image of `width x height` in `format`, base64: a gradient, so no encoder takes a
/// shortcut for a flat colour.
fn image(width: u32, height: u32, format: ImageFormat) -> String {
    let img = RgbImage::from_fn(width, height, |x, y| {
        image::Rgb([(x % 256) as u8, (y % 256) as u8, ((x + y) % 256) as u8])
    });
    let mut bytes = Cursor::new(Vec::new());
    img.write_to(&mut bytes, format).unwrap();
    base64::engine::general_purpose::STANDARD.encode(bytes.into_inner())
}

fn image_block(data: String, mime: &str) -> Value {
    json!({"type": "image", "data": data, "mimeType": mime})
}

/// A JSON-RPC tool result holding `blocks`.
fn result(blocks: Vec<Value>) -> String {
    json!({"jsonrpc": "2.0", "id": 7, "result": {"content": blocks}}).to_string()
}

/// `mcpguard estimate --format json` of one document: its report.
fn estimate(doc: &str, args: &[&str]) -> Value {
    estimate_with(doc, args, &[])
}

/// [`estimate`] with environment variables set.
fn estimate_with(doc: &str, args: &[&str], env: &[(&str, &str)]) -> Value {
    let dir = tempfile::tempdir().unwrap();
    let path = dir.path().join("result.json");
    std::fs::write(&path, doc).unwrap();
    let out = mcpguard()
        .envs(env.iter().copied())
        .arg("estimate")
        .arg(&path)
        .args(["--format", "json", "--top", "0"])
        .args(args)
        .output()
        .unwrap();
    assert_eq!(code(&out), 0, "{}", String::from_utf8_lossy(&out.stderr));
    common::stdout_json(&out)["documents"][0].clone()
}

/// `ceil(w / 28) x ceil(h / 28)`: the guide's patch count of an image within the limits.
fn patches(w: u32, h: u32) -> u64 {
    u64::from(w.div_ceil(28)) * u64::from(h.div_ceil(28))
}

#[test]
fn every_format_is_counted_by_its_pixels() {
    for (format, mime) in [
        (ImageFormat::Png, "image/png"),
        (ImageFormat::Jpeg, "image/jpeg"),
        (ImageFormat::Gif, "image/gif"),
        (ImageFormat::WebP, "image/webp"),
    ] {
        for (w, h) in [(1366, 639), (640, 480), (29, 1), (1000, 1000)] {
            let doc = result(vec![image_block(image(w, h, format), mime)]);
            let e = estimate(&doc, &["--tokenizer", "claude"]);
            let m = &e["media"][0];
            assert_eq!(
                (m["width"].as_u64(), m["height"].as_u64()),
                (Some(w.into()), Some(h.into())),
                "{mime}"
            );
            assert_eq!(m["countedWith"], "pixels-v4.7", "{mime}");
            assert_eq!(m["tokens"].as_u64(), Some(patches(w, h)), "{mime} {w}x{h}");
            assert_eq!(e["tokens"].as_u64(), Some(patches(w, h)), "{mime} {w}x{h}");
            assert!(m.get("seenAs").is_none());
        }
    }
    // The guide's screenshot: 1,366 x 639 is 49 x 23 patches (w*h/750 said about 1,164).
    assert_eq!(patches(1366, 639), 1127);
}

#[test]
fn the_captured_tiny_image_costs_one_patch_not_1600_tokens() {
    let doc = std::fs::read_to_string(repo(
        "tests/fixtures/corpus/everything__tools_call__get-tiny-image.json",
    ))
    .unwrap();
    let e = estimate(&doc, &["--tokenizer", "claude"]);
    let m = &e["media"][0];
    assert_eq!(m["pointer"], "/result/content/1");
    assert_eq!(
        (m["width"].as_u64(), m["height"].as_u64()),
        (Some(20), Some(20))
    );
    assert_eq!(m["tokens"].as_u64(), Some(1));
    // Its two text blocks and one patch.
    let mut without: Value = serde_json::from_str(&doc).unwrap();
    without["result"]["content"]
        .as_array_mut()
        .unwrap()
        .remove(1);
    let texts = estimate(&without.to_string(), &["--tokenizer", "claude"]);
    assert!(texts["media"].is_null());
    assert_eq!(
        e["tokens"].as_u64(),
        Some(texts["tokens"].as_u64().unwrap() + 1)
    );
    let flat = estimate(&doc, &["--tokenizer", "o200k"]);
    assert_eq!(flat["media"][0]["tokens"].as_u64(), Some(1600));
    assert_eq!(flat["media"][0]["countedWith"], "mediaTokens");
    assert!(e["tokens"].as_u64().unwrap() < 40, "{}", e["tokens"]);
}

#[test]
fn a_small_and_a_large_screenshot_are_counted_apart_by_each_family() {
    let doc = result(vec![
        json!({"type": "text", "text": "Two screenshots of the page:"}),
        image_block(image(300, 200, ImageFormat::Png), "image/png"),
        image_block(image(3840, 2160, ImageFormat::Jpeg), "image/jpeg"),
    ]);
    let v47 = estimate(&doc, &["--tokenizer", "claude"]);
    let (small, large) = (&v47["media"][0], &v47["media"][1]);
    assert_eq!(small["tokens"].as_u64(), Some(patches(300, 200)));
    assert_eq!(
        (large["width"].as_u64(), large["height"].as_u64()),
        (Some(3840), Some(2160))
    );
    // Opus 4.7 reads 4K at 2,576 pixels on the long edge: 92 x 52 patches, its limit.
    assert_eq!(large["seenAs"], json!([2576, 1449]));
    assert_eq!(large["tokens"].as_u64(), Some(4784));
    let text = v47["tokens"].as_u64().unwrap() - 4784 - patches(300, 200);
    assert!((5..12).contains(&text), "{text} tokens of text");

    // The families before it read it at about 1.15 megapixels, within 1,568 patches.
    let v3 = estimate(&doc, &["--tokenizer", "claude-v3"]);
    let large = &v3["media"][1];
    assert_eq!(large["countedWith"], "pixels-v3");
    let [w, h] = [0, 1].map(|i| large["seenAs"][i].as_u64().unwrap() as u32);
    assert!(
        w <= 1568 && patches(w, h) <= 1568 && patches(w, h) > 1500,
        "{w}x{h}"
    );
    assert_eq!(large["tokens"].as_u64(), Some(patches(w, h)));
    assert_eq!(v3["media"][0]["tokens"].as_u64(), Some(patches(300, 200)));

    // Claude Code warns of the 4K image: refused once a conversation holds over 20 images.
    assert_eq!(v47["clients"]["claude-code"], "warn");
}

#[test]
fn compare_shows_the_flat_and_the_pixel_figures_side_by_side() {
    let doc = result(vec![image_block(
        image(1366, 639, ImageFormat::Png),
        "image/png",
    )]);
    let e = estimate(&doc, &["--compare"]);
    assert_eq!(
        e["media"][0]["compare"],
        json!([
            {"countedWith": "pixels-v4.7", "tokens": 1127},
            {"countedWith": "pixels-v3", "tokens": 1127},
            {"countedWith": "mediaTokens", "tokens": 1600},
        ])
    );
    let by = |name: &str| {
        e["compare"]
            .as_array()
            .unwrap()
            .iter()
            .find(|c| c["tokenizer"] == name)
            .unwrap()["tokens"]
            .as_u64()
            .unwrap()
    };
    assert_eq!(
        (by("claude"), by("claude-v3"), by("o200k")),
        (1127, 1127, 1600)
    );

    let dir = tempfile::tempdir().unwrap();
    let path = dir.path().join("shot.json");
    std::fs::write(&path, &doc).unwrap();
    let out = mcpguard()
        .arg("estimate")
        .arg(&path)
        .arg("--compare")
        .output()
        .unwrap();
    assert_eq!(code(&out), 0);
    let table = String::from_utf8(out.stdout).unwrap();
    let line = table
        .lines()
        .find(|l| l.contains("/result/content/0"))
        .unwrap_or_else(|| panic!("no media line: {table}"));
    assert!(line.contains("image/png 1366x639"), "{line}");
    assert!(
        line.ends_with("pixels-v4.7 1,127 · pixels-v3 1,127 · mediaTokens 1,600"),
        "{line}"
    );
}

#[test]
fn media_without_a_published_rule_cost_the_flat_figure_and_say_why() {
    let wav = base64::engine::general_purpose::STANDARD.encode(b"RIFF\x24\0\0\0WAVEfmt ");
    let doc = result(vec![
        json!({"type": "audio", "data": wav, "mimeType": "audio/wav"}),
        image_block("bm90IGFuIGltYWdl".into(), "image/png"),
        json!({"type": "resource", "resource": {"uri": "file:///r.pdf", "mimeType": "application/pdf", "blob": "JVBERi0xLjQK"}}),
        json!({"type": "resource", "resource": {"uri": "file:///s.webp", "mimeType": "image/webp", "blob": image(800, 600, ImageFormat::WebP)}}),
    ]);
    let e = estimate_with(
        &doc,
        &["--tokenizer", "claude"],
        &[("MCPGUARD_MEDIA_TOKENS", "1000")],
    );
    let media = e["media"].as_array().unwrap();
    let notes: Vec<(&str, u64, &str)> = media
        .iter()
        .map(|m| {
            (
                m["countedWith"].as_str().unwrap(),
                m["tokens"].as_u64().unwrap(),
                m["note"].as_str().unwrap_or(""),
            )
        })
        .collect();
    assert_eq!(notes[0].0, "mediaTokens");
    assert_eq!(notes[0].1, 1000);
    assert!(notes[0].2.contains("audio"), "{notes:?}");
    assert!(notes[1].2.contains("header"), "{notes:?}");
    assert!(notes[2].2.contains("PDF"), "{notes:?}");
    // An image in an embedded resource blob is an image: its pixels.
    assert_eq!(notes[3], ("pixels-v4.7", patches(800, 600), ""));
    assert_eq!(media[3]["pointer"], "/result/content/3/resource/blob");
}

#[test]
fn claude_code_refuses_an_image_over_the_apis_limits() {
    // 21 images, one 2,100 pixels wide: refused in a many-image request.
    let wide = image(2100, 8, ImageFormat::Png);
    let small = image(100, 8, ImageFormat::Png);
    let mut blocks = vec![image_block(wide.clone(), "image/png")];
    blocks.extend((0..20).map(|_| image_block(small.clone(), "image/png")));
    let e = estimate(&result(blocks), &[]);
    assert_eq!(e["clients"]["claude-code"], "refuse");
    // The same image alone: a warning.
    let e = estimate(&result(vec![image_block(wide, "image/png")]), &[]);
    assert_eq!(e["clients"]["claude-code"], "warn");
    // Over 8,000 on a side: refused alone.
    let e = estimate(
        &result(vec![image_block(
            image(8001, 2, ImageFormat::Png),
            "image/png",
        )]),
        &[],
    );
    assert_eq!(e["clients"]["claude-code"], "refuse");
}

#[test]
fn the_audit_budgets_a_4k_screenshot_by_its_pixels() {
    let dir = tempfile::tempdir().unwrap();
    let shots = [("small.json", 1366, 639), ("large.json", 3840, 2160)];
    for (name, w, h) in shots {
        let doc = result(vec![image_block(
            image(w, h, ImageFormat::Png),
            "image/png",
        )]);
        std::fs::write(dir.path().join(name), doc).unwrap();
    }
    let out = mcpguard()
        .arg("audit")
        .arg(dir.path())
        .args(["--format", "json", "--tokenizer", "claude"])
        .output()
        .unwrap();
    let report = common::stdout_json(&out);
    let docs = report["documents"].as_array().unwrap();
    let by = |name: &str| {
        docs.iter()
            .find(|d| d["name"].as_str().unwrap().ends_with(name))
            .unwrap()
    };
    assert_eq!(by("small.json")["tokens"].as_u64(), Some(1127));
    assert_eq!(by("large.json")["tokens"].as_u64(), Some(4784));
    // Over the 4,000-token budget (FR-010): the 4K one alone.
    let budget_codes = |d: &Value| -> Vec<String> {
        d["findings"]
            .as_array()
            .unwrap()
            .iter()
            .filter(|f| f["message"].as_str().unwrap().contains("tokens"))
            .map(|f| f["code"].as_str().unwrap().to_owned())
            .collect()
    };
    assert!(
        budget_codes(by("small.json")).is_empty(),
        "{}",
        by("small.json")
    );
    assert!(
        !budget_codes(by("large.json")).is_empty(),
        "{}",
        by("large.json")
    );
}

#[test]
fn the_proxy_budgets_images_by_their_pixels() {
    use mcpguard::config::Config;
    use mcpguard::proxy::Policy;
    use mcpguard::proxy::policy::Route;
    use mcpguard::proxy::store::DirStore;
    use mcpguard::reshape::cursor::Secrets;

    let store = tempfile::tempdir().unwrap();
    let mut policy = Policy::new(
        Arc::new(Config::default()),
        Secrets::parse("media-secret-0123456789", "test").unwrap(),
        Box::new(DirStore::new(
            store.path(),
            Duration::from_secs(3600),
            1 << 30,
        )),
        false,
    );
    let mut call = |id: u64, result: Value| -> Value {
        let request = json!({"jsonrpc": "2.0", "id": id, "method": "tools/call",
            "params": {"name": "screenshot", "arguments": {}}});
        let now = mcpguard::reshape::cursor::now();
        let fx = policy.from_client(request.to_string().as_bytes(), Instant::now(), now);
        assert!(matches!(&fx.sends[..], [Route::Server(_)]));
        let answer = json!({"jsonrpc": "2.0", "id": id, "result": result}).to_string();
        let fx = policy.from_server(answer.as_bytes(), Instant::now(), now);
        match &fx.sends[..] {
            [Route::Client(bytes)] => serde_json::from_slice(bytes).unwrap(),
            other => panic!("one message to the client, got {other:?}"),
        }
    };
    let original_tokens =
        |answer: &Value| answer["result"]["_meta"]["mcpguard/budget"]["originalTokens"].as_u64();
    // A plain 400 x 300 image (a few hundred bytes of PNG) is 165 tokens: within the budget
    // and the byte limit, passed whole.
    let plain = RgbImage::new(400, 300);
    let mut png = Cursor::new(Vec::new());
    plain.write_to(&mut png, ImageFormat::Png).unwrap();
    let plain = base64::engine::general_purpose::STANDARD.encode(png.into_inner());
    let small = json!({"content": [image_block(plain, "image/png")]});
    let answer = call(1, small.clone());
    assert_eq!(answer["result"]["content"], small["content"]);
    assert_eq!(patches(400, 300), 165);
    // Over the byte limit, results are shrunk, and their budget fields say what the original
    // cost: its pixels (both were 1,600 before).
    for (id, (w, h), tokens) in [(2, (1366, 639), 1127), (3, (3840, 2160), 4784)] {
        let large = json!({"content": [image_block(image(w, h, ImageFormat::Png), "image/png")]});
        let answer = call(id, large.clone());
        assert_ne!(
            answer["result"]["content"], large["content"],
            "passed whole"
        );
        assert_eq!(original_tokens(&answer), Some(tokens), "{w}x{h}");
    }
}
