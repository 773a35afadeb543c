//! The listener's accept loop: hyper's HTTP/1 connections with a deadline on reading a request's
//! head, which `axum::serve` does not set (it gives hyper no timer). Without one, a client that
//! sends half a request holds its connection for ever: 2,000 of them stayed open, and under a
//! low descriptor limit 400 made the proxy unreachable. The body's own deadline is the
//! exchange's ([`super::exchange`]): a head read in time may still trickle its body.
//!
//! Stopping: when `stop` turns true, no connection is accepted, each open one finishes the
//! request it is serving and closes, and the returned future completes once all have.

use std::time::Duration;

use axum::Router;
use hyper_util::rt::{TokioIo, TokioTimer};
use hyper_util::service::TowerToHyperService;
use tokio::net::TcpListener;
use tokio::sync::watch;

/// How long a client has to send a request's head (its line and headers) once it has started
/// one, or once a kept-alive connection has idled.
pub const HEAD_TIMEOUT: Duration = Duration::from_secs(10);

/// Serves `routes` on `listener` until `stop` turns true and the open connections are done.
pub async fn serve(listener: TcpListener, routes: Router, mut stop: watch::Receiver<bool>) {
    // Each connection holds a receiver: the loop ends when every one has been dropped.
    let (open_tx, open_rx) = watch::channel(());
    loop {
        let accepted = tokio::select! {
            accepted = listener.accept() => accepted,
            () = stopped(&mut stop) => break,
        };
        let tcp = match accepted {
            Ok((tcp, _)) => tcp,
            // Out of descriptors (EMFILE) or memory: the error repeats until connections close,
            // so wait a little rather than spin; an aborted handshake is just the next one.
            Err(e) if e.kind() == std::io::ErrorKind::ConnectionAborted => continue,
            Err(_) => {
                tokio::time::sleep(Duration::from_millis(50)).await;
                continue;
            }
        };
        // Answers go out in pieces (headers, then SSE events): without TCP_NODELAY, Nagle's
        // algorithm holds the second piece for the client's delayed ACK, 40 ms a request.
        let _ = tcp.set_nodelay(true);
        let service = TowerToHyperService::new(routes.clone());
        let mut stop = stop.clone();
        let open = open_rx.clone();
        tokio::spawn(async move {
            let mut builder = hyper::server::conn::http1::Builder::new();
            builder
                .timer(TokioTimer::new())
                .header_read_timeout(HEAD_TIMEOUT);
            let connection = builder
                .serve_connection(TokioIo::new(tcp), service)
                .with_upgrades();
            tokio::pin!(connection);
            tokio::select! {
                _ = connection.as_mut() => {}
                () = stopped(&mut stop) => {
                    connection.as_mut().graceful_shutdown();
                    let _ = connection.await;
                }
            }
            drop(open);
        });
    }
    drop(open_rx);
    open_tx.closed().await;
}

/// When `stop` turns true (or its sender is gone).
async fn stopped(stop: &mut watch::Receiver<bool>) {
    let _ = stop.wait_for(|s| *s).await;
}
