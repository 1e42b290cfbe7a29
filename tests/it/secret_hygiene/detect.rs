//! Finding the key: every form of it (whole, `Bearer`, base64, hex, every long enough window),
//! the check that fails with the key masked, and a test of the detector itself.

use super::*;

/// One form of the key to look for.
pub(super) struct Needle {
    bytes: Vec<u8>,
    /// The marker it is replaced by in failure messages.
    marker: &'static str,
}

/// Every form of the key, longest first.
pub(super) fn needles() -> &'static [Needle] {
    static NEEDLES: OnceLock<Vec<Needle>> = OnceLock::new();
    NEEDLES.get_or_init(|| {
        let mut all = Vec::new();
        let mut add = |text: String, marker: &'static str| {
            if !all.iter().any(|n: &Needle| n.bytes == text.as_bytes()) {
                all.push(Needle {
                    bytes: text.into_bytes(),
                    marker,
                });
            }
        };
        add(format!("Bearer {KEY}"), "<KEY:bearer>");
        add(KEY.to_owned(), "<KEY>");
        for core in base64_cores(KEY.as_bytes()) {
            add(core, "<KEY:base64>");
        }
        add(hex(KEY.as_bytes()), "<KEY:hex>");
        add(hex(KEY.as_bytes()).to_uppercase(), "<KEY:hex>");
        add(byte_list(&RANDOM.as_bytes()[..8]), "<KEY:bytes>");
        for window in KEY.as_bytes().windows(12) {
            add(String::from_utf8(window.to_vec()).unwrap(), "<KEY:piece>");
        }
        for window in RANDOM.as_bytes().windows(8) {
            add(String::from_utf8(window.to_vec()).unwrap(), "<KEY:piece>");
        }
        all.sort_by_key(|n| std::cmp::Reverse(n.bytes.len()));
        all
    })
}

/// Standard base64, with padding.
pub(super) fn base64(bytes: &[u8]) -> String {
    const ALPHABET: &[u8; 64] = b"ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789+/";
    let mut out = String::new();
    for chunk in bytes.chunks(3) {
        let b = [
            chunk[0],
            chunk.get(1).copied().unwrap_or(0),
            chunk.get(2).copied().unwrap_or(0),
        ];
        let n = (u32::from(b[0]) << 16) | (u32::from(b[1]) << 8) | u32::from(b[2]);
        for i in 0..4 {
            if i <= chunk.len() {
                out.push(char::from(ALPHABET[((n >> (18 - 6 * i)) & 63) as usize]));
            } else {
                out.push('=');
            }
        }
    }
    out
}

/// The part of the base64 text of `secret` that is the same wherever `secret` sits in a longer
/// base64-encoded text: one core for each of the three alignments, in both alphabets.
pub(super) fn base64_cores(secret: &[u8]) -> Vec<String> {
    let mut cores = Vec::new();
    for shift in 0..3 {
        let mut bytes = vec![0u8; shift];
        bytes.extend_from_slice(secret);
        let encoded = base64(&bytes);
        // The first group mixes with what comes before (unless aligned), the last with what
        // comes after.
        let start = if shift == 0 { 0 } else { 4 };
        let core = encoded[start..encoded.len() - 4].to_owned();
        cores.push(core.replace('+', "-").replace('/', "_"));
        cores.push(core);
    }
    cores
}

pub(super) fn hex(bytes: &[u8]) -> String {
    bytes.iter().map(|b| format!("{b:02x}")).collect()
}

/// `[u8]`'s `Debug` form without the brackets: `55, 99, 49, …`.
pub(super) fn byte_list(bytes: &[u8]) -> String {
    bytes
        .iter()
        .map(u8::to_string)
        .collect::<Vec<_>>()
        .join(", ")
}

pub(super) fn find(haystack: &[u8], needle: &[u8]) -> Option<usize> {
    haystack.windows(needle.len()).position(|w| w == needle)
}

/// The earliest form of the key in `bytes` (the longest at that offset), with its offset.
pub(super) fn find_key(bytes: &[u8]) -> Option<(usize, &'static Needle)> {
    needles()
        .iter()
        .filter_map(|n| find(bytes, &n.bytes).map(|at| (at, n)))
        .min_by_key(|(at, n)| (*at, std::cmp::Reverse(n.bytes.len())))
}

/// `text` with every form of the key replaced by its marker.
pub(super) fn masked(text: &str) -> String {
    let mut out = text.to_owned();
    for needle in needles() {
        let form = std::str::from_utf8(&needle.bytes).unwrap();
        out = out.replace(form, needle.marker);
    }
    out
}

