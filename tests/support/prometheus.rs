//! A real Prometheus server and `promtool`, for the tests that need Debian's `prometheus`
//! package (they are `#[ignore = "needs prometheus"]`; `.ci/run` runs them with
//! `--include-ignored`).

#![allow(dead_code)] // Each test file uses a different part of the kit.

use std::io::Write;
use std::path::Path;
use std::process::{Child, Command, Stdio};

use serde_json::Value;

/// Runs `promtool` with `args`, `input` on stdin; returns (success, stdout + stderr).
pub fn promtool(args: &[&str], input: &str) -> (bool, String) {
    let mut child = Command::new("promtool")
        .args(args)
        .stdin(Stdio::piped())
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .spawn()
        .expect("promtool (Debian: apt-get install prometheus)");
    child
        .stdin
        .take()
        .expect("promtool's stdin")
        .write_all(input.as_bytes())
        .expect("write to promtool");
    let out = child.wait_with_output().expect("promtool's output");
    let said = format!(
        "{}{}",
        String::from_utf8_lossy(&out.stdout),
        String::from_utf8_lossy(&out.stderr)
    );
    (out.status.success(), said)
}

/// A port on loopback nothing listens on right now.
pub fn free_loopback_port() -> u16 {
    std::net::TcpListener::bind("127.0.0.1:0")
        .and_then(|l| l.local_addr())
        .expect("a free loopback port")
        .port()
}

/// A Prometheus server with its own data dir, killed when dropped.
pub struct PrometheusServer {
    child: Child,
    /// `127.0.0.1:PORT` of its web UI and HTTP API.
    pub web: String,
    client: reqwest::Client,
}

impl PrometheusServer {
    /// Writes `config` (prometheus.yml) into `dir` and starts Prometheus on it, its TSDB in
    /// `dir/data`. Does not wait: the queries wait for the answers they need.
    pub fn start(dir: &Path, config: &str) -> PrometheusServer {
        let config_path = dir.join("prometheus.yml");
        std::fs::write(&config_path, config).expect("write prometheus.yml");
        let web = format!("127.0.0.1:{}", free_loopback_port());
        let child = Command::new("prometheus")
            .arg(format!("--config.file={}", config_path.display()))
            .arg(format!(
                "--storage.tsdb.path={}",
                dir.join("data").display()
            ))
            .arg(format!("--web.listen-address={web}"))
            .stdin(Stdio::null())
            .stdout(Stdio::null())
            .stderr(Stdio::null())
            .spawn()
            .expect("prometheus (Debian: apt-get install prometheus)");
        PrometheusServer {
            child,
            web,
            client: reqwest::Client::new(),
        }
    }

    /// `GET /api/v1/<path>` with `params`: the `data` of a successful answer, else `None`
    /// (not up yet, a bad query: the caller retries or reports).
    pub async fn api(&self, path: &str, params: &[(&str, &str)]) -> Option<Value> {
        let url = format!("http://{}/api/v1/{path}", self.web);
        let url = url::Url::parse_with_params(&url, params).ok()?;
        let response = self.client.get(url).send().await.ok()?;
        let mut body: Value = serde_json::from_slice(&response.bytes().await.ok()?).ok()?;
        (body["status"] == "success").then(|| body["data"].take())
    }

    /// Waits until it says it is ready (its blocks loaded), at most 30 s.
    pub async fn wait_ready(&self) {
        let url = format!("http://{}/-/ready", self.web);
        for _ in 0..150 {
            if let Ok(r) = self.client.get(&url).send().await
                && r.status().is_success()
            {
                return;
            }
            tokio::time::sleep(std::time::Duration::from_millis(200)).await;
        }
        panic!("Prometheus at {} was not ready within 30 s", self.web);
    }

    /// An instant query's `result`: a list of series (for a vector).
    pub async fn query(&self, promql: &str) -> Option<Value> {
        let mut data = self.api("query", &[("query", promql)]).await?;
        Some(data["result"].take())
    }
}

impl Drop for PrometheusServer {
    fn drop(&mut self) {
        let _ = self.child.kill();
        let _ = self.child.wait();
    }
}
