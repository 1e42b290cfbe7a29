//! Bodies and replies that misbehave, shared by the fault tests of `--once`
//! (`tests/it/faults_once/`) and of the live dashboard (`tests/it/faults_dashboard/`).

use std::time::Duration;

use super::fault_server::{Body, Framing, Reply, Response};
use super::fixtures::CAPACITY;

/// [`CAPACITY`] with the first occurrence of `from` replaced by `to`.
pub fn capacity_with(from: &str, to: &str) -> String {
    assert!(CAPACITY.contains(from), "fixture has {from}");
    CAPACITY.replacen(from, to, 1)
}

/// 429 with this `Retry-After` value.
pub fn rate_limited(retry_after: &str) -> Reply {
    Response::new(429)
        .header("Retry-After", retry_after)
        .reply()
}

/// `bytes` as a gzip member made of stored (uncompressed) deflate blocks: a real gzip stream,
/// built by hand so the tests need no compression crate.
pub fn gzip_stored(bytes: &[u8]) -> Vec<u8> {
    let mut out = vec![0x1f, 0x8b, 8, 0, 0, 0, 0, 0, 0, 0xff];
    let mut blocks = bytes.chunks(65_535).peekable();
    if blocks.peek().is_none() {
        out.extend_from_slice(&[1, 0, 0, 0xff, 0xff]);
    }
    while let Some(block) = blocks.next() {
        out.push(u8::from(blocks.peek().is_none()));
        let len = block.len() as u16;
        out.extend_from_slice(&len.to_le_bytes());
        out.extend_from_slice(&(!len).to_le_bytes());
        out.extend_from_slice(block);
    }
    let mut crc = 0xffff_ffff_u32;
    for &b in bytes {
        crc ^= u32::from(b);
        for _ in 0..8 {
            crc = if crc & 1 == 1 {
                (crc >> 1) ^ 0xedb8_8320
            } else {
                crc >> 1
            };
        }
    }
    out.extend_from_slice(&(!crc).to_le_bytes());
    out.extend_from_slice(&(bytes.len() as u32).to_le_bytes());
    out
}

/// A string meant to hurt a terminal: ESC sequences, C1, bidi overrides, zero-width and wide
/// characters, line breaks.
pub const HOSTILE: &str = "Evil\u{1b}]0;pwned\u{7}\u{1b}[2J\u{9b}31m\u{202e}sogaL\u{202c}\u{200b}\u{2066}\u{feff}\r\n東京😀\t\u{0}end";

/// A consistent `/capacity` body with `n` routes, compact JSON.
pub fn many_routes(n: usize) -> Vec<u8> {
    serde_json::to_vec(&many_routes_doc(n)).unwrap()
}

pub fn many_routes_doc(n: usize) -> serde_json::Value {
    let routes: Vec<serde_json::Value> = (0..n)
        .map(|i| {
            let total = 100_000 + i as i64;
            let sold = total / 4;
            serde_json::json!({
                "route": format!("zz-route-{i:06}"),
                "name": format!("Country {i:06} – City of Somewhere"),
                "dial_code": format!("+{}", 100 + i % 900),
                "capacity_minutes": {"total": total, "sold": sold, "remaining": total - sold},
                "ports": {"total": 40, "sold": 10, "available": 30},
                "filled_pct": 25,
            })
        })
        .collect();
    let sum = |f: &dyn Fn(&serde_json::Value) -> i64| routes.iter().map(f).sum::<i64>();
    let total = sum(&|r| r["capacity_minutes"]["total"].as_i64().unwrap());
    let sold = sum(&|r| r["capacity_minutes"]["sold"].as_i64().unwrap());
    let doc = serde_json::json!({
        "generated_at": "2026-11-22T06:00:00Z",
        "routes": routes,
        "totals": {
            "routes": n,
            "capacity_minutes": {"total": total, "sold": sold, "remaining": total - sold},
            "ports": {"total": 40 * n, "sold": 10 * n, "available": 30 * n},
            "filled_pct": (sold * 100 + total / 2) / total,
        },
    });
    doc
}

/// [`CAPACITY`] with [`HOSTILE`] in every string field of the report and its routes.
pub fn hostile_capacity() -> Vec<u8> {
    let mut doc: serde_json::Value = serde_json::from_str(CAPACITY).unwrap();
    doc["unit_notes"] = HOSTILE.into();
    for route in doc["routes"].as_array_mut().unwrap() {
        route["route"] = HOSTILE.into();
        route["name"] = HOSTILE.into();
        route["dial_code"] = format!("+1{HOSTILE}").into();
    }
    serde_json::to_vec(&doc).unwrap()
}

