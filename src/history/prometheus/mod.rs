//! The history read from a Prometheus HTTP API (`[history] source = "prometheus"`): range
//! queries on the series the relay's `/metrics` exports, turned back into the service's reports
//! and the forecasts' samples, as the embedded file gives them.
//!
//! A query is bounded: its step is `max(range / 1000, 60 s)` (Prometheus refuses more than
//! 11,000 points a series), the request has a timeout, and the answer a size cap. Secrets are
//! read from their files when the client is made and are never shown.

pub mod answer;

use std::collections::BTreeMap;
use std::time::Duration;

use super::export::UTILIZATION_FAMILIES;
use super::source::PrometheusSource;
use crate::api::model::{
    CapacityReport, CapacityStatus, DailyCapacity, Utilization, UtilizationReport,
};
use crate::forecast::{Sample, Series};
use crate::secret_file::SecretFile;
pub use answer::{RangeSeries, parse_matrix};

/// Points a series at most per query.
pub const MAX_POINTS: i64 = 1000;
/// The shortest step: the relay is scraped about once a minute.
pub const MIN_STEP_MS: i64 = 60_000;
/// A day in milliseconds.
const DAY_MS: i64 = 86_400_000;
/// The largest answer read.
pub const MAX_BODY_BYTES: usize = 64 * 1024 * 1024;

/// Why Prometheus could not be asked, or did not give the figures: one line each, naming the
/// file or the server and never a secret.
#[derive(Debug, thiserror::Error)]
pub enum PrometheusError {
    /// A token, password or CA file could not be read.
    #[error("cannot read the {what} file {path}: {source}")]
    Unreadable {
        /// Which file ("bearer token", "basic auth", "CA").
        what: &'static str,
        /// The file.
        path: std::path::PathBuf,
        /// Why.
        source: std::io::Error,
    },
    /// A secret file or a CA file that is not what it should be.
    #[error("the {what} file {path} {why}")]
    BadFile {
        /// Which file.
        what: &'static str,
        /// The file.
        path: std::path::PathBuf,
        /// What is wrong and what to do, e.g. "may be read by others: chmod 600 it".
        why: &'static str,
    },
    /// `[history] url` does not make a query URL.
    #[error("[history] url: {0}")]
    Url(#[from] url::ParseError),
    /// The HTTP client could not be made.
    #[error("cannot set up the Prometheus client: {0}")]
    Client(#[source] reqwest::Error),
    /// No answer, or no whole answer, within the timeout.
    #[error("Prometheus at {url} did not answer in time")]
    Timeout {
        /// The query URL, as shown.
        url: String,
    },
    /// The request or the answer failed.
    #[error("Prometheus at {url} is unreachable ({reason})")]
    Unreachable {
        /// The query URL, as shown.
        url: String,
        /// Why, in one line.
        reason: String,
    },
    /// The answer passed [`MAX_BODY_BYTES`].
    #[error("Prometheus's answer is larger than {} MiB: narrow match", MAX_BODY_BYTES >> 20)]
    TooLarge,
    /// An HTTP error status without an API error body.
    #[error("Prometheus answered HTTP {0}")]
    Status(reqwest::StatusCode),
    /// The body is not a matrix of the API, or carries its error: what it said, in one line.
    #[error("{0}")]
    Answer(String),
    /// Prometheus holds no figures of a kind near the instant.
    #[error("Prometheus holds no {what} figures within {minutes} minutes before {at}{}", family.map(|f| format!(
        " but has the others: keep {f} in its scrape of `captop serve`'s /metrics (metric_relabel_configs)"
    )).unwrap_or_default())]
    Missing {
        /// "route" or "/utilization".
        what: &'static str,
        /// The lookback, in minutes.
        minutes: i64,
        /// The instant, RFC 3339.
        at: String,
        /// The family it lacks while it has the other kind's, when that is the cause.
        family: Option<&'static str>,
    },
}

/// The step of a range query over `range_ms`: at most [`MAX_POINTS`] points, at least a minute.
pub fn step_ms(range_ms: i64) -> i64 {
    (range_ms / MAX_POINTS).max(MIN_STEP_MS)
}

/// A client of one Prometheus.
#[derive(Clone)]
pub struct PrometheusHistory {
    http: reqwest::Client,
    query_url: url::Url,
    matcher: String,
    authorization: Option<Auth>,
}

/// How requests sign in: secrets, never shown.
#[derive(Clone)]
enum Auth {
    Bearer(String),
    Basic(String, String),
}

/// The authorization header is a secret.
impl std::fmt::Debug for PrometheusHistory {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("PrometheusHistory")
            .field("query_url", &self.query_url.as_str())
            .field("matcher", &self.matcher)
            .finish_non_exhaustive()
    }
}

