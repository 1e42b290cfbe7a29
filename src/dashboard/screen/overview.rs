//! One service summed up in a line of the overview: how it stands (up, stale, rate-limited,
//! down) with the one-line cause, its fullest route, its soonest sell-out and today's
//! utilization. Read from the service's [`App`], never changing it.

use std::sync::Arc;
use std::time::Duration;

use crate::dashboard::app::App;
use crate::poll::Pause;
use crate::store::LogKind;

/// How a service stands.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Standing {
    /// No figures and no failure yet.
    Waiting,
    /// Live figures.
    Up,
    /// Figures, but the last poll failed: they are getting old.
    Stale,
    /// The service answered 429: captop waits as it asked.
    RateLimited,
    /// No figures to show: it fails, refuses the key, or could not be asked at all.
    Down,
}

impl Standing {
    /// The word the overview shows.
    pub fn word(self) -> &'static str {
        match self {
            Standing::Waiting => "waiting",
            Standing::Up => "up",
            Standing::Stale => "stale",
            Standing::RateLimited => "rate-limited",
            Standing::Down => "down",
        }
    }
}

/// A service's line of the overview.
#[derive(Debug, Clone, PartialEq)]
pub struct ServiceLine {
    /// How it stands.
    pub standing: Standing,
    /// Why, in one line (sanitized), when it is not simply up.
    pub cause: Option<String>,
    /// Its fullest route: name and fill.
    pub fullest: Option<(Arc<str>, u8)>,
    /// Its route forecast to sell out first: name and the time left, on the service's clock
    /// (as its tab counts it: a service days behind this machine is not "in < 1 min").
    pub soonest: Option<(Arc<str>, Duration)>,
    /// Today's utilization, percent.
    pub utilization_pct: Option<f64>,
}

impl ServiceLine {
    /// The line of the service `app` shows; `down` is why it could not be asked at all.
    pub fn of(app: &App, down: Option<&str>) -> ServiceLine {
        let store = app.live_store();
        let status = app.status_line();
        let cause = status.as_ref().map(|(_, text)| crate::text::fit(text, 200));
        let pause = store.schedule().and_then(|s| s.pause.as_ref());
        let failing = matches!(status, Some((LogKind::Error, _)));
        let stale = store.capacity().is_stale() || store.utilization().is_stale();
        let (standing, cause) = if let Some(why) = down {
            (Standing::Down, Some(crate::text::fit(why, 200)))
        } else if matches!(pause, Some(Pause::RateLimited { .. })) {
            (Standing::RateLimited, cause)
        } else if !store.has_figures() && (failing || matches!(pause, Some(Pause::Unauthorized))) {
            (Standing::Down, cause)
        } else if !store.has_figures() {
            (Standing::Waiting, cause)
        } else if stale {
            (Standing::Stale, cause)
        } else {
            (Standing::Up, None)
        };
        let fullest = store
            .rows()
            .iter()
            .max_by_key(|row| row.filled_pct)
            .map(|row| (Arc::clone(&row.name), row.filled_pct));
        let forecasts = store.forecasts();
        let now = store.service_now(app.now);
        // Among the routes with minutes left: a full one has sold out, it is not about to.
        let soonest = store
            .rows()
            .iter()
            .filter(|row| row.has_minutes_left())
            .filter_map(|row| {
                let left = forecasts.get(&*row.slug)?.left(now)?;
                Some((Arc::clone(&row.name), left))
            })
            .min_by_key(|(_, left)| *left);
        ServiceLine {
            standing,
            cause,
            fullest,
            soonest,
            utilization_pct: store.utilization_pct(),
        }
    }
}
