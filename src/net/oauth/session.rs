//! A login as it happens: the documents fetched, the client identified, the user sent to the
//! authorization server and back, the code exchanged; then step-up when a 403 asks for more
//! scope. Over [`crate::net::http`], the HTTP client the live audit uses. No printing and no browser:
//! the redirect is the caller's [`UserAgent`] (the CLI opens the browser and listens on
//! loopback). Tokens live in memory here; they never appear in an error.

use serde::Deserialize;

use super::challenge::{Challenge, split_scopes};
use super::discovery::{self, ResourceMetadata, ServerMetadata};
use super::flow::{self, Authorize, ClientAuth, Pkce, TokenRequest};
use super::store::{Login, Store, StoreError, now_secs};

/// Step-ups one login allows before giving up (a server that keeps asking for more).
pub const MAX_STEP_UPS: usize = 2;

/// The most of an authorization server's answer read (metadata, a registration, tokens).
const MAX_BODY: u64 = 1 << 20;

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
    #[error(transparent)]
    Discovery(#[from] discovery::DiscoveryError),
    #[error(transparent)]
    Callback(#[from] flow::CallbackError),
    #[error("{what} {url}: {why}")]
    Fetch {
        what: &'static str,
        url: String,
        why: String,
    },
    #[error("{0}")]
    Refused(String),
    #[error(transparent)]
    Store(#[from] StoreError),
    #[error("not signed in to {url} ({why}): run `mcpguard auth login --url {url}`")]
    LoginNeeded { url: String, why: String },
}

/// The client's identity at one authorization server.
#[derive(Clone, Debug)]
struct Client {
    id: String,
    secret: Option<String>,
    auth: ClientAuth,
}

/// What one login found: where to get tokens, and as whom.
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
    agent: crate::net::http::Client,
    /// The browser and the loopback; `None` where no one can sign in (the HTTP proxy), which
    /// then uses stored logins only.
    user: Option<Box<dyn UserAgent>>,
    store: Option<Store>,
    /// How long to wait for another process's login or refresh.
    lock_wait: std::time::Duration,
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
    #[serde(default)]
    refresh_token: Option<String>,
    #[serde(default)]
    expires_in: Option<u64>,
}

impl OAuth {
    /// A client that signs in through `user` (or only uses stored logins without one), keeping
    /// its logins in `store` (or in memory only).
    pub fn new(
        settings: Settings,
        user: Option<Box<dyn UserAgent>>,
        store: Option<Store>,
        timeout: std::time::Duration,
    ) -> OAuth {
        let agent = crate::net::http::Client::new(timeout);
        OAuth {
            settings,
            agent,
            user,
            store,
            lock_wait: timeout,
            granted: None,
            step_ups: 0,
        }
    }

    /// The `Authorization` value a stored login gives for `server_url` before any request
    /// (refreshed first when it is about to expire); `None` when there is no usable one.
    pub fn stored(&mut self, server_url: &str) -> Result<Option<String>, OAuthError> {
        let Some(store) = self.store.clone() else {
            return Ok(None);
        };
        let key = discovery::canonical_resource(server_url)?;
        let Some(login) = store.find(&key)? else {
            return Ok(None);
        };
        if !login.expired(now_secs()) {
            return Ok(Some(login.authorization()));
        }
        let _held = store.lock(&key, self.lock_wait)?;
        Ok(self.reuse_or_refresh(&store, &key, None)?.ok())
    }

    /// The `Authorization` value to retry with after the server answered `status` (401 or
    /// 403) with this `WWW-Authenticate` to a request that carried `failed` (or none). On a
    /// 401: a login another process (or thread) saved since,
    /// else a refresh, else a new login; on a 403 `insufficient_scope`: a step-up (at most
    /// [`MAX_STEP_UPS`]). With a store, under its lock for this server: processes share the
    /// outcome instead of each signing in.
    pub fn answer(
        &mut self,
        server_url: &str,
        status: u16,
        www_authenticate: Option<&str>,
        failed: Option<&str>,
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
        let key = discovery::canonical_resource(server_url)?;
        let store = self.store.clone();
        let _held = store
            .as_ref()
            .map(|s| s.lock(&key, self.lock_wait))
            .transpose()?;
        let mut refresh_failed = None;
        if status == 401
            && let Some(store) = &store
        {
            match self.reuse_or_refresh(store, &key, failed)? {
                Ok(value) => return Ok(value),
                Err(why) => refresh_failed = why,
            }
        }
        self.login(server_url, &key, status, &challenge, refresh_failed)
    }

    /// Under the lock: the stored login when it is not the one that `failed` and is fresh,
    /// else its refresh. `Err(why)`: a new login is needed (`why` says what failed).
    fn reuse_or_refresh(
        &mut self,
        store: &Store,
        key: &str,
        failed: Option<&str>,
    ) -> Result<Result<String, Option<String>>, OAuthError> {
        let Some(login) = store.find(key)? else {
            return Ok(Err(None));
        };
        let value = login.authorization();
        if failed != Some(value.as_str()) && !login.expired(now_secs()) {
            return Ok(Ok(value));
        }
        let client = self.client_of(&login);
        let secret = client.2;
        // A refresh token, else, for a client's own login, the same grant again.
        let request = match login.refresh_token.as_deref() {
            Some(refresh_token) => TokenRequest::refresh(refresh_token, &login.audience, client),
            None if login.grant == "client_credentials" && secret.is_some() => {
                let scope = (!login.scopes.is_empty()).then(|| login.scopes.join(" "));
                TokenRequest::client_credentials(scope.as_deref(), &login.audience, client)
            }
            None => return Ok(Err(None)),
        };
        match self.post_token(&login.token_endpoint, &request) {
            Ok(token) => {
                let renewed = renew(login, token);
                store.save(&renewed)?;
                Ok(Ok(renewed.authorization()))
            }
            Err(e) => Ok(Err(Some(format!(
                "refreshing the stored login failed: {e}"
            )))),
        }
    }

    /// A new login for `server_url` whatever is stored (`mcpguard auth login`): the server is
    /// asked first, without a token, for its challenge (a server that does not ask is still
    /// looked up at its well-known metadata). Returns the login saved.
    pub fn sign_in(&mut self, server_url: &str) -> Result<Login, OAuthError> {
        let key = discovery::canonical_resource(server_url)?;
        let (status, probe) = self.probe(server_url)?;
        let challenge = probe
            .as_deref()
            .and_then(Challenge::parse)
            .unwrap_or_default();
        let store = self.store.clone();
        let _held = store
            .as_ref()
            .map(|s| s.lock(&key, self.lock_wait))
            .transpose()?;
        match self.login(server_url, &key, 401, &challenge, None) {
            // A server that answered without asking, and names no authorization server.
            Err(OAuthError::Fetch { .. }) if (200..300).contains(&status) => {
                return Err(OAuthError::Refused(format!(
                    "{server_url} answered without asking for a login (HTTP {status}) and publishes no protected-resource metadata: there is nothing to sign in to"
                )));
            }
            other => other?,
        };
        let saved = match &store {
            Some(s) => s.find(&key)?,
            None => None,
        };
        saved.ok_or_else(|| OAuthError::Refused("the login was not kept".into()))
    }

    /// An initialize without a token: the status it gets, and its `WWW-Authenticate`.
    fn probe(&self, server_url: &str) -> Result<(u16, Option<String>), OAuthError> {
        let body = serde_json::json!({
            "jsonrpc": "2.0", "id": 0, "method": "initialize",
            "params": {
                "protocolVersion": crate::net::version::V2025_11_25,
                "capabilities": {},
                "clientInfo": {"name": "mcpguard", "version": env!("CARGO_PKG_VERSION")},
            },
        });
        let response = self
            .agent
            .post(server_url)
            .header("Content-Type", "application/json")
            .header("Accept", "application/json, text/event-stream")
            .send(body.to_string())
            .map_err(|e| fetch_error("asking", server_url, &e.to_string()))?;
        let challenge = response
            .headers()
            .get("www-authenticate")
            .and_then(|v| v.to_str().ok())
            .map(str::to_owned);
        Ok((response.status().as_u16(), challenge))
    }

    /// A new login (or a step-up on a 403), saved when there is a store.
    fn login(
        &mut self,
        server_url: &str,
        key: &str,
        status: u16,
        challenge: &Challenge,
        refresh_failed: Option<String>,
    ) -> Result<String, OAuthError> {
        if self.user.is_none() && !self.settings.client_credentials {
            return Err(OAuthError::LoginNeeded {
                url: server_url.to_owned(),
                why: refresh_failed.unwrap_or_else(|| {
                    if status == 403 {
                        "the server asks for more scope".to_owned()
                    } else {
                        "no stored login works".to_owned()
                    }
                }),
            });
        }
        let stored = match &self.store {
            Some(store) => store.find(key)?,
            None => None,
        };
        if !self.settings.client_credentials
            && stored
                .as_ref()
                .is_some_and(|s| s.grant == "client_credentials")
        {
            // A client's own login (CI) that could not be renewed: a browser sign-in would
            // leave the caller waiting on a person who is not there.
            return Err(OAuthError::LoginNeeded {
                url: server_url.to_owned(),
                why: format!(
                    "{}; the stored login is a client's own (client_credentials): renew it with `mcpguard auth login --url {server_url} --oauth-client-credentials`, or run with --oauth-client-credentials",
                    refresh_failed.as_deref().unwrap_or("it no longer works")
                ),
            });
        }
        let mut granted = match self.granted.clone() {
            Some(g) if status == 403 => g,
            _ => self.discover(server_url, challenge, stored.as_ref())?,
        };
        if granted.scopes.is_empty()
            && let Some(s) = stored
                .as_ref()
                .filter(|s| s.issuer == granted.server.issuer)
        {
            granted.scopes = s.scopes.clone();
        }
        // The resource exactly as its metadata publishes it (checked to cover this server),
        // else this server's canonical URI.
        let resource = match &granted.resource_metadata.resource {
            Some(published) => published.clone(),
            None => key.to_owned(),
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
        let granted = Granted { scopes, ..granted };
        let login =
            Login {
                resource: key.to_owned(),
                audience: resource,
                issuer: granted.server.issuer.clone(),
                token_endpoint: granted.server.token_endpoint.clone().unwrap_or_default(),
                revocation_endpoint: granted.server.revocation_endpoint.clone(),
                client_id: granted.client.id.clone(),
                // A secret the user gives (MCPGUARD_OAUTH_CLIENT_SECRET) stays theirs, asked for
                // again when needed; one a registration issued is kept, as only this store has it.
                client_secret: granted.client.secret.clone().filter(|_| {
                    self.settings.client_id.as_deref() != Some(granted.client.id.as_str())
                }),
                client_auth: granted.client.auth,
                grant: if self.settings.client_credentials {
                    "client_credentials"
                } else {
                    "authorization_code"
                }
                .to_owned(),
                redirect_uri: self.user.as_ref().map(|u| u.redirect_uri()),
                access_token: String::new(),
                token_type: String::new(),
                refresh_token: None,
                expires_at: None,
                scopes: granted.scopes.clone(),
                obtained_at: 0,
            };
        let login = renew(login, token);
        if let Some(store) = &self.store {
            store.save(&login)?;
        }
        self.granted = Some(granted);
        Ok(login.authorization())
    }

    /// Both metadata documents, checked, and the client's identity at that server.
    fn discover(
        &mut self,
        server_url: &str,
        challenge: &Challenge,
        stored: Option<&Login>,
    ) -> Result<Granted, OAuthError> {
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
        let client = self.identify(&server, &resource_metadata, stored)?;
        Ok(Granted {
            server,
            resource_metadata,
            client,
            scopes: Vec::new(),
        })
    }

    /// Pre-registered, else a Client ID Metadata Document the server accepts, else the client
    /// registered at this server before (for the same redirect), else dynamic registration
    /// (the specification's order).
    fn identify(
        &mut self,
        server: &ServerMetadata,
        prm: &ResourceMetadata,
        stored: Option<&Login>,
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
        let redirect_uri = self.user.as_ref().map(|u| u.redirect_uri());
        if let Some(login) = stored.filter(|l| {
            l.issuer == server.issuer
                && l.grant == "authorization_code"
                && l.redirect_uri == redirect_uri
        }) {
            return Ok(Client {
                id: login.client_id.clone(),
                secret: login.client_secret.clone(),
                auth: login.client_auth,
            });
        }
        let Some(endpoint) = server.registration_endpoint.clone() else {
            return Err(OAuthError::Refused(
                "the authorization server has no registration endpoint and takes no client metadata document: give a pre-registered client with --oauth-client-id".into(),
            ));
        };
        let scope = prm.scopes_supported.as_ref().map(|s| s.join(" "));
        let body = flow::registration(
            &s.client_name,
            redirect_uri.as_deref().unwrap_or_default(),
            scope.as_deref(),
        );
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
        let text = response
            .body_mut()
            .read_to_string(MAX_BODY)
            .unwrap_or_default();
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
                crate::util::random::random_hex(bytes)
                    .map_err(|e| OAuthError::Refused(format!("/dev/urandom: {e}")))
            };
            let pkce = Pkce::new(random(32)?).expect("64 hex characters make a verifier");
            let state = random(16)?;
            let user = self
                .user
                .as_mut()
                .ok_or_else(|| OAuthError::Refused("no browser to sign in with".into()))?;
            let redirect_uri = user.redirect_uri();
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
            let query = user.authorize(&url).map_err(OAuthError::Refused)?;
            let code = flow::code_from_redirect(&query, &state, &g.server.issuer, &g.server)?;
            TokenRequest::authorization_code(&code, &redirect_uri, &pkce, resource, client)
        };
        self.post_token(&endpoint, &request)
    }

    /// How the client of `login` proves itself: the user's own client's secret is not stored,
    /// so it comes from the settings again (MCPGUARD_OAUTH_CLIENT_SECRET).
    fn client_of<'l>(&'l self, login: &'l Login) -> (ClientAuth, &'l str, Option<&'l str>) {
        let (auth, id, stored) = login.client();
        let given = (self.settings.client_id.as_deref() == Some(id))
            .then_some(self.settings.client_secret.as_deref())
            .flatten();
        (auth, id, stored.or(given))
    }

    /// Revokes a forgotten login's tokens at its authorization server (RFC 7009): the refresh
    /// token, then the access token. `Ok(false)`: the server has no revocation endpoint.
    pub fn revoke(&self, login: &Login) -> Result<bool, OAuthError> {
        let Some(endpoint) = &login.revocation_endpoint else {
            return Ok(false);
        };
        let client = self.client_of(login);
        let tokens = [
            (login.refresh_token.as_deref(), "refresh_token"),
            (Some(login.access_token.as_str()), "access_token"),
        ];
        for (token, hint) in tokens {
            let Some(token) = token else { continue };
            let request = TokenRequest::revocation(token, hint, client);
            let mut call = self
                .agent
                .post(endpoint)
                .header("Content-Type", "application/x-www-form-urlencoded");
            if let Some(value) = &request.authorization {
                call = call.header("Authorization", value);
            }
            let response = call
                .send(request.body())
                .map_err(|e| fetch_error("revoking at", endpoint, &e.to_string()))?;
            let status = response.status().as_u16();
            // RFC 7009 section 2.2: 200 also for a token it did not know.
            if !(200..300).contains(&status) {
                return Err(fetch_error(
                    "revoking at",
                    endpoint,
                    &format!("HTTP {status}"),
                ));
            }
        }
        Ok(true)
    }

    /// One request to the token endpoint.
    fn post_token(
        &self,
        endpoint: &str,
        request: &TokenRequest,
    ) -> Result<TokenResponse, OAuthError> {
        let mut call = self
            .agent
            .post(endpoint)
            .header("Content-Type", "application/x-www-form-urlencoded")
            .header("Accept", "application/json");
        if let Some(value) = &request.authorization {
            call = call.header("Authorization", value);
        }
        let mut response = call
            .send(request.body())
            .map_err(|e| fetch_error("the token endpoint", endpoint, &e.to_string()))?;
        let status = response.status().as_u16();
        let text = response
            .body_mut()
            .read_to_string(MAX_BODY)
            .unwrap_or_default();
        if !(200..300).contains(&status) {
            return Err(fetch_error(
                "the token endpoint",
                endpoint,
                &token_error(status, &text, request),
            ));
        }
        serde_json::from_str(&text).map_err(|_| {
            fetch_error(
                "the token endpoint",
                endpoint,
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
            .read_to_string(MAX_BODY)
            .map_err(|e| e.to_string())?;
        serde_json::from_str(&text).map_err(|e| format!("not the JSON expected ({e})"))
    }
}

/// `login` with the tokens of `token` (a refresh keeps the refresh token it is not given).
fn renew(login: Login, token: TokenResponse) -> Login {
    let now = now_secs();
    Login {
        token_type: token.token_type.unwrap_or_else(|| "Bearer".to_owned()),
        access_token: token.access_token,
        refresh_token: token.refresh_token.or(login.refresh_token),
        expires_at: token.expires_in.map(|secs| now + secs),
        scopes: token.scope.map_or(login.scopes, |s| split_scopes(Some(&s))),
        obtained_at: now,
        ..login
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
/// What a token endpoint's refusal says, fit to print: only RFC 6749 5.2's `error` and
/// `error_description`, never the body itself (a hostile server echoed the client's Basic
/// credentials in one), with anything of the request's (a secret, a refresh token) blanked.
fn token_error(status: u16, body: &str, request: &TokenRequest) -> String {
    #[derive(Deserialize)]
    struct Refusal {
        error: Option<String>,
        error_description: Option<String>,
    }
    let said = serde_json::from_str::<Refusal>(body).ok().and_then(|r| {
        let error = r.error?;
        Some(match r.error_description {
            Some(d) => format!("{error}: {d}"),
            None => error,
        })
    });
    let Some(said) = said else {
        return format!(
            "HTTP {status} (a body of {} bytes that is not an OAuth error; not shown)",
            body.len()
        );
    };
    let mut said = clip(&said);
    // The Basic credentials, and the secret inside them (`id:secret`, each form-encoded).
    let basic = request
        .authorization
        .as_deref()
        .and_then(|a| a.strip_prefix("Basic "));
    let decoded = basic
        .and_then(|b| base64::Engine::decode(&base64::engine::general_purpose::STANDARD, b).ok())
        .and_then(|b| String::from_utf8(b).ok());
    let inner_secret = decoded
        .as_deref()
        .and_then(|d| d.split_once(':'))
        .map(|(_, s)| {
            url::form_urlencoded::parse(format!("s={s}").as_bytes())
                .next()
                .map_or_else(|| s.to_owned(), |(_, v)| v.into_owned())
        });
    let secrets = request
        .form
        .iter()
        .filter(|(k, _)| {
            matches!(
                k.as_str(),
                "client_secret" | "refresh_token" | "code" | "code_verifier"
            )
        })
        .map(|(_, v)| v.clone())
        .chain(basic.map(str::to_owned))
        .chain(inner_secret);
    for secret in secrets.filter(|s| s.len() >= 4) {
        said = said.replace(&secret, "[redacted]");
    }
    format!("HTTP {status}: {said}")
}

fn clip(text: &str) -> String {
    text.chars().take(200).collect()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_token_endpoints_refusal_is_shown_without_the_requests_secrets() {
        let request = TokenRequest::client_credentials(
            None,
            "https://mcp.example.com/mcp",
            (ClientAuth::Basic, "ci-client", Some("s3cret-value")),
        );
        let basic = request.authorization.clone().unwrap();
        // A hostile server echoes the Basic credentials back in its description.
        let echoed = serde_json::json!({"error": "invalid_client",
            "error_description": format!("bad credentials {basic} for ci-client:s3cret-value")})
        .to_string();
        let shown = token_error(401, &echoed, &request);
        assert!(
            shown.starts_with("HTTP 401: invalid_client: bad credentials"),
            "{shown}"
        );
        assert!(!shown.contains("s3cret-value"), "{shown}");
        assert!(
            !shown.contains(basic.trim_start_matches("Basic ")),
            "{shown}"
        );
        // A body that is not an OAuth error is not shown at all.
        let page = format!("<html>{basic}</html>");
        assert_eq!(
            token_error(500, &page, &request),
            format!(
                "HTTP 500 (a body of {} bytes that is not an OAuth error; not shown)",
                page.len()
            )
        );
    }
}
