//! Time travel: the figures of a past instant, read from the history, shown in place of the
//! live ones while the live store goes on taking polls underneath.
//!
//! ```text
//!  [ ] { }  ──► App::step ──► Action::Travel(at) ──► runtime: read the history (blocking pool)
//!                                                         │
//!  Event::Travelled { at, result } ◄──────────────────────┘   (a stale answer is dropped)
//!  L, Esc   ──► back to live
//! ```
//!
//! Instants are on the service's clock: a step starts from the instant shown (the live
//! store's `service_now` when live), and a step forward past the live instant is back to live.

use chrono::{DateTime, Utc};

use super::{Action, App, Msg, PastError};
use crate::store::{RowsView, Store};

/// Where the dashboard is in the history.
#[derive(Debug)]
pub struct Travel {
    /// The instant asked for last, on the service's clock.
    pub at: DateTime<Utc>,
    /// The figures shown, and the instant they are of; `None` until the first answer (the
    /// live figures stay on screen meanwhile).
    pub shown: Option<(DateTime<Utc>, RowsView)>,
    /// Whether the figures of `at` are still being read.
    pub loading: bool,
}

/// The one line a time-travel key answers with where there is no history.
pub const NO_HISTORY: &str =
    "no history to travel through: captop keeps one per base URL (not for a relay's readers)";

impl App {
    /// The figures on screen: the past instant's while travelling, else the live ones.
    pub fn store(&self) -> &RowsView {
        shown_of(&self.store, self.travel.as_ref())
    }

    /// The live figures, whatever is on screen.
    pub fn live_store(&self) -> &RowsView {
        &self.store
    }

    /// Where the dashboard is in the history; `None` while live.
    pub fn travel(&self) -> Option<&Travel> {
        self.travel.as_ref()
    }

    /// The live instant on the service's clock (the wall clock before any figures).
    pub fn live_instant(&self) -> DateTime<Utc> {
        self.store.service_now(self.now)
    }

    /// The instant on screen, on the service's clock.
    pub fn shown_instant(&self) -> DateTime<Utc> {
        match &self.travel {
            Some(travel) => travel.at,
            None => self.live_instant(),
        }
    }

    /// Answers a time-travel key: `Some(action)` when `msg` is one (the action may be none).
    pub(super) fn on_travel_msg(&mut self, msg: Msg) -> Option<Option<Action>> {
        match msg {
            Msg::Step(step) => Some(self.step(step)),
            Msg::Live => {
                self.go_live();
                Some(None)
            }
            Msg::Back if self.travel.is_some() && self.routes.filter.is_empty() => {
                self.go_live();
                Some(None)
            }
            _ => None,
        }
    }

    fn step(&mut self, step: chrono::TimeDelta) -> Option<Action> {
        if !self.has_history {
            self.travel_note = Some(NO_HISTORY.to_owned());
            return None;
        }
        let at = self.shown_instant() + step;
        if at >= self.live_instant() {
            self.go_live();
            return None;
        }
        let travel = self.travel.get_or_insert(Travel {
            at,
            shown: None,
            loading: true,
        });
        travel.at = at;
        travel.loading = true;
        Some(Action::Travel(at))
    }

    /// Back to the live figures.
    fn go_live(&mut self) {
        if self.travel.take().is_some() {
            self.trends_of = None;
            self.refresh_routes();
        }
    }

    /// Takes the figures of `at` read from the history; an answer to an instant no longer
    /// asked for is dropped. On an error the screen stays where it was, with the reason in
    /// the footer.
    pub(super) fn on_travelled(&mut self, at: DateTime<Utc>, result: Result<Store, PastError>) {
        let Some(travel) = self.travel.as_mut().filter(|t| t.at == at && t.loading) else {
            return;
        };
        travel.loading = false;
        match result {
            Ok(store) => {
                travel.shown = Some((at, RowsView::of(store)));
                self.travel_note = None;
            }
            Err(why) => {
                self.travel_note = Some(crate::text::sanitize(&why.to_string()).into_owned());
                match &travel.shown {
                    Some((shown_at, _)) => travel.at = *shown_at,
                    None => self.travel = None,
                }
            }
        }
        self.trends_of = None;
        self.refresh_routes();
    }
}

/// The store on screen of `live` and `travel`, for borrows of a field at a time.
pub(super) fn shown_of<'a>(live: &'a RowsView, travel: Option<&'a Travel>) -> &'a RowsView {
    match travel.and_then(|t| t.shown.as_ref()) {
        Some((_, store)) => store,
        None => live,
    }
}

#[cfg(test)]
mod tests {
    #![allow(clippy::unwrap_used, clippy::expect_used, clippy::indexing_slicing)]

    use std::time::Instant;

    use chrono::TimeDelta;

    use super::*;
    use crate::dashboard::app::{Event, UiOptions, keys::Chord};
    use crate::fixtures::{capacity, route, t, utilization};
    use crate::poll::PollEvent;
    use crate::store::Thresholds;

    const DAY: i64 = 86_400;

