//! What the dashboard costs, measured from outside as a user's terminal sees it, for
//! `scripts/bench.sh`: the time from spawning captop in a pseudo-terminal to the first complete
//! frame, then over an idle window the CPU time it used (utime + stime from `/proc/PID/stat`),
//! the bytes it wrote to the terminal, and its resident memory (`VmHWM`, `VmRSS`).
//!
//! ```text
//! cargo run --release --features examples --example dashboard_cost -- --cols 160 --rows 48 --window 60 \
//!     --expect "Total, 10,000 routes" --expect "run today" -- target/release/captop --base-url …
//! ```
//!
//! A frame is complete when every `--expect` text is on the emulated screen (vt100). The
//! window starts one second after that frame, so start-up is not counted as idle, or
//! `--settle SECS` later still, to measure a dashboard whose histories have filled. A window of
//! more than 30 s is also sampled every second, thread by thread (`/proc/PID/task/*/schedstat`,
//! nanoseconds), for every 30-s window within it: the mean, the worst, how many went over 0.3 %
//! of a core, and the history thread's share. Prints one line of `name=value` pairs; exits 1 if
//! the frame never completes within `--patience`.
//! The environment (key, config, runtime dir) is the caller's.

use std::io::{Read, Write};
use std::num::NonZeroU16;
use std::sync::{Arc, Condvar, Mutex};
use std::time::{Duration, Instant};

use portable_pty::{CommandBuilder, PtySize, native_pty_system};

/// What the reader thread has seen so far.
struct Seen {
    bytes: u64,
    parser: vt100::Parser,
    complete_at: Option<Instant>,
    closed: bool,
}

struct Opts {
    cols: u16,
    rows: u16,
    window: f64,
    settle: f64,
    patience: f64,
    clk_tck: f64,
    expect: Vec<String>,
    command: Vec<String>,
}

fn parse() -> anyhow::Result<Opts> {
    let mut opts = Opts {
        cols: 160,
        rows: 48,
        window: 0.0,
        settle: 0.0,
        patience: 30.0,
        clk_tck: 100.0,
        expect: Vec::new(),
        command: Vec::new(),
    };
    let mut args = std::env::args().skip(1);
    while let Some(arg) = args.next() {
        let mut value = || {
            args.next()
                .ok_or_else(|| anyhow::anyhow!("{arg} needs a value"))
        };
        match arg.as_str() {
            "--cols" => opts.cols = value()?.parse()?,
            "--rows" => opts.rows = value()?.parse()?,
            "--window" => opts.window = value()?.parse()?,
            "--settle" => opts.settle = value()?.parse()?,
            "--patience" => opts.patience = value()?.parse()?,
            "--clk-tck" => opts.clk_tck = value()?.parse()?,
            "--expect" => opts.expect.push(value()?),
            "--" => {
                opts.command = args.by_ref().collect();
            }
            other => anyhow::bail!("unknown argument {other}"),
        }
    }
    if opts.command.is_empty() {
        anyhow::bail!(
            "usage: dashboard_cost [--cols N] [--rows N] [--window SECS] [--settle SECS] [--expect TEXT]... -- COMMAND ARGS..."
        );
    }
    Ok(opts)
}

/// utime + stime of the whole process, in clock ticks (field 14 and 15 of `/proc/PID/stat`,
/// counted after the command name, which may itself hold spaces and parentheses).
fn cpu_ticks(pid: u32) -> anyhow::Result<u64> {
    let stat = std::fs::read_to_string(format!("/proc/{pid}/stat"))?;
    let after = stat
        .rsplit_once(')')
        .map(|(_, rest)| rest)
        .ok_or_else(|| anyhow::anyhow!("odd /proc/{pid}/stat"))?;
    let fields: Vec<&str> = after.split_whitespace().collect();
    // After ")": state is field 3, so utime (14) and stime (15) are at 11 and 12.
    let utime: u64 = fields
        .get(11)
        .ok_or_else(|| anyhow::anyhow!("no utime"))?
        .parse()?;
    let stime: u64 = fields
        .get(12)
        .ok_or_else(|| anyhow::anyhow!("no stime"))?
        .parse()?;
    Ok(utime + stime)
}

