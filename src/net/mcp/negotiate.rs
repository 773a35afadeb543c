//! Which era a server speaks: the `server/discover` probe under `--protocol auto`, the
//! `initialize` handshake of a 2025-11-25 server, and a modern server held to its era on every
//! later answer.

use serde_json::{Value, json};

use crate::net::version::{self, V2026_07_28};

use super::era;
use super::era::{Era, Protocol};
use super::wire::preview;
use super::{Client, ClientError, Note, PROBE_WAIT, Reply};

/// Whether a `server/discover` result carries a field only a DiscoverResult or another
/// 2026-07-28 result has (`supportedVersions`, `resultType`, `capabilities`): then its missing
/// or broken version list is a modern server's mistake, not a legacy server's generic answer.
pub(super) fn looks_modern(result: &Value) -> bool {
    ["supportedVersions", "resultType", "capabilities"]
        .iter()
        .any(|key| result.get(key).is_some())
}

impl Client {
    pub(super) fn modern(&self) -> bool {
        self.server.era == Some(Era::Modern)
    }

    /// The `server/discover` probe (stdio and HTTP alike). A DiscoverResult (a result that
    /// lists supportedVersions) or a modern error means modern; an UnsupportedProtocolVersion
    /// refusal is answered by asking again in a listed version. Anything else (another
    /// result, such as the `{}` legacy servers give a method they do not know; another error;
    /// an HTTP error status without a modern error; no answer in time) means legacy, and
    /// `detection` says which it was.
    pub(super) fn discover(&mut self) -> Result<(), ClientError> {
        const METHOD: &str = "server/discover";
        let auto = self.protocol == Protocol::Auto;
        let mut limits = self.limits;
        if auto {
            limits.request = limits.request.min(PROBE_WAIT);
        }
        let params = era::with_request_meta(json!({}));
        let mut reply = self.exchange(METHOD, params.clone(), Some(version::V2026_07_28), &limits);
        // Refused with UnsupportedProtocolVersion: ask once more in a version the server
        // lists, as a client must (basic/versioning), before deciding anything.
        if let Ok(refused) = &reply
            && refused.error().map(|(code, _)| code) == Some(era::UNSUPPORTED_PROTOCOL_VERSION)
        {
            let supported = refused.value.pointer("/error/data/supported");
            let listed = era::advertised_versions(supported).unwrap_or_default();
            if era::choose(&listed).map(|(era, _)| era) == Some(Era::Modern) {
                reply = self.exchange(METHOD, params, Some(version::V2026_07_28), &limits);
            }
        }
        let legacy_because = match reply {
            Ok(reply) => match (reply.value.get("result"), reply.error()) {
                (Some(result), _) => {
                    // Legacy servers answer a method they do not know with an empty (or any
                    // other) result: only a list of versions shows a modern server.
                    match era::advertised_versions(result.get("supportedVersions"))
                        .filter(|l| !l.is_empty())
                    {
                        Some(listed) => return self.adopt(result, listed, METHOD),
                        None => {
                            let why = format!(
                                "server/discover answered a result that is not a DiscoverResult (supportedVersions: {})",
                                preview(result.get("supportedVersions"))
                            );
                            // A result shaped like a modern one (not the `{}` of a method a
                            // legacy server does not know) is a modern server getting it wrong.
                            if looks_modern(result) {
                                self.notes.push(Note {
                                    message: format!("{why}, though it has the fields of one"),
                                    help: "a 2026-07-28 server's DiscoverResult lists the versions it speaks in supportedVersions (basic/versioning)",
                                });
                            }
                            why
                        }
                    }
                }
                (None, Some((code, _))) if code == era::UNSUPPORTED_PROTOCOL_VERSION => {
                    let supported = reply.value.pointer("/error/data/supported");
                    let listed = era::advertised_versions(supported).unwrap_or_default();
                    if era::choose(&listed).map(|(era, _)| era) == Some(Era::Modern) {
                        // Asked again in a version it lists, and refused again.
                        return Err(ClientError::Protocol {
                            method: METHOD.into(),
                            detail: format!(
                                "the server refused {V2026_07_28} twice with UnsupportedProtocolVersion while listing it as supported ({listed:?})"
                            ),
                        });
                    }
                    return self.adopt(&Value::Null, listed, METHOD);
                }
                (None, Some((code, message))) if era::MODERN_ERRORS.contains(&code) => {
                    return Err(ClientError::Rpc {
                        method: METHOD.into(),
                        code,
                        message: message.to_owned(),
                    });
                }
                (None, Some((code, message))) => {
                    format!("server/discover answered error {code} ({message})")
                }
                (None, None) => "server/discover answered neither a result nor an error".into(),
            },
            Err(ClientError::Timeout { secs, .. }) => {
                format!("server/discover had no answer within {secs:.1} s")
            }
            Err(ClientError::HttpStatus { status, .. }) if status >= 400 => {
                format!("server/discover got HTTP {status} without a 2026-07-28 error")
            }
            Err(e) => return Err(e),
        };
        if !auto {
            return Err(ClientError::Protocol {
                method: METHOD.into(),
                detail: format!(
                    "the server does not speak {V2026_07_28} ({legacy_because}); audit it with --protocol {} or auto",
                    version::V2025_11_25
                ),
            });
        }
        self.server.dual_era = Some(false);
        self.initialize(format!("initialize, since {legacy_because}"))
    }

