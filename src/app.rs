//! The dashboard's state and the one function that changes it, [`App::update`].
//!
//! Nothing here touches a terminal or the network: the runtime ([`crate::tui`]) turns key
//! presses, mouse wheels, resizes, poll results and clock ticks into [`Event`]s, feeds them to
//! [`App::update`], and draws the state with [`crate::ui::render`]. Whatever `update` wants done
//! outside (quit, ask the poller for something) it returns as an [`Action`].
//!
//! Server strings are sanitized once, when a report arrives, so the renderer only ever sees safe
//! text. The sorted and filtered list of routes is kept in [`App::view`] and recomputed when the
//! data, the sort or the filter changes, never per frame.

use std::collections::{HashMap, HashSet, VecDeque};
use std::time::{Duration, Instant};

use chrono::{DateTime, Utc};
use ratatui::crossterm::event::{
    KeyCode, KeyEvent, KeyEventKind, KeyModifiers, MouseButton, MouseEvent, MouseEventKind,
};

use crate::api::ApiError;
use crate::api::model::{
    CapacityReport, CapacityStatus, MinutesCapacity, PortCapacity, UtilizationReport,
};
use crate::poll::{Pause, PollCommand, PollEvent, ScheduleStatus};
use crate::text::sanitize;

/// How long a confirmed purchase stays highlighted in the routes table.
pub const HIGHLIGHT_FOR: Duration = Duration::from_secs(60);
/// How many utilization figures the session sparkline keeps.
pub const HISTORY_LEN: usize = 240;
/// How many figures of each route's fill the detail view keeps.
pub const ROUTE_HISTORY_LEN: usize = 120;
/// How many entries the events pane keeps.
pub const LOG_LEN: usize = 200;
/// How long the footer shows a warning of the poller.
pub const WARNING_FOR: Duration = Duration::from_secs(30);
/// Rows one mouse-wheel notch scrolls.
const WHEEL_STEP: usize = 3;

/// How the dashboard looks; the lead maps `crate::config::Settings` onto it.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct UiOptions {
    /// Colours on (`false` for `NO_COLOR` / `--no-color`).
    pub color: bool,
    /// Draw with ASCII characters only (`--ascii`).
    pub ascii: bool,
    /// Fill percentage from which a gauge turns to the warning colour.
    pub warn_pct: u8,
    /// Fill percentage from which a gauge turns to the critical colour.
    pub crit_pct: u8,
    /// Which service the figures come from, as the header shows it (profile or base URL).
    pub service_label: String,
}

impl Default for UiOptions {
    fn default() -> Self {
        UiOptions {
            color: true,
            ascii: false,
            warn_pct: 80,
            crit_pct: 95,
            service_label: String::new(),
        }
    }
}

impl UiOptions {
    /// The look the merged settings ask for; `service_label` says where the figures come from
    /// (`demo http://127.0.0.1:…/v1`, a profile name, or the base URL).
    pub fn from_settings(
        settings: &crate::config::Settings,
        service_label: impl Into<String>,
    ) -> Self {
        let (warn_pct, crit_pct) = if settings.warn_pct <= settings.crit_pct {
            (settings.warn_pct, settings.crit_pct)
        } else {
            (settings.crit_pct, settings.warn_pct)
        };
        UiOptions {
            color: settings.color,
            ascii: settings.ascii,
            warn_pct,
            crit_pct,
            service_label: service_label.into(),
        }
    }

    /// How a percentage rates against the thresholds.
    pub fn level(&self, pct: f64) -> Level {
        if pct >= f64::from(self.crit_pct) {
            Level::Crit
        } else if pct >= f64::from(self.warn_pct) {
            Level::Warn
        } else {
            Level::Ok
        }
    }
}

/// Where a figure stands against the warning and critical thresholds.
#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord)]
pub enum Level {
    /// Below the warning threshold.
    Ok,
    /// At or above the warning threshold.
    Warn,
    /// At or above the critical threshold.
    Crit,
}

/// Everything the dashboard reacts to.
#[derive(Debug, Clone)]
#[expect(
    clippy::large_enum_variant,
    reason = "a few events a second, each moved once; boxing poll results buys nothing"
)]
pub enum Event {
    /// A key press.
    Key(KeyEvent),
    /// A mouse event (the wheel scrolls).
    Mouse(MouseEvent),
    /// The terminal's new size, columns × rows.
    Resize(u16, u16),
    /// A message from the poller.
    Poll(PollEvent),
    /// A second passed while something on screen counts.
    Tick,
}

/// What [`App::update`] asks the runtime to do.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Action {
    /// Leave the dashboard.
    Quit,
    /// Send this command to the poller.
    Poll(PollCommand),
}

/// The order of the routes table; `s` cycles it, `S` reverses it.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum SortKey {
    /// Fullest first.
    Fill,
    /// Fewest minutes remaining first.
    Remaining,
    /// Alphabetical by name.
    Name,
}

impl SortKey {
    /// The next key in the cycle.
    pub fn next(self) -> Self {
        match self {
            SortKey::Fill => SortKey::Remaining,
            SortKey::Remaining => SortKey::Name,
            SortKey::Name => SortKey::Fill,
        }
    }

    /// Whether this key lists the biggest values first before `S` reverses it.
    pub fn descending(self) -> bool {
        matches!(self, SortKey::Fill)
    }

    /// The name shown in the table title and the footer.
    pub fn label(self) -> &'static str {
        match self {
            SortKey::Fill => "fill",
            SortKey::Remaining => "remaining",
            SortKey::Name => "name",
        }
    }
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

/// One report as it arrived.
#[derive(Debug, Clone)]
pub struct Fetched<T> {
    /// The report.
    pub report: T,
    /// When it arrived.
    pub received_at: DateTime<Utc>,
}

/// A failed poll of one endpoint.
#[derive(Debug, Clone)]
pub struct Failure {
    /// Why.
    pub error: ApiError,
    /// When the failure arrived.
    pub at: DateTime<Utc>,
    /// When the first failure of this run of failures arrived.
    pub since: DateTime<Utc>,
}

/// What is known of one endpoint: its latest good report and, if the last poll failed, why.
#[derive(Debug, Clone)]
pub struct Feed<T> {
    /// The newest report that arrived.
    pub latest: Option<Fetched<T>>,
    /// Set while the newest answer is a failure; cleared by the next good report.
    pub failure: Option<Failure>,
    /// Highest sequence number applied so far (older answers are dropped).
    last_seq: Option<u64>,
}

impl<T> Default for Feed<T> {
    fn default() -> Self {
        Feed {
            latest: None,
            failure: None,
            last_seq: None,
        }
    }
}

impl<T> Feed<T> {
    /// Whether an answer to poll `seq` is as new as anything applied so far.
    fn accepts(&self, seq: u64) -> bool {
        self.last_seq.is_none_or(|last| seq >= last)
    }

