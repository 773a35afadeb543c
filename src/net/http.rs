//! The blocking face of mcpguard's one HTTP client stack: reqwest (hyper on tokio), the client
//! the HTTP proxy drives asynchronously, here driven from plain threads on a small runtime of
//! its own. The live audit's Streamable HTTP transport, the stdio bridge to a remote server and
//! the OAuth client are written in blocking style (one request at a time, a body read a block
//! at a time under a size cap), and they use this.
//!
//! - A status is an answer, not an error (a 401 is for the OAuth client to read).
//! - A timeout covers the whole request, the body's last byte included; a client has one and a
//!   request may set its own.
//! - Any thread may send: the runtime has one worker that drives the connections, and the
//!   calling thread waits on its own request. A long-lived stream read on one thread does not
//!   hold up requests on others.
//! - Dropped anywhere, even inside another runtime's task (the HTTP proxy holds an OAuth client
//!   in shared state): the runtime is let go without blocking.
//!
//! No compression is asked for, so the bytes measured are the bytes sent.

use std::io::{self, Read};
use std::sync::Arc;
use std::time::Duration;

pub use reqwest::StatusCode;
pub use reqwest::header::HeaderMap;

/// A failed request: no answer came.
#[derive(Debug, thiserror::Error)]
pub enum Error {
    #[error("timed out after {0:.1} s")]
    Timeout(f64),
    #[error("{0}")]
    Failed(String),
}

impl Error {
    fn of(e: &reqwest::Error, timeout: Duration) -> Error {
        if e.is_timeout() {
            Error::Timeout(timeout.as_secs_f64())
        } else {
            Error::Failed(describe(e))
        }
    }
}

/// An error with its causes, which reqwest keeps apart ("error sending request" alone says
/// little; its cause says "Connection refused").
fn describe(e: &dyn std::error::Error) -> String {
    let mut text = e.to_string();
    let mut source = e.source();
    while let Some(cause) = source {
        let cause_text = cause.to_string();
        if !text.contains(&cause_text) {
            text.push_str(": ");
            text.push_str(&cause_text);
        }
        source = cause.source();
    }
    text
}

struct Runtime(Option<tokio::runtime::Runtime>);

impl Drop for Runtime {
    fn drop(&mut self) {
        if let Some(runtime) = self.0.take() {
            runtime.shutdown_background();
        }
    }
}

struct Inner {
    runtime: Result<Runtime, String>,
    client: Result<reqwest::Client, String>,
    timeout: Duration,
}

impl Inner {
    fn block_on<F: std::future::Future>(&self, future: F) -> Result<F::Output, Error> {
        match &self.runtime {
            Ok(Runtime(Some(runtime))) => Ok(runtime.block_on(future)),
            Ok(Runtime(None)) => Err(Error::Failed("the HTTP client has shut down".into())),
            Err(e) => Err(Error::Failed(e.clone())),
        }
    }
}

/// A blocking HTTP client; cheap to clone (the clones share connections).
#[derive(Clone)]
pub struct Client(Arc<Inner>);

impl Client {
    /// A client whose requests time out after `timeout` unless they say otherwise.
    pub fn new(timeout: Duration) -> Client {
        // reqwest is built without a TLS provider of its own: ring, as rustls has it.
        let _ = rustls::crypto::ring::default_provider().install_default();
        let runtime = tokio::runtime::Builder::new_multi_thread()
            .worker_threads(1)
            .thread_name("mcpguard-http")
            .enable_all()
            .build()
            .map(|r| Runtime(Some(r)))
            .map_err(|e| format!("cannot start the HTTP client: {e}"));
        let client = reqwest::Client::builder()
            .timeout(timeout)
            .build()
            .map_err(|e| format!("cannot build the HTTP client: {}", describe(&e)));
        Client(Arc::new(Inner {
            runtime,
            client,
            timeout,
        }))
    }

    pub fn get(&self, url: &str) -> Request {
        self.request(reqwest::Method::GET, url)
    }

    pub fn post(&self, url: &str) -> Request {
        self.request(reqwest::Method::POST, url)
    }

    pub fn delete(&self, url: &str) -> Request {
        self.request(reqwest::Method::DELETE, url)
    }

    fn request(&self, method: reqwest::Method, url: &str) -> Request {
        Request {
            inner: self.0.clone(),
            builder: self
                .0
                .client
                .as_ref()
                .map(|c| c.request(method, url))
                .map_err(Clone::clone),
            timeout: self.0.timeout,
        }
    }
}

/// A request being built.
pub struct Request {
    inner: Arc<Inner>,
    builder: Result<reqwest::RequestBuilder, String>,
    timeout: Duration,
}

impl Request {
    pub fn header(mut self, name: impl AsRef<str>, value: impl AsRef<str>) -> Request {
        self.builder = self
            .builder
            .map(|b| b.header(name.as_ref(), value.as_ref()));
        self
    }

    /// This request's own timeout, for the whole of it.
    pub fn timeout(mut self, timeout: Duration) -> Request {
        self.builder = self.builder.map(|b| b.timeout(timeout));
        self.timeout = timeout;
        self
    }

    /// No timeout for this request (a stream that lives as long as its session): a year,
    /// which no session outlives.
    pub fn without_timeout(self) -> Request {
        self.timeout(Duration::from_secs(365 * 24 * 3600))
    }

    /// Sends the request with `body`.
    pub fn send(self, body: impl Into<Vec<u8>>) -> Result<Response, Error> {
        let body = body.into();
        self.go(|b| b.body(body))
    }

    /// Sends the request without a body.
    pub fn call(self) -> Result<Response, Error> {
        self.go(|b| b)
    }

