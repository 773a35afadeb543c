//! The repository stands alone: a user's clone, a packager's build and `cargo install --path .`
//! have no `shared/` folder beside them (only CI's checkout does), so nothing the tests, benches,
//! examples, scripts or the program itself read may live there. Data they need is copied into
//! the repository (tests/fixtures/corpus holds the captured responses). `.ci/run` also runs the
//! test command in a clone with nothing beside it; this test names the offending line at once.

mod common;

use std::path::Path;

/// Spellings of a path into the steering folder beside the repository, built from parts so
/// that this file does not hold one itself (and is searched like every other).
const OUTSIDE: [&str; 4] = [
    concat!("..", "/", "shared"),
    concat!("..", "\\", "shared"),
    concat!("/ \"", "shared", "\""),
    concat!("join(\"", "shared", "\")"),
];

/// Folders whose files run or are read by what runs, relative to the repository root.
const SEARCHED: [&str; 7] = [
    "src", "tests", "benches", "examples", "scripts", "fuzz", ".ci",
];

fn skipped(path: &Path) -> bool {
    path.components().any(|c| {
        matches!(
            c.as_os_str().to_str(),
            Some("node_modules" | "target" | "corpus" | "artifacts" | ".venv")
        )
    })
}

#[test]
fn nothing_reads_the_folder_beside_the_repository() {
    let mut offending = Vec::new();
    let mut read = 0;
    for top in SEARCHED {
        let top = common::repo(top);
        for entry in walkdir::WalkDir::new(&top)
            .sort_by_file_name()
            .into_iter()
            .filter_entry(|e| !skipped(e.path()))
            .flatten()
            .filter(|e| e.file_type().is_file())
        {
            let Ok(text) = std::fs::read_to_string(entry.path()) else {
                continue; // not text: nothing to read a path from
            };
            read += 1;
            for (number, line) in text.lines().enumerate() {
                if OUTSIDE.iter().any(|needle| line.contains(needle)) {
                    let shown = entry.path().strip_prefix(common::root()).unwrap();
                    offending.push(format!(
                        "{}:{}: {}",
                        shown.display(),
                        number + 1,
                        line.trim()
                    ));
                }
            }
        }
    }
    assert!(
        read > 100,
        "only {read} files read; is the repository root right?"
    );
    assert!(
        offending.is_empty(),
        "these lines reach outside the repository, which a user's clone does not have; \
         copy what they need into tests/fixtures (as tests/fixtures/corpus) and read it there:\n{}",
        offending.join("\n")
    );
}

#[test]
fn the_bundled_corpus_is_there() {
    let count = std::fs::read_dir(common::repo("tests/fixtures/corpus"))
        .expect("tests/fixtures/corpus ships with the repository")
        .flatten()
        .filter(|e| e.path().extension().is_some_and(|x| x == "json"))
        .count();
    assert!(
        count >= 18,
        "{count} captured responses in tests/fixtures/corpus"
    );
}
