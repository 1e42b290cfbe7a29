//! The dashboard: the figures model plus the state of the screen, and the one function that
//! changes them, [`App::update`].
//!
//! ```text
//!  key / mouse ──► Keymap (keys.rs) ──► Msg ──┐
//!  PollEvent ──────────────────────────────────┼──► App::update ──► Store (crate::store)
//!  resize, tick ───────────────────────────────┘         │          RoutesTable (table.rs)
//!                                                        └──► Action (quit, poller command)
//! ```
//!
//! Nothing here touches a terminal or the network: the runtime ([`crate::dashboard::tui`]) turns the
//! outside world into [`Event`]s and draws the state with the renderer (`ui`), which only
//! reads it. Where panels go comes from [`crate::dashboard::layout`], which both sides use.

pub mod detail_forecast;
pub mod keys;
pub mod routes_view;
pub mod travel;

use std::sync::Arc;
use std::time::Instant;

use chrono::{DateTime, Utc};
use ratatui::crossterm::event::{KeyEvent, MouseEvent};

use crate::dashboard::fill_trend::{self, Span};
use crate::dashboard::layout;
use crate::forecast::Sample;
use crate::poll::{Pause, PollCommand, PollEvent};
use crate::store::{LogKind, RouteRow, RowsView, Store, Thresholds};
pub use keys::{Keymap, Mode, Msg};
pub use routes_view::{RoutesTable, SortKey};
pub use travel::Travel;

/// How the dashboard looks and which keys it answers, made of the merged settings by
/// [`UiOptions::from_settings`].
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct UiOptions {
    /// Colours on (`false` for `NO_COLOR` / `--no-color`).
    pub color: bool,
    /// Draw with ASCII characters only (`--ascii`).
    pub ascii: bool,
    /// Fill percentages from which a gauge turns to the warning and the critical colour.
    pub thresholds: Thresholds,
    /// Which service the figures come from, as the header shows it (profile or base URL).
    pub service_label: String,
    /// The colours of the theme (`[theme]`); `color` off wins over them.
    pub palette: crate::dashboard::ui::palette::Palette,
    /// The key bindings (the defaults, with the config file's `[keys]` applied).
    pub keys: Keymap,
}

impl Default for UiOptions {
    fn default() -> Self {
        UiOptions {
            color: true,
            ascii: false,
            thresholds: Thresholds::default(),
            service_label: String::new(),
            palette: crate::dashboard::ui::palette::Palette::default(),
            keys: Keymap::default(),
        }
    }
}

impl UiOptions {
    /// The look the merged settings ask for, with the key table and the palette made of their
    /// `[keys]` and `[theme]` ([`crate::dashboard::keymap_and_palette`]); `service_label` says where the
    /// figures come from (`demo http://127.0.0.1:…/v1`, a profile name, or the base URL).
    pub fn from_settings(
        settings: &crate::config::Settings,
        (keys, palette): (Keymap, crate::dashboard::ui::palette::Palette),
        service_label: impl Into<String>,
    ) -> Self {
        UiOptions {
            color: settings.color,
            ascii: settings.ascii,
            thresholds: Thresholds::new(settings.warn_pct, settings.crit_pct),
            service_label: service_label.into(),
            palette,
            keys,
        }
    }
}

/// Why figures of the past could not be had, in one line for the footer or the status line.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
pub enum PastError {
    /// The history holds nothing at the instant asked for, or could not be read.
    #[error("{0}")]
    Travel(String),
    /// Prometheus did not give the days behind the live figures.
    #[error("history: {0}")]
    Prometheus(String),
    /// The relay did not give its history.
    #[error("relay history: {0}")]
    Relay(String),
}

/// Everything the dashboard reacts to.
#[derive(Debug, Clone)]
#[expect(
    clippy::large_enum_variant,
    reason = "a few events a second, each moved once; boxing poll results buys nothing"
)]
pub enum Event {
    /// A key press; the key table makes it a [`Msg`].
    Key(KeyEvent),
    /// A mouse event (the wheel scrolls, a click selects); the key table makes it a [`Msg`].
    Mouse(MouseEvent),
    /// A message, already translated.
    Msg(Msg),
    /// The terminal's new size, columns × rows.
    Resize(u16, u16),
    /// A message from the poller.
    Poll(PollEvent),
    /// A second passed while something on screen counts.
    Tick,
    /// The figures of instant `at` read from the history (or why they could not be), in
    /// answer to [`Action::Travel`].
    Travelled {
        /// The instant asked for.
        at: DateTime<Utc>,
        /// A store of the figures then, or why there is none.
        result: Result<Store, PastError>,
    },
    /// The days behind the live figures from Prometheus or the relay (or why there are none),
    /// for the forecasts, the trends and the charts.
    Days(Result<crate::forecast::Series, PastError>),
    /// The forecasts a worker fitted from the live store's [`App::fit_job`] (dropped when the
    /// store has forecasts of newer samples).
    Fitted(crate::forecast::FitResult),
}

