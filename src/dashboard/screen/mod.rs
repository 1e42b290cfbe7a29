//! The dashboard's whole screen ([`Screen`]): one [`App`] per service, and with several of them the tabs,
//! the overview and the "all" view that merges their routes. Changed only by
//! [`Screen::update`] (input) and [`Screen::update_service`] (what one service's poller, history
//! or relay sends); drawn by `ui::screen`.
//!
//! ```text
//!  key ──► Keymap ──► Msg ──► Screen ──┬─ tabs (1…9, Tab, Shift-Tab) ──► view
//!                                      ├─ service tab ──► that App::update ──► (service, Action)
//!                                      ├─ overview: select, open, refresh all
//!                                      └─ all: one RoutesTable over every service's rows
//!  PollEvent of service i ──► Screen::update_service(i) ──► App i
//! ```
//!
//! With one service the screen is that service's [`App`] and nothing more: every event goes to
//! it unchanged, and it is drawn as it always was. Each service keeps its own store, poller,
//! budget, history and relay; one failing changes its own tab and overview line only.

#[doc(hidden)]
pub mod fixture;
pub mod overview;

use chrono::{DateTime, Utc};
use std::time::Instant;

use crate::dashboard::app::{Action, App, Event, Keymap, Mode, Msg, RoutesTable};
use crate::poll::PollCommand;
use crate::store::RouteRow;
pub use overview::{ServiceLine, Standing};

/// What the screen shows.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum View {
    /// One service's dashboard.
    Service(usize),
    /// A line per service.
    Overview,
    /// Every service's routes in one table.
    All,
}

/// One service of the screen.
#[derive(Debug)]
pub struct Service {
    /// Its profile's name, as the tab names it.
    pub name: String,
    /// Its dashboard.
    pub app: App,
    /// Why it could not be asked at all (no key, a refused URL): it has no poller then.
    pub down: Option<String>,
}

/// Lines of the overview and the all view that are not rows: the tab bar and the footer.
const CHROME: u16 = 2;

/// The dashboard of one or several services.
#[derive(Debug)]
pub struct Screen {
    services: Vec<Service>,
    /// What is shown.
    pub view: View,
    /// The keys of the screen's own views (the first service's `[keys]`).
    keys: Keymap,
    /// The all view's table, over [`Screen::all_rows`].
    pub all: RoutesTable,
    /// Every service's rows, and each one's service, as of the last refresh.
    all_rows: Vec<RouteRow>,
    all_of: Vec<usize>,
    /// Whether a poll came in since the all view's rows were gathered.
    all_dirty: bool,
    /// The overview's selected service.
    pub overview_selected: usize,
    /// Whether the help is shown over the overview or the all view.
    pub help: bool,
    /// Terminal size, columns × rows.
    pub size: (u16, u16),
}

impl Screen {
    /// A screen of `services` (at least one), opening on the overview when there are several.
    pub fn new(mut services: Vec<Service>) -> Screen {
        let several = services.len() > 1;
        for service in &mut services {
            service.app.tabs = several;
        }
        let keys = services
            .first()
            .map(|s| s.app.options.keys.clone())
            .unwrap_or_default();
        Screen {
            view: if several {
                View::Overview
            } else {
                View::Service(0)
            },
            services,
            keys,
            all: RoutesTable::default(),
            all_rows: Vec::new(),
            all_of: Vec::new(),
            all_dirty: true,
            overview_selected: 0,
            help: false,
            size: (80, 24),
        }
    }

    /// Whether several services share the screen (tabs, overview, all view).
    pub fn several(&self) -> bool {
        self.services.len() > 1
    }

    /// Every service, in tab order.
    pub fn services(&self) -> &[Service] {
        &self.services
    }

    /// Service `i`'s dashboard, for the runtime (its store's effects, its history flag).
    pub fn app_mut(&mut self, i: usize) -> Option<&mut App> {
        self.services.get_mut(i).map(|s| &mut s.app)
    }

