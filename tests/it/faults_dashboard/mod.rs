//! The fault matrix for the live dashboard: the real binary in a real pseudo-terminal (120×40)
//! against a local server that cycles through every fault of `tests/it/faults_once/`.
//!
//! Each fault is one step: the server switches to it, the test presses `r`, and the dashboard
//! must show the error in its footer while the last good figures stay on screen; then the
//! server answers well again (with a route renamed `Lagos NN`, so every recovery shows new
//! figures) and the error must clear. Faults whose data is usable (odd content types, hostile
//! strings, 10 000 routes…) must show that data instead. The faults are shared out over four
//! dashboards that run side by side, each with a `/health` of its own (honest, lying about the
//! version, failing, silent) and each ending on a different 429 hold; then `q` must end it with
//! exit 0 and the terminal handed back, and nothing captop wrote to the terminal may hold an
//! escape sequence or bidi control from the server, or the key.
//!
//! `cargo test --test it faults_dashboard:: -- --nocapture` prints the footer seen for every fault.

#![allow(
    clippy::unwrap_used,
    clippy::expect_used,
    clippy::panic,
    clippy::indexing_slicing
)]

use crate::support;

use std::sync::{Arc, Mutex};
use std::time::Duration;

use support::fault_server::{Body, FaultServer, Framing, RecordedRequest, Reply, Response};
use support::faults::*;
use support::fixtures::{CAPACITY, HEALTH, UTILIZATION};
use support::pty::{Pty, captop};

/// The key every dashboard is given; it must never reach the terminal.
const KEY: &str = "sk-fault-dashboard-5f0e1d2c3b4a";
const COLS: u16 = 120;
const ROWS: u16 = 40;
/// The `--timeout` of every dashboard, in seconds.
const TIMEOUT_SECS: &str = "2";
/// How many dashboards share the faults out.
const DASHBOARDS: usize = 4;

/// What the server answers while one step lasts.
#[derive(Clone)]
struct Phase {
    capacity: Reply,
    utilization: Reply,
}

/// What the dashboard must show for a fault.
#[derive(Clone, Copy)]
enum Expect {
    /// An error (`✖`) in the footer holding every needle (case-insensitive), the last good
    /// figures still on screen.
    Error(&'static [&'static str]),
    /// The 429 warning in the footer, the last good figures still on screen.
    RateLimited,
    /// Usable data: the routes table shows this text.
    Store(&'static str),
}

/// Which endpoints misbehave.
#[derive(Clone, Copy)]
enum On {
    Capacity,
    Utilization,
    Both,
}

/// One fault of the cycle.
struct Fault {
    name: &'static str,
    on: On,
    reply: Reply,
    expect: Expect,
}

impl Fault {
    fn new(name: &'static str, on: On, reply: Reply, expect: Expect) -> Fault {
        Fault {
            name,
            on,
            reply,
            expect,
        }
    }

    /// What the server answers during this fault, `good` on the endpoints it spares.
    fn phase(&self, good: Phase) -> Phase {
        let reply = self.reply.clone();
        match self.on {
            On::Capacity => Phase {
                capacity: reply,
                ..good
            },
            On::Utilization => Phase {
                utilization: reply,
                ..good
            },
            On::Both => Phase {
                capacity: reply.clone(),
                utilization: reply,
            },
        }
    }
}

fn json_200(body: impl Into<Vec<u8>>) -> Reply {
    Reply::json(200, body)
}

/// The good answer of step `n`: the fixtures, with Lagos renamed `Lagos NN`.
fn good(n: usize) -> Phase {
    Phase {
        capacity: json_200(capacity_with("Nigeria – Lagos", &marker(n))),
        utilization: json_200(UTILIZATION),
    }
}

fn marker(n: usize) -> String {
    format!("Lagos {n:02}")
}

/// [`CAPACITY`] with Lagos renamed `name`, for the faults whose data is usable.
fn renamed(name: &str) -> String {
    capacity_with("Nigeria – Lagos", name)
}

fn sent_with(content_type: Option<&str>, body: impl Into<Vec<u8>>) -> Reply {
    let response = Response::new(200).body(Body::Bytes(body.into()));
    match content_type {
        Some(t) => response.header("Content-Type", t),
        None => response,
    }
    .reply()
}

