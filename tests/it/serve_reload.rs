//! `captop serve` reloading its certificate and readers' tokens under load: the real binary over
//! TLS between the simulated service and readers that never stop asking.
//!
//! What must hold: no request fails while a certificate and a token are rotated (SIGHUP), new
//! connections present the new certificate, the removed token is refused and the added one
//! admitted; an invalid certificate keeps the previous one in force with
//! `captop_config_last_reload_successful 0`; a change of the files alone is picked up without a
//! signal; one log line a reload.

#![allow(
    clippy::unwrap_used,
    clippy::expect_used,
    clippy::panic,
    clippy::indexing_slicing
)]

use std::net::SocketAddr;
use std::path::{Path, PathBuf};
use std::sync::atomic::{AtomicBool, AtomicU64, Ordering};
use std::sync::{Arc, Mutex};
use std::time::{Duration, Instant};

use captop::demo::{DemoConfig, DemoServer};

use crate::support::relay::{RelayProcess, eventually, private_file};

/// The token the load uses: in every token file, so it never stops working.
const STABLE: &str = "reader-token-stable-0123456789";
/// In the first token file only.
const OLD: &str = "reader-token-old-000000000000";
/// In the second.
const NEW: &str = "reader-token-new-111111111111";
/// In the third, which is picked up by watching alone.
const NEWER: &str = "reader-token-newer-2222222222";

/// Readers that keep one connection, and readers that open a fresh one (a full TLS handshake)
/// for every request.
const KEEP_ALIVE_READERS: usize = 3;
const FRESH_READERS: usize = 3;
/// Longest the load runs, whatever happens: it stops by itself.
const LOAD_AT_MOST: Duration = Duration::from_secs(300);

/// A self-signed certificate for `localhost`: its PEM, its key's PEM and its DER.
#[derive(Clone)]
struct Certificate {
    pem: String,
    key_pem: String,
    der: Vec<u8>,
}

fn certificate() -> Certificate {
    let made = rcgen::generate_simple_self_signed(vec!["localhost".to_owned()]).unwrap();
    Certificate {
        pem: made.cert.pem(),
        key_pem: made.signing_key.serialize_pem(),
        der: made.cert.der().to_vec(),
    }
}

/// Where the relay reads its certificate, key and tokens from.
struct Files {
    cert: PathBuf,
    key: PathBuf,
    tokens: PathBuf,
}

impl Files {
    fn write_certificate(&self, certificate: &Certificate) {
        std::fs::write(&self.cert, &certificate.pem).unwrap();
        private_file(
            self.key.parent().unwrap(),
            self.key.file_name().unwrap().to_str().unwrap(),
            &certificate.key_pem,
        );
    }

    fn write_tokens(&self, tokens: &[&str]) {
        private_file(
            self.tokens.parent().unwrap(),
            self.tokens.file_name().unwrap().to_str().unwrap(),
            &format!("# readers\n{}\n", tokens.join("\n")),
        );
    }
}

/// A client that trusts every certificate of the test, reaches the relay as `localhost` and
/// reports the certificate each connection was shown.
fn client(trusted: &[&Certificate], addr: SocketAddr) -> reqwest::Client {
    let roots = trusted
        .iter()
        .map(|c| reqwest::Certificate::from_der(&c.der).unwrap());
    reqwest::Client::builder()
        .tls_certs_only(roots)
        .resolve("localhost", addr)
        .tls_info(true)
        .timeout(Duration::from_secs(30))
        .build()
        .unwrap()
}

/// Status, body and the certificate the connection presented, of one GET with `token`.
async fn get(
    client: &reqwest::Client,
    url: &str,
    token: &str,
) -> Result<(u16, String, Vec<u8>), String> {
    let response = client
        .get(url)
        .bearer_auth(token)
        .send()
        .await
        .map_err(|e| format!("{e:?}"))?;
    let status = response.status().as_u16();
    let presented = response
        .extensions()
        .get::<reqwest::tls::TlsInfo>()
        .and_then(|info| info.peer_certificate())
        .map(<[u8]>::to_vec)
        .unwrap_or_default();
    let body = response.text().await.map_err(|e| format!("{e:?}"))?;
    Ok((status, body, presented))
}

/// Counts of the load: requests answered, and every failure with its reason.
#[derive(Default)]
struct Load {
    answered: AtomicU64,
    failures: Mutex<Vec<String>>,
    stop: AtomicBool,
}

