//! a2a-connect Rust test peer: a small scripted A2A agent served by the Rust
//! A2A SDK (crates `a2a-lf` 0.4.2, `a2a-server-lf` 0.5.3, `a2a-grpc` 0.3.11).
//!
//! The interop tests start it as a child process and drive it with the
//! a2a-connect client. It serves A2A 1.0 only (the SDK has no 0.3 surface):
//! the Agent Card, JSON-RPC and HTTP+JSON on `--port`, gRPC on `--grpc-port`,
//! all on 127.0.0.1. It prints `ready` on stdout once both ports listen, logs
//! to stderr, and exits on SIGTERM/SIGINT or when stdin reaches EOF.

mod agent;
mod card;

use std::net::{Ipv4Addr, SocketAddr};
use std::sync::Arc;
use std::time::Duration;

use a2a_pb::proto::a2a_service_server::A2aServiceServer;
use a2a_server::agent_card::agent_card_router;
use a2a_server::jsonrpc::jsonrpc_router;
use a2a_server::rest::rest_router;
use a2a_server::{
    DefaultRequestHandler, HttpPushSender, HttpPushSenderConfig, InMemoryPushConfigStore,
    InMemoryTaskStore, StaticAgentCard,
};
use tokio::io::AsyncReadExt;
use tokio::net::TcpListener;
use tokio_stream::wrappers::TcpListenerStream;

struct Args {
    port: u16,
    grpc_port: u16,
}

fn usage(problem: &str) -> ! {
    eprintln!("{problem}\nusage: peer --port HTTP_PORT --grpc-port GRPC_PORT [--versions 1.0]");
    std::process::exit(2);
}

fn parse_args() -> Args {
    let mut port = None;
    let mut grpc_port = None;
    let mut versions = None;
    let mut args = std::env::args().skip(1);
    while let Some(flag) = args.next() {
        // Accept both `--flag value` and `--flag=value`.
        let (name, inline) = match flag.split_once('=') {
            Some((name, value)) => (name.to_string(), Some(value.to_string())),
            None => (flag.clone(), None),
        };
        let mut value = || {
            inline
                .clone()
                .or_else(|| args.next())
                .unwrap_or_else(|| usage(&format!("{name} needs a value")))
        };
        match name.as_str() {
            "--port" => port = Some(value()),
            "--grpc-port" => grpc_port = Some(value()),
            "--versions" => versions = Some(value()),
            other => usage(&format!("unknown argument {other}")),
        }
    }
    let number = |name: &str, value: Option<String>| -> u16 {
        value
            .unwrap_or_else(|| usage(&format!("{name} is required")))
            .parse()
            .unwrap_or_else(|_| usage(&format!("{name} must be a port number")))
    };
    if let Some(versions) = versions {
        // Only 1.0 can be served; a list without it leaves nothing to run.
        let requested: Vec<&str> = versions.split(',').map(str::trim).collect();
        if !requested.contains(&"1.0") {
            usage("this SDK serves only A2A 1.0");
        }
        for other in requested.iter().filter(|v| **v != "1.0") {
            tracing::warn!(version = other, "not served by this SDK; ignored");
        }
    }
    Args {
        port: number("--port", port),
        grpc_port: number("--grpc-port", grpc_port),
    }
}

/// Resolves when the peer should stop: SIGTERM, SIGINT, or stdin at EOF
/// (so a peer whose parent died does not linger).
async fn stop_requested() {
    let mut sigterm = tokio::signal::unix::signal(tokio::signal::unix::SignalKind::terminate())
        .expect("SIGTERM handler");
    let stdin_eof = async {
        let mut stdin = tokio::io::stdin();
        let mut buf = [0u8; 1024];
        loop {
            match stdin.read(&mut buf).await {
                Ok(0) | Err(_) => break,
                Ok(_) => {}
            }
        }
    };
    tokio::select! {
        _ = sigterm.recv() => tracing::info!("stopping on SIGTERM"),
        _ = tokio::signal::ctrl_c() => tracing::info!("stopping on SIGINT"),
        _ = stdin_eof => tracing::info!("stopping: stdin closed"),
    }
}

#[tokio::main]
async fn main() {
    tracing_subscriber::fmt()
        .with_writer(std::io::stderr)
        .with_env_filter(
            tracing_subscriber::EnvFilter::try_from_default_env()
                .unwrap_or_else(|_| tracing_subscriber::EnvFilter::new("info")),
        )
        .init();
    let args = parse_args();

    let public = card::public_card(args.port, args.grpc_port);
    let extended = card::extended_card(&public);

    // Push configs must deliver to the tests' own receiver on 127.0.0.1, which
    // the sender's default SSRF guard refuses; turning the guard off is the
    // SDK's documented switch for local test webhooks.
    let push_sender = HttpPushSender::new(Some(HttpPushSenderConfig {
        timeout: Duration::from_secs(10),
        fail_on_error: false,
        validate_urls: false,
    }));
    let handler = Arc::new(
        DefaultRequestHandler::new(agent::ScriptedAgent::default(), InMemoryTaskStore::new())
            .with_push_notifications(InMemoryPushConfigStore::new(), push_sender)
            .with_extended_agent_card(extended)
            .with_capabilities(card::capabilities())
            .with_default_input_modes(public.default_input_modes.clone()),
    );

    let app = axum::Router::new()
        .merge(agent_card_router(Arc::new(StaticAgentCard::new(public))))
        .nest("/a2a/jsonrpc", jsonrpc_router(handler.clone()))
        .nest("/a2a/rest", rest_router(handler.clone()));

    let loopback = Ipv4Addr::LOCALHOST;
    let http_listener = TcpListener::bind(SocketAddr::from((loopback, args.port)))
        .await
        .unwrap_or_else(|e| panic!("binding HTTP port {}: {e}", args.port));
    let grpc_listener = TcpListener::bind(SocketAddr::from((loopback, args.grpc_port)))
        .await
        .unwrap_or_else(|e| panic!("binding gRPC port {}: {e}", args.grpc_port));

    tokio::spawn(async move {
        if let Err(e) = axum::serve(http_listener, app).await {
            tracing::error!(error = %e, "HTTP server stopped");
        }
    });
    let grpc = tonic::transport::Server::builder()
        .add_service(A2aServiceServer::new(a2a_grpc::GrpcHandler::new(handler)));
    tokio::spawn(async move {
        if let Err(e) = grpc
            .serve_with_incoming(TcpListenerStream::new(grpc_listener))
            .await
        {
            tracing::error!(error = %e, "gRPC server stopped");
        }
    });

    // Both listeners are bound, so connections already queue: safe to announce.
    println!("ready");
    tracing::info!(
        http = args.port,
        grpc = args.grpc_port,
        "listening on 127.0.0.1"
    );

    stop_requested().await;
    // Open SSE streams (a held task) would make a graceful drain wait
    // indefinitely; the peer keeps nothing worth flushing, so exit at once.
    std::process::exit(0);
}