    /// Whether figures are on screen but the last poll of them failed.
    pub fn is_stale(&self) -> bool {
        self.latest.is_some() && self.failure.is_some()
    }
}

/// A route as the table shows it: sanitized strings, clamped percentage, recent change.
#[derive(Debug, Clone)]
pub struct RouteRow {
    /// Route slug, sanitized.
    pub slug: String,
    /// Display name, sanitized.
    pub name: String,
    /// Dial prefix, sanitized.
    pub dial_code: String,
    /// Percent of capacity sold, clamped into 0..=100.
    pub filled_pct: u8,
    /// Minutes of capacity.
    pub minutes: MinutesCapacity,
    /// Ports.
    pub ports: PortCapacity,
    /// Lower-case name, slug and dial code, for the filter.
    search_key: String,
}

/// The totals row: the service's totals where it sent them, else the sums of the routes.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct TotalsRow {
    /// Number of routes.
    pub routes: i64,
    /// Minutes of capacity.
    pub minutes: MinutesCapacity,
    /// Ports.
    pub ports: PortCapacity,
    /// Percent of capacity sold, clamped into 0..=100.
    pub filled_pct: u8,
}

impl Default for TotalsRow {
    fn default() -> Self {
        TotalsRow {
            routes: 0,
            minutes: MinutesCapacity {
                total: 0,
                sold: 0,
                remaining: 0,
            },
            ports: PortCapacity {
                total: 0,
                sold: 0,
                available: 0,
            },
            filled_pct: 0,
        }
    }
}

impl TotalsRow {
    fn of(report: &CapacityReport) -> Self {
        let sum = |f: fn(&crate::api::model::RouteCapacity) -> i64| {
            report
                .routes
                .iter()
                .fold(0i64, |acc, r| acc.saturating_add(f(r)))
        };
        let t = &report.totals;
        let m = t.capacity_minutes.unwrap_or_default();
        let p = t.ports.unwrap_or_default();
        let minutes = MinutesCapacity {
            total: m.total.unwrap_or_else(|| sum(|r| r.capacity_minutes.total)),
            sold: m.sold.unwrap_or_else(|| sum(|r| r.capacity_minutes.sold)),
            remaining: m
                .remaining
                .unwrap_or_else(|| sum(|r| r.capacity_minutes.remaining)),
        };
        let ports = PortCapacity {
            total: p.total.unwrap_or_else(|| sum(|r| r.ports.total)),
            sold: p.sold.unwrap_or_else(|| sum(|r| r.ports.sold)),
            available: p.available.unwrap_or_else(|| sum(|r| r.ports.available)),
        };
        let filled_pct = t.filled_pct.unwrap_or_else(|| {
            if minutes.total > 0 {
                // Clamped before narrowing: a huge sold over a tiny total must read 100, not wrap.
                (i128::from(minutes.sold) * 100 / i128::from(minutes.total)).clamp(0, 100) as i64
            } else {
                0
            }
        });
        TotalsRow {
            routes: t.routes.unwrap_or(report.routes.len() as i64),
            minutes,
            ports,
            filled_pct: filled_pct.clamp(0, 100) as u8,
        }
    }
}

/// A change of one route's sold figures between two polls.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Change {
    /// Minutes sold since the previous poll (negative when capacity was released).
    pub minutes: i64,
    /// Ports sold since the previous poll.
    pub ports: i64,
    /// When the poll that showed it arrived.
    pub at: DateTime<Utc>,
}

impl Change {
    /// Whether this is a confirmed purchase (something more was sold).
    pub fn is_purchase(&self) -> bool {
        self.minutes > 0 || self.ports > 0
    }
}

/// What kind of line the events pane shows, for its colour and marker.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum LogKind {
    /// A confirmed purchase.
    Purchase,
    /// Routes or ports moved; a threshold was crossed downwards.
    Info,
    /// A threshold was crossed upwards.
    Warn,
    /// A poll failed.
    Error,
    /// Polls work again.
    Recovery,
}

/// One line of the events pane.
#[derive(Debug, Clone)]
pub struct LogEntry {
    /// When it happened (arrival of the poll that showed it).
    pub at: DateTime<Utc>,
    /// What kind of event.
    pub kind: LogKind,
    /// The line, in the service's terms, already sanitized.
    pub text: String,
}

/// The dashboard's whole state.
#[derive(Debug)]
pub struct App {
    /// How the dashboard looks.
    pub options: UiOptions,
    /// Wall-clock time used for ages (set by the runtime, fixed in tests).
    pub now: DateTime<Utc>,
    /// Monotonic time used for countdowns (set by the runtime, fixed in tests).
    pub now_mono: Instant,
    /// Terminal size, columns × rows.
    pub size: (u16, u16),
    /// `/capacity`.
    pub capacity: Feed<CapacityReport>,
    /// `/utilization`.
    pub utilization: Feed<UtilizationReport>,
    /// API version from `/health`, sanitized.
    pub api_version: Option<String>,
    /// The poller's schedule.
    pub schedule: Option<ScheduleStatus>,
    /// The routes of the latest capacity report.
    pub rows: Vec<RouteRow>,
    /// Indices into [`App::rows`]: filtered and sorted, as the table lists them.
    pub view: Vec<usize>,
    /// The totals row of the latest capacity report.
    pub totals: TotalsRow,
    /// Latest change per route slug, kept while it is highlighted.
    pub changes: HashMap<String, Change>,
    /// Fill percentages of each route seen this session, for the detail view.
    pub route_history: HashMap<String, VecDeque<u8>>,
    /// Utilization percentages (× 10) seen this session, for the sparkline.
    pub history: VecDeque<u64>,
    /// What changed between polls, newest last.
    pub log: VecDeque<LogEntry>,
    /// The table order.
    pub sort: SortKey,
    /// Whether the order is reversed.
    pub reverse: bool,
    /// The filter text (empty: no filter).
    pub filter: String,
    /// Whether keys currently go to the filter input.
    pub filter_editing: bool,
    /// Index into [`App::view`] of the selected route.
    pub selected: usize,
    /// Index into [`App::view`] of the first visible row.
    pub offset: usize,
    /// What is drawn over the dashboard.
    pub overlay: Overlay,
    /// Whether the events pane is shown.
    pub show_events: bool,
    /// Set by a quit key; the runtime leaves after this update.
    pub quit: bool,
    /// The poller's latest warning and when it came; the footer shows it for
    /// [`WARNING_FOR`] while polls succeed, the events pane keeps it.
    pub warning: Option<(String, DateTime<Utc>)>,
}