/// Fails the test when `bytes` hold the key in any form, saying where and showing a short
/// excerpt with the key masked.
#[track_caller]
pub(super) fn assert_no_key(label: &str, bytes: &[u8]) {
    let Some((at, needle)) = find_key(bytes) else {
        return;
    };
    let whole = masked(&String::from_utf8_lossy(bytes));
    let marker_at = whole.find(needle.marker).unwrap_or(0);
    let chars_before = whole[..marker_at].chars().count();
    let excerpt: String = whole
        .chars()
        .skip(chars_before.saturating_sub(100))
        .take(260)
        .collect();
    let excerpt = if find_key(excerpt.as_bytes()).is_some() {
        "(withheld: the excerpt still holds the key)".to_owned()
    } else {
        excerpt.escape_debug().to_string()
    };
    panic!(
        "THE KEY LEAKED in {label}: {} at byte {at} of {}; excerpt (key masked):\n…{excerpt}…",
        needle.marker,
        bytes.len()
    );
}

/// The printable text of a terminal byte stream in the order it was written: CSI, OSC, DCS and
/// other escape sequences and control characters dropped, so text drawn in pieces between
/// cursor moves reads as one string.
pub(super) fn strip_escapes(raw: &[u8]) -> Vec<u8> {
    let mut out = Vec::with_capacity(raw.len());
    let mut i = 0;
    while i < raw.len() {
        match raw[i] {
            0x1b => {
                i += 1;
                match raw.get(i) {
                    Some(b'[') => {
                        i += 1;
                        while i < raw.len() && !(0x40..=0x7e).contains(&raw[i]) {
                            i += 1;
                        }
                        i += 1;
                    }
                    Some(b']' | b'P' | b'_' | b'^' | b'X') => {
                        i += 1;
                        while i < raw.len() && raw[i] != 0x07 && raw[i] != 0x1b {
                            i += 1;
                        }
                        i += if raw.get(i) == Some(&0x1b) { 2 } else { 1 };
                    }
                    Some(b'(' | b')' | b'*' | b'+' | b'#') => i += 2,
                    Some(_) => i += 1,
                    None => {}
                }
            }
            b if b < 0x20 || b == 0x7f => i += 1,
            b => {
                out.push(b);
                i += 1;
            }
        }
    }
    out
}

#[test]
pub(super) fn the_detector_finds_every_form_of_the_key_and_never_prints_it() {
    let forms = [
        KEY.to_owned(),
        format!("Authorization: Bearer {KEY}"),
        format!("x{}y", base64(format!("user:{KEY}").as_bytes())),
        format!("{}…", &KEY[..16]),
        format!("…{}", &RANDOM[8..]),
        hex(KEY.as_bytes()),
        format!("{:?}", KEY.as_bytes()),
    ];
    for form in &forms {
        let text = format!("some output around it: {form} and after");
        assert!(find_key(text.as_bytes()).is_some(), "missed a form");
        let message = std::panic::catch_unwind(|| assert_no_key("a planted key", text.as_bytes()))
            .expect_err("planted key not reported");
        let message = message
            .downcast_ref::<String>()
            .cloned()
            .unwrap_or_default();
        assert!(
            message.contains("THE KEY LEAKED in a planted key"),
            "{}",
            masked(&message)
        );
        assert!(message.contains("<KEY"), "{}", masked(&message));
        assert!(
            find_key(message.as_bytes()).is_none(),
            "the failure message printed the key"
        );
    }
    // A key drawn in pieces between cursor moves is found once the escapes are stripped.
    let drawn = format!(
        "\x1b[3;5H{}\x1b[3;17H{}\x1b]0;title\x07",
        &KEY[..12],
        &KEY[12..]
    );
    assert!(find_key(&strip_escapes(drawn.as_bytes())).is_some());
    // What captop shows on purpose is not a leak: the fingerprint and the redaction marker.
    for fine in [
        format!("Key {FINGERPRINT} for profile `p` stored"),
        "key *** is revoked; you sent `Bearer ***`".to_owned(),
        "sk-hygiene-".to_owned(),
    ] {
        assert_no_key("allowed text", fine.as_bytes());
    }
    // A scan reads the files captop writes, and skips the test's own.
    let mut home = Home::new();
    home.write_own("config/captop/own.toml", KEY);
    std::fs::write(home.path().join("state").join("written"), b"no secret").unwrap();
    let files = home.scan("a planted home");
    assert_eq!(files, vec![home.path().join("state").join("written")]);
    std::fs::write(home.path().join("cache").join("leak"), KEY).unwrap();
    assert!(std::panic::catch_unwind(|| home.scan("a planted home")).is_err());
}
