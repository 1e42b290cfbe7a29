//! The relay's status page at `/`: whether it is healthy, at a glance, in plain HTML.
//!
//! ```text
//! ┌ captop relay ───────────────────────────────────────────────┐
//! │ Upstream: up | stale | rate limited | key rejected | …      │  everyone
//! │ what that means; the last error                             │
//! │ Figures' age · Routes · Readers · Request budget · Polls    │  readers (token)
//! │ Active alerts: a table, or "No active alerts."              │  readers (token)
//! │ Endpoints: links to /v1/…, /metrics, /ready                 │  everyone
//! └ captop version · refreshes every 10 s · as of <UTC time> ───┘
//! ```
//!
//! No JavaScript: `<meta http-equiv="refresh">` reloads it every [`REFRESH_SECONDS`]. Every
//! string that is not captop's own (the service's error text, route names and alert texts) is
//! stripped of control and invisible characters and HTML-escaped by `html-escape`. The alerts
//! are the team's alerts firing now, as `/v1/captop/alerts` serves them.
//!
//! **Who sees what**: the figures are for readers, so with `--token-file` a request without a
//! valid `Authorization: Bearer` token gets the upstream's state and the links only (what
//! `/ready` already tells anyone); with one, or without `--token-file`, the whole page. A token
//! in the URL is not accepted: it would end up in logs and browser histories.
//!
//! The figures come from [`StatusFigures`], taken from the store after every poll; the page
//! itself is rendered per request, as the ages change by the second.

use std::fmt::Write as _;
use std::time::Duration;

use chrono::{DateTime, SecondsFormat, Utc};

use crate::api::team_alerts::TeamAlert;
use crate::format::{Precision, age, duration};
use crate::poll::Pause;
use crate::store::{Store, Upstream};

/// Seconds between two automatic refreshes of the page.
pub const REFRESH_SECONDS: u32 = 10;

/// Figures older than this are shown as stale even while polls succeed: the age from which the
/// Prometheus mixin's `CaptopRelayStale` fires.
pub const STALE_AFTER: Duration = Duration::from_secs(600);

/// What the page shows of the store, taken after every poll.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct StatusFigures {
    /// What the service did at the last poll.
    pub upstream: Upstream,
    /// The latest failure in a few words, sanitized (none while all is well).
    pub last_error: Option<String>,
    /// When the relay received the figures it serves (its own clock).
    pub received_at: Option<DateTime<Utc>>,
    /// How many routes the figures have.
    pub routes: Option<usize>,
    /// Requests sent to the service in the last minute, and the budget a minute.
    pub budget: Option<(u32, u32)>,
    /// The interval between polls in force.
    pub interval: Option<Duration>,
    /// Until when a 429 holds every request to the service (the relay's own, or one found in
    /// the budget file shared with the user's other captop processes).
    pub hold: Option<DateTime<Utc>>,
}

impl StatusFigures {
    /// The page's figures of `store` as it is now.
    pub fn of(store: &Store) -> Self {
        let upstream = store.ledger().state().clone();
        let last_error = match upstream {
            // The state's own line says it better than the dashboard's advice to log in.
            Upstream::KeyRejected | Upstream::Up | Upstream::Starting => None,
            _ => store.failure_text(),
        };
        let schedule = store.schedule();
        StatusFigures {
            upstream,
            last_error,
            received_at: store.capacity().received_at(),
            routes: store.capacity().report().map(|c| c.routes.len()),
            budget: schedule.map(|s| (s.budget_used, s.budget_limit)),
            interval: schedule.map(|s| s.interval),
            hold: schedule.and_then(|s| match s.pause {
                Some(Pause::RateLimited { until }) => {
                    let left = until.saturating_duration_since(std::time::Instant::now());
                    chrono::TimeDelta::from_std(left)
                        .ok()
                        .map(|left| Utc::now() + left)
                }
                _ => None,
            }),
        }
    }

