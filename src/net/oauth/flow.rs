//! The authorization-code flow with PKCE as an MCP client runs it (2026-07-28
//! basic/authorization), as data: the scope to ask for, the authorization URL (PKCE S256,
//! `state`, the RFC 8707 `resource`), the checks on the redirect back (`state`, the RFC 9207
//! `iss` table), and the token and registration requests. Pure: the random strings come in
//! (the caller reads them from the system), requests go out as URLs and forms for the caller
//! to send.

use base64::Engine as _;
use sha2::Digest as _;
use url::Url;

use super::discovery::{ResourceMetadata, ServerMetadata};

/// PKCE (RFC 7636) with S256: the verifier kept, the challenge sent.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Pkce {
    pub verifier: String,
    pub challenge: String,
}

impl Pkce {
    /// From a verifier of 43 to 128 unreserved characters (the caller makes it random: 64 hex
    /// characters of 32 random bytes).
    pub fn new(verifier: String) -> Option<Pkce> {
        let unreserved = |c: char| c.is_ascii_alphanumeric() || "-._~".contains(c);
        if !(43..=128).contains(&verifier.len()) || !verifier.chars().all(unreserved) {
            return None;
        }
        let digest = sha2::Sha256::digest(verifier.as_bytes());
        let challenge = base64::engine::general_purpose::URL_SAFE_NO_PAD.encode(digest);
        Some(Pkce {
            verifier,
            challenge,
        })
    }
}

/// The scope of a first authorization: the challenge's, else every scope the resource lists,
/// else none (no `scope` parameter at all). `offline_access` is added when the authorization
/// server lists it, so that a refresh token may come.
pub fn initial_scope(
    challenged: &[String],
    resource: &ResourceMetadata,
    server: &ServerMetadata,
) -> Option<String> {
    let mut scopes: Vec<String> = if challenged.is_empty() {
        resource.scopes_supported.clone().unwrap_or_default()
    } else {
        challenged.to_vec()
    };
    if scopes.is_empty() {
        return None;
    }
    let offline = "offline_access";
    let listed = server
        .scopes_supported
        .as_ref()
        .is_some_and(|s| s.iter().any(|x| x == offline));
    if listed && !scopes.iter().any(|s| s == offline) {
        scopes.push(offline.to_owned());
    }
    Some(scopes.join(" "))
}

/// The scope of a step-up after a 403 `insufficient_scope`: what was granted with what the
/// challenge names, each once, in order.
pub fn step_up_scope(granted: &[String], challenged: &[String]) -> String {
    let mut all: Vec<&String> = Vec::new();
    for s in granted.iter().chain(challenged) {
        if !all.contains(&s) {
            all.push(s);
        }
    }
    all.iter().map(|s| s.as_str()).collect::<Vec<_>>().join(" ")
}

/// What the authorization request needs.
#[derive(Clone, Debug)]
pub struct Authorize<'a> {
    pub endpoint: &'a str,
    pub client_id: &'a str,
    pub redirect_uri: &'a str,
    pub pkce: &'a Pkce,
    pub state: &'a str,
    /// The MCP server's canonical URI.
    pub resource: &'a str,
    pub scope: Option<&'a str>,
}

impl Authorize<'_> {
    /// The URL the user's browser opens. `None`: the endpoint is not a URL.
    pub fn url(&self) -> Option<String> {
        let mut url = Url::parse(self.endpoint).ok()?;
        {
            let mut query = url.query_pairs_mut();
            query
                .append_pair("response_type", "code")
                .append_pair("client_id", self.client_id)
                .append_pair("redirect_uri", self.redirect_uri)
                .append_pair("code_challenge", &self.pkce.challenge)
                .append_pair("code_challenge_method", "S256")
                .append_pair("state", self.state)
                .append_pair("resource", self.resource);
            if let Some(scope) = self.scope {
                query.append_pair("scope", scope);
            }
        }
        Some(url.to_string())
    }
}

/// Why the redirect back cannot be used.
#[derive(Debug, PartialEq, Eq, thiserror::Error)]
pub enum CallbackError {
    #[error("the redirect's state is not the one this login sent (another login's, or forged)")]
    WrongState,
    #[error(
        "the redirect names issuer {said:?}, not {expected:?}: refused without reading it further (RFC 9207)"
    )]
    WrongIssuer { said: String, expected: String },
    #[error(
        "the authorization server says it sends `iss`, and the redirect has none: refused (RFC 9207)"
    )]
    MissingIssuer,
    #[error("the authorization server refused: {error}{}", description.as_deref().map(|d| format!(" ({d})")).unwrap_or_default())]
    Refused {
        error: String,
        description: Option<String>,
    },
    #[error("the redirect carries no code")]
    NoCode,
}

