//! A server's `WWW-Authenticate: Bearer ...` challenge (RFC 6750 section 3, RFC 7235 auth-param
//! syntax): what an MCP client reads from a 401 or a 403 to know where the protected-resource
//! metadata is (`resource_metadata`, RFC 9728 section 5.1), which scopes the operation needs
//! (`scope`) and why it was refused (`error`).

/// The Bearer challenge of a `WWW-Authenticate` value, when there is one.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct Challenge {
    pub resource_metadata: Option<String>,
    /// Space-separated scopes, as the server wrote them.
    pub scope: Option<String>,
    /// `invalid_token`, `insufficient_scope`, ...
    pub error: Option<String>,
    pub error_description: Option<String>,
}

impl Challenge {
    /// The Bearer challenge among the challenges of one header value (`Basic realm="x",
    /// Bearer scope="a b"` holds two); `None` when there is no Bearer challenge.
    pub fn parse(header: &str) -> Option<Challenge> {
        let mut rest = header;
        let mut current: Option<Challenge> = None;
        loop {
            rest = rest.trim_start_matches([' ', '\t', ',']);
            if rest.is_empty() {
                return current;
            }
            let token_len = rest.find(|c: char| !is_tchar(c)).unwrap_or(rest.len());
            if token_len == 0 {
                return current; // Not a token: nothing more can be read safely.
            }
            let token = &rest[..token_len];
            let after = rest[token_len..].trim_start_matches([' ', '\t']);
            if let Some(value_part) = after.strip_prefix('=') {
                // An auth-param of the current challenge.
                let (value, remaining) = read_value(value_part.trim_start_matches([' ', '\t']));
                if let Some(challenge) = current.as_mut() {
                    let slot = match token.to_ascii_lowercase().as_str() {
                        "resource_metadata" => Some(&mut challenge.resource_metadata),
                        "scope" => Some(&mut challenge.scope),
                        "error" => Some(&mut challenge.error),
                        "error_description" => Some(&mut challenge.error_description),
                        _ => None,
                    };
                    if let Some(slot) = slot.filter(|s| s.is_none()) {
                        *slot = Some(value);
                    }
                }
                rest = remaining;
            } else {
                // A new auth-scheme: a Bearer one is ours; after ours, another ends it.
                if current.is_some() {
                    return current;
                }
                if token.eq_ignore_ascii_case("bearer") {
                    current = Some(Challenge::default());
                }
                rest = after;
            }
        }
    }

    /// The scopes it names, split.
    pub fn scopes(&self) -> Vec<String> {
        split_scopes(self.scope.as_deref())
    }
}

/// Space-separated scopes as a list (empty entries dropped).
pub fn split_scopes(scope: Option<&str>) -> Vec<String> {
    scope
        .unwrap_or_default()
        .split([' ', '\t'])
        .filter(|s| !s.is_empty())
        .map(str::to_owned)
        .collect()
}

/// An RFC 9110 tchar (the characters of a token).
fn is_tchar(c: char) -> bool {
    c.is_ascii_alphanumeric() || "!#$%&'*+-.^_`|~".contains(c)
}

/// A token or a quoted-string at the start of `s`: the value (unescaped) and what follows.
fn read_value(s: &str) -> (String, &str) {
    if let Some(quoted) = s.strip_prefix('"') {
        let mut value = String::new();
        let mut chars = quoted.char_indices();
        while let Some((i, c)) = chars.next() {
            match c {
                '\\' => {
                    if let Some((_, escaped)) = chars.next() {
                        value.push(escaped);
                    }
                }
                '"' => return (value, &quoted[i + 1..]),
                _ => value.push(c),
            }
        }
        (value, "") // An unclosed quote: take what there is.
    } else {
        let end = s.find([',', ' ', '\t']).unwrap_or(s.len());
        (s[..end].to_owned(), &s[end..])
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_specifications_challenges_are_read() {
        // The 2026-07-28 authorization spec's examples (a 401 with scope guidance, a 403).
        let c = Challenge::parse(
            r#"Bearer resource_metadata="https://mcp.example.com/.well-known/oauth-protected-resource", scope="files:read""#,
        )
        .unwrap();
        assert_eq!(
            c.resource_metadata.as_deref(),
            Some("https://mcp.example.com/.well-known/oauth-protected-resource")
        );
        assert_eq!(c.scopes(), ["files:read"]);
        let c = Challenge::parse(
            r#"Bearer error="insufficient_scope", scope="files:read files:write user:profile", resource_metadata="https://mcp.example.com/.well-known/oauth-protected-resource", error_description="Additional file write permission required""#,
        )
        .unwrap();
        assert_eq!(c.error.as_deref(), Some("insufficient_scope"));
        assert_eq!(c.scopes(), ["files:read", "files:write", "user:profile"]);
        assert_eq!(
            c.error_description.as_deref(),
            Some("Additional file write permission required")
        );
    }

    #[test]
    fn other_schemes_tokens_escapes_and_junk() {
        let c = Challenge::parse(r#"Basic realm="a, b", Bearer error=invalid_token, scope="x\"y""#)
            .unwrap();
        assert_eq!(c.error.as_deref(), Some("invalid_token"));
        assert_eq!(c.scope.as_deref(), Some("x\"y"));
        // A Basic challenge's parameters are not ours.
        let c = Challenge::parse(r#"Bearer realm="mcp", DPoP scope="nope""#).unwrap();
        assert_eq!(c.scope, None);
        assert_eq!(Challenge::parse("Basic realm=\"x\""), None);
        assert_eq!(Challenge::parse("bearer"), Some(Challenge::default()));
        assert_eq!(Challenge::parse(""), None);
        assert_eq!(
            Challenge::parse("Bearer scope=\"unclosed")
                .unwrap()
                .scope
                .as_deref(),
            Some("unclosed")
        );
        assert_eq!(Challenge::parse("@@@"), None);
    }
}