/// What [`App::update`] asks the runtime to do.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Action {
    /// Leave the dashboard.
    Quit,
    /// Send this command to the poller.
    Poll(PollCommand),
    /// Read the figures of this instant (the service's clock) from the history, and send
    /// them back as [`Event::Travelled`].
    Travel(DateTime<Utc>),
}

/// What is drawn over the dashboard, if anything.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Overlay {
    /// Nothing: the dashboard itself.
    None,
    /// The key list.
    Help,
    /// The selected route in full.
    Detail,
}

/// The dashboard's whole state: the figures, and how they are being looked at.
#[derive(Debug)]
pub struct App {
    /// How the dashboard looks and which keys it answers.
    pub options: UiOptions,
    /// The live figures (polls go on into them while travelling).
    store: RowsView,
    /// Where the dashboard is in the history; `None` while live.
    travel: Option<Travel>,
    /// Whether there is a history to travel through (set by the runtime).
    pub has_history: bool,
    /// Whether this service is one tab among others (its help lists the tabs' keys).
    pub tabs: bool,
    /// A one-line answer of the time-travel keys (no history, an instant it does not reach).
    pub travel_note: Option<String>,
    /// The routes table.
    pub routes: RoutesTable,
    /// Wall-clock time used for ages (set by the runtime, fixed in tests).
    pub now: DateTime<Utc>,
    /// Monotonic time used for countdowns (set by the runtime, fixed in tests).
    pub now_mono: Instant,
    /// Terminal size, columns × rows.
    pub size: (u16, u16),
    /// What is drawn over the dashboard.
    pub overlay: Overlay,
    /// The first line of the help shown (the help scrolls when the screen is too short).
    pub help_scroll: usize,
    /// Whether the events pane is shown.
    pub show_events: bool,
    /// How far back the detail view's chart over days reaches.
    pub day_span: Span,
    /// The detail view's path ahead and backtest of its route ([`detail_forecast`]).
    detail_forecast: Option<detail_forecast::DetailForecast>,
    /// What the routes table's trends were worked out from: the version of the series of the
    /// store on screen and its rows' slugs (shared between polls, so compared by address);
    /// `None` when the store on screen was replaced.
    trends_of: Option<(u64, Vec<Arc<str>>)>,
}

impl App {
    /// A dashboard with no figures yet, its clock set to `now` / `now_mono`.
    pub fn new(options: UiOptions, now: DateTime<Utc>, now_mono: Instant) -> Self {
        let store = Store::new(options.thresholds);
        App::with_store(options, store, now, now_mono)
    }

    /// A dashboard on `store` (made by the caller: seeded with the history, alerting as the
    /// profile's `[actions]` ask).
    pub fn with_store(
        options: UiOptions,
        store: Store,
        now: DateTime<Utc>,
        now_mono: Instant,
    ) -> Self {
        App {
            store: RowsView::of(store),
            travel: None,
            has_history: false,
            tabs: false,
            travel_note: None,
            options,
            routes: RoutesTable::default(),
            now,
            now_mono,
            size: (80, 24),
            overlay: Overlay::None,
            help_scroll: 0,
            show_events: false,
            day_span: Span::default(),
            detail_forecast: None,
            trends_of: None,
        }
    }

    /// The live figures, for the runtime to take what a poll left for the world outside the
    /// screen (actions to run, samples to keep).
    pub fn store_mut(&mut self) -> &mut RowsView {
        &mut self.store
    }

    /// The live samples to fit, when they changed since the last job: the runtime fits them
    /// off this thread and sends the forecasts back as [`Event::Fitted`].
    pub fn fit_job(&mut self) -> Option<crate::forecast::FitJob> {
        self.store.fit_job()
    }

    /// Moves the clock; the runtime calls it before every update and draw.
    pub fn set_clock(&mut self, now: DateTime<Utc>, now_mono: Instant) {
        self.now = now;
        self.now_mono = now_mono;
    }

    /// Where keys go now.
    pub fn mode(&self) -> Mode {
        if self.routes.filter_editing {
            return Mode::Filter;
        }
        match self.overlay {
            Overlay::None => Mode::Dashboard,
            Overlay::Help => Mode::Help,
            Overlay::Detail => Mode::Detail,
        }
    }

    /// Applies one event; returns what the runtime should do about it.
    pub fn update(&mut self, event: Event) -> Option<Action> {
        let action = self.apply(event);
        self.refresh_detail_forecast();
        action
    }

