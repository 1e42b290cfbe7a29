//! Making untrusted server text safe to show: no control characters, and cut to a display width.
//!
//! Route names and error texts come from the server. Written to a terminal as they are, an ESC
//! could move the cursor or retitle the window, a bidi override could make `Lagos` read as
//! something else, and a zero-width joiner could hide a difference between two names. ratatui
//! drops C0/C1 controls itself but passes bidi and zero-width characters through, so every
//! server string goes through [`sanitize`] before it reaches a widget or stdout.

use std::borrow::Cow;
use unicode_width::{UnicodeWidthChar, UnicodeWidthStr};

/// The character that stands in for anything removed, so a reader sees that something was there.
pub const REPLACEMENT: char = '\u{FFFD}';

/// Whether `c` must never reach a terminal: C0 and C1 controls, DEL, bidi embeddings, overrides
/// and isolates, zero-width and invisible formatting characters, line and paragraph separators.
pub fn is_unsafe(c: char) -> bool {
    c.is_control()
        || matches!(
            c,
            '\u{00AD}'                      // soft hyphen
            | '\u{061C}'                    // Arabic letter mark
            | '\u{115F}' | '\u{1160}'       // Hangul fillers
            | '\u{180E}'                    // Mongolian vowel separator
            | '\u{200B}'..='\u{200F}'       // zero-width space/joiners, LRM, RLM
            | '\u{2028}'..='\u{202E}'       // separators, bidi embeddings and overrides
            | '\u{2060}'..='\u{206F}'       // word joiner, invisible operators, isolates
            | '\u{3164}'                    // Hangul filler
            | '\u{FE00}'..='\u{FE0F}'       // variation selectors
            | '\u{FEFF}'                    // zero-width no-break space / BOM
            | '\u{FFA0}'                    // halfwidth Hangul filler
            | '\u{FFF9}'..='\u{FFFB}'       // interlinear annotation
            | '\u{E0000}'..='\u{E007F}'     // tags
        )
}

/// Replaces every unsafe character (see [`is_unsafe`]) with [`REPLACEMENT`]; tabs and line
/// breaks become a plain space so a one-line field stays on one line.
///
/// A whole terminal escape sequence (`ESC [ 31 m`, `ESC ] 0 ; title BEL`, their C1 forms)
/// becomes one [`REPLACEMENT`], so a coloured error page reads `Upstream �failure` rather than
/// `Upstream �[31mfailure`.
///
/// Borrows when nothing needed replacing, which is nearly always.
pub fn sanitize(s: &str) -> Cow<'_, str> {
    if !s.chars().any(is_unsafe) {
        return Cow::Borrowed(s);
    }
    let mut out = String::with_capacity(s.len());
    let mut rest = s;
    while let Some(c) = rest.chars().next() {
        let skip = escape_len(rest);
        if skip > 0 {
            out.push(REPLACEMENT);
            rest = rest.get(skip..).unwrap_or_default();
            continue;
        }
        out.push(match c {
            '\t' | '\n' | '\r' => ' ',
            c if is_unsafe(c) => REPLACEMENT,
            c => c,
        });
        rest = rest.get(c.len_utf8()..).unwrap_or_default();
    }
    Cow::Owned(out)
}

/// Longest string-type escape sequence (OSC, DCS, …) folded into one [`REPLACEMENT`]; a longer
/// or unterminated one has only its introducer replaced, so text after it stays visible.
const MAX_ESCAPE_STRING: usize = 256;

/// Byte length of the terminal escape sequence `s` starts with, or 0 when it starts with none.
///
/// Knows CSI (`ESC [` or U+009B, parameters, one final byte) and the string sequences OSC, DCS,
/// SOS, PM and APC (`ESC ]`, `ESC P`, … or their C1 forms, up to BEL or `ESC \`). Anything
/// malformed counts as no sequence, and its characters are replaced one by one.
fn escape_len(s: &str) -> usize {
    let (csi, string) = if let Some(r) = s.strip_prefix('\u{1b}') {
        match r.chars().next() {
            Some('[') => (Some(2), None),
            Some(']' | 'P' | 'X' | '^' | '_') => (None, Some(2)),
            _ => (None, None),
        }
    } else {
        match s.chars().next() {
            Some('\u{9b}') => (Some(2), None),
            Some('\u{9d}' | '\u{90}' | '\u{98}' | '\u{9e}' | '\u{9f}') => (None, Some(2)),
            _ => (None, None),
        }
    };
    if let Some(start) = csi {
        // Parameter and intermediate bytes, then one final byte.
        let body = s.get(start..).unwrap_or_default();
        let params = body
            .bytes()
            .take_while(|b| (0x20..=0x3f).contains(b))
            .count();
        return match body.as_bytes().get(params) {
            Some(0x40..=0x7e) => start + params + 1,
            _ => 0,
        };
    }
    if let Some(start) = string {
        let body = s.get(start..).unwrap_or_default();
        let window = body
            .get(..MAX_ESCAPE_STRING.min(body.len()))
            .unwrap_or(body);
        for (i, c) in window.char_indices() {
            match c {
                '\u{7}' | '\u{9c}' => return start + i + c.len_utf8(),
                '\u{1b}' if body.get(i + 1..).is_some_and(|r| r.starts_with('\\')) => {
                    return start + i + 2;
                }
                _ => {}
            }
        }
    }
    0
}

