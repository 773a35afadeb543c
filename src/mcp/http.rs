//! The Streamable HTTP transport (MCP 2025-11-25): every message is a POST to one endpoint
//! with `Accept: application/json, text/event-stream`; the answer is either one JSON body or
//! an SSE stream whose events carry the response and whatever the server sends before it.
//! The `mcp-session-id` the server assigns at initialize and the negotiated
//! `mcp-protocol-version` go on every later request; DELETE ends the session.
//!
//! HTTP is ureq's (blocking, no async runtime in mcpguard); the body is read here, a block at a
//! time, so the size cap holds for plain and streamed answers alike and the bytes kept are the
//! bytes sent.

use std::io::{BufRead, BufReader, Read};

use super::{ClientError, Limits, Received, Transport, Waiting};

pub(super) struct Http {
    url: String,
    headers: Vec<(String, String)>,
    agent: ureq::Agent,
    session: Option<String>,
    protocol_version: Option<String>,
}

impl Http {
    pub(super) fn new(url: &str, headers: &[(String, String)], limits: &Limits) -> Http {
        let agent = ureq::Agent::config_builder()
            .http_status_as_error(false)
            .timeout_global(Some(limits.request))
            .build()
            .into();
        Http {
            url: url.to_owned(),
            headers: headers.to_vec(),
            agent,
            session: None,
            protocol_version: None,
        }
    }

    /// The session's headers on a request: the session id and protocol version once
    /// initialize settled them, and the user's own.
    fn session_headers<B>(&self, mut request: ureq::RequestBuilder<B>) -> ureq::RequestBuilder<B> {
        if let Some(s) = &self.session {
            request = request.header("mcp-session-id", s);
        }
        if let Some(v) = &self.protocol_version {
            request = request.header("mcp-protocol-version", v);
        }
        for (name, value) in &self.headers {
            request = request.header(name, value);
        }
        request
    }

    fn post(
        &self,
        method: &str,
        text: &str,
        limits: &Limits,
    ) -> Result<ureq::http::Response<ureq::Body>, ClientError> {
        let request = self.session_headers(
            self.agent
                .post(&self.url)
                .header("Content-Type", "application/json")
                .header("Accept", "application/json, text/event-stream"),
        );
        let request = request.config().timeout_global(Some(limits.wait())).build();
        request
            .send(text)
            .map_err(|e| self.transport_error(method, &e, limits))
    }

    fn transport_error(&self, method: &str, e: &ureq::Error, limits: &Limits) -> ClientError {
        match e {
            ureq::Error::Timeout(_) => ClientError::Timeout {
                method: method.to_owned(),
                secs: limits.request.as_secs_f64(),
            },
            other => ClientError::Http {
                url: self.url.clone(),
                cause: other.to_string(),
            },
        }
    }

    /// Reads at most `cap` bytes of a body, as text.
    fn read_body(
        &self,
        method: &str,
        body: &mut ureq::Body,
        limits: &Limits,
    ) -> Result<String, ClientError> {
        let cap = limits.max_message_bytes;
        let mut reader = body.with_config().limit(u64::MAX).reader();
        let mut bytes = Vec::new();
        let mut block = [0u8; 1 << 16];
        loop {
            let n = reader
                .read(&mut block)
                .map_err(|e| self.read_error(method, e, limits))?;
            if n == 0 {
                break;
            }
            if bytes.len() + n > cap {
                return Err(ClientError::TooLarge { cap });
            }
            bytes.extend_from_slice(&block[..n]);
        }
        Ok(String::from_utf8_lossy(&bytes).into_owned())
    }

    fn read_error(&self, method: &str, e: std::io::Error, limits: &Limits) -> ClientError {
        if e.kind() == std::io::ErrorKind::TimedOut
            || e.to_string().to_ascii_lowercase().contains("timeout")
        {
            ClientError::Timeout {
                method: method.to_owned(),
                secs: limits.request.as_secs_f64(),
            }
        } else {
            ClientError::Http {
                url: self.url.clone(),
                cause: e.to_string(),
            }
        }
    }