    /// `no request to the service before 08:10:00 UTC (in 10 min): …` while a 429 holds the
    /// requests, whoever was answered it.
    pub fn hold_text(&self, now: DateTime<Utc>) -> Option<String> {
        let until = self.hold.filter(|&until| until > now)?;
        Some(format!(
            "no request to the service before {} (in {}): a 429 hold, kept in the request \
             budget file shared by every captop of this user",
            until.format("%H:%M:%S UTC"),
            duration(age(until, now), Precision::Sentence)
        ))
    }

    /// The upstream's state in a word or two.
    pub fn state(&self, now: DateTime<Utc>) -> &'static str {
        let stale = self
            .received_at
            .is_some_and(|at| age(now, at) > STALE_AFTER);
        match &self.upstream {
            Upstream::Starting if self.hold_text(now).is_some() => "rate limited",
            Upstream::Starting => "starting",
            Upstream::Up if stale => "stale",
            Upstream::Up => "up",
            Upstream::RateLimited => "rate limited",
            Upstream::KeyRejected => "key rejected",
            Upstream::Unreachable(_) if self.received_at.is_some() => "stale",
            Upstream::Unreachable(_) => "down",
        }
    }
}

/// Everything one rendering of the page needs.
#[derive(Debug, Clone, Copy)]
pub struct Page<'a> {
    /// The store's figures.
    pub figures: &'a StatusFigures,
    /// The team's alerts firing now, oldest first.
    pub alerts: &'a [TeamAlert],
    /// Connections open now.
    pub readers: usize,
    /// Whether the reader may see the figures (a valid token, or no tokens configured).
    pub full: bool,
    /// The moment of rendering.
    pub now: DateTime<Utc>,
}

const STYLE: &str = "body{font-family:system-ui,sans-serif;margin:2em auto;max-width:60em;\
padding:0 1em;color:#222}h1{font-size:1.6em}th,td{text-align:left;padding:.3em 1em .3em 0;\
vertical-align:top}table{border-collapse:collapse}.state{font-size:1.3em}\
.up{color:#1a7f37}.stale,.starting,.rate-limited{color:#9a6700}.down,.key-rejected{color:#cf222e}\
.empty,footer{color:#666}footer{margin-top:2em;font-size:.9em}";

/// Server text made safe for an HTML element's content: no control or invisible characters,
/// and `&`, `<`, `>` escaped.
fn text(raw: &str) -> String {
    html_escape::encode_text(&crate::text::sanitize(raw)).into_owned()
}

fn utc(at: DateTime<Utc>) -> String {
    at.to_rfc3339_opts(SecondsFormat::Secs, true)
}

/// The whole page.
pub fn render(page: &Page<'_>) -> String {
    let state = page.figures.state(page.now);
    let mut html = String::with_capacity(4096);
    let _ = write!(
        html,
        "<!doctype html>\n<html lang=\"en\"><head><meta charset=\"utf-8\">\n\
         <meta http-equiv=\"refresh\" content=\"{REFRESH_SECONDS}\">\n\
         <meta name=\"viewport\" content=\"width=device-width, initial-scale=1\">\n\
         <title>captop relay: {state}</title>\n<style>{STYLE}</style></head>\n<body>\n\
         <h1>captop relay</h1>\n"
    );
    upstream_section(&mut html, page.figures, state, page.now);
    if page.full {
        figures_section(&mut html, page);
        alerts_section(&mut html, page.alerts, page.now);
    } else {
        html.push_str(
            "<p class=\"empty\">The figures, readers, budget and alerts are for readers: \
             send a reader token as <code>Authorization: Bearer &lt;token&gt;</code>.</p>\n",
        );
    }
    html.push_str(LINKS);
    let _ = write!(
        html,
        "<footer>captop {} · refreshes every {REFRESH_SECONDS} s · as of {}</footer>\n\
         </body></html>\n",
        env!("CARGO_PKG_VERSION"),
        utc(page.now)
    );
    html
}