    fn apply(&mut self, event: Event) -> Option<Action> {
        match event {
            Event::Key(key) => {
                let msg = self.options.keys.key(self.mode(), &key)?;
                self.on_msg(msg)
            }
            Event::Mouse(mouse) => {
                let msg = self.options.keys.mouse(self.mode(), &mouse)?;
                self.on_msg(msg)
            }
            Event::Msg(msg) => self.on_msg(msg),
            Event::Resize(w, h) => {
                self.size = (w, h);
                self.routes.keep_selection_visible(self.page_rows());
                None
            }
            Event::Poll(poll) => {
                let changed = self.store.apply(poll, self.now).rows_changed;
                if changed && self.travel.is_none() {
                    self.refresh_routes();
                }
                None
            }
            Event::Tick => {
                self.store.expire_changes(self.now);
                None
            }
            Event::Travelled { at, result } => {
                self.on_travelled(at, result);
                None
            }
            Event::Days(Ok(series)) => {
                self.store.seed_series(series);
                if self.travel.is_none() {
                    self.refresh_routes();
                }
                None
            }
            Event::Days(Err(why)) => {
                self.store.warn(&why.to_string(), self.now);
                None
            }
            Event::Fitted(fit) => {
                self.store.take_fit(fit);
                None
            }
        }
    }

    /// Sorts and filters the routes of the store on screen again, with their trends (worked out
    /// again only when the series or the rows' slugs changed: most polls change neither).
    fn refresh_routes(&mut self) {
        let version = self.store().forecast_series_version();
        let rows = self.store().rows();
        let same = self.trends_of.as_ref().is_some_and(|(of, slugs)| {
            *of == version
                && slugs.len() == rows.len()
                && slugs.iter().zip(rows).all(|(a, b)| Arc::ptr_eq(a, &b.slug))
        });
        if !same {
            let slugs = rows.iter().map(|row| Arc::clone(&row.slug)).collect();
            self.routes.set_trends(self.trends());
            self.trends_of = Some((version, slugs));
        }
        let page = self.page_rows();
        let rows = travel::shown_of(&self.store, self.travel.as_ref()).rows();
        self.routes.recompute(rows, page);
    }

    /// Whether a one-second tick should run: something on screen counts up or down.
    pub fn needs_tick(&self) -> bool {
        self.countdown_to().is_some() || self.store.has_figures() || self.store.has_changes()
    }

    /// The instant the status line counts down to: the end of a 429's or a backoff's hold,
    /// else the next poll.
    pub fn countdown_to(&self) -> Option<Instant> {
        let schedule = self.store.schedule()?;
        match &schedule.pause {
            Some(Pause::RateLimited { until } | Pause::Backoff { until, .. }) => Some(*until),
            _ => schedule.next_poll_at,
        }
    }

    /// Every row's 24-hour trend, by row index, from the store's samples; none at all while no
    /// route has a day of history (most polls of a young session cost one look at each
    /// route's oldest sample).
    fn trends(&self) -> Vec<Option<i32>> {
        let series = self.store().forecast_series();
        let a_day = series.values().any(|samples| {
            let span = match (samples.first(), samples.last()) {
                (Some(oldest), Some(newest)) => newest.at_ms - oldest.at_ms,
                _ => 0,
            };
            span >= fill_trend::DAY_MS - fill_trend::TREND_SLACK_MS
        });
        if !a_day {
            return Vec::new();
        }
        // A trend for each route with samples (a thousand at most), then each row's found by
        // hash: looking up each of 10,000 rows in the ordered map cost a millisecond a sample.
        let by_slug: std::collections::HashMap<&str, i32> = series
            .iter()
            .filter_map(|(slug, samples)| Some((slug.as_str(), fill_trend::trend(samples)?)))
            .collect();
        self.store()
            .rows()
            .iter()
            .map(|row| by_slug.get(&*row.slug).copied())
            .collect()
    }

    /// When the latest `/capacity` report on screen was generated, UNIX ms: where the charts
    /// over days end. (Time left is measured from [`crate::store::Store::service_now`], which
    /// moves on from it with captop's clock.)
    pub fn newest_figures_ms(&self) -> Option<i64> {
        let report = self.store().capacity().report()?;
        Some(report.generated_at.timestamp_millis())
    }

    /// The samples of route `slug` and the service's now, when they reach far enough back for
    /// the chart over days ([`fill_trend::has_chart`]).
    pub fn days_of(&self, slug: &str) -> Option<(&[Sample], i64)> {
        let now_ms = self.newest_figures_ms()?;
        let samples = self.store().forecast_series().get(slug)?;
        fill_trend::has_chart(samples, now_ms).then_some((samples.as_slice(), now_ms))
    }

