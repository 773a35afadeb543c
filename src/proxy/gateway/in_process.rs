//! The gateway as the proxy's server end inside this process ([`start`]). The policy's lines
//! reach the gateway by a call on the policy's own thread, with no pipe and no thread between
//! them, as a line to a child process is one write; the gateway's lines come back through a
//! pipe, which the proxy reads as it reads a child's stdout. Dropping the input (the client's
//! side closed) ends the gateway and every server behind it.

use std::io::{self, Write};
use std::sync::{Arc, mpsc};

use super::super::stdio::ServerEnd;
use super::{Gateway, Options, begin, end};

/// Starts the gateway: built on a thread of its own while the proxy prepares (the first line
/// waits for it), the server end the proxy serves.
pub fn start(opts: Options) -> io::Result<ServerEnd> {
    let (from_gateway, gateway_out) = io::pipe()?;
    let (built_tx, built) = mpsc::channel::<Arc<Gateway>>();
    let (closed_tx, closed) = mpsc::channel::<()>();
    let (done, finished) = mpsc::channel::<()>();
    std::thread::spawn(move || {
        let (gateway, ticker) = begin(opts, Box::new(gateway_out));
        let _ = built_tx.send(gateway.clone());
        // Returns when the input is dropped.
        let _ = closed.recv();
        end(gateway, ticker);
        drop(done);
    });
    Ok(ServerEnd {
        input: Box::new(ToGateway {
            gateway: None,
            built,
            partial: Vec::new(),
            _closed: closed_tx,
        }),
        output: Box::new(from_gateway),
        ended: Box::new(move |grace| match finished.recv_timeout(grace) {
            Err(mpsc::RecvTimeoutError::Timeout) => None,
            _ => Some(Some(0)),
        }),
    })
}

/// Where the policy writes the client's lines: each whole line is handed to the gateway as it
/// completes (a blank one is not JSON, which the gateway skips).
struct ToGateway {
    gateway: Option<Arc<Gateway>>,
    built: mpsc::Receiver<Arc<Gateway>>,
    /// A line written in pieces, until its newline.
    partial: Vec<u8>,
    /// Dropped last, after the gateway: tells the gateway's thread the client is gone.
    _closed: mpsc::Sender<()>,
}

impl ToGateway {
    fn gateway(&mut self) -> io::Result<Arc<Gateway>> {
        if let Some(g) = &self.gateway {
            return Ok(g.clone());
        }
        let g = self
            .built
            .recv()
            .map_err(|_| io::Error::new(io::ErrorKind::BrokenPipe, "the gateway did not start"))?;
        self.gateway = Some(g.clone());
        Ok(g)
    }
}

impl Write for ToGateway {
    fn write(&mut self, buf: &[u8]) -> io::Result<usize> {
        let gateway = self.gateway()?;
        let mut rest = buf;
        while let Some(at) = memchr::memchr(b'\n', rest) {
            if self.partial.is_empty() {
                gateway.from_client(&rest[..at]);
            } else {
                self.partial.extend_from_slice(&rest[..at]);
                let line = std::mem::take(&mut self.partial);
                gateway.from_client(&line);
            }
            rest = &rest[at + 1..];
        }
        self.partial.extend_from_slice(rest);
        Ok(buf.len())
    }

    fn flush(&mut self) -> io::Result<()> {
        Ok(())
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use std::io::{BufRead, BufReader};
    use std::time::Duration;

    fn options() -> Options {
        Options {
            servers: Vec::new(),
            timeout: Duration::from_secs(5),
            max_message_bytes: 1 << 20,
            max_name: 64,
            idle: Duration::from_secs(600),
            eager: false,
            cache: None,
            cwd: std::env::temp_dir(),
            oauth: None,
            log: Arc::new(|_| {}),
            stderr: Arc::new(|_, _| {}),
            status_file: None,
            pins: None,
        }
    }

    #[test]
    fn lines_written_in_pieces_are_answered_whole_and_dropping_the_input_ends_it() {
        let ServerEnd {
            mut input,
            output,
            mut ended,
        } = start(options()).unwrap();
        let mut answers = BufReader::new(output);
        input.write_all(br#"{"jsonrpc":"2.0","id":1,"#).unwrap();
        input.write_all(br#""method":"ping"}"#).unwrap();
        input.write_all(b"\n\n  \n").unwrap();
        input
            .write_all(b"{\"jsonrpc\":\"2.0\",\"id\":2,\"method\":\"ping\"}\n{\"jsonrpc\":\"2.0\",\"id\":3,\"method\":\"nope\"}\n")
            .unwrap();
        let mut lines = Vec::new();
        for _ in 0..3 {
            let mut line = String::new();
            answers.read_line(&mut line).unwrap();
            lines.push(serde_json::from_str::<serde_json::Value>(&line).unwrap());
        }
        assert_eq!(lines[0]["id"], 1);
        assert_eq!(lines[0]["result"], serde_json::json!({}));
        assert_eq!(lines[1]["id"], 2);
        assert_eq!(lines[2]["id"], 3);
        assert_eq!(lines[2]["error"]["code"], -32601);
        assert_eq!(
            ended(Duration::ZERO),
            None,
            "the gateway runs while its input is open"
        );
        drop(input);
        assert_eq!(ended(Duration::from_secs(5)), Some(Some(0)));
        let mut rest = String::new();
        assert_eq!(answers.read_line(&mut rest).unwrap(), 0, "its output ends");
    }
}