/// The most of a token or password file read.
const MAX_SECRET_FILE: u64 = 64 * 1024;

/// The first line of a secret file; the message names the file, never what is in it. With
/// `private`, a file group or others may read is refused.
fn secret_file(
    path: &std::path::Path,
    what: &'static str,
    private: bool,
) -> Result<String, PrometheusError> {
    let failed = |source| PrometheusError::Unreadable {
        what,
        path: path.to_path_buf(),
        source,
    };
    let bad = |why| PrometheusError::BadFile {
        what,
        path: path.to_path_buf(),
        why,
    };
    let file = SecretFile::open(path).map_err(failed)?;
    if private && file.open_to_others(0o077).is_some() {
        return Err(bad("may be read by others: chmod 600 it"));
    }
    let text = file.read(MAX_SECRET_FILE).map_err(failed)?;
    let line = text.lines().next().unwrap_or_default().trim().to_owned();
    if line.is_empty() {
        return Err(bad("is empty"));
    }
    Ok(line)
}

impl PrometheusHistory {
    /// A client for `source`, reading its token or password file and CA file now.
    pub fn new(source: &PrometheusSource, timeout: Duration) -> Result<Self, PrometheusError> {
        let base = source.url.trim_end_matches('/');
        let query_url = url::Url::parse(&format!("{base}/api/v1/query_range"))?;
        let mut authorization = None;
        if let Some(path) = &source.bearer_token_file {
            authorization = Some(Auth::Bearer(secret_file(path, "bearer token", false)?));
        }
        if let Some(path) = &source.basic_auth_file {
            let line = secret_file(path, "basic auth", true)?;
            let (user, password) = line.split_once(':').ok_or(PrometheusError::BadFile {
                what: "basic auth",
                path: path.clone(),
                why: "must hold one user:password line",
            })?;
            authorization = Some(Auth::Basic(user.to_owned(), password.to_owned()));
        }
        let mut builder =
            crate::api::client::http_client_builder(timeout, timeout.min(Duration::from_secs(5)));
        if let Some(path) = &source.ca_file {
            let pem = std::fs::read(path).map_err(|source| PrometheusError::Unreadable {
                what: "CA",
                path: path.clone(),
                source,
            })?;
            let certs = reqwest::Certificate::from_pem_bundle(&pem).map_err(|_| {
                PrometheusError::BadFile {
                    what: "CA",
                    path: path.clone(),
                    why: "holds no PEM certificate",
                }
            })?;
            builder = builder.tls_certs_only(certs);
        }
        let http = builder.build().map_err(PrometheusError::Client)?;
        let matcher = source.matcher.clone().unwrap_or_else(|| "{}".to_owned());
        Ok(PrometheusHistory {
            http,
            query_url,
            matcher,
            authorization,
        })
    }

    /// The query URL as shown in messages.
    pub fn shown_url(&self) -> String {
        crate::text::fit(self.query_url.as_str(), 120)
    }

    /// `metric` with the configured label matcher, e.g. `captop_route_ports{job="captop"}`.
    fn selector(&self, metric: &str) -> String {
        format!("{metric}{}", self.matcher.trim())
    }

    /// `query` evaluated every `step_ms` from `start_ms` to `end_ms` (UNIX ms).
    pub async fn query_range(
        &self,
        query: &str,
        start_ms: i64,
        end_ms: i64,
        step_ms: i64,
    ) -> Result<Vec<RangeSeries>, PrometheusError> {
        let secs = |ms: i64| format!("{:.3}", ms as f64 / 1000.0);
        let mut url = self.query_url.clone();
        url.query_pairs_mut()
            .append_pair("query", query)
            .append_pair("start", &secs(start_ms))
            .append_pair("end", &secs(end_ms))
            .append_pair("step", &secs(step_ms));
        let mut request = self.http.get(url);
        request = match &self.authorization {
            Some(Auth::Bearer(token)) => request.bearer_auth(token),
            Some(Auth::Basic(user, password)) => request.basic_auth(user, Some(password)),
            None => request,
        };
        let shown = crate::text::fit(self.query_url.as_str(), 120);
        let failed = |e: reqwest::Error| {
            if e.is_timeout() {
                PrometheusError::Timeout { url: shown.clone() }
            } else {
                PrometheusError::Unreachable {
                    url: shown.clone(),
                    reason: crate::text::sanitize(&crate::api::client::short_reason(&e))
                        .into_owned(),
                }
            }
        };
        let mut response = request.send().await.map_err(failed)?;
        let status = response.status();
        let mut body = Vec::new();
        while let Some(chunk) = response.chunk().await.map_err(failed)? {
            if body.len() + chunk.len() > MAX_BODY_BYTES {
                return Err(PrometheusError::TooLarge);
            }
            body.extend_from_slice(&chunk);
        }
        match parse_matrix(&body) {
            Ok(series) if status.is_success() => Ok(series),
            Ok(_) => Err(PrometheusError::Status(status)),
            Err(why) if status.is_success() || body.starts_with(b"{") => {
                Err(PrometheusError::Answer(why))
            }
            Err(_) => Err(PrometheusError::Status(status)),
        }
    }