/// Display width of `s` in terminal cells, after sanitizing.
pub fn width(s: &str) -> usize {
    sanitize(s).width()
}

/// Sanitizes `s` and cuts it to at most `max` cells, ending in `…` when something was cut.
///
/// Wide characters (CJK, emoji) count as two cells and are never split.
pub fn fit(s: &str, max: usize) -> String {
    let clean = sanitize(s);
    if clean.width() <= max {
        return clean.into_owned();
    }
    if max == 0 {
        return String::new();
    }
    let mut out = String::new();
    let mut used = 0;
    for c in clean.chars() {
        let w = c.width().unwrap_or(0);
        if used + w > max - 1 {
            break;
        }
        used += w;
        out.push(c);
    }
    // Per-character widths can overestimate what a few combining sequences take as a string,
    // never underestimate by design, but check the whole to be sure.
    while out.width() > max - 1 {
        if out.pop().is_none() {
            break;
        }
    }
    out.push('…');
    out
}

/// [`fit`], then padded with spaces to exactly `cells` cells, for aligned columns.
pub fn pad(s: &str, cells: usize) -> String {
    let fitted = fit(s, cells);
    let spaces = " ".repeat(cells.saturating_sub(fitted.width()));
    fitted + &spaces
}

/// [`fit`], then padded on the left to exactly `cells` cells, for right-aligned numbers.
pub fn pad_left(s: &str, cells: usize) -> String {
    let fitted = fit(s, cells);
    " ".repeat(cells.saturating_sub(fitted.width())) + &fitted
}

/// Formats an integer with thousands separators (`1,234,567`), as operators read big counts.
pub fn thousands(n: i64) -> String {
    let digits = n.unsigned_abs().to_string();
    let mut out = String::with_capacity(digits.len() + digits.len() / 3 + 1);
    if n < 0 {
        out.push('-');
    }
    for (i, d) in digits.chars().enumerate() {
        if i > 0 && (digits.len() - i).is_multiple_of(3) {
            out.push(',');
        }
        out.push(d);
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn strips_escape_bidi_and_zero_width() {
        let s = sanitize("Lagos\u{1b}\u{202e}abc\u{200b}\u{85}x\u{7f}");
        assert!(!s.chars().any(is_unsafe));
        assert_eq!(s, "Lagos\u{FFFD}\u{FFFD}abc\u{FFFD}\u{FFFD}x\u{FFFD}");
    }

    #[test]
    fn a_whole_escape_sequence_becomes_one_replacement() {
        let r = REPLACEMENT;
        for (raw, clean) in [
            (
                "Upstream \u{1b}[31mfailure\u{1b}[0m",
                format!("Upstream {r}failure{r}"),
            ),
            ("a\u{1b}[2Jb", format!("a{r}b")),
            ("a\u{9b}1;31mb", format!("a{r}b")),
            ("\u{1b}]0;pwned\u{7}Lagos", format!("{r}Lagos")),
            ("\u{1b}]8;;http://x\u{1b}\\link", format!("{r}link")),
            ("\u{9d}0;t\u{9c}ok", format!("{r}ok")),
            ("\u{1b}P+q\u{1b}\\x", format!("{r}x")),
        ] {
            assert_eq!(sanitize(raw), clean, "{raw:?}");
        }
    }

    #[test]
    fn broken_escape_sequences_hide_nothing_after_them() {
        let r = REPLACEMENT;
        // A CSI cut short, an OSC never ended, an ESC at the very end.
        assert_eq!(sanitize("a\u{1b}[31"), format!("a{r}[31"));
        assert_eq!(sanitize("a\u{1b}[3\u{e9}b"), format!("a{r}[3\u{e9}b"));
        assert_eq!(sanitize("a\u{1b}]0;title"), format!("a{r}]0;title"));
        assert_eq!(sanitize("a\u{1b}"), format!("a{r}"));
        let long = format!("\u{1b}]{}\u{7}end", "x".repeat(MAX_ESCAPE_STRING + 1));
        assert!(sanitize(&long).ends_with("x\u{FFFD}end"));
    }

    #[test]
    fn clean_text_is_borrowed() {
        assert!(matches!(sanitize("São Paulo"), Cow::Borrowed(_)));
    }

    #[test]
    fn fit_respects_wide_characters() {
        assert_eq!(fit("東京東京", 5), "東京…");
        assert_eq!(fit("東京", 4), "東京");
        assert_eq!(fit("abcdef", 1), "…");
        assert_eq!(fit("abcdef", 0), "");
        assert_eq!(pad("ab", 4), "ab  ");
        assert_eq!(pad_left("7", 3), "  7");
    }

    #[test]
    fn thousands_groups_digits() {
        assert_eq!(thousands(0), "0");
        assert_eq!(thousands(1_234_567), "1,234,567");
        assert_eq!(thousands(-1000), "-1,000");
        assert_eq!(thousands(i64::MIN), "-9,223,372,036,854,775,808");
    }
}
