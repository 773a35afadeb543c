//! The HTTP request to the server, seen from the proxy: the headers passed on, the media type
//! of the answer, its body read under the cap and the deadline, and a failure's real cause.

use axum::http::{HeaderMap, HeaderValue, StatusCode, header};

use super::decide::over_cap;
use super::respond::{BAD_GATEWAY, GATEWAY_TIMEOUT};
use super::{App, Upstream, headers};

/// The main type of a Content-Type, lowercased.
pub(super) fn media_type(headers: &HeaderMap) -> String {
    headers
        .get(header::CONTENT_TYPE)
        .and_then(|v| v.to_str().ok())
        .and_then(|v| v.split(';').next())
        .unwrap_or("")
        .trim()
        .to_ascii_lowercase()
}

/// Why reading the server's body failed.
pub(super) enum ReadError {
    TooLarge(usize),
    Timeout,
    Broken(String),
}

impl ReadError {
    pub(super) fn kind(&self) -> (StatusCode, i64, &'static str) {
        match self {
            ReadError::Timeout => GATEWAY_TIMEOUT,
            ReadError::TooLarge(_) | ReadError::Broken(_) => BAD_GATEWAY,
        }
    }

    pub(super) fn why(&self) -> String {
        match self {
            ReadError::TooLarge(cap) => over_cap(*cap),
            ReadError::Timeout => {
                "the server did not finish its answer in time (--timeout)".to_owned()
            }
            ReadError::Broken(e) => format!("the server's answer broke off: {e}"),
        }
    }
}

/// The whole body, up to `cap` bytes, by the deadline.
pub(super) async fn read_capped(
    mut response: reqwest::Response,
    cap: usize,
    deadline: tokio::time::Instant,
) -> Result<Vec<u8>, ReadError> {
    if response.content_length().is_some_and(|n| n > cap as u64) {
        return Err(ReadError::TooLarge(cap));
    }
    let mut body = Vec::new();
    loop {
        match tokio::time::timeout_at(deadline, response.chunk()).await {
            Err(_) => return Err(ReadError::Timeout),
            Ok(Err(e)) => return Err(ReadError::Broken(cause(&e))),
            Ok(Ok(None)) => return Ok(body),
            Ok(Ok(Some(chunk))) => {
                if body.len() + chunk.len() > cap {
                    return Err(ReadError::TooLarge(cap));
                }
                body.extend_from_slice(&chunk);
            }
        }
    }
}

/// The headers of a request to the server: the client's (hop-by-hop ones dropped), then the
/// `--header` ones; with `--oauth`, the held login's `Authorization` in place of the client's.
/// Also the `Authorization` value sent, for a renewal.
pub(super) fn upstream_headers(app: &App, head: &HeaderMap) -> (HeaderMap, Option<String>) {
    let mut to_server = headers::forwarded(head);
    let Upstream::Http {
        headers: extra,
        login,
        ..
    } = &app.opts.upstream
    else {
        return (to_server, None);
    };
    for (name, value) in extra {
        if let (Ok(name), Ok(value)) = (
            header::HeaderName::try_from(name.as_str()),
            HeaderValue::try_from(value.as_str()),
        ) {
            to_server.append(name, value);
        }
    }
    let sent = login.as_ref().and_then(|l| l.apply(&mut to_server));
    (to_server, sent)
}

/// The innermost cause of a client error: "connection refused", not "error sending request".
pub(super) fn cause(e: &reqwest::Error) -> String {
    let mut source: &dyn std::error::Error = e;
    while let Some(s) = source.source() {
        source = s;
    }
    let text = source.to_string();
    if e.is_connect() {
        format!("cannot connect ({text})")
    } else {
        text
    }
}