/// The code of the redirect back to the loopback listener (its query string), after the
/// checks in the order that keeps an attacker's response unread: `state`, then `iss` per the
/// specification's table (a present `iss` compared as a plain string whatever the metadata
/// says; an absent one refused only when the metadata promised it), then `error`.
pub fn code_from_redirect(
    query: &str,
    state: &str,
    issuer: &str,
    server: &ServerMetadata,
) -> Result<String, CallbackError> {
    let mut got = std::collections::HashMap::new();
    for (k, v) in url::form_urlencoded::parse(query.as_bytes()) {
        got.entry(k.into_owned()).or_insert_with(|| v.into_owned());
    }
    if got.get("state").map(String::as_str) != Some(state) {
        return Err(CallbackError::WrongState);
    }
    match got.get("iss") {
        Some(said) if said != issuer => {
            return Err(CallbackError::WrongIssuer {
                said: said.clone(),
                expected: issuer.to_owned(),
            });
        }
        None if server.authorization_response_iss_parameter_supported => {
            return Err(CallbackError::MissingIssuer);
        }
        _ => {}
    }
    if let Some(error) = got.get("error") {
        return Err(CallbackError::Refused {
            error: error.clone(),
            description: got.get("error_description").cloned(),
        });
    }
    got.remove("code")
        .filter(|c| !c.is_empty())
        .ok_or(CallbackError::NoCode)
}

/// How the client proves itself at the token endpoint (stored under RFC 7591's names).
#[derive(Clone, Copy, Debug, PartialEq, Eq, serde::Serialize, serde::Deserialize)]
pub enum ClientAuth {
    /// HTTP Basic with the client id and secret.
    #[serde(rename = "client_secret_basic")]
    Basic,
    /// The id and secret in the form.
    #[serde(rename = "client_secret_post")]
    Post,
    /// A public client: the id in the form, no secret.
    #[serde(rename = "none")]
    None,
}

impl ClientAuth {
    /// The method to use: the registration's, else the first the server advertises that
    /// this client can do (basic before post for a confidential client), else the RFC 8414
    /// default (basic) for a client with a secret, none without.
    pub fn choose(
        registered: Option<&str>,
        server: &ServerMetadata,
        has_secret: bool,
    ) -> ClientAuth {
        let named = |m: &str| match m {
            "client_secret_basic" => Some(ClientAuth::Basic),
            "client_secret_post" => Some(ClientAuth::Post),
            "none" => Some(ClientAuth::None),
            _ => None,
        };
        if let Some(method) = registered.and_then(named) {
            return method;
        }
        let advertised = &server.token_endpoint_auth_methods_supported;
        let usable = |m: &ClientAuth| has_secret || *m == ClientAuth::None;
        let preference = if has_secret {
            ["client_secret_basic", "client_secret_post", "none"]
        } else {
            ["none", "client_secret_basic", "client_secret_post"]
        };
        preference
            .into_iter()
            .filter(|m| advertised.iter().any(|a| a == m))
            .filter_map(named)
            .find(usable)
            .unwrap_or(if has_secret {
                ClientAuth::Basic
            } else {
                ClientAuth::None
            })
    }
}

/// A request to the token endpoint: its form fields and, for Basic, the Authorization value.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct TokenRequest {
    pub form: Vec<(String, String)>,
    pub authorization: Option<String>,
}

impl TokenRequest {
    /// The form as `application/x-www-form-urlencoded` text.
    pub fn body(&self) -> String {
        url::form_urlencoded::Serializer::new(String::new())
            .extend_pairs(self.form.iter())
            .finish()
    }

    fn with_client(
        mut form: Vec<(String, String)>,
        auth: ClientAuth,
        client_id: &str,
        secret: Option<&str>,
    ) -> TokenRequest {
        let mut authorization = None;
        match (auth, secret) {
            (ClientAuth::Basic, Some(secret)) => {
                // RFC 6749 section 2.3.1: each part form-encoded, then Base64.
                let enc = |s: &str| {
                    url::form_urlencoded::byte_serialize(s.as_bytes()).collect::<String>()
                };
                let pair = format!("{}:{}", enc(client_id), enc(secret));
                authorization = Some(format!(
                    "Basic {}",
                    base64::engine::general_purpose::STANDARD.encode(pair)
                ));
            }
            (ClientAuth::Post, Some(secret)) => {
                form.push(("client_id".into(), client_id.into()));
                form.push(("client_secret".into(), secret.into()));
            }
            _ => form.push(("client_id".into(), client_id.into())),
        }
        TokenRequest {
            form,
            authorization,
        }
    }