impl App {
    /// A dashboard with no figures yet, its clock set to `now` / `now_mono`.
    pub fn new(options: UiOptions, now: DateTime<Utc>, now_mono: Instant) -> Self {
        App {
            options,
            now,
            now_mono,
            size: (80, 24),
            capacity: Feed::default(),
            utilization: Feed::default(),
            api_version: None,
            schedule: None,
            rows: Vec::new(),
            view: Vec::new(),
            totals: TotalsRow::default(),
            changes: HashMap::new(),
            route_history: HashMap::new(),
            history: VecDeque::new(),
            log: VecDeque::new(),
            sort: SortKey::Fill,
            reverse: false,
            filter: String::new(),
            filter_editing: false,
            selected: 0,
            offset: 0,
            overlay: Overlay::None,
            show_events: false,
            quit: false,
            warning: None,
        }
    }

    /// Moves the clock; the runtime calls it before every update and draw.
    pub fn set_clock(&mut self, now: DateTime<Utc>, now_mono: Instant) {
        self.now = now;
        self.now_mono = now_mono;
    }

    /// Applies one event; returns what the runtime should do about it.
    pub fn update(&mut self, event: Event) -> Option<Action> {
        match event {
            Event::Key(key) => self.on_key(key),
            Event::Mouse(mouse) => {
                self.on_mouse(mouse);
                None
            }
            Event::Resize(w, h) => {
                self.size = (w, h);
                self.keep_selection_visible();
                None
            }
            Event::Poll(poll) => {
                self.on_poll(poll);
                None
            }
            Event::Tick => {
                self.expire_changes();
                None
            }
        }
    }

    /// Whether a one-second tick should run: something on screen counts up or down.
    pub fn needs_tick(&self) -> bool {
        let countdown = self.schedule.as_ref().is_some_and(|s| {
            s.next_poll_at.is_some()
                || matches!(
                    s.pause,
                    Some(Pause::RateLimited { .. } | Pause::Backoff { .. })
                )
        });
        let ages = self.capacity.latest.is_some() || self.utilization.latest.is_some();
        countdown || ages || !self.changes.is_empty()
    }

    /// The selected route, if the view is not empty.
    pub fn selected_row(&self) -> Option<&RouteRow> {
        self.view.get(self.selected).and_then(|&i| self.rows.get(i))
    }

    /// The change shown for a route: only while it is within [`HIGHLIGHT_FOR`].
    pub fn change_of(&self, slug: &str) -> Option<Change> {
        self.changes
            .get(slug)
            .copied()
            .filter(|c| age(self.now, c.at) < HIGHLIGHT_FOR)
    }

    /// Seconds until `at`, rounded up, or zero if it has passed.
    fn seconds_until(&self, at: Instant) -> u64 {
        let left = at.saturating_duration_since(self.now_mono);
        let secs = left.as_secs();
        if left.subsec_nanos() > 0 {
            secs + 1
        } else {
            secs
        }
    }

    /// Time left until `at` as the status line says it: `7 s` up to 99 s, then `5 min`,
    /// `2 h 5 min`, `365 d 0 h` (a far `Retry-After` stays readable).
    pub fn countdown(&self, at: Instant) -> String {
        let secs = self.seconds_until(at);
        if secs < 100 {
            format!("{secs} s")
        } else {
            format_age(Duration::from_secs(secs))
        }
    }

    /// Utilization percentage of the latest report: the service's figure, or computed from
    /// utilized and sold when it left it out.
    pub fn utilization_pct(&self) -> Option<f64> {
        let report = &self.utilization.latest.as_ref()?.report;
        utilization_pct(report)
    }

    /// When the oldest figures on screen whose last poll failed arrived (`None`: nothing stale).
    pub fn stale_since(&self) -> Option<DateTime<Utc>> {
        let cap = self
            .capacity
            .is_stale()
            .then(|| self.capacity.latest.as_ref().map(|l| l.received_at));
        let util = self
            .utilization
            .is_stale()
            .then(|| self.utilization.latest.as_ref().map(|l| l.received_at));
        [cap.flatten(), util.flatten()].into_iter().flatten().min()
    }

    /// Rows of the routes table a page holds, from the terminal size and the layout.
    pub fn page_rows(&self) -> usize {
        usize::from(crate::ui::routes_body_height(self)).max(1)
    }

    // ----- keys and mouse -----

    fn on_key(&mut self, key: KeyEvent) -> Option<Action> {
        if key.kind == KeyEventKind::Release {
            return None;
        }
        let ctrl = key.modifiers.contains(KeyModifiers::CONTROL);
        if ctrl && matches!(key.code, KeyCode::Char('c')) {
            return self.quit();
        }
        if self.filter_editing {
            self.on_filter_key(key, ctrl);
            return None;
        }
        match self.overlay {
            Overlay::Help => {
                match key.code {
                    KeyCode::Char('?') | KeyCode::Esc | KeyCode::Enter | KeyCode::Char('q') => {
                        self.overlay = Overlay::None;
                    }
                    _ => {}
                }
                return None;
            }
            Overlay::Detail => match key.code {
                KeyCode::Esc | KeyCode::Enter | KeyCode::Char('q') | KeyCode::Backspace => {
                    self.overlay = Overlay::None;
                    return None;
                }
                _ => {}
            },
            Overlay::None => {}
        }
        match key.code {
            KeyCode::Char('q') => return self.quit(),
            KeyCode::Esc => {
                if self.filter.is_empty() {
                    return self.quit();
                }
                self.set_filter(String::new());
            }
            KeyCode::Char('?') => self.overlay = Overlay::Help,
            KeyCode::Down | KeyCode::Char('j') => self.move_selection(1),
            KeyCode::Up | KeyCode::Char('k') => self.move_selection(-1),
            KeyCode::PageDown => self.move_selection(self.page_rows() as isize),
            KeyCode::PageUp => self.move_selection(-(self.page_rows() as isize)),
            KeyCode::Char('d') if ctrl => self.move_selection(self.page_rows() as isize / 2),
            KeyCode::Char('u') if ctrl => self.move_selection(-(self.page_rows() as isize / 2)),
            KeyCode::Home | KeyCode::Char('g') => self.select(0),
            KeyCode::End | KeyCode::Char('G') => self.select(self.view.len().saturating_sub(1)),
            KeyCode::Char('s') => {
                self.sort = self.sort.next();
                self.reverse = false;
                self.recompute_view();
            }
            KeyCode::Char('S') => {
                self.reverse = !self.reverse;
                self.recompute_view();
            }
            KeyCode::Char('/') => {
                self.filter_editing = true;
                self.overlay = Overlay::None;
            }
            KeyCode::Enter if self.selected_row().is_some() => self.overlay = Overlay::Detail,
            KeyCode::Char('r') => return Some(Action::Poll(PollCommand::RefreshNow)),
            KeyCode::Char('p') => return Some(Action::Poll(PollCommand::TogglePause)),
            KeyCode::Char('e') => {
                self.show_events = !self.show_events;
                self.keep_selection_visible();
            }
            _ => {}
        }
        None
    }