    /// The forecasts' samples of the `days` before `now_ms`: what a dashboard reading its past
    /// from Prometheus starts with (its charts over days, its trends and forecasts).
    pub async fn series_until(&self, now_ms: i64, days: i64) -> Result<Series, PrometheusError> {
        let minutes = self.minutes_until(now_ms, days, 0).await?;
        Ok(reports_of(now_ms, &minutes, &[], &[]).1)
    }

    /// Every route's minutes over the `days` before `at_ms`, a point each [`step_ms`] of that
    /// range ending at `at_ms`, each the last scrape within `lookback_ms` (at least a step).
    async fn minutes_until(
        &self,
        at_ms: i64,
        days: i64,
        lookback_ms: i64,
    ) -> Result<Vec<RangeSeries>, PrometheusError> {
        let range = days * DAY_MS;
        let step = step_ms(range);
        let query = format!(
            "last_over_time({}[{}s])",
            self.selector("captop_route_capacity_seconds"),
            lookback_ms.max(step) / 1000
        );
        self.query_range(&query, at_ms - range / step * step, at_ms, step)
            .await
    }

    /// The routes' figures at `at_ms` (the last scrape within `lookback_ms` before it), the
    /// service's `/utilization` figures then when Prometheus has them, and the forecasts'
    /// samples over the `days` before it, as the embedded history gives them. The queries go
    /// out together.
    pub async fn figures_at(
        &self,
        at_ms: i64,
        days: i64,
        lookback_ms: i64,
    ) -> Result<(CapacityReport, Option<UtilizationReport>, Series), PrometheusError> {
        let step = step_ms(days * DAY_MS);
        let window = lookback_ms.max(step) / 1000;
        let at = |metric: &'static str| {
            let query = format!("last_over_time({}[{window}s])", self.selector(metric));
            async move { self.query_range(&query, at_ms, at_ms, step).await }
        };
        let (minutes, ports, info, generated, utilization) = futures::join!(
            self.minutes_until(at_ms, days, lookback_ms),
            at("captop_route_ports"),
            at("captop_route_info"),
            at("captop_figures_generated_timestamp_seconds"),
            futures::future::join_all(UTILIZATION_FAMILIES.map(|(name, ..)| at(name))),
        );
        let (mut capacity, series) =
            reports_of(at_ms, &minutes?, &ports?, &info.unwrap_or_default());
        let families = utilization.into_iter().collect::<Result<Vec<_>, _>>()?;
        let mut utilization = utilization_of(at_ms, &families);
        // The instants the figures were generated, where the relay said (else the query's).
        let generated = generated.unwrap_or_default();
        let generated_at = |endpoint: &str| {
            let s = generated
                .iter()
                .find(|s| s.labels.get("endpoint").map(String::as_str) == Some(endpoint))?;
            let (_, seconds) = s.points.iter().find(|(t, _)| *t == at_ms)?;
            chrono::DateTime::from_timestamp_millis((seconds * 1000.0).round() as i64)
        };
        if let Some(then) = generated_at("capacity") {
            capacity.generated_at = then;
        }
        if let (Some(u), Some(then)) = (utilization.as_mut(), generated_at("utilization")) {
            u.generated_at = then;
            u.date = then.date_naive();
        }
        Ok((capacity, utilization, series))
    }
}

