//! The house stays layered: no two files of src/ reach each other through `crate::`, `super::`
//! or `self::` paths, directly or around a circle. A circle means neither side can be read,
//! tested or changed alone; the fix is to move the small thing that ties them (a type, a
//! constant, a helper) down into a module both look at. Comments and tests do not count.

use std::collections::{BTreeMap, BTreeSet};
use std::path::Path;

mod common;

/// Every file's module path (`proxy::http::gate`), with its text, comments and tests left out.
fn modules(src: &Path) -> BTreeMap<String, String> {
    let mut out = BTreeMap::new();
    for entry in walkdir::WalkDir::new(src).into_iter().flatten() {
        let path = entry.path();
        if path.extension().is_none_or(|e| e != "rs") {
            continue;
        }
        let rel = path.strip_prefix(src).unwrap().with_extension("");
        let mut parts: Vec<String> = rel
            .components()
            .map(|c| c.as_os_str().to_string_lossy().into_owned())
            .collect();
        if matches!(
            parts.last().map(String::as_str),
            Some("mod" | "lib" | "main")
        ) {
            parts.pop();
        }
        let text = std::fs::read_to_string(path).unwrap();
        let code: String = without_tests(&text)
            .lines()
            .filter(|l| !l.trim_start().starts_with("//"))
            .collect::<Vec<_>>()
            .join("\n");
        out.insert(parts.join("::"), code);
    }
    out
}

/// A file without its `#[cfg(test)] mod tests { ... }` (found by its braces; it may stand
/// anywhere in the file).
fn without_tests(text: &str) -> String {
    let Some(start) = text.find("#[cfg(test)]\nmod tests {") else {
        return text.to_owned();
    };
    let open = start + text[start..].find('{').unwrap_or(0);
    let mut depth = 0usize;
    for (i, c) in text[open..].char_indices() {
        match c {
            '{' => depth += 1,
            '}' => {
                depth -= 1;
                if depth == 0 {
                    return format!("{}{}", &text[..start], &text[open + i + 1..]);
                }
            }
            _ => {}
        }
    }
    text[..start].to_owned()
}

/// The modules a file's paths name: the longest known module each path starts with.
fn edges(modules: &BTreeMap<String, String>) -> BTreeMap<String, BTreeSet<String>> {
    let mut out: BTreeMap<String, BTreeSet<String>> = BTreeMap::new();
    for (name, code) in modules {
        let here: Vec<&str> = name.split("::").filter(|s| !s.is_empty()).collect();
        for word in code.split(|c: char| !(c.is_alphanumeric() || c == '_' || c == ':')) {
            let segs: Vec<&str> = word.split("::").collect();
            let (mut base, rest): (Vec<&str>, &[&str]) = match segs[0] {
                "crate" => (Vec::new(), &segs[1..]),
                "super" | "self" => (here.clone(), &segs[..]),
                _ => continue,
            };
            let mut rest = rest;
            while let Some(first) = rest.first() {
                match *first {
                    "super" => {
                        base.pop();
                    }
                    "self" => {}
                    _ => break,
                }
                rest = &rest[1..];
            }
            let target = (0..=rest.len()).rev().find_map(|n| {
                let candidate = [base.as_slice(), &rest[..n]].concat().join("::");
                modules.contains_key(&candidate).then_some(candidate)
            });
            if let Some(target) = target
                && !target.is_empty()
                && target != *name
                && !name.starts_with(&format!("{target}::"))
            {
                out.entry(name.clone()).or_default().insert(target);
            }
        }
    }
    out
}

#[test]
fn no_two_files_of_src_reach_each_other() {
    let modules = modules(&common::repo("src"));
    assert!(modules.len() > 50, "{} modules read", modules.len());
    let edges = edges(&modules);
    assert!(
        edges
            .get("proxy::http::child")
            .is_some_and(|t| t.contains("proxy::http::exchange")),
        "the reader must see real imports: {:?}",
        edges.get("proxy::http::child")
    );
    // Every circle, found by walking from each module.
    let mut circles = BTreeSet::new();
    for start in modules.keys() {
        let mut stack = vec![(start.clone(), vec![start.clone()])];
        let mut seen = BTreeSet::new();
        while let Some((at, path)) = stack.pop() {
            for next in edges.get(&at).into_iter().flatten() {
                if next == start {
                    let mut circle = path.clone();
                    circle.sort();
                    circles.insert(circle.join(" <-> "));
                } else if seen.insert(next.clone()) {
                    stack.push((next.clone(), [path.clone(), vec![next.clone()]].concat()));
                }
            }
        }
    }
    assert!(
        circles.is_empty(),
        "files that reach each other (move what ties them down a layer):\n{}",
        circles.into_iter().collect::<Vec<_>>().join("\n")
    );
}
