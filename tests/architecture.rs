//! The layers of src/ as a map, checked: each folder of the library names the folders it may
//! use, every file's imports are read (grouped braces, `super::`, `self::`, a child's bare name,
//! paths inside expressions), and no import may leave the map. No files reach each other around
//! a circle, and no folders do either (a subfolder counts as one). A circle means neither side
//! can be read, tested or changed alone; the fix is to move the small thing that ties them (a
//! type, a constant, a helper) down into a module both look at. Comments, string literals and
//! `#[cfg(test)]` items do not count.

use std::collections::{BTreeMap, BTreeSet};
use std::path::Path;

mod common;

/// The library's folders from the bottom up, each with the folders it uses: the whole of what
/// it may use, so that a new dependency between folders is a choice made here, with its reason.
/// A folder not listed (a file loose at the root) is an error: every module has a place.
const LAYERS: &[(&str, &[&str])] = &[
    ("util", &[]),
    ("json", &[]),
    ("tokens", &[]),
    // The contract is data (limits, client profiles, rule codes) that configs and measures name.
    ("contract", &[]),
    ("config", &["util", "json", "tokens", "contract"]),
    // Every reader is bounded by the config's read limits.
    ("document", &["util", "json", "config"]),
    (
        "measure",
        &["util", "json", "tokens", "contract", "config", "document"],
    ),
    (
        "reshape",
        &[
            "util", "json", "tokens", "contract", "config", "document", "measure",
        ],
    ),
    ("net", &["util", "json"]),
    (
        "audit",
        &[
            "util", "json", "tokens", "contract", "config", "document", "measure", "net",
        ],
    ),
    (
        "proxy",
        &[
            "util", "json", "tokens", "contract", "config", "document", "measure", "reshape", "net",
        ],
    ),
    ("install", &[]),
    // The fuzz targets' entry points reach every layer they fuzz.
    (
        "fuzz",
        &[
            "json", "tokens", "contract", "config", "document", "measure", "reshape", "net",
            "audit", "proxy",
        ],
    ),
];

/// The binary's modules (`main.rs`, `cli/`): the top, allowed to use every library folder.
const BINARY: &str = "cli";

/// One source file (keyed by its module path, `proxy::http::gate`): whether it is the binary's
/// or the library's, and its code with comments, literals and test items blanked.
struct Module {
    in_binary: bool,
    code: String,
}

/// Every file of src/, keyed by module path. The binary's root is `main`, the library's `""`.
fn modules(src: &Path) -> BTreeMap<String, Module> {
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
        let in_binary = parts[0] == "main" || parts[0] == BINARY;
        if matches!(parts.last().map(String::as_str), Some("mod" | "lib")) {
            parts.pop();
        }
        let text = std::fs::read_to_string(path).unwrap();
        let code = without_test_items(&blank_comments_and_literals(&text));
        out.insert(parts.join("::"), Module { in_binary, code });
    }
    out
}

/// The text with every comment, string and character literal replaced by spaces (newlines
/// kept), so a path inside a doc comment or a message is not read as an import.
fn blank_comments_and_literals(text: &str) -> String {
    let b = text.as_bytes();
    let mut out = Vec::with_capacity(b.len());
    let mut i = 0;
    let blank = |out: &mut Vec<u8>, bytes: &[u8]| {
        out.extend(bytes.iter().map(|&c| if c == b'\n' { b'\n' } else { b' ' }));
    };
    while i < b.len() {
        let rest = &b[i..];
        if rest.starts_with(b"//") {
            let end = rest.iter().position(|&c| c == b'\n').unwrap_or(rest.len());
            blank(&mut out, &rest[..end]);
            i += end;
        } else if rest.starts_with(b"/*") {
            let (mut depth, mut j) = (0usize, 0);
            while j < rest.len() {
                if rest[j..].starts_with(b"/*") {
                    depth += 1;
                    j += 2;
                } else if rest[j..].starts_with(b"*/") {
                    depth -= 1;
                    j += 2;
                    if depth == 0 {
                        break;
                    }
                } else {
                    j += 1;
                }
            }
            blank(&mut out, &rest[..j]);
            i += j;
        } else if let Some(len) = raw_string_len(rest) {
            blank(&mut out, &rest[..len]);
            i += len;
        } else if rest[0] == b'"' || rest.starts_with(b"b\"") {
            let mut j = if rest[0] == b'"' { 1 } else { 2 };
            while j < rest.len() && rest[j] != b'"' {
                j += if rest[j] == b'\\' { 2 } else { 1 };
            }
            let end = (j + 1).min(rest.len());
            blank(&mut out, &rest[..end]);
            i += end;
        } else if rest[0] == b'\'' {
            // A character literal ('x', '\n', '\u{..}') or a lifetime ('a): a lifetime has no
            // closing quote right after its first character.
            let len = if rest.get(1) == Some(&b'\\') {
                rest.get(3..)
                    .and_then(|r| r.iter().position(|&c| c == b'\''))
                    .map(|p| p + 4)
            } else {
                let ch = text[i + 1..].chars().next();
                ch.and_then(|c| {
                    let after = 1 + c.len_utf8();
                    (rest.get(after) == Some(&b'\'')).then_some(after + 1)
                })
            };
            let len = len.unwrap_or(1);
            blank(&mut out, &rest[..len]);
            i += len;
        } else {
            out.push(rest[0]);
            i += 1;
        }
    }
    String::from_utf8(out).expect("only ASCII bytes were replaced")
}