    /// Reads an SSE stream until the event holding the response to `id`.
    fn read_events(
        &self,
        id: u64,
        method: &str,
        body: &mut ureq::Body,
        limits: &Limits,
    ) -> Result<Received, ClientError> {
        let cap = limits.max_message_bytes;
        let reader = body.with_config().limit(u64::MAX).reader();
        let mut lines = BufReader::new(reader);
        let mut data = String::new();
        let mut waiting = Waiting::new(id, method);
        let mut line = String::new();
        loop {
            line.clear();
            let n = lines
                .read_line(&mut line)
                .map_err(|e| self.read_error(method, e, limits))?;
            let end_of_event = n == 0 || line.trim_end_matches(['\r', '\n']).is_empty();
            if !end_of_event {
                let l = line.trim_end_matches(['\r', '\n']);
                if let Some(rest) = l.strip_prefix("data:") {
                    if !data.is_empty() {
                        data.push('\n');
                    }
                    data.push_str(rest.strip_prefix(' ').unwrap_or(rest));
                    if data.len() > cap {
                        return Err(ClientError::TooLarge { cap });
                    }
                }
                continue;
            }
            if !data.is_empty()
                && let Some(received) = waiting.offer(std::mem::take(&mut data))?
            {
                return Ok(received);
            }
            if n == 0 {
                return Err(ClientError::Http {
                    url: self.url.clone(),
                    cause: format!("the event stream ended without an answer to {method}"),
                });
            }
        }
    }
}

impl Transport for Http {
    fn request(
        &mut self,
        id: u64,
        method: &str,
        text: &str,
        limits: &Limits,
    ) -> Result<Received, ClientError> {
        let mut response = self.post(method, text, limits)?;
        let status = response.status().as_u16();
        if method == "initialize"
            && let Some(session) = response
                .headers()
                .get("mcp-session-id")
                .and_then(|v| v.to_str().ok())
        {
            self.session = Some(session.to_owned());
        }
        let event_stream = response
            .headers()
            .get("content-type")
            .and_then(|v| v.to_str().ok())
            .is_some_and(|c| c.starts_with("text/event-stream"));
        let body = response.body_mut();
        if !(200..300).contains(&status) {
            let text = self.read_body(method, body, limits).unwrap_or_default();
            // A JSON-RPC error in a 4xx body is still an answer (e.g. -32602 for a bad cursor).
            if let Ok(value) = super::parse(&text, method)
                && value.get("error").is_some()
                && value.get("id").and_then(serde_json::Value::as_u64) == Some(id)
            {
                return Ok(Received {
                    response: (text, value),
                    others: Vec::new(),
                });
            }
            return Err(ClientError::HttpStatus {
                url: self.url.clone(),
                status,
                method: method.to_owned(),
                body: text.chars().take(200).collect(),
            });
        }
        if event_stream {
            return self.read_events(id, method, body, limits);
        }
        // A plain JSON body is the answer, whatever it holds.
        let text = self.read_body(method, body, limits)?;
        let value = super::parse(&text, method)?;
        Ok(Received {
            response: (text, value),
            others: Vec::new(),
        })
    }

    fn send(&mut self, text: &str, limits: &Limits) -> Result<(), ClientError> {
        let mut response = self.post("a notification", text, limits)?;
        let status = response.status().as_u16();
        // 202 Accepted is the answer to a notification; drain anything else.
        let _ = self.read_body("a notification", response.body_mut(), limits);
        if (200..300).contains(&status) {
            Ok(())
        } else {
            Err(ClientError::HttpStatus {
                url: self.url.clone(),
                status,
                method: "a notification".into(),
                body: String::new(),
            })
        }
    }

    fn initialized(&mut self, protocol_version: &str) {
        self.protocol_version = Some(protocol_version.to_owned());
    }

    fn close(&mut self) {
        // Once: the session is taken. 405 means the server does not let clients end
        // sessions, which is allowed.
        if let Some(session) = self.session.take() {
            let request = self.session_headers(self.agent.delete(&self.url));
            let _ = request.header("mcp-session-id", &session).call();
        }
    }
}

impl Drop for Http {
    fn drop(&mut self) {
        self.close();
    }
}