/// [`CAPACITY`] with 100 KB strings: notes, the first route's slug and name, a dial code.
pub fn long_names_capacity() -> Vec<u8> {
    let long = "Ab東".repeat(100 * 1024 / 5);
    let mut doc: serde_json::Value = serde_json::from_str(CAPACITY).unwrap();
    doc["unit_notes"] = long.clone().into();
    doc["routes"][0]["name"] = long.clone().into();
    doc["routes"][0]["route"] = long.into();
    doc["routes"][1]["dial_code"] = format!("+{}", "9".repeat(100 * 1024)).into();
    serde_json::to_vec(&doc).unwrap()
}

/// `[[[…]]]`, `depth` arrays deep.
pub fn deep_arrays(depth: usize) -> String {
    format!("{}{}", "[".repeat(depth), "]".repeat(depth))
}

/// `{"a":{"a":…1…}}`, `depth` objects deep.
pub fn deep_objects(depth: usize) -> String {
    format!("{}1{}", "{\"a\":".repeat(depth), "}".repeat(depth))
}

/// A proxy's error page for `status`: big, styled, with an escape sequence in its heading.
pub fn html_error_page(status: u16) -> String {
    format!(
        "<html><head><title>{status} Error</title><style>body{{color:red}}</style></head>\
         <body><h1>Upstream \u{1b}[31mfailure</h1><p>{}</p></body></html>",
        "detail ".repeat(5_000)
    )
}

/// 200 with `body` sent one byte a second.
pub fn trickled(body: &[u8]) -> Reply {
    Response::new(200)
        .header("Content-Type", "application/json")
        .body(Body::Trickle {
            bytes: body.to_vec(),
            step: 1,
            every: Duration::from_secs(1),
        })
        .reply()
}

/// A response head that starts and never ends.
pub fn headers_that_never_end() -> Reply {
    Reply::RawThenStall(b"HTTP/1.1 200 OK\r\nContent-Type: application/json\r\nX-Slow: ".to_vec())
}

/// A response head of 20 000 headers, about 1 MB.
pub fn endless_header_section() -> Reply {
    let mut head = b"HTTP/1.1 200 OK\r\n".to_vec();
    for i in 0..20_000 {
        head.extend_from_slice(format!("X-Filler-{i}: {}\r\n", "a".repeat(40)).as_bytes());
    }
    Reply::Raw(head)
}

/// 200 announcing all of `body`, sending half of it, then resetting the connection.
pub fn reset_mid_body(body: &str) -> Reply {
    let half = body.as_bytes()[..body.len() / 2].to_vec();
    Response::new(200)
        .header("Content-Type", "application/json")
        .body(Body::ThenReset(half))
        .framing(Framing::ContentLengthOf(body.len() as u64))
        .reply()
}

/// 200 with 1 GiB of spaces, never held in memory, its end marked by `framing`.
pub fn huge_body(framing: Framing) -> Reply {
    Response::new(200)
        .header("Content-Type", "application/json")
        .body(Body::Repeat {
            byte: b' ',
            len: 1 << 30,
        })
        .framing(framing)
        .reply()
}

/// 200 announcing 100 bytes and sending 64 MiB.
pub fn content_length_lying_low() -> Reply {
    Response::new(200)
        .header("Content-Type", "application/json")
        .body(Body::Repeat {
            byte: b' ',
            len: 64 << 20,
        })
        .framing(Framing::ContentLengthOf(100))
        .reply()
}

/// 200 with `body` gzipped, though captop never asks for compression.
pub fn gzipped(body: &[u8]) -> Reply {
    Response::new(200)
        .header("Content-Type", "application/json")
        .header("Content-Encoding", "gzip")
        .body(Body::Bytes(gzip_stored(body)))
        .reply()
}

/// `body` with its first `XX` turned into the bytes FF FE, which are never UTF-8.
pub fn with_invalid_utf8(body: String) -> Vec<u8> {
    let mut bytes = body.into_bytes();
    let at = bytes.windows(2).position(|w| w == b"XX").unwrap();
    bytes[at] = 0xff;
    bytes[at + 1] = 0xfe;
    bytes
}

/// `body` after a UTF-8 byte-order mark.
pub fn with_bom(body: &str) -> Vec<u8> {
    let mut bytes = b"\xEF\xBB\xBF".to_vec();
    bytes.extend_from_slice(body.as_bytes());
    bytes
}

/// [`many_routes`] where every route breaks a rule (`filled_pct` 250): usable, but warned about.
pub fn rule_breaking_routes(n: usize) -> Vec<u8> {
    String::from_utf8(many_routes(n))
        .unwrap()
        .replace("\"filled_pct\":25", "\"filled_pct\":250")
        .into_bytes()
}