    /// Whether `msg` would do anything now, for the footer's hints: the span of the chart over
    /// days only while the detail view shows one, the help's scrolling only when it scrolls.
    pub fn offers(&self, msg: Msg) -> bool {
        match msg {
            Msg::Step(_) => self.has_history && self.travel.is_some(),
            Msg::Live => self.travel.is_some(),
            // The help's scrolling keys, only while it is longer than the screen.
            Msg::Down | Msg::Up | Msg::PageDown | Msg::PageUp if self.overlay == Overlay::Help => {
                let screen = ratatui::layout::Rect::new(0, 0, self.size.0, self.size.1);
                crate::dashboard::ui::help::scroll_room(self, screen).0 > 0
            }
            Msg::ToggleSpan => {
                self.overlay == Overlay::Detail
                    && self
                        .selected_row()
                        .is_some_and(|row| self.days_of(&row.slug).is_some())
            }
            _ => true,
        }
    }

    /// Whether some route has days to chart, for the help's line of the span key.
    pub fn has_days(&self) -> bool {
        let Some(now_ms) = self.newest_figures_ms() else {
            return false;
        };
        self.store()
            .forecast_series()
            .values()
            .any(|samples| fill_trend::has_chart(samples, now_ms))
    }

    /// The selected route, if the view is not empty.
    pub fn selected_row(&self) -> Option<&RouteRow> {
        self.routes.selected_row(self.store().rows())
    }

    /// Time left until `at` as the status line counts it down (`7 s`, `5 min`).
    pub fn countdown(&self, at: Instant) -> String {
        crate::format::countdown(at.saturating_duration_since(self.now_mono))
    }

    /// The one-line reason polling is not normal now, and how bad it is.
    pub fn status_line(&self) -> Option<(LogKind, String)> {
        self.store.status_line(self.now, self.now_mono)
    }

    /// Rows of the routes table a page holds, from the terminal size and the layout.
    pub fn page_rows(&self) -> usize {
        let routes = layout::routes_area(self.size, self.show_events);
        usize::from(layout::table_body_height(routes)).max(1)
    }

    /// Whether the help lists `msg`: the time-travel keys only where there is a history, the
    /// tabs' only beside other services.
    pub fn lists(&self, msg: Msg) -> bool {
        match msg {
            Msg::Step(_) | Msg::Live => self.has_history,
            Msg::Tab(_) | Msg::NextTab | Msg::PrevTab => self.tabs,
            _ => true,
        }
    }

    /// Scrolls the help by `msg` (a line, a page, a wheel notch), kept within its lines on
    /// this screen; false for any other message.
    pub fn scroll_help(&mut self, msg: Msg) -> bool {
        let screen = ratatui::layout::Rect::new(0, 0, self.size.0, self.size.1);
        let (max, page) = crate::dashboard::ui::help::scroll_room(self, screen);
        let at = self.help_scroll.min(max);
        self.help_scroll = match msg {
            Msg::Down | Msg::ScrollDown => at + 1,
            Msg::Up | Msg::ScrollUp => at.saturating_sub(1),
            Msg::PageDown => at + page,
            Msg::PageUp => at.saturating_sub(page),
            _ => return false,
        }
        .min(max);
        true
    }

    fn on_msg(&mut self, msg: Msg) -> Option<Action> {
        // The note of the last time-travel key lasts until the next key.
        self.travel_note = None;
        if let Some(action) = self.on_travel_msg(msg) {
            return action;
        }
        if self.overlay == Overlay::Help && self.scroll_help(msg) {
            return None;
        }
        let page = self.page_rows();
        let rows = travel::shown_of(&self.store, self.travel.as_ref()).rows();
        let table = &mut self.routes;
        if table.on_msg(msg, rows, page) {
            return None;
        }
        match msg {
            Msg::Quit | Msg::Back => return Some(Action::Quit),
            Msg::Help => {
                self.overlay = Overlay::Help;
                self.help_scroll = 0;
            }
            Msg::Close => self.overlay = Overlay::None,
            Msg::StartFilter => {
                table.filter_editing = true;
                self.overlay = Overlay::None;
            }
            Msg::Detail if table.selected_row(rows).is_some() => self.overlay = Overlay::Detail,
            Msg::ToggleSpan => self.day_span = self.day_span.other(),
            Msg::Refresh => return Some(Action::Poll(PollCommand::RefreshNow)),
            Msg::TogglePause => return Some(Action::Poll(PollCommand::TogglePause)),
            Msg::ToggleEvents => {
                self.show_events = !self.show_events;
                let page = self.page_rows();
                self.routes.keep_selection_visible(page);
            }
            Msg::Click { column, row } => {
                let area = layout::routes_area(self.size, self.show_events);
                let hit = layout::table_row_at(area, column, row);
                if let Some(on_screen) = hit.filter(|_| self.overlay == Overlay::None) {
                    table.select_visible(on_screen, page);
                }
            }
            // Answered above (time travel), by the table (moving, sorting, filtering), or by
            // the several services' screen (the tabs).
            _ => {}
        }
        None
    }
}

#[cfg(test)]
mod tests;