    fn on_filter_key(&mut self, key: KeyEvent, ctrl: bool) {
        match key.code {
            KeyCode::Enter => self.filter_editing = false,
            KeyCode::Esc => {
                self.filter_editing = false;
                self.set_filter(String::new());
            }
            KeyCode::Backspace => {
                let mut f = self.filter.clone();
                f.pop();
                self.set_filter(f);
            }
            KeyCode::Char('u') if ctrl => self.set_filter(String::new()),
            KeyCode::Down => self.move_selection(1),
            KeyCode::Up => self.move_selection(-1),
            KeyCode::Char(c) if !ctrl && !crate::text::is_unsafe(c) && self.filter.len() < 64 => {
                let mut f = self.filter.clone();
                f.push(c);
                self.set_filter(f);
            }
            _ => {}
        }
    }

    fn on_mouse(&mut self, mouse: MouseEvent) {
        match mouse.kind {
            MouseEventKind::ScrollDown => self.move_selection(WHEEL_STEP as isize),
            MouseEventKind::ScrollUp => self.move_selection(-(WHEEL_STEP as isize)),
            MouseEventKind::Down(MouseButton::Left) if self.overlay == Overlay::None => {
                // A click on a route row selects it.
                let area = ratatui::layout::Rect::new(0, 0, self.size.0, self.size.1);
                let routes = crate::ui::layout(area, self.show_events).routes;
                let first_row = routes.y + 2;
                let rows = crate::ui::routes::body_height(routes);
                let inside = mouse.column > routes.x && mouse.column + 1 < routes.right();
                if inside && mouse.row >= first_row && mouse.row < first_row + rows {
                    let index = self.offset + usize::from(mouse.row - first_row);
                    if index < self.view.len() {
                        self.select(index);
                    }
                }
            }
            _ => {}
        }
    }

    fn quit(&mut self) -> Option<Action> {
        self.quit = true;
        Some(Action::Quit)
    }

    fn move_selection(&mut self, by: isize) {
        let target = self.selected.saturating_add_signed(by);
        self.select(target);
    }

    fn select(&mut self, index: usize) {
        self.selected = index.min(self.view.len().saturating_sub(1));
        self.keep_selection_visible();
    }

    /// Scrolls just enough that the selected row is on screen.
    fn keep_selection_visible(&mut self) {
        let page = self.page_rows();
        let len = self.view.len();
        self.selected = self.selected.min(len.saturating_sub(1));
        if self.selected < self.offset {
            self.offset = self.selected;
        } else if self.selected >= self.offset + page {
            self.offset = self.selected + 1 - page;
        }
        // Never leave empty rows below the last route when there are enough to fill the page.
        self.offset = self.offset.min(len.saturating_sub(page));
    }

    fn set_filter(&mut self, filter: String) {
        self.filter = filter;
        self.recompute_view();
    }

    /// Recomputes the filtered, sorted view, keeping the selected route selected if it is
    /// still listed.
    pub fn recompute_view(&mut self) {
        let keep = self.selected_row().map(|r| r.slug.clone());
        let needle = self.filter.to_lowercase();
        let mut view: Vec<(usize, &RouteRow)> = self
            .rows
            .iter()
            .enumerate()
            .filter(|(_, row)| needle.is_empty() || row.search_key.contains(&needle))
            .collect();
        let by_name = |a: &RouteRow, b: &RouteRow| a.name.cmp(&b.name).then(a.slug.cmp(&b.slug));
        match self.sort {
            SortKey::Fill => view.sort_by(|&(_, a), &(_, b)| {
                b.filled_pct.cmp(&a.filled_pct).then_with(|| by_name(a, b))
            }),
            SortKey::Remaining => view.sort_by(|&(_, a), &(_, b)| {
                a.minutes
                    .remaining
                    .cmp(&b.minutes.remaining)
                    .then_with(|| by_name(a, b))
            }),
            SortKey::Name => view.sort_by(|&(_, a), &(_, b)| by_name(a, b)),
        }
        if self.reverse {
            view.reverse();
        }
        let selected = keep
            .and_then(|slug| view.iter().position(|(_, row)| row.slug == slug))
            .unwrap_or(0);
        self.view = view.into_iter().map(|(i, _)| i).collect();
        self.selected = selected;
        self.keep_selection_visible();
    }

    // ----- poll results -----

    fn on_poll(&mut self, poll: PollEvent) {
        match poll {
            PollEvent::Capacity {
                seq,
                received_at,
                result,
            } => {
                if !self.capacity.accepts(seq) {
                    return;
                }
                self.capacity.last_seq = Some(seq);
                match result {
                    Ok(report) => self.apply_capacity(report, received_at),
                    Err(error) => self.fail(Which::Capacity, error, received_at),
                }
            }
            PollEvent::Utilization {
                seq,
                received_at,
                result,
            } => {
                if !self.utilization.accepts(seq) {
                    return;
                }
                self.utilization.last_seq = Some(seq);
                match result {
                    Ok(report) => self.apply_utilization(report, received_at),
                    Err(error) => self.fail(Which::Utilization, error, received_at),
                }
            }
            PollEvent::Health(Ok(health)) => {
                self.api_version = Some(crate::text::fit(&health.version, 16));
            }
            PollEvent::Health(Err(_)) => {}
            PollEvent::Schedule(status) => {
                if let Some(note) = &status.note {
                    self.warn(note);
                }
                self.schedule = Some(status);
            }
            PollEvent::Warning(text) => self.warn(&text),
        }
    }

    fn fail(&mut self, which: Which, error: ApiError, at: DateTime<Utc>) {
        let (failure, name) = match which {
            Which::Capacity => (&mut self.capacity.failure, "/capacity"),
            Which::Utilization => (&mut self.utilization.failure, "/utilization"),
        };
        let message = sanitize(&error.to_string()).into_owned();
        let repeated = failure
            .as_ref()
            .is_some_and(|f| sanitize(&f.error.to_string()) == message);
        let since = failure.as_ref().map_or(at, |f| f.since);
        *failure = Some(Failure { error, at, since });
        if !repeated {
            let text = if message.contains(name) {
                message
            } else {
                format!("{name}: {message}")
            };
            self.push_log(at, LogKind::Error, text);
        }
    }

    fn recover(&mut self, which: Which, at: DateTime<Utc>) {
        let (failure, name) = match which {
            Which::Capacity => (self.capacity.failure.take(), "/capacity"),
            Which::Utilization => (self.utilization.failure.take(), "/utilization"),
        };
        if let Some(f) = failure {
            let after = format_age(age(at, f.since));
            self.push_log(
                at,
                LogKind::Recovery,
                format!("{name} answers again (failed for {after})"),
            );
        }
    }