fn upstream_section(html: &mut String, figures: &StatusFigures, state: &str, now: DateTime<Utc>) {
    let class = state.replace(' ', "-");
    let _ = writeln!(
        html,
        "<p class=\"state\">Upstream: <strong class=\"{class}\" id=\"state\">{state}</strong></p>\n\
         <p>{}</p>",
        text(&figures.upstream.describe())
    );
    if let Some(hold) = figures.hold_text(now) {
        let _ = writeln!(html, "<p id=\"hold\">{}</p>", text(&capitalized(&hold)));
    }
    if let Some(error) = &figures.last_error {
        let _ = writeln!(html, "<p>Last error: <code>{}</code></p>", text(error));
    }
}

/// `text` with its first letter in capitals, as a sentence of the page starts.
fn capitalized(text: &str) -> String {
    let mut chars = text.chars();
    chars.next().map_or_else(String::new, |first| {
        first.to_uppercase().chain(chars).collect()
    })
}

fn figures_section(html: &mut String, page: &Page<'_>) {
    let figures = page.figures;
    let age_cell = match figures.received_at {
        Some(at) => format!(
            "{} (received {})",
            duration(age(page.now, at), Precision::Glance),
            utc(at)
        ),
        None => "no figures yet".to_owned(),
    };
    let routes = figures
        .routes
        .map_or_else(|| "none yet".to_owned(), |n| n.to_string());
    let budget = match figures.budget {
        Some((used, limit)) => {
            let pct = u64::from(used) * 100 / u64::from(limit.max(1));
            format!("{used} of {limit} requests a minute ({pct} %)")
        }
        None => "not known yet".to_owned(),
    };
    let interval = figures.interval.map_or_else(
        || "not known yet".to_owned(),
        |every| format!("every {}", duration(every, Precision::Sentence)),
    );
    let rows = [
        ("Figures' age", "age", age_cell),
        ("Routes", "routes", routes),
        (
            "Readers",
            "readers",
            match page.readers {
                1 => "1 connection open: this page's".to_owned(),
                n => format!("{n} connections open, this page's included"),
            },
        ),
        ("Request budget", "budget", budget),
        ("Polls", "interval", interval),
    ];
    html.push_str("<table>\n");
    for (label, id, value) in rows {
        let _ = writeln!(
            html,
            "<tr><th>{label}</th><td id=\"{id}\">{value}</td></tr>"
        );
    }
    html.push_str("</table>\n");
}

/// The "Active alerts" section: a row an alert, or its empty state.
fn alerts_section(html: &mut String, alerts: &[TeamAlert], now: DateTime<Utc>) {
    html.push_str("<h2>Active alerts</h2>\n");
    if alerts.is_empty() {
        html.push_str("<p class=\"empty\" id=\"alerts\">No active alerts.</p>\n");
        return;
    }
    html.push_str(
        "<table id=\"alerts\">\n<tr><th>Alert</th><th>Severity</th><th>Route</th>\
         <th>Summary</th><th>For</th></tr>\n",
    );
    for alert in alerts {
        let route = match (alert.name.is_empty(), alert.route.is_empty()) {
            (_, true) => String::new(),
            (true, false) => text(&alert.route),
            (false, false) => format!("{} ({})", text(&alert.name), text(&alert.route)),
        };
        let _ = writeln!(
            html,
            "<tr><td>{}</td><td>{}</td><td>{route}</td><td>{}</td><td>{}</td></tr>",
            text(&alert.alertname),
            text(&alert.severity),
            text(&alert.summary),
            duration(age(now, alert.starts_at), Precision::Glance),
        );
    }
    html.push_str("</table>\n");
}

const LINKS: &str = "<h2>Endpoints</h2>\n<ul>\n\
<li><a href=\"v1/capacity\">/v1/capacity</a> (reader token)</li>\n\
<li><a href=\"v1/utilization\">/v1/utilization</a> (reader token)</li>\n\
<li><a href=\"v1/captop/alerts\">/v1/captop/alerts</a> (reader token), the alerts above as JSON</li>\n\
<li><a href=\"v1/health\">/v1/health</a></li>\n\
<li><a href=\"v1/openapi.json\">/v1/openapi.json</a></li>\n\
<li><a href=\"metrics\">/metrics</a> (reader token), Prometheus text</li>\n\
<li><a href=\"ready\">/ready</a></li>\n\
</ul>\n<p>Point <code>captop --base-url</code> at <code>/v1</code> of this address.</p>\n";