    /// The code for tokens: with the PKCE verifier and the same `resource`.
    pub fn authorization_code(
        code: &str,
        redirect_uri: &str,
        pkce: &Pkce,
        resource: &str,
        (auth, client_id, secret): (ClientAuth, &str, Option<&str>),
    ) -> TokenRequest {
        let form = vec![
            ("grant_type".into(), "authorization_code".into()),
            ("code".into(), code.into()),
            ("redirect_uri".into(), redirect_uri.into()),
            ("code_verifier".into(), pkce.verifier.clone()),
            ("resource".into(), resource.into()),
        ];
        TokenRequest::with_client(form, auth, client_id, secret)
    }

    /// A refresh, with the same `resource`.
    pub fn refresh(
        refresh_token: &str,
        resource: &str,
        (auth, client_id, secret): (ClientAuth, &str, Option<&str>),
    ) -> TokenRequest {
        let form = vec![
            ("grant_type".into(), "refresh_token".into()),
            ("refresh_token".into(), refresh_token.into()),
            ("resource".into(), resource.into()),
        ];
        TokenRequest::with_client(form, auth, client_id, secret)
    }

    /// Tokens for the client itself (`client_credentials`, for CI).
    pub fn client_credentials(
        scope: Option<&str>,
        resource: &str,
        (auth, client_id, secret): (ClientAuth, &str, Option<&str>),
    ) -> TokenRequest {
        let mut form = vec![
            ("grant_type".into(), "client_credentials".into()),
            ("resource".into(), resource.into()),
        ];
        if let Some(scope) = scope {
            form.push(("scope".into(), scope.into()));
        }
        TokenRequest::with_client(form, auth, client_id, secret)
    }

    /// A token revoked (RFC 7009), with its kind as a hint.
    pub fn revocation(
        token: &str,
        hint: &str,
        (auth, client_id, secret): (ClientAuth, &str, Option<&str>),
    ) -> TokenRequest {
        let form = vec![
            ("token".into(), token.into()),
            ("token_type_hint".into(), hint.into()),
        ];
        TokenRequest::with_client(form, auth, client_id, secret)
    }
}