/// A `kB` field of `/proc/PID/status`.
fn status_kb(pid: u32, field: &str) -> anyhow::Result<u64> {
    let status = std::fs::read_to_string(format!("/proc/{pid}/status"))?;
    status
        .lines()
        .find_map(|line| line.strip_prefix(field))
        .and_then(|rest| rest.trim_start_matches(':').split_whitespace().next())
        .ok_or_else(|| anyhow::anyhow!("no {field} in /proc/{pid}/status"))?
        .parse()
        .map_err(Into::into)
}

/// Reads the pty until it closes: counts the bytes, feeds the emulator, and notes when every
/// expected text is first on screen.
fn spawn_reader(
    mut reader: Box<dyn Read + Send>,
    seen: Arc<(Mutex<Seen>, Condvar)>,
    expect: Vec<String>,
) -> std::thread::JoinHandle<()> {
    std::thread::spawn(move || {
        let mut buf = vec![0u8; 64 * 1024];
        loop {
            let n = reader.read(&mut buf).unwrap_or(0);
            let (lock, cvar) = &*seen;
            let Ok(mut s) = lock.lock() else { return };
            if n == 0 {
                s.closed = true;
                cvar.notify_all();
                return;
            }
            s.bytes += n as u64;
            s.parser.process(buf.get(..n).unwrap_or_default());
            if s.complete_at.is_none() {
                let screen = s.parser.screen().contents();
                if expect.iter().all(|e| screen.contains(e.as_str())) {
                    s.complete_at = Some(Instant::now());
                    cvar.notify_all();
                }
            }
        }
    })
}

/// CPU time on the processor so far, in nanoseconds, of all of `pid`'s threads and of those
/// named `*history*` (the history writer): the first field of each `/proc/PID/task/TID/schedstat`.
fn thread_cpu_ns(pid: u32) -> anyhow::Result<(u64, u64)> {
    let (mut all, mut history) = (0, 0);
    for task in std::fs::read_dir(format!("/proc/{pid}/task"))? {
        let dir = task?.path();
        // A thread may end between the listing and the read.
        let Ok(stat) = std::fs::read_to_string(dir.join("schedstat")) else {
            continue;
        };
        let ns: u64 = stat.split_whitespace().next().unwrap_or("0").parse()?;
        all += ns;
        let name = std::fs::read_to_string(dir.join("comm")).unwrap_or_default();
        if name.contains("history") {
            history += ns;
        }
    }
    Ok((all, history))
}

/// Every 30-s window of a run sampled each second (`(all, history)` ns so far): the mean and the
/// worst window's CPU of the process, the windows over 0.3 % of a core (90 ms), and the history
/// thread's mean and worst window, as `name=value` pairs.
fn windows_30s(samples: &[(u64, u64)]) -> String {
    let windows: Vec<(f64, f64)> = samples
        .iter()
        .zip(samples.iter().skip(30))
        .map(|(a, b)| {
            let ms = |x: u64, y: u64| y.saturating_sub(x) as f64 / 1e6;
            (ms(a.0, b.0), ms(a.1, b.1))
        })
        .collect();
    if windows.is_empty() {
        return String::new();
    }
    let n = windows.len() as f64;
    let worst = |f: fn(&(f64, f64)) -> f64| windows.iter().map(f).fold(0.0, f64::max);
    let mean = |f: fn(&(f64, f64)) -> f64| windows.iter().map(f).sum::<f64>() / n;
    format!(
        " windows_30s={} mean_30s_ms={:.1} worst_30s_ms={:.1} over_0_3pct={} history_mean_30s_ms={:.1} history_worst_30s_ms={:.1}",
        windows.len(),
        mean(|w| w.0),
        worst(|w| w.0),
        windows.iter().filter(|w| w.0 > 90.0).count(),
        mean(|w| w.1),
        worst(|w| w.1),
    )
}

