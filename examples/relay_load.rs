//! Load generator for `captop serve` (issue 13's benchmark; `scripts/relay-bench.sh` runs it).
//!
//! ```text
//! cargo run --release --features examples --example relay_load -- URL TOKEN CONNECTIONS SECONDS [RATE] [PID]
//! ```
//!
//! Opens `CONNECTIONS` keep-alive HTTP/1.1 connections to `URL` (plain http, loopback) and sends
//! `GET` with `Authorization: Bearer TOKEN` on each, for `SECONDS`. With `RATE` (requests per
//! second over all connections, 0 for "as fast as they answer") each connection sends on a fixed
//! schedule and latency is measured from the scheduled time, so a stall is not hidden by the
//! requests it kept from being sent. Prints requests/s, p50/p99/max latency, and, with `PID`,
//! that process's CPU use and resident memory from `/proc`.

use std::time::{Duration, Instant};

use tokio::io::{AsyncReadExt, AsyncWriteExt};
use tokio::net::TcpStream;

type Failure = Box<dyn std::error::Error + Send + Sync>;

struct Target {
    addr: String,
    request: Vec<u8>,
}

/// Reads one response; returns its status.
async fn read_response(
    stream: &mut TcpStream,
    buf: &mut Vec<u8>,
    chunk: &mut [u8],
) -> Result<u16, Failure> {
    buf.clear();
    let head_end = loop {
        if let Some(at) = buf.windows(4).position(|w| w == b"\r\n\r\n") {
            break at + 4;
        }
        let n = stream.read(chunk).await?;
        if n == 0 {
            return Err("connection closed".into());
        }
        buf.extend_from_slice(chunk.get(..n).unwrap_or_default());
    };
    let head =
        String::from_utf8_lossy(buf.get(..head_end).unwrap_or_default()).to_ascii_lowercase();
    let status = head
        .split(' ')
        .nth(1)
        .and_then(|s| s.parse().ok())
        .ok_or("no status")?;
    let length: usize = head
        .lines()
        .find_map(|l| l.strip_prefix("content-length:"))
        .and_then(|v| v.trim().parse().ok())
        .unwrap_or(0);
    // The body is counted, not kept: copying 2 MB a request would make this the bottleneck.
    let mut left = (head_end + length).saturating_sub(buf.len());
    while left > 0 {
        let n = stream.read(chunk).await?;
        if n == 0 {
            return Err("connection closed in the body".into());
        }
        left = left.saturating_sub(n);
    }
    Ok(status)
}

/// One connection's loop; returns its latencies in microseconds and its error count.
async fn connection(
    target: &Target,
    until: Instant,
    period: Option<Duration>,
    offset: Duration,
) -> Result<(Vec<u32>, u64), Failure> {
    let mut stream = TcpStream::connect(&target.addr).await?;
    stream.set_nodelay(true)?;
    let mut buf = Vec::with_capacity(64 * 1024);
    let mut chunk = vec![0u8; 256 * 1024];
    let mut latencies = Vec::new();
    let mut errors = 0;
    let mut scheduled = Instant::now() + offset;
    while scheduled < until {
        if period.is_some() {
            tokio::time::sleep_until(scheduled.into()).await;
        } else {
            scheduled = Instant::now();
        }
        stream.write_all(&target.request).await?;
        let status = read_response(&mut stream, &mut buf, &mut chunk).await?;
        if status != 200 {
            errors += 1;
        }
        let took = scheduled.elapsed();
        latencies.push(u32::try_from(took.as_micros()).unwrap_or(u32::MAX));
        if let Some(period) = period {
            scheduled += period;
        }
    }
    Ok((latencies, errors))
}