/// Every fault of the `--once` matrix that a running dashboard can meet, in the order the
/// dashboards take them (round robin).
#[expect(
    clippy::too_many_lines,
    reason = "the fault matrix is one table, a row per fault"
)]
fn catalogue() -> Vec<Fault> {
    use Expect::{Error, RateLimited, Store};
    let (capacity, both) = (On::Capacity, On::Both);
    vec![
        Fault::new(
            "trickled body",
            both,
            trickled(CAPACITY.as_bytes()),
            Error(&["timed out after 2 s"]),
        ),
        Fault::new(
            "headers that never end",
            both,
            headers_that_never_end(),
            Error(&["timed out"]),
        ),
        Fault::new("stalled server", both, Reply::Stall, Error(&["timed out"])),
        Fault::new(
            "endless header section",
            capacity,
            endless_header_section(),
            Error(&["too large"]),
        ),
        Fault::new(
            "connection reset mid-body",
            capacity,
            reset_mid_body(CAPACITY),
            Error(&["reset"]),
        ),
        Fault::new(
            "connection closed without answer",
            both,
            Reply::Close,
            Error(&[]),
        ),
        Fault::new(
            "1 GiB body with Content-Length",
            capacity,
            huge_body(Framing::ContentLength),
            Error(&["larger than"]),
        ),
        Fault::new(
            "1 GiB body chunked",
            capacity,
            huge_body(Framing::Chunked),
            Error(&["larger than"]),
        ),
        Fault::new(
            "1 GiB body without length",
            capacity,
            huge_body(Framing::CloseDelimited),
            Error(&["larger than"]),
        ),
        Fault::new(
            "Content-Length that lies low",
            capacity,
            content_length_lying_low(),
            Error(&["bad response"]),
        ),
        Fault::new(
            "gzip body",
            capacity,
            gzipped(CAPACITY.as_bytes()),
            Error(&["gzip"]),
        ),
        Fault::new(
            "wrong Content-Type",
            capacity,
            sent_with(Some("text/plain"), renamed("Plain Lagos")),
            Store("Plain Lagos"),
        ),
        Fault::new(
            "missing Content-Type",
            capacity,
            sent_with(None, renamed("Untyped Lagos")),
            Store("Untyped Lagos"),
        ),
        Fault::new(
            "HTML page with 200",
            capacity,
            Reply::html(
                200,
                "<!doctype html><html><body>Log in to the Wi-Fi</body></html>",
            ),
            Error(&["text/html"]),
        ),
        Fault::new(
            "invalid UTF-8",
            capacity,
            json_200(with_invalid_utf8(renamed("Lagos XX"))),
            Error(&["bad response"]),
        ),
        Fault::new(
            "UTF-8 BOM",
            capacity,
            json_200(with_bom(&renamed("Bom Lagos"))),
            Store("Bom Lagos"),
        ),
        Fault::new(
            "JSON nested 50 000 deep",
            capacity,
            json_200(capacity_with(
                "\"routes\": [",
                &format!("\"routes\": [{},", deep_arrays(50_000)),
            )),
            Error(&["bad response"]),
        ),
        Fault::new(
            "JSON nested 50 000 deep in an unknown field",
            capacity,
            json_200(renamed("Deep Lagos").replacen(
                "\"unit_notes\"",
                &format!("\"extra\": {}, \"unit_notes\"", deep_arrays(50_000)),
                1,
            )),
            Store("Deep Lagos"),
        ),
        Fault::new(
            "number beyond i64",
            capacity,
            json_200(capacity_with(
                "\"total\": 100000",
                "\"total\": 9223372036854775808",
            )),
            Error(&["capacity_minutes.total"]),
        ),
        Fault::new(
            "fraction where an integer belongs",
            capacity,
            json_200(capacity_with("\"sold\": 25000", "\"sold\": 2.5e4")),
            Error(&["capacity_minutes.sold"]),
        ),
        Fault::new(
            "NaN token",
            capacity,
            json_200(capacity_with("\"filled_pct\": 25", "\"filled_pct\": NaN")),
            Error(&["bad response"]),
        ),
        Fault::new(
            "NaN utilization",
            On::Utilization,
            json_200(UTILIZATION.replace("\"utilization_pct\": 25.0", "\"utilization_pct\": NaN")),
            Error(&["/utilization", "utilization_pct"]),
        ),
        Fault::new(
            "duplicate keys",
            capacity,
            json_200(capacity_with(
                "\"sold\": 25000",
                "\"sold\": 25000, \"sold\": 99999999",
            )),
            Error(&["duplicate field"]),
        ),
        Fault::new(
            "empty body with 200",
            capacity,
            json_200(Vec::new()),
            Error(&["empty"]),
        ),
        Fault::new(
            "204 No Content",
            capacity,
            Reply::status(204),
            Error(&["204"]),
        ),
        Fault::new(
            "redirect to another host",
            capacity,
            Response::new(302)
                .header("Location", "http://192.0.2.1/v1/capacity")
                .reply(),
            Error(&["redirected (302)"]),
        ),
        Fault::new(
            "401 without body",
            both,
            Reply::status(401),
            Error(&["401"]),
        ),
        Fault::new("429 Retry-After 1 s", both, rate_limited("1"), RateLimited),
        Fault::new(
            "429 Retry-After in the past",
            both,
            rate_limited("Sun, 06 Nov 1994 08:49:37 GMT"),
            RateLimited,
        ),
        Fault::new(
            "500 HTML page",
            both,
            Reply::html(500, html_error_page(500)),
            Error(&["HTTP 500", "Upstream"]),
        ),
        Fault::new(
            "502 HTML page",
            both,
            Reply::html(502, html_error_page(502)),
            Error(&["HTTP 502", "Upstream"]),
        ),
        Fault::new(
            "503 HTML page",
            both,
            Reply::html(503, html_error_page(503)),
            Error(&["HTTP 503", "Upstream"]),
        ),
        Fault::new(
            "garbage instead of HTTP",
            capacity,
            Reply::Raw(b"\x16\x03\x01garbage\r\n\r\n".to_vec()),
            Error(&[]),
        ),
        Fault::new(
            "control, bidi, zero-width and wide characters in every string",
            capacity,
            json_200(hostile_capacity()),
            Store("Evil"),
        ),
        Fault::new(
            "100 KB names",
            capacity,
            json_200(long_names_capacity()),
            Store("Ab東Ab東"),
        ),
        Fault::new(
            "10 000 routes",
            capacity,
            json_200(many_routes(10_000)),
            Store("Country 00"),
        ),
        Fault::new(
            "100 000 routes",
            capacity,
            json_200(many_routes(100_000)),
            Error(&["larger than"]),
        ),
        Fault::new(
            "2 000 routes breaking the rules",
            capacity,
            json_200(rule_breaking_routes(2_000)),
            Store("Country 00"),
        ),
    ]
}

// Four dashboards side by side, driven through the catalogue.
mod dashboards;