    fn apply_capacity(&mut self, report: CapacityReport, received_at: DateTime<Utc>) {
        self.recover(Which::Capacity, received_at);
        let broken = crate::api::validate::capacity_warnings_at(&report, self.now);
        self.warn_rules("/capacity", &broken);
        let first = self.rows.is_empty() && self.capacity.latest.is_none();
        let previous: HashMap<&str, &RouteRow> =
            self.rows.iter().map(|r| (r.slug.as_str(), r)).collect();
        let rows: Vec<RouteRow> = report.routes.iter().map(route_row).collect();

        let mut log = Vec::new();
        let mut changes = Vec::new();
        if first {
            log.push((
                LogKind::Info,
                format!(
                    "{} routes reported",
                    crate::text::thousands(rows.len() as i64)
                ),
            ));
        } else {
            let mut appeared = 0usize;
            for row in &rows {
                match previous.get(row.slug.as_str()) {
                    None => {
                        appeared += 1;
                        if appeared <= 5 {
                            log.push((
                                LogKind::Info,
                                format!("route appeared: {} ({})", row.name, row.dial_code),
                            ));
                        }
                    }
                    Some(old) => {
                        let minutes = row.minutes.sold.saturating_sub(old.minutes.sold);
                        let ports = row.ports.sold.saturating_sub(old.ports.sold);
                        if minutes != 0 || ports != 0 {
                            let change = Change {
                                minutes,
                                ports,
                                at: received_at,
                            };
                            if change.is_purchase() {
                                log.push((
                                    LogKind::Purchase,
                                    format!("{} {}", row.name, describe_change(&change)),
                                ));
                            }
                            changes.push((row.slug.clone(), change));
                        }
                    }
                }
            }
            if appeared > 5 {
                log.push((
                    LogKind::Info,
                    format!("… and {} more routes appeared", appeared - 5),
                ));
            }
            let now_present: HashSet<&str> = rows.iter().map(|r| r.slug.as_str()).collect();
            let mut gone = 0usize;
            for old in &self.rows {
                if !now_present.contains(old.slug.as_str()) {
                    gone += 1;
                    if gone <= 5 {
                        log.push((
                            LogKind::Info,
                            format!("route left: {} ({})", old.name, old.dial_code),
                        ));
                    }
                }
            }
            if gone > 5 {
                log.push((
                    LogKind::Info,
                    format!("… and {} more routes left", gone - 5),
                ));
            }
        }
        drop(previous);

        for (slug, change) in changes {
            self.changes.insert(slug, change);
        }
        for row in &rows {
            let h = self.route_history.entry(row.slug.clone()).or_default();
            if h.len() == ROUTE_HISTORY_LEN {
                h.pop_front();
            }
            h.push_back(row.filled_pct);
        }
        if self.route_history.len() > rows.len() {
            let present: HashSet<&str> = rows.iter().map(|r| r.slug.as_str()).collect();
            self.route_history
                .retain(|slug, _| present.contains(slug.as_str()));
        }
        for (kind, text) in log {
            self.push_log(received_at, kind, text);
        }
        self.rows = rows;
        self.totals = TotalsRow::of(&report);
        self.capacity.latest = Some(Fetched {
            report,
            received_at,
        });
        self.expire_changes();
        self.recompute_view();
    }

    fn apply_utilization(&mut self, report: UtilizationReport, received_at: DateTime<Utc>) {
        self.recover(Which::Utilization, received_at);
        let broken = crate::api::validate::utilization_warnings_at(&report, self.now);
        self.warn_rules("/utilization", &broken);
        let new_pct = utilization_pct(&report);
        if let Some(old) = self.utilization.latest.take() {
            let old_pct = utilization_pct(&old.report);
            if let (Some(a), Some(b)) = (old_pct, new_pct) {
                let (la, lb) = (self.options.level(a), self.options.level(b));
                if la != lb {
                    let (kind, verb, threshold) = if lb > la {
                        let t = if lb == Level::Crit {
                            self.options.crit_pct
                        } else {
                            self.options.warn_pct
                        };
                        (LogKind::Warn, "rose above", t)
                    } else {
                        let t = if la == Level::Crit {
                            self.options.crit_pct
                        } else {
                            self.options.warn_pct
                        };
                        (LogKind::Info, "fell below", t)
                    };
                    self.push_log(
                        received_at,
                        kind,
                        format!("utilization {verb} {threshold} %: now {b:.1} %"),
                    );
                }
            }
            if let Some(text) =
                describe_port_moves(&old.report.capacity_status, &report.capacity_status)
            {
                self.push_log(received_at, LogKind::Info, text);
            }
        }
        if let Some(pct) = new_pct {
            if self.history.len() == HISTORY_LEN {
                self.history.pop_front();
            }
            self.history
                .push_back((pct.clamp(0.0, 100.0) * 10.0).round() as u64);
        }
        self.utilization.latest = Some(Fetched {
            report,
            received_at,
        });
    }

    fn expire_changes(&mut self) {
        let now = self.now;
        self.changes.retain(|_, c| age(now, c.at) < HIGHLIGHT_FOR);
    }

    /// A note from the poller that is no poll's error (e.g. an unexpected API version, a budget
    /// that could not be shared): logged once and kept for the footer while nothing is wrong.
    pub fn warn(&mut self, text: &str) {
        let text = crate::text::fit(text, 200);
        if self.warning.as_ref().map(|(w, _)| w.as_str()) != Some(text.as_str()) {
            self.push_log(self.now, LogKind::Warn, text.clone());
            self.warning = Some((text, self.now));
        }
    }

    /// The rules of the service's spec a usable report breaks, as one warning: the first, and
    /// how many more (`--once --format json` lists them all). Said again only when it changes.
    fn warn_rules(&mut self, endpoint: &str, broken: &[crate::api::validate::Warning]) {
        let Some(first) = broken.first() else {
            return;
        };
        let more = match broken.len() - 1 {
            0 => String::new(),
            1 => " (and 1 more rule broken)".to_owned(),
            n => format!(
                " (and {} more rules broken)",
                crate::text::thousands(n as i64)
            ),
        };
        self.warn(&format!("{endpoint} figures look wrong: {first}{more}"));
    }

    fn push_log(&mut self, at: DateTime<Utc>, kind: LogKind, text: String) {
        if self.log.len() == LOG_LEN {
            self.log.pop_front();
        }
        self.log.push_back(LogEntry { at, kind, text });
    }

    // ----- what the screen says -----

