//! The Streamable HTTP transport, in both eras: every message is a POST to one endpoint with
//! `Accept: application/json, text/event-stream`; the answer is either one JSON body or an SSE
//! stream whose events carry the response and whatever the server sends before it.
//!
//! - 2026-07-28: no session. Every POST carries `MCP-Protocol-Version`, `Mcp-Method` and, for
//!   tools/call, prompts/get and resources/read, `Mcp-Name` (Base64-sentinel-encoded when not
//!   plain ASCII). Streams are not resumable: a broken one is the client's to re-issue.
//! - 2025-11-25: the `mcp-session-id` assigned at initialize and the negotiated
//!   `mcp-protocol-version` go on every later request; a stream that ends before its answer
//!   after an event with an id is resumed with GET and `Last-Event-ID`, after the `retry` the
//!   server asked for, a bounded number of times and within the request's timeout; a request
//!   the server sends on a stream is answered with a POST at once; DELETE ends the session.
//!
//! HTTP is [`crate::net::http`]'s (the proxy's reqwest, driven from this thread); the body
//! is read here, a block at a time, so the size cap holds for plain and streamed answers alike
//! and the bytes kept are the bytes sent.

use std::io::{BufReader, Read};
use std::time::{Duration, Instant};

use crate::net::http;

use super::framing::{self, Line, MAX_RESUMES, Sse};
use super::wire::{Offer, Outgoing, Received, Waiting};
use super::{ClientError, Limits, Transport, era};

pub(super) struct Http {
    url: String,
    headers: Vec<(String, String)>,
    agent: http::Client,
    /// The legacy session, once initialize assigned one.
    session: Option<String>,
    /// The version of the request in flight, for the answers to the server's requests.
    version: Option<String>,
    /// Signs in when the server asks (`--oauth`), and the `Authorization` value it gave.
    oauth: Option<crate::net::oauth::session::OAuth>,
    authorization: Option<String>,
}

/// How reading one stream ended without the answer.
enum Ended {
    /// The server closed it (or the connection broke), with what happened.
    Closed(String),
}

impl Http {
    pub(super) fn new(
        url: &str,
        headers: &[(String, String)],
        limits: &Limits,
        mut oauth: Option<crate::net::oauth::session::OAuth>,
    ) -> Http {
        let agent = http::Client::new(limits.request);
        // A login kept from before goes on the first request; one that no longer works is
        // replaced at the 401 it gets (a refresh error here is met again there, with context).
        let authorization = oauth.as_mut().and_then(|o| o.stored(url).ok().flatten());
        Http {
            url: url.to_owned(),
            headers: headers.to_vec(),
            agent,
            session: None,
            version: None,
            oauth,
            authorization,
        }
    }

    /// The era's headers on a request, then the user's own.
    fn with_headers(&self, mut request: http::Request, version: Option<&str>) -> http::Request {
        if let Some(v) = version {
            request = request.header("MCP-Protocol-Version", v);
        }
        if let Some(s) = &self.session
            && !version.is_some_and(era::is_modern)
        {
            request = request.header("mcp-session-id", s);
        }
        // A login's `Authorization` replaces the user's: one credential, never two.
        for (name, value) in &self.headers {
            if self.authorization.is_none() || !name.eq_ignore_ascii_case("authorization") {
                request = request.header(name, value);
            }
        }
        if let Some(value) = &self.authorization {
            request = request.header("Authorization", value);
        }
        request
    }

    /// A 401 or 403 the OAuth client can answer: signs in (or steps up) and keeps the new
    /// `Authorization` for every request from then on. `Ok(true)`: send the request again.
    fn sign_in(&mut self, method: &str, response: &http::Response) -> Result<bool, ClientError> {
        let status = response.status().as_u16();
        let Some(oauth) = self.oauth.as_mut().filter(|_| matches!(status, 401 | 403)) else {
            return Ok(false);
        };
        let challenge = response
            .headers()
            .get("www-authenticate")
            .and_then(|v| v.to_str().ok());
        match oauth.answer(&self.url, status, challenge, self.authorization.as_deref()) {
            Ok(value) => {
                self.authorization = Some(value);
                Ok(true)
            }
            Err(e) => Err(ClientError::Protocol {
                method: method.to_owned(),
                detail: format!("signing in with OAuth (--oauth): {e}"),
            }),
        }
    }

