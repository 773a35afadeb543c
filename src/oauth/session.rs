//! A login as it happens: the documents fetched, the client identified, the user sent to the
//! authorization server and back, the code exchanged; then step-up when a 403 asks for more
//! scope. Over ureq, the blocking HTTP client the live audit uses. No printing and no browser:
//! the redirect is the caller's [`UserAgent`] (the CLI opens the browser and listens on
//! loopback). Tokens live in memory here; they never appear in an error.

use serde::Deserialize;

use super::challenge::{Challenge, split_scopes};
use super::discovery::{self, ResourceMetadata, ServerMetadata};
use super::flow::{self, Authorize, ClientAuth, Pkce, TokenRequest};

/// Step-ups one login allows before giving up (a server that keeps asking for more).
pub const MAX_STEP_UPS: usize = 2;

/// What sends the user to the authorization server and brings the redirect back.
pub trait UserAgent: Send {
    /// Where the authorization server sends the user back (a loopback URL).
    fn redirect_uri(&self) -> String;
    /// Opens `url` for the user and waits for the redirect: its query string.
    fn authorize(&mut self, url: &str) -> Result<String, String>;
}

/// How this client identifies itself.
#[derive(Clone, Debug, Default)]
pub struct Settings {
    /// A pre-registered client (`--oauth-client-id`), with its secret when it has one.
    pub client_id: Option<String>,
    pub client_secret: Option<String>,
    /// A Client ID Metadata Document URL (`--oauth-client-metadata-url`).
    pub client_metadata_url: Option<String>,
    /// `client_credentials` instead of a user's login (CI).
    pub client_credentials: bool,
    /// The name a dynamic registration gives.
    pub client_name: String,
}