/// Starts the readers: each asks for `/v1/capacity` with [`STABLE`] until told to stop.
fn start_load(
    load: &Arc<Load>,
    trusted: &[&Certificate],
    addr: SocketAddr,
    url: &str,
) -> tokio::task::JoinSet<()> {
    let mut readers = tokio::task::JoinSet::new();
    for reader in 0..KEEP_ALIVE_READERS + FRESH_READERS {
        let fresh = reader >= KEEP_ALIVE_READERS;
        let keep_alive = client(trusted, addr);
        let roots: Vec<Certificate> = trusted.iter().map(|c| (*c).clone()).collect();
        let (load, url) = (Arc::clone(load), url.to_owned());
        readers.spawn(async move {
            let started = Instant::now();
            while !load.stop.load(Ordering::Relaxed) && started.elapsed() < LOAD_AT_MOST {
                let client = if fresh {
                    client(&roots.iter().collect::<Vec<_>>(), addr)
                } else {
                    keep_alive.clone()
                };
                match get(&client, &url, STABLE).await {
                    Ok((200, _, _)) => {
                        load.answered.fetch_add(1, Ordering::Relaxed);
                    }
                    Ok((status, body, _)) => {
                        load.failures
                            .lock()
                            .unwrap()
                            .push(format!("{status}: {body}"));
                    }
                    Err(e) => load.failures.lock().unwrap().push(e),
                }
                tokio::time::sleep(Duration::from_millis(10)).await;
            }
        });
    }
    readers
}

/// The relay's `/metrics` text, read with [`STABLE`] on a fresh connection.
async fn metrics(trusted: &[&Certificate], relay: &Relay) -> String {
    let (status, text, _) = get(&client(trusted, relay.addr), &relay.url("/metrics"), STABLE)
        .await
        .unwrap();
    assert_eq!(status, 200, "{text}");
    text
}

fn sample(metrics: &str, name: &str) -> f64 {
    metrics
        .lines()
        .find_map(|line| line.strip_prefix(&format!("{name} ")))
        .unwrap_or_else(|| panic!("no {name} in:\n{metrics}"))
        .parse()
        .unwrap()
}

/// The relay under test: its process, its address as `localhost` resolves it, its files.
struct Relay {
    process: RelayProcess,
    addr: SocketAddr,
    files: Files,
}

impl Relay {
    fn url(&self, path: &str) -> String {
        format!("https://localhost:{}{path}", self.addr.port())
    }

    fn hangup(&self) {
        let sent = std::process::Command::new("kill")
            .args(["-HUP", &self.process.pid().to_string()])
            .status()
            .unwrap();
        assert!(sent.success());
    }

    fn reload_lines(&self) -> Vec<String> {
        self.process
            .log()
            .into_iter()
            .filter(|l| l.contains("configuration reload"))
            .collect()
    }

    /// Waits for reload line number `n` (1-based) and returns it.
    async fn wait_reload_line(&self, n: usize) -> String {
        eventually(&format!("reload line {n}"), || async {
            self.reload_lines().get(n - 1).cloned()
        })
        .await
    }
}

/// Starts the relay over TLS with `first` and the tokens [`STABLE`] and [`OLD`].
fn start_relay(home: &Path, server: &DemoServer, first: &Certificate) -> Relay {
    let files = Files {
        cert: home.join("tls.crt"),
        key: home.join("tls.key"),
        tokens: home.join("readers"),
    };
    files.write_certificate(first);
    files.write_tokens(&[STABLE, OLD]);
    let api_key = private_file(home, "upstream.key", &format!("{}\n", server.api_key()));
    let path = |p: &Path| p.display().to_string();
    let base_url = server.base_url();
    let process = RelayProcess::spawn(
        home,
        &[
            "serve",
            "--base-url",
            &base_url,
            "--api-key-file",
            &path(&api_key),
            "--token-file",
            &path(&files.tokens),
            "--tls-cert",
            &path(&files.cert),
            "--tls-key",
            &path(&files.key),
            "--listen",
            "127.0.0.1:0",
            "--interval",
            "1",
        ],
    );
    let addr = process
        .origin
        .trim_start_matches("https://")
        .parse()
        .unwrap();
    Relay {
        process,
        addr,
        files,
    }
}

/// Waits until a fresh connection is shown `expected`.
async fn wait_presented(trusted: &[&Certificate], relay: &Relay, expected: &Certificate) {
    eventually(
        "a fresh connection to present the expected certificate",
        || async {
            let answer = get(&client(trusted, relay.addr), &relay.url("/ready"), STABLE).await;
            matches!(answer, Ok((200, _, presented)) if presented == expected.der).then_some(())
        },
    )
    .await;
}