    /// Takes the versions a modern server advertised: speaks 2026-07-28 when listed, opens a
    /// legacy session when only legacy versions are, and gives up when none is known.
    pub(super) fn adopt(
        &mut self,
        result: &Value,
        listed: Vec<String>,
        method: &str,
    ) -> Result<(), ClientError> {
        match era::choose(&listed) {
            Some((Era::Modern, version)) => {
                self.server.era = Some(Era::Modern);
                self.server.version = Some(version.to_owned());
                self.server.capabilities =
                    result.get("capabilities").cloned().unwrap_or(Value::Null);
                self.server.server_info = result
                    .pointer("/_meta")
                    .and_then(|m| m.get(era::META_SERVER_INFO))
                    .cloned();
                self.server.detection = method.to_owned();
                self.server.supported = listed;
                Ok(())
            }
            Some((Era::Legacy, _)) if self.protocol == Protocol::Auto => {
                let why = format!("initialize, since server/discover lists only {listed:?}");
                self.initialize(why)?;
                self.server.supported = listed;
                Ok(())
            }
            _ => Err(ClientError::Protocol {
                method: method.into(),
                detail: format!(
                    "the server lists {listed:?}, and mcpguard speaks {V2026_07_28}{}",
                    if self.protocol == Protocol::Auto {
                        format!(" and {}", version::HANDSHAKE_VERSIONS.join(", "))
                    } else {
                        format!(" (--protocol {V2026_07_28})")
                    }
                ),
            }),
        }
    }

    /// The legacy handshake: initialize with 2025-11-25, then notifications/initialized.
    pub(super) fn initialize(&mut self, detection: String) -> Result<(), ClientError> {
        let params = json!({
            "protocolVersion": version::V2025_11_25,
            "capabilities": {},
            "clientInfo": {"name": "mcpguard", "version": env!("CARGO_PKG_VERSION")},
        });
        let limits = self.limits;
        let init = self.exchange("initialize", params, None, &limits)?;
        if let Some((code, message)) = init.error() {
            return Err(ClientError::Rpc {
                method: "initialize".into(),
                code,
                message: message.to_owned(),
            });
        }
        let result = init.value.get("result").cloned().unwrap_or(Value::Null);
        let version = result
            .get("protocolVersion")
            .and_then(Value::as_str)
            .unwrap_or(version::V2025_11_25)
            .to_owned();
        self.server.era = Some(Era::Legacy);
        self.server.supported = vec![version.clone()];
        self.server.version = Some(version);
        self.server.capabilities = result.get("capabilities").cloned().unwrap_or(Value::Null);
        self.server.server_info = result.get("serverInfo").cloned();
        self.server.detection = detection;
        self.notify("notifications/initialized")
    }

    /// A server that advertised 2026-07-28 and then answers a list request as a legacy server
    /// does before `initialize` ("Server not initialized", "before initialization"): an
    /// error naming both, since its advertisement is wrong and every later request would fail
    /// the same way. Only lists are judged: a tool's own error may well say "not initialized"
    /// about something else.
    pub(super) fn check_still_modern(
        &self,
        method: &str,
        reply: &Reply,
    ) -> Result<(), ClientError> {
        let Some((code, message)) = reply.error() else {
            return Ok(());
        };
        if !method.ends_with("/list")
            || era::MODERN_ERRORS.contains(&code)
            || !message.to_ascii_lowercase().contains("initializ")
        {
            return Ok(());
        }
        Err(ClientError::Protocol {
            method: method.to_owned(),
            detail: format!(
                "the server advertised {V2026_07_28} ({}), then answered error {code} ({message}) as a server waiting for initialize would; have it serve requests that carry their own _meta without a session (or audit it with --protocol {})",
                self.server.detection,
                version::V2025_11_25
            ),
        })
    }

    /// What a 2026-07-28 server may not send before its answer: requests (it asks through an
    /// input_required result), change notifications (they belong on a subscriptions/listen
    /// stream, and mcpguard opened none), and log messages nobody asked for (no logLevel).
    pub(super) fn review_modern_stream(&mut self, method: &str, id: u64, message: &Value) {
        let Some(sent) = message.get("method").and_then(Value::as_str) else {
            return;
        };
        let what = if message.get("id").is_some() {
            format!(
                "sent the request {sent} on the response stream of {method} (id {id}); a {V2026_07_28} server asks through an input_required result; mcpguard refused it"
            )
        } else if sent == "notifications/message" {
            format!(
                "sent notifications/message during {method} (id {id}), which set no {}; a {V2026_07_28} server logs only when a request asks",
                era::META_LOG_LEVEL
            )
        } else if !era::REQUEST_SCOPED_NOTIFICATIONS.contains(&sent) {
            format!(
                "sent {sent} on the response stream of {method} (id {id}), a stream nobody subscribed to; {V2026_07_28} delivers change notifications only on a subscriptions/listen stream"
            )
        } else {
            return;
        };
        self.notes.push(Note {
            message: what,
            help: "2026-07-28 response streams carry the answer and the request's own progress and logs, nothing else (basic/transports)",
        });
    }
}