/// The body of a dynamic client registration (RFC 7591) for a loopback client: a native
/// application (required in 2026-07-28), a public client, the code and refresh grants.
pub fn registration(
    client_name: &str,
    redirect_uri: &str,
    scope: Option<&str>,
) -> serde_json::Value {
    let mut body = serde_json::json!({
        "client_name": client_name,
        "redirect_uris": [redirect_uri],
        "grant_types": ["authorization_code", "refresh_token"],
        "response_types": ["code"],
        "token_endpoint_auth_method": "none",
        "application_type": "native",
    });
    if let Some(scope) = scope {
        body["scope"] = serde_json::Value::from(scope);
    }
    body
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn pkce_follows_rfc_7636() {
        // RFC 7636 appendix B.
        let p = Pkce::new("dBjftJeZ4CVP-mB92K27uhbUJU1p1r_wW1gFWFOEjXk".into()).unwrap();
        assert_eq!(p.challenge, "E9Melhoa2OwvFrEMTJguCHaoeK1t8URWbuGJSstw-cM");
        assert!(Pkce::new("short".into()).is_none());
        assert!(Pkce::new("a".repeat(129)).is_none());
        assert!(Pkce::new(format!("{}+", "a".repeat(50))).is_none());
    }

    #[test]
    fn scopes_come_from_the_challenge_then_the_resource_then_nowhere() {
        let resource = ResourceMetadata {
            scopes_supported: Some(vec!["mcp:basic".into()]),
            ..Default::default()
        };
        let server = ServerMetadata::default();
        assert_eq!(
            initial_scope(&["files:read".into()], &resource, &server).as_deref(),
            Some("files:read")
        );
        assert_eq!(
            initial_scope(&[], &resource, &server).as_deref(),
            Some("mcp:basic")
        );
        assert_eq!(
            initial_scope(&[], &ResourceMetadata::default(), &server),
            None
        );
        let offline = ServerMetadata {
            scopes_supported: Some(vec!["offline_access".into()]),
            ..Default::default()
        };
        assert_eq!(
            initial_scope(&[], &resource, &offline).as_deref(),
            Some("mcp:basic offline_access")
        );
        assert_eq!(
            step_up_scope(&["a".into(), "b".into()], &["b".into(), "c".into()]),
            "a b c"
        );
    }

    #[test]
    fn the_authorization_url_carries_pkce_state_and_resource() {
        let pkce = Pkce::new("x".repeat(64)).unwrap();
        let url = Authorize {
            endpoint: "https://auth.example.com/authorize?tenant=1",
            client_id: "mcpguard",
            redirect_uri: "http://127.0.0.1:4711/callback",
            pkce: &pkce,
            state: "s1",
            resource: "https://mcp.example.com/mcp",
            scope: Some("files:read files:write"),
        }
        .url()
        .unwrap();
        let parsed = Url::parse(&url).unwrap();
        let q: std::collections::HashMap<_, _> = parsed.query_pairs().into_owned().collect();
        assert_eq!(q["tenant"], "1", "the endpoint's own query is kept");
        assert_eq!(q["response_type"], "code");
        assert_eq!(q["code_challenge_method"], "S256");
        assert_eq!(q["code_challenge"], pkce.challenge);
        assert_eq!(q["resource"], "https://mcp.example.com/mcp");
        assert_eq!(q["scope"], "files:read files:write");
        assert_eq!(q["state"], "s1");
    }

    #[test]
    fn the_redirect_is_checked_by_state_then_the_iss_table_then_error() {
        let issuer = "https://auth.example.com";
        let says_iss = ServerMetadata {
            authorization_response_iss_parameter_supported: true,
            ..Default::default()
        };
        let silent = ServerMetadata::default();
        let ok = |q: &str, m: &ServerMetadata| code_from_redirect(q, "s1", issuer, m);
        // The table of 2026-07-28 basic/authorization, row by row.
        assert_eq!(
            ok(
                "code=c&state=s1&iss=https%3A%2F%2Fauth.example.com",
                &says_iss
            ),
            Ok("c".into())
        );
        assert_eq!(
            ok("code=c&state=s1", &says_iss),
            Err(CallbackError::MissingIssuer)
        );
        assert!(matches!(
            ok(
                "code=c&state=s1&iss=https%3A%2F%2Fauth.example.com%2F",
                &silent
            ),
            Err(CallbackError::WrongIssuer { .. })
        ));
        assert_eq!(ok("code=c&state=s1", &silent), Ok("c".into()));
        // No normalisation: case counts.
        assert!(
            ok(
                "code=c&state=s1&iss=https%3A%2F%2FAUTH.example.com",
                &silent
            )
            .is_err()
        );
        // A mismatched iss hides the error it carries.
        assert!(matches!(
            ok(
                "error=access_denied&state=s1&iss=https%3A%2F%2Fevil.example",
                &silent
            ),
            Err(CallbackError::WrongIssuer { .. })
        ));
        assert_eq!(
            ok("code=c&state=other", &silent),
            Err(CallbackError::WrongState)
        );
        assert_eq!(
            ok("error=access_denied&error_description=no&state=s1", &silent),
            Err(CallbackError::Refused {
                error: "access_denied".into(),
                description: Some("no".into())
            })
        );
        assert_eq!(ok("state=s1", &silent), Err(CallbackError::NoCode));
    }

    #[test]
    fn token_requests_authenticate_as_the_server_asks() {
        let pkce = Pkce::new("v".repeat(43)).unwrap();
        let basic = TokenRequest::authorization_code(
            "c",
            "http://127.0.0.1:1/cb",
            &pkce,
            "https://mcp.example.com",
            (ClientAuth::Basic, "id:1", Some("s/2")),
        );
        // RFC 6749 2.3.1: form-encoded before Base64 ("id%3A1:s%2F2").
        assert_eq!(
            basic.authorization.as_deref(),
            Some("Basic aWQlM0ExOnMlMkYy")
        );
        assert!(!basic.body().contains("client_secret"));
        assert!(
            basic
                .body()
                .contains("resource=https%3A%2F%2Fmcp.example.com")
        );
        let post = TokenRequest::refresh("r", "https://m", (ClientAuth::Post, "id", Some("sec")));
        assert!(post.authorization.is_none());
        assert!(
            post.body().contains("client_id=id&client_secret=sec"),
            "{}",
            post.body()
        );
        let none = TokenRequest::client_credentials(
            Some("a b"),
            "https://m",
            (ClientAuth::None, "id", None),
        );
        assert_eq!(
            none.body(),
            "grant_type=client_credentials&resource=https%3A%2F%2Fm&scope=a+b&client_id=id"
        );

        let server = |methods: &[&str]| ServerMetadata {
            token_endpoint_auth_methods_supported: methods.iter().map(|m| m.to_string()).collect(),
            ..Default::default()
        };
        assert_eq!(
            ClientAuth::choose(None, &server(&["client_secret_post"]), true),
            ClientAuth::Post
        );
        assert_eq!(
            ClientAuth::choose(None, &server(&[]), true),
            ClientAuth::Basic
        );
        assert_eq!(
            ClientAuth::choose(None, &server(&["client_secret_basic", "none"]), false),
            ClientAuth::None
        );
        assert_eq!(
            ClientAuth::choose(Some("client_secret_post"), &server(&[]), true),
            ClientAuth::Post
        );
        let reg = registration("mcpguard", "http://127.0.0.1:1/cb", None);
        assert_eq!(reg["application_type"], "native");
        assert_eq!(
            reg["grant_types"],
            serde_json::json!(["authorization_code", "refresh_token"])
        );
    }
}
