//! The HTTP proxy holding the upstream's login (`proxy --listen ... --url ... --oauth`, DESIGN.md
//! section 10). A client cannot use a remote server's OAuth through a proxy (the metadata names
//! the remote URL; a token minted for the proxy's URL is a wrong audience upstream), so the
//! proxy is the OAuth client: it sends the stored login's `Authorization` in place of any the
//! client sent, and when the server answers 401 (expired, revoked) or 403 (more scope) it
//! refreshes or steps up, once, without the client seeing it. When no stored login works it
//! says so in a JSON-RPC error that names `mcpguard auth login`; the upstream's 401 and its
//! `WWW-Authenticate` never reach the client (they would start the client's own OAuth).
//!
//! The OAuth client is blocking (crate::net::http, file locks): it runs on the blocking pool, one renewal
//! at a time; requests that failed with an older token take the renewed one.

use std::sync::{Arc, Mutex};

use axum::http::{HeaderMap, HeaderValue, header};

use crate::net::oauth::session::OAuth;

use super::lock;

/// The login the proxy holds for its upstream.
pub struct HeldLogin {
    url: String,
    oauth: Mutex<OAuth>,
    current: Mutex<Option<String>>,
}

impl HeldLogin {
    /// Holds `oauth`'s login for `url`, starting from the stored one (refreshed if it is about
    /// to expire). An `oauth` without a browser: the proxy never signs anyone in itself.
    pub fn new(url: &str, mut oauth: OAuth) -> HeldLogin {
        let current = oauth.stored(url).ok().flatten();
        HeldLogin {
            url: url.to_owned(),
            oauth: Mutex::new(oauth),
            current: Mutex::new(current),
        }
    }

    /// Whether a login is held now (for /health and the start-up log).
    pub fn signed_in(&self) -> bool {
        lock(&self.current).is_some()
    }

    /// Puts the login's `Authorization` in `headers` in place of the client's; the value
    /// sent, for [`HeldLogin::renew`].
    pub fn apply(&self, headers: &mut HeaderMap) -> Option<String> {
        headers.remove(header::AUTHORIZATION);
        let current = lock(&self.current).clone()?;
        if let Ok(value) = HeaderValue::try_from(current.as_str()) {
            let mut value = value;
            value.set_sensitive(true);
            headers.insert(header::AUTHORIZATION, value);
        }
        Some(current)
    }

    /// After the server answered `status` (401 or 403, its `WWW-Authenticate` among
    /// `headers`) to a request that carried `failed`: a login another request renewed since,
    /// else a refresh or a step-up. `Err` says why not, naming the command that signs in.
    pub async fn renew(
        self: &Arc<Self>,
        status: u16,
        headers: &HeaderMap,
        failed: Option<String>,
    ) -> Result<(), String> {
        let challenge = headers
            .get(header::WWW_AUTHENTICATE)
            .and_then(|v| v.to_str().ok())
            .map(str::to_owned);
        let held = self.clone();
        tokio::task::spawn_blocking(move || {
            let mut oauth = lock(&held.oauth);
            let current = lock(&held.current).clone();
            if status == 401 && current.is_some() && current != failed {
                return Ok(());
            }
            let value = oauth
                .answer(&held.url, status, challenge.as_deref(), failed.as_deref())
                .map_err(|e| e.to_string())?;
            *lock(&held.current) = Some(value);
            Ok(())
        })
        .await
        .unwrap_or_else(|e| Err(format!("renewing the login failed: {e}")))
    }
}