    /// The latest failure in the fewest words, named by its endpoint (`/capacity: connection
    /// reset`) unless its text names it already or both endpoints fail the same way.
    fn failure_text(&self) -> Option<String> {
        let failed = [
            (&self.capacity.failure, "/capacity"),
            (&self.utilization.failure, "/utilization"),
        ];
        let mut failed = failed
            .into_iter()
            .filter_map(|(f, name)| f.as_ref().map(|f| (short_error(&f.error), f.at, name)));
        let (first, second) = (failed.next(), failed.next());
        let (text, _, name) = match (first, second) {
            (Some(a), Some(b)) if a.0 == b.0 => return Some(a.0),
            (Some(a), Some(b)) => {
                if b.1 > a.1 {
                    b
                } else {
                    a
                }
            }
            (Some(a), None) | (None, Some(a)) => a,
            (None, None) => return None,
        };
        Some(if text.contains(name) {
            text
        } else {
            format!("{name}: {text}")
        })
    }

    /// The one-line reason the footer shows when polling is not normal, and how bad it is.
    pub fn status_line(&self) -> Option<(LogKind, String)> {
        let pause = self.schedule.as_ref().and_then(|s| s.pause.clone());
        let latest_failure = [&self.capacity.failure, &self.utilization.failure]
            .into_iter()
            .flatten()
            .max_by_key(|f| f.at);
        let unauthorized = matches!(pause, Some(Pause::Unauthorized))
            || latest_failure.is_some_and(|f| matches!(f.error, ApiError::Unauthorized { .. }));
        if unauthorized {
            return Some((
                LogKind::Error,
                "401 API key invalid — run captop auth login, then press r".to_owned(),
            ));
        }
        match pause {
            Some(Pause::RateLimited { until }) => {
                return Some((
                    LogKind::Warn,
                    format!("429 rate limited — next try in {}", self.countdown(until)),
                ));
            }
            Some(Pause::Backoff { until, attempt }) => {
                let why = self
                    .failure_text()
                    .unwrap_or_else(|| "service unreachable".to_owned());
                let failures = if attempt > 1 {
                    format!(" ({attempt} failures)")
                } else {
                    String::new()
                };
                return Some((
                    LogKind::Error,
                    format!("{why} — next try in {}{failures}", self.countdown(until)),
                ));
            }
            Some(Pause::User) => {
                return Some((LogKind::Info, "paused — press p to resume".to_owned()));
            }
            _ => {}
        }
        if let Some(f) = latest_failure {
            if let ApiError::RateLimited { .. } = f.error {
                return Some((
                    LogKind::Warn,
                    "429 rate limited — waiting for the service".to_owned(),
                ));
            }
            return Some((LogKind::Error, self.failure_text().unwrap_or_default()));
        }
        self.warning
            .as_ref()
            .filter(|(_, at)| age(self.now, *at) < WARNING_FOR)
            .map(|(w, _)| (LogKind::Warn, w.clone()))
    }
}

#[derive(Clone, Copy)]
enum Which {
    Capacity,
    Utilization,
}

/// The error in the fewest words an operator needs: `connection refused`, `timed out`, …
pub fn short_error(error: &ApiError) -> String {
    let text = match error {
        ApiError::Connect { reason, .. } => reason.clone(),
        ApiError::Unauthorized { .. } => "401 API key invalid — run captop auth login".to_owned(),
        other => other.to_string(),
    };
    sanitize(&text).into_owned()
}

fn route_row(route: &crate::api::model::RouteCapacity) -> RouteRow {
    let slug = crate::text::fit(&route.route, 64);
    let name = crate::text::fit(&route.name, 64);
    let dial_code = crate::text::fit(&route.dial_code, 16);
    let search_key = format!("{name}\u{0}{slug}\u{0}{dial_code}").to_lowercase();
    RouteRow {
        filled_pct: route.filled_pct.clamp(0, 100) as u8,
        minutes: route.capacity_minutes,
        ports: route.ports,
        slug,
        name,
        dial_code,
        search_key,
    }
}

fn utilization_pct(report: &UtilizationReport) -> Option<f64> {
    report
        .utilization
        .utilization_pct
        .filter(|p| p.is_finite())
        .or_else(|| {
            let sold = report.daily_capacity_minutes.sold.filter(|&s| s > 0)?;
            let used = report
                .utilization
                .utilized_minutes
                .unwrap_or(report.minutes_run_today);
            Some(used as f64 * 100.0 / sold as f64)
        })
}

/// `+1,200`, `-5`: a count with its sign and thousands separators.
pub fn signed_thousands(n: i64) -> String {
    let digits = crate::text::thousands(n);
    if n < 0 { digits } else { format!("+{digits}") }
}

/// `+120 min +2 ports`: a change of sold figures in the service's terms.
pub fn describe_change(change: &Change) -> String {
    let mut parts = Vec::new();
    if change.minutes != 0 {
        parts.push(format!("{} min", signed_thousands(change.minutes)));
    }
    if change.ports != 0 {
        parts.push(format!(
            "{} port{}",
            signed_thousands(change.ports),
            if change.ports.unsigned_abs() == 1 {
                ""
            } else {
                "s"
            }
        ));
    }
    parts.join(" ")
}

fn describe_port_moves(old: &CapacityStatus, new: &CapacityStatus) -> Option<String> {
    let pairs = [
        ("active", old.active_ports, new.active_ports),
        ("paused", old.paused_ports, new.paused_ports),
        (
            "provisioning",
            old.provisioning_ports,
            new.provisioning_ports,
        ),
    ];
    let moves: Vec<String> = pairs
        .iter()
        .filter_map(|&(name, a, b)| {
            let (a, b) = (a?, b?);
            (a != b).then(|| {
                format!(
                    "{name} {} ({:+})",
                    crate::text::thousands(b),
                    b.saturating_sub(a)
                )
            })
        })
        .collect();
    (!moves.is_empty()).then(|| format!("ports: {}", moves.join(", ")))
}

/// How long ago `then` was, never negative.
pub fn age(now: DateTime<Utc>, then: DateTime<Utc>) -> Duration {
    (now - then).to_std().unwrap_or(Duration::ZERO)
}

/// `4 s`, `3 min`, `2 h 5 min`: an age as the header shows it.
pub fn format_age(d: Duration) -> String {
    let s = d.as_secs();
    if s < 60 {
        format!("{s} s")
    } else if s < 3600 {
        format!("{} min", s / 60)
    } else if s < 86_400 {
        format!("{} h {} min", s / 3600, (s % 3600) / 60)
    } else {
        format!("{} d {} h", s / 86_400, (s % 86_400) / 3600)
    }
}

#[cfg(test)]
#[allow(clippy::unwrap_used, clippy::expect_used)]
mod tests {
    use super::*;
    use crate::api::Endpoint;
    use crate::api::model::{RouteCapacity, Totals};
    use chrono::TimeZone;

    fn t(s: i64) -> DateTime<Utc> {
        Utc.timestamp_opt(1_790_000_000 + s, 0).unwrap()
    }

