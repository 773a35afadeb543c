//! The names the gateway gives its servers' tools and prompts: `SERVER__NAME`, within the
//! pattern every client accepts (`^[A-Za-z0-9_-]{1,64}$`, Claude Desktop's and the Anthropic
//! API's) and a length the config sets (`maxToolNameLength`).
//!
//! A name the rules leave alone stays as it is, so users and Claude Code's keyword search find
//! the tool by the name its server gave it. A name that had to change (a character outside the
//! pattern reduced to `_`, or cut to fit) ends in `_` and six hex digits of a SHA-256 of the
//! server's key and the original name: deterministic across runs and catalog changes, and two
//! different originals never meet on one name (the table checks it all the same).

use sha2::{Digest, Sha256};

/// Between the server's part and the tool's.
pub const SEPARATOR: &str = "__";

/// The longest server part kept before it is cut.
const SERVER_PART_MAX: usize = 24;

/// Hex digits of the hash a changed name ends with.
const HASH_DIGITS: usize = 6;

/// The server part of every exposed name: the config entry's key reduced to `[A-Za-z0-9_-]`
/// and at most 24 characters; a key that changed carries its hash.
pub fn server_part(key: &str) -> String {
    let reduced = reduce(key, '-');
    if reduced == key && key.len() <= SERVER_PART_MAX && !key.is_empty() {
        return reduced;
    }
    let keep = SERVER_PART_MAX - HASH_DIGITS - 1;
    let head: String = reduced.chars().take(keep).collect();
    format!("{head}-{}", short_hash(&[key]))
}

/// The exposed name of `original`, a tool or prompt of the server whose part is `server`
/// (from [`server_part`]) and whose config key is `key`, within `max` characters.
pub fn exposed(server: &str, key: &str, original: &str, max: usize) -> String {
    let room = max.saturating_sub(server.len() + SEPARATOR.len());
    let reduced = reduce(original, '_');
    if reduced == original && !original.is_empty() && original.len() <= room {
        return format!("{server}{SEPARATOR}{original}");
    }
    let keep = room.saturating_sub(HASH_DIGITS + 1);
    let head: String = reduced.chars().take(keep).collect();
    format!("{server}{SEPARATOR}{head}_{}", short_hash(&[key, original]))
}

/// Whether a name is one every client accepts: `[A-Za-z0-9_-]`, 1 to `max` characters.
pub fn acceptable(name: &str, max: usize) -> bool {
    !name.is_empty() && name.len() <= max && name.bytes().all(allowed)
}

fn allowed(b: u8) -> bool {
    b.is_ascii_alphanumeric() || b == b'_' || b == b'-'
}

/// `text` with every character outside the pattern replaced by `with`.
fn reduce(text: &str, with: char) -> String {
    text.chars()
        .map(|c| {
            if c.is_ascii() && allowed(c as u8) {
                c
            } else {
                with
            }
        })
        .collect()
}

fn short_hash(parts: &[&str]) -> String {
    let mut hash = Sha256::new();
    for part in parts {
        hash.update(part.as_bytes());
        hash.update([0]);
    }
    let digest = hash.finalize();
    digest
        .iter()
        .take(HASH_DIGITS / 2)
        .map(|b| format!("{b:02x}"))
        .collect()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_plain_name_is_the_server_then_the_tool() {
        let server = server_part("everything");
        assert_eq!(server, "everything");
        assert_eq!(
            exposed(&server, "everything", "echo", 64),
            "everything__echo"
        );
    }

    #[test]
    fn characters_clients_refuse_are_reduced_and_the_name_marked() {
        let server = server_part("my.server");
        assert!(server.starts_with("my-server-"), "{server}");
        let name = exposed(&server, "my.server", "files:read", 64);
        assert!(
            name.starts_with(&format!("{server}__files_read_")),
            "{name}"
        );
        assert!(acceptable(&name, 64), "{name}");
        // Two originals that reduce alike stay apart.
        assert_ne!(
            exposed(&server, "my.server", "files:read", 64),
            exposed(&server, "my.server", "files/read", 64)
        );
        assert_ne!(server_part("a.b"), server_part("a:b"));
    }

    #[test]
    fn a_long_name_is_cut_to_fit_the_same_way_every_time() {
        let server = server_part("playwright");
        let long = "browser_take_a_very_detailed_snapshot_of_the_accessibility_tree_now";
        for max in [64, 49, 32] {
            let name = exposed(&server, "playwright", long, max);
            assert!(acceptable(&name, max), "{name} ({} > {max})", name.len());
            assert_eq!(name, exposed(&server, "playwright", long, max));
            assert!(name.starts_with("playwright__browser_take"), "{name}");
        }
        let other = long.replace("now", "later");
        assert_ne!(
            exposed(&server, "playwright", long, 49),
            exposed(&server, "playwright", &other, 49)
        );
        let key = "a-server-key-far-longer-than-any-client-would-show";
        let part = server_part(key);
        assert_eq!(part.len(), SERVER_PART_MAX);
        assert!(acceptable(&exposed(&part, key, "x", 64), 64));
    }

    #[test]
    fn an_empty_or_non_ascii_name_still_gets_an_acceptable_one() {
        let server = server_part("");
        assert!(acceptable(&server, 64), "{server}");
        let name = exposed(&server, "", "послать", 64);
        assert!(acceptable(&name, 64), "{name}");
        assert!(!acceptable("a:b", 64));
        assert!(!acceptable(&"a".repeat(65), 64));
    }
}