/// utime + stime in clock ticks, and VmRSS / VmHWM in kB, of `pid`.
fn proc_stats(pid: u32) -> Option<(u64, u64, u64)> {
    let stat = std::fs::read_to_string(format!("/proc/{pid}/stat")).ok()?;
    let after_name = stat.rsplit_once(')')?.1;
    let fields: Vec<&str> = after_name.split_whitespace().collect();
    let ticks = fields.get(11)?.parse::<u64>().ok()? + fields.get(12)?.parse::<u64>().ok()?;
    let status = std::fs::read_to_string(format!("/proc/{pid}/status")).ok()?;
    let kb = |name: &str| {
        status
            .lines()
            .find_map(|l| l.strip_prefix(name))
            .and_then(|v| v.split_whitespace().next()?.parse().ok())
    };
    Some((ticks, kb("VmRSS:")?, kb("VmHWM:")?))
}

fn percentile(sorted: &[u32], p: f64) -> f64 {
    if sorted.is_empty() {
        return f64::NAN;
    }
    let index = ((sorted.len() - 1) as f64 * p).round() as usize;
    f64::from(sorted.get(index).copied().unwrap_or(0)) / 1000.0
}

#[tokio::main]
async fn main() -> Result<(), Failure> {
    let args: Vec<String> = std::env::args().skip(1).collect();
    let arg = |i: usize| args.get(i).map(String::as_str);
    let (Some(url), Some(token), Some(connections), Some(seconds)) =
        (arg(0), arg(1), arg(2), arg(3))
    else {
        return Err("usage: relay_load URL TOKEN CONNECTIONS SECONDS [RATE] [PID]".into());
    };
    let url = url::Url::parse(url)?;
    let connections: usize = connections.parse()?;
    let seconds: f64 = seconds.parse()?;
    let rate: f64 = arg(4).map_or(Ok(0.0), str::parse)?;
    let pid: Option<u32> = arg(5).map(str::parse).transpose()?;
    let host = url.host_str().ok_or("no host")?;
    let port = url.port_or_known_default().ok_or("no port")?;
    let target = std::sync::Arc::new(Target {
        addr: format!("{host}:{port}"),
        request: format!(
            "GET {} HTTP/1.1\r\nHost: {host}:{port}\r\nAuthorization: Bearer {token}\r\n\r\n",
            url.path()
        )
        .into_bytes(),
    });
    let period = (rate > 0.0).then(|| Duration::from_secs_f64(connections as f64 / rate));
    let before = pid.and_then(proc_stats);
    let started = Instant::now();
    let until = started + Duration::from_secs_f64(seconds);
    let mut tasks = tokio::task::JoinSet::new();
    for i in 0..connections {
        let target = std::sync::Arc::clone(&target);
        let offset = period.map_or(Duration::ZERO, |p| p.mul_f64(i as f64 / connections as f64));
        tasks.spawn(async move { connection(&target, until, period, offset).await });
    }
    let mut latencies = Vec::new();
    let (mut errors, mut failed) = (0u64, 0u64);
    while let Some(done) = tasks.join_next().await {
        match done? {
            Ok((l, e)) => {
                latencies.extend(l);
                errors += e;
            }
            Err(_) => failed += 1,
        }
    }
    let wall = started.elapsed().as_secs_f64();
    let after = pid.and_then(proc_stats);
    latencies.sort_unstable();
    let ticks_per_s = 100.0; // USER_HZ on Linux
    let cpu = match (before, after) {
        (Some((b, ..)), Some((a, rss, hwm))) => format!(
            " relay_cpu={:.0}% relay_rss={:.1}MB relay_peak_rss={:.1}MB",
            (a.saturating_sub(b)) as f64 / ticks_per_s / wall * 100.0,
            rss as f64 / 1024.0,
            hwm as f64 / 1024.0
        ),
        _ => String::new(),
    };
    println!(
        "{} conns={connections} rate={} req/s={:.0} p50={:.2}ms p99={:.2}ms max={:.2}ms non200={errors} broken_conns={failed}{cpu}",
        url.path(),
        if rate > 0.0 {
            format!("{rate:.0}")
        } else {
            "max".to_owned()
        },
        latencies.len() as f64 / wall,
        percentile(&latencies, 0.50),
        percentile(&latencies, 0.99),
        percentile(&latencies, 1.0),
    );
    Ok(())
}