/// The length of a raw string literal (`r"..."`, `r#"..."#`, `br"..."`) at the start of `b`.
fn raw_string_len(b: &[u8]) -> Option<usize> {
    let start = if b.starts_with(b"br") {
        2
    } else if b.starts_with(b"r") {
        1
    } else {
        return None;
    };
    let hashes = b[start..].iter().take_while(|&&c| c == b'#').count();
    if b.get(start + hashes) != Some(&b'"') {
        return None;
    }
    let mut close = vec![b'"'];
    close.extend(std::iter::repeat_n(b'#', hashes));
    let body = start + hashes + 1;
    let end = b[body..]
        .windows(close.len())
        .position(|w| w == close.as_slice())?;
    Some(body + end + close.len())
}

/// The code without its `#[cfg(test)]` items (a `mod tests { ... }`, a helper function): the
/// attribute and the item after it, to its closing brace, semicolon or comma.
fn without_test_items(code: &str) -> String {
    let mut out = String::with_capacity(code.len());
    let mut rest = code;
    while let Some(at) = rest.find("#[cfg(test)]") {
        out.push_str(&rest[..at]);
        let item = &rest[at..];
        let mut depth = 0usize;
        let mut end = item.len();
        for (i, c) in item.char_indices().skip("#[cfg(test)]".len()) {
            match c {
                '{' => depth += 1,
                // A field or variant ends at its comma, the last one at its parent's brace.
                '}' if depth == 0 => {
                    end = i;
                    break;
                }
                '}' => {
                    depth -= 1;
                    if depth == 0 {
                        end = i + 1;
                        break;
                    }
                }
                ';' | ',' if depth == 0 => {
                    end = i + 1;
                    break;
                }
                _ => {}
            }
        }
        rest = &item[end..];
    }
    out.push_str(rest);
    out
}

/// Every path a file names: the trees of its `use` declarations expanded (`crate::{a, b::c}`
/// is `crate::a` and `crate::b::c`), and every other `a::b` path in its code.
fn paths(code: &str) -> Vec<Vec<String>> {
    let mut out = Vec::new();
    let mut rest = code;
    let mut outside_use = String::new();
    while let Some(at) = find_word(rest, "use") {
        outside_use.push_str(&rest[..at]);
        let tail = &rest[at + 3..];
        let end = tail.find(';').unwrap_or(tail.len());
        expand_use(&tail[..end], &mut Vec::new(), &mut out);
        rest = &tail[end..];
    }
    outside_use.push_str(rest);
    for word in outside_use.split(|c: char| !(c.is_alphanumeric() || c == '_' || c == ':')) {
        if word.contains("::") {
            let segs: Vec<String> = word
                .split("::")
                .filter(|s| !s.is_empty())
                .map(str::to_owned)
                .collect();
            out.push(segs);
        }
    }
    out
}

/// The position of `word` standing alone (not inside an identifier) in `text`.
fn find_word(text: &str, word: &str) -> Option<usize> {
    let ident = |c: char| c.is_alphanumeric() || c == '_';
    let mut from = 0;
    while let Some(at) = text[from..].find(word).map(|p| p + from) {
        let before = text[..at].chars().next_back();
        let after = text[at + word.len()..].chars().next();
        if !before.is_some_and(ident) && !after.is_some_and(ident) {
            return Some(at);
        }
        from = at + word.len();
    }
    None
}