/// CPU, terminal bytes and memory over the idle window, as `name=value` pairs; with a window
/// of more than 30 s, also every 30-s window within it (CPU sampled each second, per thread).
fn idle_window(opts: &Opts, pid: u32, seen: &(Mutex<Seen>, Condvar)) -> anyhow::Result<String> {
    std::thread::sleep(Duration::from_secs_f64(1.0 + opts.settle));
    let bytes_before = seen.0.lock().map(|s| s.bytes).unwrap_or(0);
    let ticks_before = cpu_ticks(pid)?;
    let window_start = Instant::now();
    let mut per_second = vec![thread_cpu_ns(pid)?];
    let end = window_start + Duration::from_secs_f64(opts.window);
    for second in 1u32.. {
        let next = window_start + Duration::from_secs(u64::from(second));
        if next > end {
            break;
        }
        std::thread::sleep(next.saturating_duration_since(Instant::now()));
        per_second.push(thread_cpu_ns(pid)?);
    }
    std::thread::sleep(end.saturating_duration_since(Instant::now()));
    let ticks = cpu_ticks(pid)? - ticks_before;
    let elapsed = window_start.elapsed().as_secs_f64();
    let bytes = seen.0.lock().map(|s| s.bytes).unwrap_or(0) - bytes_before;
    let cpu_pct = ticks as f64 / opts.clk_tck / elapsed * 100.0;
    Ok(format!(
        " cpu_pct={cpu_pct:.3} cpu_ticks={ticks} window_s={elapsed:.1} bytes_per_min={:.0} vmhwm_kb={} vmrss_kb={}{}",
        bytes as f64 / elapsed * 60.0,
        status_kb(pid, "VmHWM")?,
        status_kb(pid, "VmRSS")?,
        windows_30s(&per_second),
    ))
}

fn main() -> anyhow::Result<()> {
    let opts = parse()?;
    let pair = native_pty_system().openpty(PtySize {
        rows: opts.rows,
        cols: opts.cols,
        pixel_width: 0,
        pixel_height: 0,
    })?;
    let Some((program, args)) = opts.command.split_first() else {
        anyhow::bail!("no command to run");
    };
    let mut cmd = CommandBuilder::new(program);
    cmd.args(args);
    if let Ok(dir) = std::env::current_dir() {
        cmd.cwd(dir);
    }
    let seen = Arc::new((
        Mutex::new(Seen {
            bytes: 0,
            parser: vt100::Parser::new(
                NonZeroU16::new(opts.rows).unwrap_or(NonZeroU16::MIN),
                NonZeroU16::new(opts.cols).unwrap_or(NonZeroU16::MIN),
                0,
            ),
            complete_at: None,
            closed: false,
        }),
        Condvar::new(),
    ));
    let reader = pair.master.try_clone_reader()?;
    let mut writer = pair.master.take_writer()?;
    let started = Instant::now();
    let mut child = pair.slave.spawn_command(cmd)?;
    drop(pair.slave);
    let pid = child
        .process_id()
        .ok_or_else(|| anyhow::anyhow!("no pid"))?;
    let reading = spawn_reader(reader, seen.clone(), opts.expect.clone());

    // The first complete frame.
    let first = {
        let (lock, cvar) = &*seen;
        let guard = lock.lock().map_err(|_| anyhow::anyhow!("reader died"))?;
        let (guard, _) = cvar
            .wait_timeout_while(guard, Duration::from_secs_f64(opts.patience), |s| {
                s.complete_at.is_none() && !s.closed
            })
            .map_err(|_| anyhow::anyhow!("reader died"))?;
        match guard.complete_at {
            Some(at) => at.duration_since(started),
            None => {
                eprintln!(
                    "dashboard_cost: no complete frame within {} s; the screen:\n{}",
                    opts.patience,
                    guard.parser.screen().contents()
                );
                drop(guard);
                let _ = child.kill();
                std::process::exit(1);
            }
        }
    };
    let mut line = format!("first_frame_ms={:.1}", first.as_secs_f64() * 1000.0);

    if opts.window > 0.0 {
        line.push_str(&idle_window(&opts, pid, &seen)?);
    }

    // Quit as a user would, then make sure it is gone.
    let _ = writer.write_all(b"q");
    let _ = writer.flush();
    let deadline = Instant::now() + Duration::from_secs(5);
    while Instant::now() < deadline {
        if let Ok(Some(_)) = child.try_wait() {
            break;
        }
        std::thread::sleep(Duration::from_millis(20));
    }
    let _ = child.kill();
    let _ = child.wait();
    drop(writer);
    drop(pair.master);
    let _ = reading.join();
    println!("{line}");
    Ok(())
}