async fn status_with(trusted: &[&Certificate], relay: &Relay, token: &str) -> u16 {
    get(
        &client(trusted, relay.addr),
        &relay.url("/v1/capacity"),
        token,
    )
    .await
    .unwrap()
    .0
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
#[expect(
    clippy::too_many_lines,
    reason = "one relay under one load, through a rotation, a refused reload and a watched change"
)]
async fn a_certificate_and_a_token_rotate_under_load_with_no_failed_request() {
    let server = DemoServer::start(DemoConfig::default()).await.unwrap();
    let home = tempfile::tempdir().unwrap();
    let (first, second, third) = (certificate(), certificate(), certificate());
    let trusted = [&first, &second, &third];
    let relay = start_relay(home.path(), &server, &first);
    wait_presented(&trusted, &relay, &first).await;
    let started_at = sample(
        &metrics(&trusted, &relay).await,
        "captop_config_last_reload_success_timestamp_seconds",
    );
    assert_eq!(
        sample(
            &metrics(&trusted, &relay).await,
            "captop_config_last_reload_successful"
        ),
        1.0
    );
    assert_eq!(status_with(&trusted, &relay, OLD).await, 200);
    assert_eq!(status_with(&trusted, &relay, NEW).await, 401);

    let load = Arc::new(Load::default());
    let mut readers = start_load(&load, &trusted, relay.addr, &relay.url("/v1/capacity"));
    eventually("the load under way", || async {
        (load.answered.load(Ordering::Relaxed) >= 50).then_some(())
    })
    .await;

    // Rotation: a new certificate and key, NEW instead of OLD, then SIGHUP.
    let before = load.answered.load(Ordering::Relaxed);
    let rotation = Instant::now();
    relay.files.write_certificate(&second);
    relay.files.write_tokens(&[STABLE, NEW]);
    relay.hangup();
    let line = relay.wait_reload_line(1).await;
    assert!(
        line.contains("configuration reloaded") && line.contains("SIGHUP"),
        "{line}"
    );
    wait_presented(&trusted, &relay, &second).await;
    let during = load.answered.load(Ordering::Relaxed) - before;
    let took = rotation.elapsed();
    assert_eq!(
        status_with(&trusted, &relay, OLD).await,
        401,
        "the old token is refused"
    );
    assert_eq!(
        status_with(&trusted, &relay, NEW).await,
        200,
        "the new token is admitted"
    );
    let after_rotation = metrics(&trusted, &relay).await;
    assert_eq!(
        sample(&after_rotation, "captop_config_last_reload_successful"),
        1.0
    );
    let rotated_at = sample(
        &after_rotation,
        "captop_config_last_reload_success_timestamp_seconds",
    );
    assert!(rotated_at > started_at, "{rotated_at} > {started_at}");

    // An invalid certificate: refused, the previous one stays, the metric says 0.
    std::fs::write(&relay.files.cert, "-----BEGIN CERTIFICATE-----\nbroken\n").unwrap();
    relay.hangup();
    let line = relay.wait_reload_line(2).await;
    assert!(line.contains("configuration reload failed"), "{line}");
    assert!(
        line.contains(&relay.files.cert.display().to_string()),
        "{line}"
    );
    let refused = metrics(&trusted, &relay).await;
    assert_eq!(
        sample(&refused, "captop_config_last_reload_successful"),
        0.0
    );
    assert_eq!(
        sample(
            &refused,
            "captop_config_last_reload_success_timestamp_seconds"
        ),
        rotated_at
    );
    wait_presented(&trusted, &relay, &second).await;
    assert_eq!(status_with(&trusted, &relay, NEW).await, 200);

    // The files changed, no signal: the watcher picks them up once they have settled.
    relay.files.write_certificate(&third);
    relay.files.write_tokens(&[STABLE, NEWER]);
    let line = relay.wait_reload_line(3).await;
    assert!(
        line.contains("configuration reloaded") && line.contains("file change"),
        "{line}"
    );
    wait_presented(&trusted, &relay, &third).await;
    assert_eq!(status_with(&trusted, &relay, NEWER).await, 200);
    assert_eq!(status_with(&trusted, &relay, NEW).await, 401);
    assert_eq!(
        sample(
            &metrics(&trusted, &relay).await,
            "captop_config_last_reload_successful"
        ),
        1.0
    );

    load.stop.store(true, Ordering::Relaxed);
    while let Some(reader) = readers.join_next().await {
        reader.unwrap();
    }
    let answered = load.answered.load(Ordering::Relaxed);
    let failures = load.failures.lock().unwrap().clone();
    println!(
        "relay reload under load: {} readers ({KEEP_ALIVE_READERS} keep-alive, \
         {FRESH_READERS} a fresh TLS connection a request); requests during the rotation \
         (new files written, SIGHUP, until a new connection presented the new certificate, \
         {took:.2?}): {during}; requests in all: {answered}; failures: {}",
        KEEP_ALIVE_READERS + FRESH_READERS,
        failures.len()
    );
    assert!(failures.is_empty(), "failed requests: {failures:#?}");
    assert!(during > 0, "the load went on during the rotation");
    // One line a reload: SIGHUP twice and one watched change, and a watched change is acted
    // upon only when seen unchanged on two ticks 2 s apart, after the signal had taken it.
    let lines = relay.reload_lines();
    for line in &lines {
        println!("relay log: {line}");
    }
    assert_eq!(lines.len(), 3, "{lines:#?}");
    let log = relay.process.log().join("\n");
    for token in [STABLE, OLD, NEW, NEWER] {
        assert!(!log.contains(token), "a token in the log:\n{log}");
    }
    server.shutdown().await;
}