    /// Moves every service's clock; the runtime calls it before every update and draw.
    pub fn set_clock(&mut self, now: DateTime<Utc>, now_mono: Instant) {
        for service in &mut self.services {
            service.app.set_clock(now, now_mono);
        }
    }

    /// The rows of the all view and the service of each.
    pub fn all_rows(&self) -> (&[RouteRow], &[usize]) {
        (&self.all_rows, &self.all_of)
    }

    /// The key table of the screen's own views.
    pub fn keys(&self) -> &Keymap {
        &self.keys
    }

    /// Where keys go now.
    pub fn mode(&self) -> Mode {
        match self.view {
            _ if self.help => Mode::Help,
            View::Service(i) => self
                .services
                .get(i)
                .map_or(Mode::Dashboard, |s| s.app.mode()),
            View::All if self.all.filter_editing => Mode::Filter,
            View::Overview | View::All => Mode::Dashboard,
        }
    }

    /// Whether a one-second tick should run: some service counts.
    pub fn needs_tick(&self) -> bool {
        self.services.iter().any(|s| s.app.needs_tick())
    }

    /// Rows of the all view's table a page holds.
    pub fn all_page_rows(&self) -> usize {
        let body = self.size.1.saturating_sub(CHROME);
        usize::from(crate::dashboard::layout::table_body_height(
            ratatui::layout::Rect::new(0, 0, self.size.0, body),
        ))
        .max(1)
    }

    /// Applies one event of the terminal (key, mouse, resize, tick); returns what each service
    /// concerned should do about it, by service.
    pub fn update(&mut self, event: Event) -> Vec<(usize, Action)> {
        let msg = match event {
            Event::Key(key) if self.several() => self.keys.key(self.mode(), &key),
            Event::Mouse(mouse) if self.several() => self.keys.mouse(self.mode(), &mouse),
            Event::Msg(msg) if self.several() => Some(msg),
            Event::Resize(w, h) if self.several() => {
                self.size = (w, h);
                for service in &mut self.services {
                    service.app.update(Event::Resize(w, h.saturating_sub(1)));
                }
                let page = self.all_page_rows();
                self.all.keep_selection_visible(page);
                None
            }
            Event::Tick if self.several() => {
                for service in &mut self.services {
                    service.app.update(Event::Tick);
                }
                None
            }
            // With one service, everything is its own; with several, what is not input.
            other => {
                return self
                    .update_service(0, other)
                    .map(|a| (0, a))
                    .into_iter()
                    .collect();
            }
        };
        msg.map_or_else(Vec::new, |msg| self.on_msg(msg))
    }

    /// Applies what service `i`'s poller, history or relay sent to its dashboard.
    pub fn update_service(&mut self, i: usize, event: Event) -> Option<Action> {
        let polled = matches!(event, Event::Poll(_) | Event::Days(_));
        let action = self.services.get_mut(i)?.app.update(event);
        if polled {
            self.all_dirty = true;
            if self.view == View::All {
                self.refresh_all();
            }
        }
        action
    }

    /// Gathers every service's rows into the all view's table again.
    fn refresh_all(&mut self) {
        self.all_rows.clear();
        self.all_of.clear();
        for (i, service) in self.services.iter().enumerate() {
            let rows = service.app.live_store().rows();
            self.all_rows.extend(rows.iter().cloned());
            self.all_of.extend(std::iter::repeat_n(i, rows.len()));
        }
        let page = self.all_page_rows();
        self.all.recompute(&self.all_rows, page);
        self.all_dirty = false;
    }

    /// The views in tab order: each service, the overview, all routes.
    pub fn tabs(&self) -> Vec<View> {
        (0..self.services.len())
            .map(View::Service)
            .chain([View::Overview, View::All])
            .collect()
    }

    fn show(&mut self, view: View) {
        self.view = view;
        self.help = false;
        if view == View::All && self.all_dirty {
            self.refresh_all();
        }
    }

