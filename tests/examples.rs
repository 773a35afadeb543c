//! The bundled examples are what their names say: every `fail-invNNN-*` file breaks
//! INV-MCP-RESP-NNN as mcpguard measures it, and every `pass-*` file keeps the size limits.

mod common;

use mcpguard::contract::Limits;
use mcpguard::document::input::{self, Source};
use mcpguard::document::{self, Kind, PartContent};
use mcpguard::measure;

struct Measured {
    wire_bytes: u64,
    kind: Kind,
    shape: measure::Shape,
    /// The contract fields of the JSON the model sees, if it is an object.
    summary: Option<String>,
    has_artifact_ref: bool,
    has_more: bool,
}

fn measure_all() -> Vec<(String, Measured)> {
    let docs = input::load_all(
        &[Source::Path(common::repo("contracts/examples"))],
        std::io::empty(),
        &mcpguard::config::ReadLimits::default(),
    );
    docs.into_iter()
        .map(|d| {
            let d = d.expect("every example parses");
            let anatomy = document::anatomy(&d.value, &d.text);
            let profile =
                measure::profile(&anatomy, false, mcpguard::tokens::media::MediaRule::flat(0));
            let payload = anatomy.parts.iter().find_map(|p| match &p.content {
                PartContent::Text { json: Some(v), .. } => Some(v.as_ref().clone()),
                PartContent::Raw(_) => Some(anatomy.payload.clone()),
                _ => None,
            });
            let field = |k: &str| payload.as_ref().and_then(|p| p.get(k).cloned());
            let name = d.name.rsplit('/').next().unwrap().to_owned();
            (
                name,
                Measured {
                    wire_bytes: d.text.len() as u64,
                    kind: anatomy.kind,
                    shape: profile.shape,
                    summary: field("summary").and_then(|s| s.as_str().map(str::to_owned)),
                    has_artifact_ref: field("artifactRef").is_some(),
                    has_more: field("hasMore").is_some() || field("nextCursor").is_some(),
                },
            )
        })
        .collect()
}

fn longest(e: &Option<measure::Extent>) -> u64 {
    e.as_ref().map_or(0, |e| e.len as u64)
}

#[test]
fn every_example_is_what_its_name_says() {
    let l = Limits::default();
    let all = measure_all();
    assert!(all.len() >= 12, "at least 12 examples");
    let (mut passing, mut failing) = (0, 0);
    for (name, m) in &all {
        let size_ok = m.wire_bytes <= l.max_bytes;
        let array_ok = longest(&m.shape.longest_array) <= l.max_array_items || m.has_more;
        let string_ok = longest(&m.shape.longest_string) <= l.max_string_length;
        let depth_ok = m.shape.depth as u64 <= l.max_json_depth;
        if name.starts_with("pass-") {
            passing += 1;
            assert!(size_ok, "{name}: {} bytes", m.wire_bytes);
            if !matches!(m.kind, Kind::ListResult(_)) {
                // Catalogs are JSON Schemas, deep by nature: judged by their own rules.
                assert!(array_ok && string_ok && depth_ok, "{name}: {:?}", m.shape);
            }
            if let Some(summary) = &m.summary {
                assert!(
                    summary.chars().count() as u64 <= l.max_summary_length,
                    "{name}"
                );
            }
            continue;
        }
        failing += 1;
        let broken = match &name[..11] {
            "fail-inv001" => !size_ok,
            "fail-inv002" => !array_ok,
            "fail-inv003" => !string_ok,
            "fail-inv004" => m.shape.depth == 9 && !depth_ok,
            "fail-inv005" => !size_ok && !m.has_artifact_ref,
            "fail-inv006" => m
                .summary
                .as_ref()
                .is_some_and(|s| s.chars().count() as u64 > l.max_summary_length),
            other => panic!("{name}: unknown prefix {other}"),
        };
        assert!(
            broken,
            "{name} does not break its invariant: {} bytes, {:?}",
            m.wire_bytes, m.shape
        );
    }
    assert!(
        passing >= 5 && failing >= 6,
        "{passing} passing, {failing} failing"
    );
}
