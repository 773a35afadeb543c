//! The gateway as the proxy's server end inside this process ([`start`]). No pipe and no
//! thread stand between them either way: the policy's lines reach the gateway by a call on
//! the policy's thread, as a line to a child process is one write, and the gateway's lines
//! reach the policy by a call on the gateway's thread that has them ([`Output::Calls`]), as
//! the proxy's reader of a child's stdout would hand them on. Dropping the input (the
//! client's side closed) ends the gateway and every server behind it.

use std::io;
use std::sync::{Arc, OnceLock, mpsc};

use super::super::stdio::{LineSink, Output, ServerEnd};
use super::{Gateway, Options, begin, end};
use crate::util::lines::SplitLines;

/// Starts the gateway: built on a thread of its own while the proxy prepares (the first line
/// waits for it), the server end the proxy serves.
pub fn start(opts: Options) -> io::Result<ServerEnd> {
    let to_policy = Arc::new(OnceLock::<Arc<dyn LineSink>>::new());
    let (built_tx, built) = mpsc::channel::<Arc<Gateway>>();
    let (closed_tx, closed) = mpsc::channel::<()>();
    let (done, finished) = mpsc::channel::<()>();
    let output = {
        let ends = EndsSession(to_policy.clone());
        Box::new(SplitLines::new(move |line: &[u8]| {
            // The proxy connects before it serves the client, whom every line answers.
            ends.0.wait().line(line);
            Ok(())
        }))
    };
    std::thread::spawn(move || {
        let (gateway, ticker) = begin(opts, output);
        let _ = built_tx.send(gateway.clone());
        // Returns when the input is dropped.
        let _ = closed.recv();
        end(gateway, ticker);
        drop(done);
    });
    let mut gateway = None;
    let input = SplitLines::new(move |line: &[u8]| {
        // Dropped with the input, after the gateway: tells the gateway's thread the client
        // is gone.
        let _closed = &closed_tx;
        let gateway = match &gateway {
            Some(g) => g,
            None => gateway.insert(built.recv().map_err(|_| {
                io::Error::new(io::ErrorKind::BrokenPipe, "the gateway did not start")
            })?),
        };
        // A blank line is not JSON, which the gateway skips.
        gateway.from_client(line);
        Ok(())
    });
    Ok(ServerEnd {
        input: Box::new(input),
        output: Output::Calls(Box::new(move |policy| {
            let _ = to_policy.set(policy);
        })),
        ended: Box::new(move |grace| match finished.recv_timeout(grace) {
            Err(mpsc::RecvTimeoutError::Timeout) => None,
            _ => Some(Some(0)),
        }),
    })
}

/// Held by the gateway's output: when the gateway is gone, so is the session's server end.
struct EndsSession(Arc<OnceLock<Arc<dyn LineSink>>>);

impl Drop for EndsSession {
    fn drop(&mut self) {
        if let Some(policy) = self.0.get() {
            policy.end();
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use std::io::Write;
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

    /// Collects what the gateway hands over, as the proxy's policy would take it.
    struct Collect(mpsc::Sender<Option<Vec<u8>>>);

    impl LineSink for Collect {
        fn line(&self, line: &[u8]) {
            let _ = self.0.send(Some(line.to_vec()));
        }
        fn end(&self) {
            let _ = self.0.send(None);
        }
    }

    #[test]
    fn lines_written_in_pieces_are_answered_whole_and_dropping_the_input_ends_it() {
        let ServerEnd {
            mut input,
            output,
            mut ended,
        } = start(options()).unwrap();
        let (tx, answers) = mpsc::channel();
        let Output::Calls(connect) = output else {
            panic!("the gateway hands its lines over by calls")
        };
        connect(Arc::new(Collect(tx)));
        input.write_all(br#"{"jsonrpc":"2.0","id":1,"#).unwrap();
        input.write_all(br#""method":"ping"}"#).unwrap();
        input.write_all(b"\n\n  \n").unwrap();
        input
            .write_all(b"{\"jsonrpc\":\"2.0\",\"id\":2,\"method\":\"ping\"}\n{\"jsonrpc\":\"2.0\",\"id\":3,\"method\":\"nope\"}\n")
            .unwrap();
        let wait = Duration::from_secs(5);
        let lines: Vec<serde_json::Value> = (0..3)
            .map(|_| {
                let line = answers.recv_timeout(wait).unwrap().expect("a line");
                serde_json::from_slice(&line).unwrap()
            })
            .collect();
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
        assert_eq!(answers.recv_timeout(wait).unwrap(), None, "its output ends");
    }
}