/// Expands one use tree (`crate::{a::{b, c}, d as e, self}`) onto `prefix` into `out`.
fn expand_use(tree: &str, prefix: &mut Vec<String>, out: &mut Vec<Vec<String>>) {
    let tree = tree.trim();
    let (head, group) = match tree.find('{') {
        Some(open) => (
            &tree[..open],
            Some(&tree[open + 1..tree.rfind('}').unwrap_or(tree.len())]),
        ),
        None => (tree, None),
    };
    let head = head.split(" as ").next().unwrap_or("");
    let pushed: Vec<String> = head
        .split("::")
        .map(str::trim)
        .filter(|s| !s.is_empty() && *s != "*" && (*s != "self" || prefix.is_empty()))
        .map(str::to_owned)
        .collect();
    let n = pushed.len();
    prefix.extend(pushed);
    match group {
        None => out.push(prefix.clone()),
        Some(group) => {
            let mut depth = 0usize;
            let mut start = 0;
            for (i, c) in group.char_indices() {
                match c {
                    '{' => depth += 1,
                    '}' => depth -= 1,
                    ',' if depth == 0 => {
                        expand_use(&group[start..i], prefix, out);
                        start = i + 1;
                    }
                    _ => {}
                }
            }
            expand_use(&group[start..], prefix, out);
        }
    }
    prefix.truncate(prefix.len() - n);
}

/// The module a path names from the file `here`: the longest known module it starts with.
/// `crate::` starts at the file's crate root, `super::` and `self::` at the file, a bare name
/// at the file's own child modules, `mcpguard::` (in the binary) at the library.
fn target(
    here: &str,
    module: &Module,
    path: &[String],
    modules: &BTreeMap<String, Module>,
) -> Option<String> {
    let here_parts: Vec<&str> = here.split("::").filter(|s| !s.is_empty()).collect();
    let first = path.first()?.as_str();
    let (mut base, mut rest): (Vec<&str>, &[String]) = match first {
        "crate" | "mcpguard" => (vec![], &path[1..]),
        _ => (here_parts.clone(), path),
    };
    while let Some(seg) = rest.first() {
        match seg.as_str() {
            "super" => {
                base.pop();
            }
            "self" => {}
            _ => break,
        }
        rest = &rest[1..];
    }
    let rest: Vec<&str> = rest.iter().map(String::as_str).collect();
    // A bare name that is not a child module is a local item or an outside crate.
    if !matches!(first, "crate" | "mcpguard" | "super" | "self") {
        let child = [base.as_slice(), &rest[..1.min(rest.len())]]
            .concat()
            .join("::");
        if !modules.contains_key(&child) {
            return None;
        }
    }
    let found = (0..=rest.len()).rev().find_map(|n| {
        let candidate = [base.as_slice(), &rest[..n]].concat().join("::");
        modules
            .get(&candidate)
            .is_some_and(|m| m.in_binary == module.in_binary || first == "mcpguard")
            .then_some(candidate)
    })?;
    (!found.is_empty() && found != here && !here.starts_with(&format!("{found}::")))
        .then_some(found)
}

/// Which modules each file uses.
fn edges(modules: &BTreeMap<String, Module>) -> BTreeMap<String, BTreeSet<String>> {
    let mut out: BTreeMap<String, BTreeSet<String>> = BTreeMap::new();
    for (name, module) in modules {
        for path in paths(&module.code) {
            if let Some(to) = target(name, module, &path, modules) {
                out.entry(name.clone()).or_default().insert(to);
            }
        }
    }
    out
}

/// Every circle in a graph, each written once (sorted), found by walking from each node.
fn circles(graph: &BTreeMap<String, BTreeSet<String>>) -> BTreeSet<String> {
    let mut found = BTreeSet::new();
    for start in graph.keys() {
        let mut stack = vec![(start.clone(), vec![start.clone()])];
        let mut seen = BTreeSet::new();
        while let Some((at, path)) = stack.pop() {
            for next in graph.get(&at).into_iter().flatten() {
                if next == start {
                    let mut circle = path.clone();
                    circle.sort();
                    found.insert(circle.join(" <-> "));
                } else if seen.insert(next.clone()) {
                    stack.push((next.clone(), [path.clone(), vec![next.clone()]].concat()));
                }
            }
        }
    }
    found
}