    fn route(slug: &str, name: &str, sold: i64, total: i64, ports_sold: i64) -> RouteCapacity {
        RouteCapacity {
            route: slug.to_owned(),
            name: name.to_owned(),
            dial_code: "+44".to_owned(),
            capacity_minutes: MinutesCapacity {
                total,
                sold,
                remaining: total - sold,
            },
            ports: PortCapacity {
                total: 10,
                sold: ports_sold,
                available: 10 - ports_sold,
            },
            filled_pct: sold * 100 / total,
        }
    }

    fn capacity(at: i64, routes: Vec<RouteCapacity>) -> CapacityReport {
        CapacityReport {
            generated_at: t(at),
            unit_notes: None,
            routes,
            totals: Totals::default(),
        }
    }

    fn cap_event(seq: u64, at: i64, routes: Vec<RouteCapacity>) -> Event {
        Event::Poll(PollEvent::Capacity {
            seq,
            received_at: t(at),
            result: Ok(capacity(at, routes)),
        })
    }

    fn app() -> App {
        App::new(UiOptions::default(), t(0), Instant::now())
    }

    fn key(c: KeyCode) -> Event {
        Event::Key(KeyEvent::new(c, KeyModifiers::NONE))
    }

    #[test]
    fn older_answers_never_overwrite_newer_ones() {
        let mut app = app();
        app.update(cap_event(2, 10, vec![route("a", "A", 50, 100, 1)]));
        app.update(cap_event(1, 11, vec![route("a", "A", 10, 100, 1)]));
        assert_eq!(app.rows[0].minutes.sold, 50);
        app.update(Event::Poll(PollEvent::Capacity {
            seq: 1,
            received_at: t(12),
            result: Err(ApiError::Connect {
                endpoint: Endpoint::Capacity,
                reason: "connection refused".into(),
            }),
        }));
        assert!(
            app.capacity.failure.is_none(),
            "an old failure must not mark new figures stale"
        );
    }

    #[test]
    fn purchases_are_logged_and_highlighted_then_expire() {
        let mut app = app();
        app.update(cap_event(1, 0, vec![route("a", "Lagos", 50, 100, 1)]));
        app.update(cap_event(2, 5, vec![route("a", "Lagos", 70, 100, 3)]));
        let change = app.change_of("a").unwrap();
        assert_eq!((change.minutes, change.ports), (20, 2));
        assert_eq!(app.log.back().unwrap().text, "Lagos +20 min +2 ports");
        app.set_clock(t(5 + 61), app.now_mono);
        app.update(Event::Tick);
        assert!(app.change_of("a").is_none());
    }

    #[test]
    fn routes_appearing_and_leaving_are_logged() {
        let mut app = app();
        app.update(cap_event(1, 0, vec![route("a", "A", 1, 100, 1)]));
        app.update(cap_event(2, 5, vec![route("b", "B", 1, 100, 1)]));
        let texts: Vec<_> = app.log.iter().map(|e| e.text.as_str()).collect();
        assert!(texts.contains(&"route appeared: B (+44)"), "{texts:?}");
        assert!(texts.contains(&"route left: A (+44)"), "{texts:?}");
    }

    #[test]
    fn sort_filter_and_selection_follow_the_route() {
        let mut app = app();
        app.update(cap_event(
            1,
            0,
            vec![
                route("a", "Alpha", 10, 100, 1),
                route("b", "Bravo", 90, 100, 1),
                route("c", "Charlie", 50, 100, 1),
            ],
        ));
        let names = |app: &App| -> Vec<String> {
            app.view.iter().map(|&i| app.rows[i].name.clone()).collect()
        };
        assert_eq!(names(&app), ["Bravo", "Charlie", "Alpha"]);
        app.update(key(KeyCode::Char('j')));
        assert_eq!(app.selected_row().unwrap().name, "Charlie");
        app.update(key(KeyCode::Char('s'))); // remaining: fewest first
        assert_eq!(names(&app), ["Bravo", "Charlie", "Alpha"]);
        app.update(key(KeyCode::Char('s'))); // name
        assert_eq!(names(&app), ["Alpha", "Bravo", "Charlie"]);
        assert_eq!(
            app.selected_row().unwrap().name,
            "Charlie",
            "selection follows the route"
        );
        app.update(key(KeyCode::Char('S')));
        assert_eq!(names(&app), ["Charlie", "Bravo", "Alpha"]);
        app.update(key(KeyCode::Char('/')));
        for c in "alp".chars() {
            app.update(key(KeyCode::Char(c)));
        }
        assert_eq!(names(&app), ["Alpha"]);
        app.update(key(KeyCode::Char('q')));
        assert!(!app.quit, "q types into the filter while editing");
        app.update(key(KeyCode::Esc));
        assert!(app.filter.is_empty() && !app.filter_editing);
        assert_eq!(app.view.len(), 3);
    }

    #[test]
    fn scrolling_keeps_the_selection_on_screen() {
        let mut app = app();
        app.update(Event::Resize(80, 24));
        let routes = (0..500)
            .map(|i| route(&format!("r{i:03}"), &format!("R{i:03}"), i % 100, 100, 1))
            .collect();
        app.update(cap_event(1, 0, routes));
        let page = app.page_rows();
        assert!(page > 3);
        app.update(key(KeyCode::End));
        assert_eq!(app.selected, 499);
        assert_eq!(app.offset, 500 - page);
        app.update(key(KeyCode::PageUp));
        assert_eq!(app.selected, 499 - page);
        assert!(app.offset <= app.selected);
        app.update(key(KeyCode::Home));
        assert_eq!((app.selected, app.offset), (0, 0));
        app.update(Event::Mouse(MouseEvent {
            kind: MouseEventKind::ScrollDown,
            column: 0,
            row: 0,
            modifiers: KeyModifiers::NONE,
        }));
        assert_eq!(app.selected, 3);
    }

    #[test]
    fn a_click_selects_the_route_under_it() {
        let mut app = app();
        app.update(Event::Resize(80, 24));
        let routes = (0..30)
            .map(|i| route(&format!("r{i:02}"), &format!("R{i:02}"), 50, 100, 1))
            .collect();
        app.update(cap_event(1, 0, routes));
        let click = |row| {
            Event::Mouse(MouseEvent {
                kind: MouseEventKind::Down(MouseButton::Left),
                column: 10,
                row,
                modifiers: KeyModifiers::NONE,
            })
        };
        // Header 1 + top panels 7 + border 1 + heading 1: the first route is on row 10.
        app.update(click(12));
        assert_eq!(app.selected, 2);
        app.update(click(3)); // the utilization panel: nothing happens
        assert_eq!(app.selected, 2);
    }