#[cfg(test)]
mod tests {
    use super::*;

    fn at(secs: i64) -> DateTime<Utc> {
        DateTime::from_timestamp(1_790_000_000 + secs, 0).unwrap_or_default()
    }

    fn figures() -> StatusFigures {
        StatusFigures {
            upstream: Upstream::Up,
            last_error: None,
            received_at: Some(at(0)),
            routes: Some(14),
            budget: Some((24, 100)),
            interval: Some(Duration::from_secs(5)),
            hold: None,
        }
    }

    #[test]
    fn the_state_reads_stale_when_the_figures_are_old_or_the_service_gone() {
        let mut f = figures();
        assert_eq!(f.state(at(3)), "up");
        assert_eq!(f.state(at(601)), "stale");
        f.upstream = Upstream::Unreachable("connection refused".to_owned());
        assert_eq!(f.state(at(3)), "stale");
        f.received_at = None;
        assert_eq!(f.state(at(3)), "down");
        f.upstream = Upstream::RateLimited;
        assert_eq!(f.state(at(3)), "rate limited");
        f.upstream = Upstream::KeyRejected;
        assert_eq!(f.state(at(3)), "key rejected");
    }

    #[test]
    fn readers_see_the_figures_and_others_only_the_state() {
        let figures = figures();
        let page = Page {
            figures: &figures,
            alerts: &[],
            readers: 3,
            full: true,
            now: at(4),
        };
        let full = render(&page);
        for expected in [
            "<meta http-equiv=\"refresh\" content=\"10\">",
            "<strong class=\"up\" id=\"state\">up</strong>",
            "<td id=\"age\">4 s (received 2026-09-21T",
            "<td id=\"routes\">14</td>",
            "<td id=\"readers\">3 connections open",
            "<td id=\"budget\">24 of 100 requests a minute (24 %)</td>",
            "<td id=\"interval\">every 5 s</td>",
            "<p class=\"empty\" id=\"alerts\">No active alerts.</p>",
        ] {
            assert!(full.contains(expected), "{expected} not in:\n{full}");
        }
        assert!(!full.contains("<script"));
        let public = render(&Page {
            full: false,
            ..page
        });
        assert!(public.contains("id=\"state\">up<"));
        assert!(public.contains("href=\"metrics\""));
        for hidden in ["id=\"routes\"", "id=\"budget\"", "Active alerts"] {
            assert!(!public.contains(hidden), "{hidden} in:\n{public}");
        }
    }

    #[test]
    fn server_strings_are_escaped_everywhere() {
        let mut figures = figures();
        figures.upstream = Upstream::Unreachable("<script>alert(1)</script>".to_owned());
        figures.last_error = Some("/capacity: <img src=x onerror=alert(2)>".to_owned());
        let alerts = [TeamAlert {
            id: "critical/r1".to_owned(),
            event: "critical".to_owned(),
            alertname: "CaptopRouteCritical".to_owned(),
            severity: "critical".to_owned(),
            route: "r\u{202e}1<b>".to_owned(),
            name: "</td><script>alert(3)</script>".to_owned(),
            dial_code: "+1".to_owned(),
            summary: "95 % & more <i>".to_owned(),
            filled_pct: Some(96),
            remaining_minutes: None,
            sells_out_at: None,
            starts_at: at(0),
        }];
        let html = render(&Page {
            figures: &figures,
            alerts: &alerts,
            readers: 1,
            full: true,
            now: at(90),
        });
        assert!(!html.contains("<script>") && !html.contains("<img") && !html.contains("<b>"));
        assert!(!html.contains('\u{202e}'));
        assert!(
            html.contains("&lt;script&gt;alert(1)&lt;/script&gt;"),
            "{html}"
        );
        assert!(html.contains("95 % &amp; more &lt;i&gt;"), "{html}");
        assert!(html.contains("<td>1 min</td>"), "{html}");
    }
}