    fn post(&self, out: &Outgoing<'_>, wait: Duration) -> Result<http::Response, ClientError> {
        let mut request = self
            .agent
            .post(&self.url)
            .header("Content-Type", "application/json")
            .header("Accept", "application/json, text/event-stream");
        if out.modern() && out.id.is_some() {
            request = request.header("Mcp-Method", out.method);
            if let Some(name) = out.name {
                request = request.header("Mcp-Name", era::header_value(name));
            }
            for (header, value) in out.param_headers {
                request = request.header(header, value);
            }
        }
        self.with_headers(request, out.version)
            .timeout(wait)
            .send(out.text)
            .map_err(|e| self.transport_error(out.method, &e, wait))
    }

    /// GET with `Last-Event-ID`: the legacy way back into a stream the server closed.
    fn resume(
        &self,
        method: &str,
        last_event_id: &str,
        wait: Duration,
    ) -> Result<http::Response, ClientError> {
        let request = self
            .agent
            .get(&self.url)
            .header("Accept", "text/event-stream")
            .header("Last-Event-ID", last_event_id);
        self.with_headers(request, self.version.as_deref())
            .timeout(wait)
            .call()
            .map_err(|e| self.transport_error(method, &e, wait))
    }

    fn transport_error(&self, method: &str, e: &http::Error, wait: Duration) -> ClientError {
        match e {
            http::Error::Timeout(_) => ClientError::Timeout {
                method: method.to_owned(),
                secs: wait.as_secs_f64(),
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
        body: &mut http::Body,
        limits: &Limits,
    ) -> Result<String, ClientError> {
        let cap = limits.max_message_bytes;
        let reader = body;
        let mut bytes = Vec::new();
        let mut block = [0u8; 1 << 16];
        loop {
            let n = reader
                .read(&mut block)
                .map_err(|e| self.read_error(method, e, limits.request))?;
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

    fn read_error(&self, method: &str, e: std::io::Error, wait: Duration) -> ClientError {
        if is_timeout(&e) {
            ClientError::Timeout {
                method: method.to_owned(),
                secs: wait.as_secs_f64(),
            }
        } else {
            ClientError::Http {
                url: self.url.clone(),
                cause: e.to_string(),
            }
        }
    }

    /// Reads an SSE stream until the event holding the answer, answering the server's
    /// requests as they come; `Err(Ended)` inside `Ok` when the stream ends first.
    fn read_events(
        &self,
        waiting: &mut Waiting<'_>,
        sse: &mut Sse,
        body: &mut http::Body,
        limits: &Limits,
    ) -> Result<Result<Received, Ended>, ClientError> {
        let cap = limits.max_message_bytes;
        let mut lines = BufReader::new(body);
        loop {
            let line = match framing::read_line(&mut lines, cap) {
                Ok(Line::Text(line)) => line,
                Ok(Line::TooLong) => return Err(ClientError::TooLarge { cap }),
                // An event cut off by the end of the stream is incomplete and dropped, as the
                // SSE standard says.
                Ok(Line::End) => return Ok(Err(Ended::Closed("the server closed it".into()))),
                Err(e) if is_timeout(&e) => {
                    return Err(self.read_error(waiting.method, e, limits.request));
                }
                Err(e) => return Ok(Err(Ended::Closed(format!("the connection broke: {e}")))),
            };
            let Some(data) = sse.line(&line).map_err(|_| ClientError::TooLarge { cap })? else {
                continue;
            };
            match waiting.offer(data)? {
                Offer::Answered(received) => return Ok(Ok(received)),
                Offer::Reply(answer) => self.answer(waiting.method, &answer, limits)?,
                Offer::Kept => {}
            }
        }
    }

    /// POSTs mcpguard's answer to a request the server sent on a stream (legacy only).
    fn answer(&self, method: &str, text: &str, limits: &Limits) -> Result<(), ClientError> {
        let out = Outgoing {
            id: None,
            method,
            name: None,
            version: self.version.as_deref(),
            param_headers: &[],
            text,
        };
        let mut response = self.post(&out, limits.wait())?;
        let _ = self.read_body(method, response.body_mut(), limits);
        Ok(())
    }

    /// The answer to a request whose POST opened an event stream, following it through
    /// reconnections on a legacy server.
    fn read_stream(
        &self,
        out: &Outgoing<'_>,
        body: &mut http::Body,
        limits: &Limits,
        until: Instant,
    ) -> Result<Received, ClientError> {
        let mut waiting = Waiting::new(out, !out.modern());
        // One parser across reconnections: it keeps the last event id and the retry.
        let mut resume = Sse::new(limits.max_message_bytes);
        let mut outcome = self.read_events(&mut waiting, &mut resume, body, limits)?;
        let mut resumes = 0;
        loop {
            let cause = match outcome {
                Ok(received) => return Ok(received),
                Err(Ended::Closed(cause)) => cause,
            };
            let cut = |cause: String| ClientError::StreamCut {
                url: self.url.clone(),
                method: out.method.to_owned(),
                cause,
            };
            let Some(last_event_id) = resume.last_event_id.clone().filter(|_| !out.modern()) else {
                return Err(cut(cause));
            };
            if resumes == MAX_RESUMES {
                return Err(cut(format!(
                    "{cause}, after {MAX_RESUMES} reconnections with Last-Event-ID that never delivered it"
                )));
            }
            resumes += 1;
            let pause = resume.reconnect_after();
            let left = until.saturating_duration_since(Instant::now());
            if left <= pause {
                return Err(ClientError::Timeout {
                    method: out.method.to_owned(),
                    secs: limits.request.as_secs_f64(),
                });
            }
            std::thread::sleep(pause);
            let wait = until.saturating_duration_since(Instant::now());
            let mut response = self.resume(out.method, &last_event_id, wait)?;
            let status = response.status().as_u16();
            if !(200..300).contains(&status) {
                return Err(cut(format!(
                    "{cause}, and GET with Last-Event-ID {last_event_id:?} was answered with HTTP {status}"
                )));
            }
            outcome = self.read_events(&mut waiting, &mut resume, response.body_mut(), limits)?;
        }
    }
}

fn is_timeout(e: &std::io::Error) -> bool {
    e.kind() == std::io::ErrorKind::TimedOut
        || e.to_string().to_ascii_lowercase().contains("timeout")
}

impl Transport for Http {
    fn request(&mut self, out: &Outgoing<'_>, limits: &Limits) -> Result<Received, ClientError> {
        self.version = out.version.map(str::to_owned);
        let wait = limits.wait();
        let until = Instant::now() + wait;
        let mut response = self.post(out, wait)?;
        // A login, then one step-up at most within one request.
        for _ in 0..2 {
            if !self.sign_in(out.method, &response)? {
                break;
            }
            response = self.post(out, wait)?;
        }
        let status = response.status().as_u16();
        if out.method == "initialize"
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
            let text = self.read_body(out.method, body, limits).unwrap_or_default();
            // A JSON-RPC error in a 4xx body is still an answer (-32602 for a bad cursor,
            // UnsupportedProtocolVersion on 2026-07-28).
            if let Ok(value) = super::wire::parse(&text, out.method)
                && value.get("error").is_some()
                && value.get("id").and_then(serde_json::Value::as_u64) == out.id
            {
                return Ok(Received {
                    response: (text, value),
                    others: Vec::new(),
                });
            }
            return Err(ClientError::HttpStatus {
                url: self.url.clone(),
                status,
                method: out.method.to_owned(),
                body: if text.is_empty() {
                    "(no body)".into()
                } else {
                    text.chars().take(200).collect()
                },
            });
        }
        if event_stream {
            return self.read_stream(out, body, limits, until);
        }
        // A plain JSON body is the answer, whatever it holds.
        let text = self.read_body(out.method, body, limits)?;
        let value = super::wire::parse(&text, out.method)?;
        Ok(Received {
            response: (text, value),
            others: Vec::new(),
        })
    }

    fn send(&mut self, out: &Outgoing<'_>, limits: &Limits) -> Result<(), ClientError> {
        let mut response = self.post(out, limits.wait())?;
        if self.sign_in(out.method, &response)? {
            response = self.post(out, limits.wait())?;
        }
        let status = response.status().as_u16();
        // 202 Accepted is the answer to a notification; drain anything else.
        let _ = self.read_body(out.method, response.body_mut(), limits);
        if (200..300).contains(&status) {
            Ok(())
        } else {
            Err(ClientError::HttpStatus {
                url: self.url.clone(),
                status,
                method: out.method.to_owned(),
                body: String::new(),
            })
        }
    }

    fn close(&mut self) {
        // Once: the session is taken. 405 means the server does not let clients end
        // sessions, which is allowed. A modern conversation has no session to end.
        if let Some(session) = self.session.take() {
            let version = self.version.clone().filter(|v| !era::is_modern(v));
            let request = self.with_headers(self.agent.delete(&self.url), version.as_deref());
            let _ = request.header("mcp-session-id", &session).call();
        }
    }
}

impl Drop for Http {
    fn drop(&mut self) {
        self.close();
    }
}