#[derive(Debug, thiserror::Error)]
pub enum OAuthError {
    #[error("{0}")]
    Discovery(#[from] discovery::DiscoveryError),
    #[error("{0}")]
    Callback(#[from] flow::CallbackError),
    #[error("{what} {url}: {why}")]
    Fetch {
        what: &'static str,
        url: String,
        why: String,
    },
    #[error("{0}")]
    Refused(String),
}

/// The client's identity at one authorization server.
#[derive(Clone, Debug)]
struct Client {
    id: String,
    secret: Option<String>,
    auth: ClientAuth,
}

/// A login that worked: what refresh and step-up need.
#[derive(Clone, Debug)]
struct Granted {
    server: ServerMetadata,
    resource_metadata: ResourceMetadata,
    client: Client,
    scopes: Vec<String>,
}

/// The OAuth client of one MCP server.
pub struct OAuth {
    settings: Settings,
    agent: ureq::Agent,
    user: Box<dyn UserAgent>,
    granted: Option<Granted>,
    step_ups: usize,
}

#[derive(Deserialize)]
struct TokenResponse {
    access_token: String,
    #[serde(default)]
    token_type: Option<String>,
    #[serde(default)]
    scope: Option<String>,
}

impl OAuth {
    pub fn new(
        settings: Settings,
        user: Box<dyn UserAgent>,
        timeout: std::time::Duration,
    ) -> OAuth {
        let agent = ureq::Agent::config_builder()
            .http_status_as_error(false)
            .timeout_global(Some(timeout))
            .build()
            .new_agent();
        OAuth {
            settings,
            agent,
            user,
            granted: None,
            step_ups: 0,
        }
    }

    /// The `Authorization` value to retry with after the server answered `status` (401 or
    /// 403) with this `WWW-Authenticate`: a login on a 401, a step-up on a 403
    /// `insufficient_scope` (at most [`MAX_STEP_UPS`]).
    pub fn answer(
        &mut self,
        server_url: &str,
        status: u16,
        www_authenticate: Option<&str>,
    ) -> Result<String, OAuthError> {
        let challenge = www_authenticate
            .and_then(Challenge::parse)
            .unwrap_or_default();
        if status == 403 {
            if challenge.error.as_deref() != Some("insufficient_scope") {
                return Err(OAuthError::Refused(format!(
                    "the server answered 403 ({})",
                    challenge.error.as_deref().unwrap_or("no reason given")
                )));
            }
            self.step_ups += 1;
            if self.step_ups > MAX_STEP_UPS {
                return Err(OAuthError::Refused(format!(
                    "the server asked for more scope {} times; stopped (a server must name every scope an operation needs at once)",
                    self.step_ups
                )));
            }
        }
        let granted = match self.granted.clone() {
            Some(g) if status == 403 => g,
            _ => self.discover(server_url, &challenge)?,
        };
        // The resource exactly as its metadata publishes it (checked to cover this server),
        // else this server's canonical URI.
        let resource = match &granted.resource_metadata.resource {
            Some(published) => published.clone(),
            None => discovery::canonical_resource(server_url)?,
        };
        let scope = if status == 403 {
            Some(flow::step_up_scope(&granted.scopes, &challenge.scopes()))
        } else {
            flow::initial_scope(
                &challenge.scopes(),
                &granted.resource_metadata,
                &granted.server,
            )
        };
        let token = self.token(&granted, &resource, scope.as_deref())?;
        let scopes = split_scopes(token.scope.as_deref().or(scope.as_deref()));
        self.granted = Some(Granted { scopes, ..granted });
        let kind = token.token_type.unwrap_or_else(|| "Bearer".to_owned());
        let kind = if kind.eq_ignore_ascii_case("bearer") {
            "Bearer".to_owned()
        } else {
            kind
        };
        Ok(format!("{kind} {}", token.access_token))
    }

    /// Both metadata documents, checked, and the client's identity at that server.
    fn discover(&mut self, server_url: &str, challenge: &Challenge) -> Result<Granted, OAuthError> {
        let mut resource_metadata = None;
        let mut tried = Vec::new();
        for url in
            discovery::resource_metadata_urls(server_url, challenge.resource_metadata.as_deref())?
        {
            match self.get_json::<ResourceMetadata>(&url) {
                Ok(doc) => {
                    resource_metadata = Some(doc);
                    break;
                }
                Err(why) => tried.push(format!("{url} ({why})")),
            }
        }
        let resource_metadata = resource_metadata.ok_or_else(|| OAuthError::Fetch {
            what: "no protected-resource metadata at",
            url: tried.join(", "),
            why: "the server names no authorization server".to_owned(),
        })?;
        discovery::check_resource(&resource_metadata, server_url)?;
        let issuer = resource_metadata
            .authorization_servers
            .first()
            .cloned()
            .ok_or_else(|| {
                OAuthError::Refused(
                    "the protected-resource metadata lists no authorization server".into(),
                )
            })?;
        let mut server = None;
        let mut tried = Vec::new();
        for url in discovery::server_metadata_urls(&issuer)? {
            match self.get_json::<ServerMetadata>(&url) {
                Ok(doc) => {
                    discovery::check_issuer(&doc, &issuer)?;
                    server = Some(doc);
                    break;
                }
                Err(why) => tried.push(format!("{url} ({why})")),
            }
        }
        let server = server.ok_or_else(|| OAuthError::Fetch {
            what: "no authorization-server metadata for",
            url: issuer.clone(),
            why: tried.join(", "),
        })?;
        let client = self.identify(&server, &resource_metadata)?;
        Ok(Granted {
            server,
            resource_metadata,
            client,
            scopes: Vec::new(),
        })
    }

    /// Pre-registered, else a Client ID Metadata Document the server accepts, else dynamic
    /// registration (the specification's order).
    fn identify(
        &mut self,
        server: &ServerMetadata,
        prm: &ResourceMetadata,
    ) -> Result<Client, OAuthError> {
        let s = &self.settings;
        if let Some(id) = &s.client_id {
            let auth = ClientAuth::choose(None, server, s.client_secret.is_some());
            return Ok(Client {
                id: id.clone(),
                secret: s.client_secret.clone(),
                auth,
            });
        }
        if let Some(url) = &s.client_metadata_url
            && server.client_id_metadata_document_supported
        {
            return Ok(Client {
                id: url.clone(),
                secret: None,
                auth: ClientAuth::None,
            });
        }
        let Some(endpoint) = server.registration_endpoint.clone() else {
            return Err(OAuthError::Refused(
                "the authorization server has no registration endpoint and takes no client metadata document: give a pre-registered client with --oauth-client-id".into(),
            ));
        };
        let scope = prm.scopes_supported.as_ref().map(|s| s.join(" "));
        let body = flow::registration(&s.client_name, &self.user.redirect_uri(), scope.as_deref());
        #[derive(Deserialize)]
        struct Registered {
            client_id: String,
            client_secret: Option<String>,
            token_endpoint_auth_method: Option<String>,
        }
        let mut response = self
            .agent
            .post(&endpoint)
            .header("Content-Type", "application/json")
            .send(body.to_string())
            .map_err(|e| fetch_error("registering at", &endpoint, &e.to_string()))?;
        let status = response.status().as_u16();
        let text = response.body_mut().read_to_string().unwrap_or_default();
        if !(200..300).contains(&status) {
            return Err(fetch_error(
                "registering at",
                &endpoint,
                &format!("HTTP {status}: {}", clip(&text)),
            ));
        }
        let registered: Registered = serde_json::from_str(&text).map_err(|e| {
            fetch_error(
                "registering at",
                &endpoint,
                &format!("not a registration ({e})"),
            )
        })?;
        let auth = ClientAuth::choose(
            registered.token_endpoint_auth_method.as_deref(),
            server,
            registered.client_secret.is_some(),
        );
        Ok(Client {
            id: registered.client_id,
            secret: registered.client_secret,
            auth,
        })
    }

    /// Tokens: for the client itself, or through the user's browser and the code.
    fn token(
        &mut self,
        g: &Granted,
        resource: &str,
        scope: Option<&str>,
    ) -> Result<TokenResponse, OAuthError> {
        let client = (
            g.client.auth,
            g.client.id.as_str(),
            g.client.secret.as_deref(),
        );
        let endpoint = g.server.token_endpoint.clone().ok_or_else(|| {
            OAuthError::Refused("the authorization server has no token endpoint".into())
        })?;
        let request = if self.settings.client_credentials {
            TokenRequest::client_credentials(scope, resource, client)
        } else {
            let authorize_endpoint = g.server.authorization_endpoint.clone().ok_or_else(|| {
                OAuthError::Refused("the authorization server has no authorization endpoint".into())
            })?;
            let random = |bytes| {
                crate::cursor::random_hex(bytes)
                    .map_err(|e| OAuthError::Refused(format!("/dev/urandom: {e}")))
            };
            let pkce = Pkce::new(random(32)?).expect("64 hex characters make a verifier");
            let state = random(16)?;
            let redirect_uri = self.user.redirect_uri();
            let url = Authorize {
                endpoint: &authorize_endpoint,
                client_id: &g.client.id,
                redirect_uri: &redirect_uri,
                pkce: &pkce,
                state: &state,
                resource,
                scope,
            }
            .url()
            .ok_or_else(|| {
                OAuthError::Refused(format!(
                    "the authorization endpoint {authorize_endpoint} is not a URL"
                ))
            })?;
            let query = self.user.authorize(&url).map_err(OAuthError::Refused)?;
            let code = flow::code_from_redirect(&query, &state, &g.server.issuer, &g.server)?;
            TokenRequest::authorization_code(&code, &redirect_uri, &pkce, resource, client)
        };
        let mut call = self
            .agent
            .post(&endpoint)
            .header("Content-Type", "application/x-www-form-urlencoded")
            .header("Accept", "application/json");
        if let Some(value) = &request.authorization {
            call = call.header("Authorization", value);
        }
        let mut response = call
            .send(request.body())
            .map_err(|e| fetch_error("the token endpoint", &endpoint, &e.to_string()))?;
        let status = response.status().as_u16();
        let text = response.body_mut().read_to_string().unwrap_or_default();
        if !(200..300).contains(&status) {
            // The error body of RFC 6749 5.2 names no token: safe to show.
            return Err(fetch_error(
                "the token endpoint",
                &endpoint,
                &format!("HTTP {status}: {}", clip(&text)),
            ));
        }
        serde_json::from_str(&text).map_err(|_| {
            fetch_error(
                "the token endpoint",
                &endpoint,
                "answered something that is not a token response",
            )
        })
    }

    fn get_json<T: serde::de::DeserializeOwned>(&self, url: &str) -> Result<T, String> {
        let mut response = self
            .agent
            .get(url)
            .header("Accept", "application/json")
            .call()
            .map_err(|e| e.to_string())?;
        let status = response.status().as_u16();
        if !(200..300).contains(&status) {
            return Err(format!("HTTP {status}"));
        }
        let text = response
            .body_mut()
            .with_config()
            .limit(1 << 20)
            .read_to_string()
            .map_err(|e| e.to_string())?;
        serde_json::from_str(&text).map_err(|e| format!("not the JSON expected ({e})"))
    }
}

fn fetch_error(what: &'static str, url: &str, why: &str) -> OAuthError {
    OAuthError::Fetch {
        what,
        url: url.to_owned(),
        why: why.to_owned(),
    }
}

/// At most 200 characters of a body, for an error.
fn clip(text: &str) -> String {
    text.chars().take(200).collect()
}