/// The folder graphs: for every folder, the uses among its direct children (a subfolder
/// collapsed into one node), keyed by the folder.
fn folder_graphs(
    edges: &BTreeMap<String, BTreeSet<String>>,
) -> BTreeMap<String, BTreeMap<String, BTreeSet<String>>> {
    let mut out: BTreeMap<String, BTreeMap<String, BTreeSet<String>>> = BTreeMap::new();
    for (from, tos) in edges {
        let a: Vec<&str> = from.split("::").collect();
        for to in tos {
            let b: Vec<&str> = to.split("::").collect();
            let common = a.iter().zip(&b).take_while(|(x, y)| x == y).count();
            if common < a.len() && common < b.len() {
                let folder = a[..common].join("::");
                out.entry(folder)
                    .or_default()
                    .entry(a[common].to_owned())
                    .or_default()
                    .insert(b[common].to_owned());
            }
        }
    }
    out
}

/// What breaks the map: modules outside it, and uses it does not allow.
fn outside_the_map(
    modules: &BTreeMap<String, Module>,
    edges: &BTreeMap<String, BTreeSet<String>>,
) -> Vec<String> {
    let layers: BTreeMap<&str, &[&str]> = LAYERS.iter().copied().collect();
    let top = |m: &str| m.split("::").next().unwrap_or("").to_owned();
    let mut problems = Vec::new();
    for (name, module) in modules {
        if !module.in_binary && !name.is_empty() && !layers.contains_key(top(name).as_str()) {
            problems.push(format!("{name}: not in a folder of the map"));
        }
    }
    for (from, tos) in edges {
        if modules[from].in_binary {
            continue;
        }
        for to in tos {
            let (a, b) = (top(from), top(to));
            if a.is_empty() || a == b {
                continue;
            }
            let allowed = layers
                .get(a.as_str())
                .is_some_and(|may| may.contains(&b.as_str()));
            if !allowed {
                problems.push(format!("{from} -> {to}: {a} may not use {b}"));
            }
        }
    }
    problems
}

#[test]
fn the_map_itself_points_down() {
    let mut below = BTreeSet::new();
    for (folder, may) in LAYERS {
        for used in *may {
            assert!(
                below.contains(used),
                "{folder} uses {used}, which is not below it"
            );
        }
        below.insert(*folder);
    }
}

#[test]
fn imports_are_read_in_every_form() {
    let code = blank_comments_and_literals(
        "use crate::{a::{b, c as d}, e};\n// use crate::f;\nuse super::g;\n\
         let s = \"crate::h\"; let x = self::i::j(); let c = '{'; fn k<'a>() {}\n\
         #[cfg(test)]\nfn helper() { crate::l::m(); }\n",
    );
    let code = without_test_items(&code);
    let got: BTreeSet<String> = paths(&code).into_iter().map(|p| p.join("::")).collect();
    let want: BTreeSet<String> = [
        "crate::a::b",
        "crate::a::c",
        "crate::e",
        "super::g",
        "self::i::j",
    ]
    .into_iter()
    .map(str::to_owned)
    .collect();
    assert_eq!(got, want);
}

#[test]
fn the_layers_hold() {
    let modules = modules(&common::repo("src"));
    assert!(modules.len() > 50, "{} modules read", modules.len());
    let edges = edges(&modules);
    for (from, to) in [
        ("proxy::http::child_requests", "proxy::http::exchange"),
        ("net::mcp", "net::version"),
        ("audit::live", "net::mcp::era"),
    ] {
        assert!(
            edges.get(from).is_some_and(|t| t.contains(to)),
            "the reader must see real imports: {from} -> {to} in {:?}",
            edges.get(from)
        );
    }
    let problems = outside_the_map(&modules, &edges);
    let file_circles = circles(&edges);
    let folder_circles: Vec<String> = folder_graphs(&edges)
        .iter()
        .flat_map(|(folder, graph)| {
            circles(graph).into_iter().map(move |c| {
                let at = if folder.is_empty() {
                    "src"
                } else {
                    folder.as_str()
                };
                format!("in {at}: {c}")
            })
        })
        .collect();
    let mut report = String::new();
    for (title, items) in [
        ("uses the map does not allow", problems),
        (
            "files that reach each other",
            file_circles.into_iter().collect(),
        ),
        ("folders that reach each other", folder_circles),
    ] {
        if !items.is_empty() {
            report.push_str(&format!("{title}:\n  {}\n", items.join("\n  ")));
        }
    }
    assert!(
        report.is_empty(),
        "{report}(move what ties them down a layer, or change LAYERS with a reason)"
    );
}