    fn go(
        self,
        finish: impl FnOnce(reqwest::RequestBuilder) -> reqwest::RequestBuilder,
    ) -> Result<Response, Error> {
        let builder = finish(self.builder.map_err(Error::Failed)?);
        let timeout = self.timeout;
        let response = self
            .inner
            // Made inside the runtime: reqwest starts its timer when the request is made.
            .block_on(async move { builder.send().await })?
            .map_err(|e| Error::of(&e, timeout))?;
        Ok(Response {
            status: response.status(),
            headers: response.headers().clone(),
            body: Body {
                inner: self.inner,
                response: Some(response),
                pending: Vec::new(),
                at: 0,
                timeout,
            },
        })
    }
}

/// An answer: its status and headers, and its body to read.
pub struct Response {
    status: StatusCode,
    headers: HeaderMap,
    body: Body,
}

impl Response {
    pub fn status(&self) -> StatusCode {
        self.status
    }

    pub fn headers(&self) -> &HeaderMap {
        &self.headers
    }

    pub fn body_mut(&mut self) -> &mut Body {
        &mut self.body
    }
}

/// A response body, read as it arrives.
pub struct Body {
    inner: Arc<Inner>,
    response: Option<reqwest::Response>,
    /// The last chunk received, read up to `at`.
    pending: Vec<u8>,
    at: usize,
    timeout: Duration,
}

impl Body {
    /// The body as text (invalid UTF-8 replaced), refused past `limit` bytes.
    pub fn read_to_string(&mut self, limit: u64) -> io::Result<String> {
        let mut bytes = Vec::new();
        self.take(limit + 1).read_to_end(&mut bytes)?;
        if bytes.len() as u64 > limit {
            return Err(io::Error::other(format!(
                "the body is larger than {limit} bytes"
            )));
        }
        Ok(String::from_utf8_lossy(&bytes).into_owned())
    }
}

impl Read for Body {
    fn read(&mut self, buf: &mut [u8]) -> io::Result<usize> {
        while self.at == self.pending.len() {
            let Some(response) = self.response.as_mut() else {
                return Ok(0);
            };
            let chunk = self
                .inner
                .block_on(async { response.chunk().await })
                .map_err(|e| io::Error::other(e.to_string()))?;
            match chunk {
                Ok(Some(bytes)) => {
                    self.pending.clear();
                    self.pending.extend_from_slice(&bytes);
                    self.at = 0;
                }
                Ok(None) => {
                    self.response = None;
                    return Ok(0);
                }
                Err(e) if e.is_timeout() => {
                    return Err(io::Error::new(
                        io::ErrorKind::TimedOut,
                        Error::Timeout(self.timeout.as_secs_f64()).to_string(),
                    ));
                }
                Err(e) => return Err(io::Error::other(describe(&e))),
            }
        }
        let n = buf.len().min(self.pending.len() - self.at);
        buf[..n].copy_from_slice(&self.pending[self.at..self.at + n]);
        self.at += n;
        Ok(n)
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use std::io::Write;
    use std::net::TcpListener;

    /// A server on 127.0.0.1 that answers the first request with `head` and `body`, then keeps
    /// the connection open without a byte more.
    fn stalling_server(head: &'static str, body: &'static str) -> String {
        let listener = TcpListener::bind("127.0.0.1:0").unwrap();
        let url = format!("http://{}/mcp", listener.local_addr().unwrap());
        std::thread::spawn(move || {
            let (mut stream, _) = listener.accept().unwrap();
            let mut request = [0u8; 4096];
            let _ = stream.read(&mut request);
            let _ = stream.write_all(head.as_bytes());
            let _ = stream.write_all(body.as_bytes());
            std::thread::sleep(Duration::from_secs(5));
        });
        url
    }

    #[test]
    fn a_status_is_an_answer_and_the_timeout_covers_the_body() {
        let url = stalling_server(
            "HTTP/1.1 401 Unauthorized\r\ncontent-length: 100\r\nwww-authenticate: Bearer\r\n\r\n",
            "{\"partial\":",
        );
        let client = Client::new(Duration::from_secs(30));
        let mut response = client
            .post(&url)
            .header("Content-Type", "application/json")
            .timeout(Duration::from_millis(300))
            .send("{}")
            .unwrap();
        assert_eq!(response.status().as_u16(), 401);
        assert_eq!(response.headers()["www-authenticate"], "Bearer");
        let mut block = [0u8; 64];
        let n = response.body_mut().read(&mut block).unwrap();
        assert_eq!(&block[..n], b"{\"partial\":");
        let stalled = response.body_mut().read(&mut block).unwrap_err();
        assert_eq!(stalled.kind(), io::ErrorKind::TimedOut, "{stalled}");
    }

    #[test]
    fn a_refused_connection_names_its_cause_and_a_body_over_its_limit_is_refused() {
        let port = TcpListener::bind("127.0.0.1:0")
            .unwrap()
            .local_addr()
            .unwrap()
            .port();
        let client = Client::new(Duration::from_secs(5));
        let err = client
            .get(&format!("http://127.0.0.1:{port}/"))
            .call()
            .err()
            .unwrap();
        assert!(err.to_string().contains("refused"), "{err}");

        let url = stalling_server(
            "HTTP/1.1 200 OK\r\ncontent-length: 10\r\n\r\n",
            "0123456789",
        );
        let mut response = client.get(&url).call().unwrap();
        let over = response.body_mut().read_to_string(4).unwrap_err();
        assert!(over.to_string().contains("larger than 4 bytes"), "{over}");
        // Dropped (its last handle) inside another runtime's task, as the HTTP proxy's shared
        // state may be: no panic.
        drop(response);
        let outer = tokio::runtime::Runtime::new().unwrap();
        outer.block_on(async move { drop(client) });
    }
}