/// The `/utilization` report at `at_ms` from the answers for its five metric families; `None`
/// without the minutes run today. Minutes come back from seconds, the percentage from the
/// ratio at the service's one decimal; the sold daily capacity is active plus paused, as the
/// relay's help text says.
pub fn utilization_of(at_ms: i64, families: &[Vec<RangeSeries>]) -> Option<UtilizationReport> {
    let value = |family: usize, state: Option<&str>| -> Option<f64> {
        families.get(family)?.iter().find_map(|s| {
            let matches = s.labels.get("state").map(String::as_str) == state;
            matches
                .then(|| s.points.iter().find(|(t, _)| *t == at_ms).map(|(_, v)| *v))
                .flatten()
        })
    };
    let minutes = |v: Option<f64>| v.map(|s| whole(s / 60.0));
    let run_today = minutes(value(0, None))?;
    let (active, paused) = (
        minutes(value(1, Some("active"))),
        minutes(value(1, Some("paused"))),
    );
    let sold = match (active, paused) {
        (None, None) => None,
        (a, p) => Some(a.unwrap_or(0) + p.unwrap_or(0)),
    };
    let ports = |state| value(4, Some(state)).map(whole);
    let then = super::read::instant(at_ms);
    Some(UtilizationReport {
        generated_at: then,
        date: then.date_naive(),
        minutes_run_today: run_today,
        daily_capacity_minutes: DailyCapacity {
            sold,
            active,
            paused,
        },
        utilization: Utilization {
            utilized_minutes: Some(run_today),
            available_minutes: minutes(value(2, None)),
            utilization_pct: value(3, None).map(|r| (r * 1000.0).round() / 10.0),
        },
        capacity_status: CapacityStatus {
            active_ports: ports("active"),
            paused_ports: ports("paused"),
            provisioning_ports: ports("provisioning"),
        },
    })
}

/// A float figure as the whole number the service sent.
fn whole(v: f64) -> i64 {
    v.round().clamp(-1e15, 1e15) as i64
}

/// A route's value of one `state` per instant.
type ByRoute = BTreeMap<String, BTreeMap<&'static str, BTreeMap<i64, f64>>>;

fn by_route(series: &[RangeSeries], states: [&'static str; 2]) -> ByRoute {
    let mut out = ByRoute::new();
    for s in series {
        let (Some(route), Some(state)) = (s.labels.get("route"), s.labels.get("state")) else {
            continue;
        };
        let Some(state) = states.into_iter().find(|k| k == state) else {
            continue;
        };
        let points = out
            .entry(route.clone())
            .or_default()
            .entry(state)
            .or_default();
        points.extend(s.points.iter().copied());
    }
    out
}

/// The capacity report at `at_ms` and the forecasts' samples, from the answers of the minutes,
/// ports and info queries. A route is in the report only when all four figures are there at
/// `at_ms`; a sample only where both minutes are (gaps stay gaps).
pub fn reports_of(
    at_ms: i64,
    minutes: &[RangeSeries],
    ports: &[RangeSeries],
    info: &[RangeSeries],
) -> (CapacityReport, Series) {
    let minutes = by_route(minutes, ["sold", "remaining"]);
    let ports = by_route(ports, ["sold", "available"]);
    let names: BTreeMap<&str, (&str, &str)> = info
        .iter()
        .filter_map(|s| {
            let label = |k: &str| s.labels.get(k).map(String::as_str);
            Some((label("route")?, (label("name")?, label("dial_code")?)))
        })
        .collect();
    let mut series = Series::new();
    let mut routes = Vec::new();
    for (route, states) in &minutes {
        let (Some(sold), Some(remaining)) = (states.get("sold"), states.get("remaining")) else {
            continue;
        };
        let samples: Vec<Sample> = sold
            .iter()
            .filter_map(|(&at, &s)| {
                let r = remaining.get(&at)?;
                let sold = whole(s / 60.0);
                Some(Sample {
                    at_ms: at,
                    sold,
                    total: sold + whole(r / 60.0),
                })
            })
            .collect();
        let port = |k| {
            ports
                .get(route)
                .and_then(|p| p.get(k))
                .and_then(|p| p.get(&at_ms))
        };
        if let (Some(now), Some(ps), Some(pa)) = (
            samples.last().filter(|s| s.at_ms == at_ms),
            port("sold"),
            port("available"),
        ) {
            let (name, dial) = names.get(route.as_str()).copied().unwrap_or((route, ""));
            let (ps, pa) = (whole(*ps), whole(*pa));
            let figures = [now.sold, now.total, ps, ps + pa];
            let route =
                super::read::route_of(route.as_str().into(), name.into(), dial.into(), figures);
            routes.push(route);
        }
        if !samples.is_empty() {
            series.insert(route.clone(), samples);
        }
    }
    let capacity = CapacityReport {
        generated_at: super::read::instant(at_ms),
        unit_notes: None,
        totals: super::read::totals_of(&routes),
        routes,
    };
    (capacity, series)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_step_keeps_a_query_under_a_thousand_points_and_at_least_a_minute() {
        assert_eq!(step_ms(3_600_000), 60_000);
        assert_eq!(step_ms(14 * 86_400_000), 1_209_600);
        assert!(7 * 86_400_000 / step_ms(7 * 86_400_000) <= MAX_POINTS);
    }
}