    fn key(chord: &str) -> Event {
        let Some(Chord::Key(code, mods)) = Chord::parse(chord) else {
            panic!("{chord:?} is no key");
        };
        Event::Key(ratatui::crossterm::event::KeyEvent::new(code, mods))
    }

    fn poll(seq: u64, at: i64, sold: i64) -> Event {
        let routes = vec![route("a", "Lagos", "+234", 100, sold, 10, 1)];
        Event::Poll(PollEvent::Capacity {
            seq,
            received_at: t(at),
            result: Ok(capacity(t(at), routes)),
        })
    }

    fn past(at: i64, sold: i64) -> Store {
        let routes = vec![route("a", "Lagos", "+234", 100, sold, 10, 1)];
        let mut store = Store::new(Thresholds::default());
        store.apply_pair(capacity(t(at), routes), utilization(t(at), 40.0, 4), t(at));
        store
    }

    /// A dashboard with a history, live at `t(10 days)` with route `a` 70 minutes sold.
    fn live_app() -> App {
        let mut app = App::new(UiOptions::default(), t(10 * DAY), Instant::now());
        app.has_history = true;
        app.update(poll(1, 10 * DAY, 70));
        app
    }

    fn sold(app: &App) -> i64 {
        app.store().rows()[0].minutes.sold
    }

    #[test]
    fn the_keys_ask_for_instants_stepped_from_the_one_shown() {
        let mut app = live_app();
        let live = t(10 * DAY);
        assert_eq!(
            app.update(key("[")),
            Some(Action::Travel(live - TimeDelta::hours(1)))
        );
        assert_eq!(
            app.update(key("{")),
            Some(Action::Travel(live - TimeDelta::hours(25)))
        );
        assert_eq!(
            app.update(key("]")),
            Some(Action::Travel(live - TimeDelta::hours(24)))
        );
        // A day forward from 24 h back reaches the live instant: back to live, nothing read.
        assert_eq!(app.update(key("}")), None);
        assert!(app.travel().is_none());
    }

    #[test]
    fn the_answer_replaces_the_figures_shown_while_polls_go_on_underneath() {
        let mut app = live_app();
        let Some(Action::Travel(at)) = app.update(key("[")) else {
            panic!("no travel");
        };
        // Until the answer comes, the live figures stay, loading.
        assert_eq!(sold(&app), 70);
        assert!(app.travel().unwrap().loading);
        app.update(Event::Travelled {
            at,
            result: Ok(past(10 * DAY - 3600, 20)),
        });
        assert_eq!(sold(&app), 20);
        assert!(!app.travel().unwrap().loading);
        app.update(poll(2, 10 * DAY + 5, 90));
        assert_eq!(sold(&app), 20, "the screen stays in the past");
        assert_eq!(app.live_store().rows()[0].minutes.sold, 90);
        assert_eq!(app.update(key("L")), None);
        assert!(app.travel().is_none());
        assert_eq!(sold(&app), 90);
    }

    #[test]
    fn esc_returns_to_live_before_it_quits() {
        let mut app = live_app();
        let Some(Action::Travel(at)) = app.update(key("[")) else {
            panic!("no travel");
        };
        app.update(Event::Travelled {
            at,
            result: Ok(past(10 * DAY - 3600, 20)),
        });
        assert_eq!(app.update(key("Esc")), None);
        assert!(app.travel().is_none());
        assert_eq!(app.update(key("Esc")), Some(Action::Quit));
    }

    #[test]
    fn an_old_answer_is_dropped_and_an_error_stays_where_it_was() {
        let mut app = live_app();
        let Some(Action::Travel(hour)) = app.update(key("[")) else {
            panic!("no travel");
        };
        app.update(Event::Travelled {
            at: hour,
            result: Ok(past(10 * DAY - 3600, 20)),
        });
        let Some(Action::Travel(day)) = app.update(key("{")) else {
            panic!("no travel");
        };
        // An answer to an instant no longer asked for changes nothing.
        app.update(Event::Travelled {
            at: hour,
            result: Ok(past(0, 5)),
        });
        assert_eq!(sold(&app), 20);
        app.update(Event::Travelled {
            at: day,
            result: Err(PastError::Travel("the history does not reach it".into())),
        });
        let travel = app.travel().unwrap();
        assert_eq!((travel.at, travel.loading), (hour, false));
        assert_eq!(sold(&app), 20);
        assert_eq!(
            app.travel_note.as_deref(),
            Some("the history does not reach it")
        );
    }

    #[test]
    fn without_a_history_the_keys_say_so_and_do_nothing() {
        let mut app = live_app();
        app.has_history = false;
        assert_eq!(app.update(key("[")), None);
        assert!(app.travel().is_none());
        assert_eq!(app.travel_note.as_deref(), Some(NO_HISTORY));
        assert!(!app.lists(Msg::Step(chrono::TimeDelta::hours(-1))));
        app.update(key("j"));
        assert_eq!(app.travel_note, None, "the note lasts until the next key");
    }
}