    #[test]
    fn warnings_are_logged_once_and_leave_the_footer_after_a_while() {
        let mut app = app();
        app.update(Event::Poll(PollEvent::Schedule(ScheduleStatus {
            requested_interval: Duration::from_secs(5),
            budget_interval: Duration::from_secs(5),
            interval: Duration::from_secs(5),
            shared_by: 1,
            next_poll_at: None,
            budget_used: 0,
            budget_limit: 60,
            pause: None,
            note: Some("budget not shared\u{1b}[2J".into()),
        })));
        app.warn("budget not shared\u{1b}[2J");
        assert_eq!(app.log.len(), 1);
        let (kind, text) = app.status_line().unwrap();
        assert_eq!(kind, LogKind::Warn);
        assert!(!text.contains('\u{1b}'));
        app.set_clock(t(31), app.now_mono);
        assert!(app.status_line().is_none());
    }

    /// Found by the rendering property test: `i64::MIN` ports sold since the last poll
    /// overflowed `abs()` (a panic in debug builds, a wrong word in release).
    #[test]
    fn changes_describe_extreme_counts() {
        let change = |minutes, ports| Change {
            minutes,
            ports,
            at: t(0),
        };
        assert_eq!(
            describe_change(&change(0, i64::MIN)),
            "-9,223,372,036,854,775,808 ports"
        );
        assert_eq!(
            describe_change(&change(i64::MAX, -1)),
            "+9,223,372,036,854,775,807 min -1 port"
        );
    }

    #[test]
    fn figures_that_break_the_spec_are_shown_with_a_warning_said_once() {
        let mut app = app();
        let mut broken = route("ng-lagos", "Lagos", 120, 100, 10);
        broken.capacity_minutes.remaining = -20;
        for seq in 1..=3 {
            app.update(cap_event(seq, 0, vec![broken.clone()]));
        }
        assert_eq!(app.rows.len(), 1, "the figures are still shown");
        let (kind, text) = app.status_line().unwrap();
        assert_eq!(kind, LogKind::Warn);
        assert!(
            text.starts_with("/capacity figures look wrong: routes[0] (ng-lagos): "),
            "{text}"
        );
        assert!(text.contains("more rules broken"), "{text}");
        let said = app
            .log
            .iter()
            .filter(|e| e.text.contains("look wrong"))
            .count();
        assert_eq!(said, 1, "a lasting fault is logged once, not every poll");
    }

    #[test]
    fn the_footer_names_the_failing_endpoint_unless_both_fail_alike() {
        let connect = |endpoint, reason: &str| ApiError::Connect {
            endpoint,
            reason: reason.to_owned(),
        };
        let cap_fails = |seq, reason: &str| {
            Event::Poll(PollEvent::Capacity {
                seq,
                received_at: t(seq as i64),
                result: Err(connect(Endpoint::Capacity, reason)),
            })
        };
        let util_fails = |seq, reason: &str| {
            Event::Poll(PollEvent::Utilization {
                seq,
                received_at: t(seq as i64),
                result: Err(connect(Endpoint::Utilization, reason)),
            })
        };
        let mut app = app();
        app.update(cap_fails(1, "connection reset"));
        assert_eq!(app.status_line().unwrap().1, "/capacity: connection reset");
        app.update(util_fails(2, "connection refused"));
        assert_eq!(
            app.status_line().unwrap().1,
            "/utilization: connection refused"
        );
        app.update(cap_fails(3, "connection refused"));
        assert_eq!(app.status_line().unwrap().1, "connection refused");
    }

    #[test]
    fn countdowns_stay_readable_from_seconds_to_a_year() {
        let app = app();
        let at = |secs: u64| app.now_mono + Duration::from_secs(secs);
        assert_eq!(app.countdown(app.now_mono), "0 s");
        assert_eq!(
            app.countdown(app.now_mono + Duration::from_millis(1)),
            "1 s"
        );
        assert_eq!(app.countdown(at(99)), "99 s");
        assert_eq!(app.countdown(at(100)), "1 min");
        assert_eq!(app.countdown(at(3 * 3600 + 300)), "3 h 5 min");
        assert_eq!(app.countdown(at(365 * 86_400)), "365 d 0 h");
    }

    #[test]
    fn keys_map_to_actions() {
        let mut app = app();
        assert_eq!(
            app.update(key(KeyCode::Char('r'))),
            Some(Action::Poll(PollCommand::RefreshNow))
        );
        assert_eq!(
            app.update(key(KeyCode::Char('p'))),
            Some(Action::Poll(PollCommand::TogglePause))
        );
        app.update(key(KeyCode::Char('?')));
        assert_eq!(app.overlay, Overlay::Help);
        assert_eq!(
            app.update(key(KeyCode::Esc)),
            None,
            "Esc closes the help first"
        );
        assert_eq!(app.update(key(KeyCode::Esc)), Some(Action::Quit));
        let mut app2 = self::app();
        let ctrl_c = Event::Key(KeyEvent::new(KeyCode::Char('c'), KeyModifiers::CONTROL));
        app2.update(key(KeyCode::Char('/')));
        assert_eq!(app2.update(ctrl_c), Some(Action::Quit));
    }

    #[test]
    fn threshold_crossings_and_recoveries_are_logged() {
        let mut app = app();
        let util = |pct: f64, active: i64| UtilizationReport {
            generated_at: t(0),
            date: t(0).date_naive(),
            minutes_run_today: 100,
            daily_capacity_minutes: Default::default(),
            utilization: crate::api::model::Utilization {
                utilized_minutes: Some(100),
                available_minutes: Some(10),
                utilization_pct: Some(pct),
            },
            capacity_status: CapacityStatus {
                active_ports: Some(active),
                paused_ports: Some(5),
                provisioning_ports: Some(1),
            },
        };
        let ev = |seq, at, r: Result<UtilizationReport, ApiError>| {
            Event::Poll(PollEvent::Utilization {
                seq,
                received_at: t(at),
                result: r,
            })
        };
        app.update(ev(1, 0, Ok(util(79.0, 10))));
        app.update(ev(2, 5, Ok(util(81.0, 12))));
        app.update(ev(
            3,
            10,
            Err(ApiError::Timeout {
                endpoint: Endpoint::Utilization,
                after: Duration::from_secs(10),
            }),
        ));
        assert!(app.utilization.is_stale());
        app.update(ev(4, 15, Ok(util(81.0, 12))));
        let texts: Vec<_> = app.log.iter().map(|e| e.text.as_str()).collect();
        assert!(
            texts.contains(&"utilization rose above 80 %: now 81.0 %"),
            "{texts:?}"
        );
        assert!(texts.contains(&"ports: active 12 (+2)"), "{texts:?}");
        assert!(texts.iter().any(|t| t.contains("timed out")), "{texts:?}");
        assert!(
            texts.contains(&"/utilization answers again (failed for 5 s)"),
            "{texts:?}"
        );
        assert_eq!(app.history.len(), 3);
    }
}