    fn on_msg(&mut self, msg: Msg) -> Vec<(usize, Action)> {
        let tabs = self.tabs();
        let at = tabs.iter().position(|v| *v == self.view).unwrap_or(0);
        let cycle = |by: usize| tabs.get((at + by) % tabs.len()).copied();
        let target = match msg {
            Msg::Tab(n) => tabs.get(usize::from(n).wrapping_sub(1)).copied(),
            Msg::NextTab => cycle(1),
            Msg::PrevTab => cycle(tabs.len() - 1),
            _ => None,
        };
        if let Some(view) = target {
            self.show(view);
            return Vec::new();
        }
        if matches!(msg, Msg::Tab(_) | Msg::NextTab | Msg::PrevTab) {
            return Vec::new();
        }
        if self.help {
            return match msg {
                Msg::Quit => vec![(0, Action::Quit)],
                Msg::Close | Msg::Help | Msg::Back => {
                    self.help = false;
                    Vec::new()
                }
                _ => {
                    if let Some(first) = self.services.first_mut() {
                        first.app.scroll_help(msg);
                    }
                    Vec::new()
                }
            };
        }
        match self.view {
            View::Service(i) => self.for_service(i, msg),
            View::Overview => self.on_overview(msg),
            View::All => self.on_all(msg),
        }
    }

    /// A message for service `i`'s own dashboard, which is drawn a line lower.
    fn for_service(&mut self, i: usize, msg: Msg) -> Vec<(usize, Action)> {
        let msg = match msg {
            Msg::Click { column, row } => Msg::Click {
                column,
                row: row.saturating_sub(1),
            },
            other => other,
        };
        let Some(service) = self.services.get_mut(i) else {
            return Vec::new();
        };
        service
            .app
            .update(Event::Msg(msg))
            .map(|a| (i, a))
            .into_iter()
            .collect()
    }

    /// The keys every view of the screen answers alike: quit, help, refresh and pause all.
    fn common(&mut self, msg: Msg) -> Option<Vec<(usize, Action)>> {
        let every = |command| {
            (0..self.services.len())
                .map(|i| (i, Action::Poll(command)))
                .collect()
        };
        match msg {
            Msg::Quit => Some(vec![(0, Action::Quit)]),
            Msg::Help => {
                self.help = true;
                if let Some(first) = self.services.first_mut() {
                    first.app.help_scroll = 0;
                }
                Some(Vec::new())
            }
            Msg::Refresh => Some(every(PollCommand::RefreshNow)),
            Msg::TogglePause => Some(every(PollCommand::TogglePause)),
            _ => None,
        }
    }

    fn on_overview(&mut self, msg: Msg) -> Vec<(usize, Action)> {
        if let Some(actions) = self.common(msg) {
            return actions;
        }
        let last = self.services.len().saturating_sub(1);
        match msg {
            Msg::Back => return vec![(0, Action::Quit)],
            Msg::Down | Msg::ScrollDown => {
                self.overview_selected = (self.overview_selected + 1).min(last);
            }
            Msg::Up | Msg::ScrollUp => {
                self.overview_selected = self.overview_selected.saturating_sub(1);
            }
            Msg::First => self.overview_selected = 0,
            Msg::Last => self.overview_selected = last,
            Msg::Detail => self.show(View::Service(self.overview_selected)),
            _ => {}
        }
        Vec::new()
    }

    fn on_all(&mut self, msg: Msg) -> Vec<(usize, Action)> {
        if let Some(actions) = self.common(msg) {
            return actions;
        }
        let page = self.all_page_rows();
        if self.all.on_msg(msg, &self.all_rows, page) {
            return Vec::new();
        }
        match msg {
            Msg::Back => return vec![(0, Action::Quit)],
            Msg::StartFilter => self.all.filter_editing = true,
            Msg::Detail => {
                let service = self
                    .all
                    .view
                    .get(self.all.selected)
                    .and_then(|&r| self.all_of.get(r));
                if let Some(&i) = service {
                    self.show(View::Service(i));
                }
            }
            _ => {}
        }
        Vec::new()
    }
}

#[cfg(test)]
mod tests;
