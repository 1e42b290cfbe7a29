//! The key table itself: every binding with its chords as text, its message and its help
//! line; and the footer's hints, by message.

use chrono::TimeDelta;

use super::{Layer, Msg};

/// A line of the help overlay: the keys as it names them, and what they do.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct HelpLine {
    /// The keys, e.g. `↑ ↓  j k`.
    pub keys: &'static str,
    /// What they do.
    pub text: &'static str,
}

/// A hint of the footer: the key of a binding and one word.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Hint {
    /// The mode whose footer shows it, and the layer of its binding.
    pub layer: Layer,
    /// What its binding sends.
    pub msg: Msg,
    /// How the footer names the key, where it names two at once (`↑↓`); else the first chord.
    pub keys: Option<&'static str>,
    /// What it does, in a word.
    pub word: &'static str,
}

/// One row of the key table.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Binding {
    /// Where the chords work.
    pub layer: Layer,
    /// The action's name in the config file's `[keys]` table of the layer (`refresh`,
    /// `half_page_down`); empty for Ctrl-C, which always quits.
    pub name: &'static str,
    /// The chords, as [`super::Chord::parse`] reads them.
    pub keys: &'static [&'static str],
    /// What they send.
    pub msg: Msg,
    /// How the help explains them. Rows with the same line next to each other are listed once;
    /// only the global and dashboard layers are listed in the overlay.
    pub help: HelpLine,
}

const fn line(keys: &'static str, text: &'static str) -> HelpLine {
    HelpLine { keys, text }
}

const fn hint(layer: Layer, msg: Msg, word: &'static str) -> Hint {
    Hint {
        layer,
        msg,
        keys: None,
        word,
    }
}

const fn hint_as(layer: Layer, msg: Msg, keys: &'static str, word: &'static str) -> Hint {
    Hint {
        layer,
        msg,
        keys: Some(keys),
        word,
    }
}

const fn bind(
    layer: Layer,
    name: &'static str,
    keys: &'static [&'static str],
    msg: Msg,
    help: HelpLine,
) -> Binding {
    Binding {
        layer,
        name,
        keys,
        msg,
        help,
    }
}

const QUIT: HelpLine = line(
    "q  Esc  Ctrl-C",
    "quit (Esc first closes a view or clears the filter)",
);
const SELECT: HelpLine = line("↑ ↓  j k", "select a route");
const PAGE: HelpLine = line("PgUp PgDn", "page through the routes");
const ENDS: HelpLine = line("Home End  g G", "first / last route");
const MOUSE: HelpLine = line("mouse", "wheel scrolls, a click selects");
const HOUR: HelpLine = line("[ ]", "the figures an hour earlier / later (history)");
const DAY: HelpLine = line("{ }", "the figures a day earlier / later (history)");
const FILTER_SELECT: HelpLine = line("↑ ↓", "select a route");
const CLOSE: HelpLine = line("Esc", "close this view");
const HELP_SCROLL: HelpLine = line("↑ ↓  PgUp PgDn", "scroll the help");
const TABS: HelpLine = line("1 … 9", "a service's tab, then the overview and all routes");
const CYCLE: HelpLine = line("Tab Shift-Tab", "next / previous tab");

use Layer::{Dashboard as D, Detail as V, Filter as F, Global as G, Help as H};

/// The key table: every binding of the dashboard, in the order the help overlay lists them
/// (and, in each table of the config file, the order of the guide).
pub const BINDINGS: &[Binding] = &[
    bind(D, "quit", &["q"], Msg::Quit, QUIT),
    bind(D, "back", &["Esc"], Msg::Back, QUIT),
    bind(G, "", &["ctrl-c"], Msg::Quit, QUIT),
    bind(D, "help", &["?"], Msg::Help, line("?", "this help")),
    bind(D, "up", &["Up", "k"], Msg::Up, SELECT),
    bind(D, "down", &["Down", "j"], Msg::Down, SELECT),
    bind(D, "page_up", &["PageUp"], Msg::PageUp, PAGE),
    bind(D, "page_down", &["PageDown"], Msg::PageDown, PAGE),
    bind(D, "half_page_up", &["ctrl-u"], Msg::HalfPageUp, PAGE),
    bind(D, "half_page_down", &["ctrl-d"], Msg::HalfPageDown, PAGE),
    bind(D, "first", &["Home", "g"], Msg::First, ENDS),
    bind(D, "last", &["End", "G"], Msg::Last, ENDS),
    bind(G, "scroll_up", &["wheel-up"], Msg::ScrollUp, MOUSE),
    bind(G, "scroll_down", &["wheel-down"], Msg::ScrollDown, MOUSE),
    bind(
        G,
        "click",
        &["click"],
        Msg::Click { column: 0, row: 0 },
        MOUSE,
    ),
    bind(
        D,
        "sort",
        &["s"],
        Msg::CycleSort,
        line("s", "sort by fill, remaining, name"),
    ),
    bind(
        D,
        "reverse_sort",
        &["S"],
        Msg::ReverseSort,
        line("S", "reverse the sort"),
    ),
    bind(
        D,
        "filter",
        &["/"],
        Msg::StartFilter,
        line("/", "filter by name, slug or dial code"),
    ),
    bind(
        D,
        "detail",
        &["Enter"],
        Msg::Detail,
        line("Enter", "details of the selected route"),
    ),
    bind(
        D,
        "refresh",
        &["r"],
        Msg::Refresh,
        line("r", "refresh now (within the request budget)"),
    ),
    bind(
        D,
        "pause",
        &["p"],
        Msg::TogglePause,
        line("p", "pause / resume polling"),
    ),
    bind(
        D,
        "events",
        &["e"],
        Msg::ToggleEvents,
        line("e", "show / hide the events pane"),
    ),
    // Time travel: listed in the help where there is a history.
    bind(
        D,
        "hour_back",
        &["["],
        Msg::Step(TimeDelta::hours(-1)),
        HOUR,
    ),
    bind(
        D,
        "hour_forward",
        &["]"],
        Msg::Step(TimeDelta::hours(1)),
        HOUR,
    ),
    bind(D, "day_back", &["{"], Msg::Step(TimeDelta::days(-1)), DAY),
    bind(D, "day_forward", &["}"], Msg::Step(TimeDelta::days(1)), DAY),
    bind(
        D,
        "live",
        &["L"],
        Msg::Live,
        line("L  Esc", "back to the live figures"),
    ),
    // Several services: listed in the help only then, never hinted.
    bind(D, "tab_1", &["1"], Msg::Tab(1), TABS),
    bind(D, "tab_2", &["2"], Msg::Tab(2), TABS),
    bind(D, "tab_3", &["3"], Msg::Tab(3), TABS),
    bind(D, "tab_4", &["4"], Msg::Tab(4), TABS),
    bind(D, "tab_5", &["5"], Msg::Tab(5), TABS),
    bind(D, "tab_6", &["6"], Msg::Tab(6), TABS),
    bind(D, "tab_7", &["7"], Msg::Tab(7), TABS),
    bind(D, "tab_8", &["8"], Msg::Tab(8), TABS),
    bind(D, "tab_9", &["9"], Msg::Tab(9), TABS),
    bind(D, "next_tab", &["Tab"], Msg::NextTab, CYCLE),
    bind(D, "previous_tab", &["shift-Tab"], Msg::PrevTab, CYCLE),
    // Typing a filter: printable text goes into it (`Msg::Type`), these keys do not.
    bind(
        F,
        "keep",
        &["Enter"],
        Msg::KeepFilter,
        line("Enter", "keep the filter"),
    ),
    bind(
        F,
        "clear",
        &["Esc"],
        Msg::ClearFilter,
        line("Esc", "clear the filter"),
    ),
    bind(
        F,
        "erase",
        &["ctrl-u"],
        Msg::EraseFilter,
        line("Ctrl-U", "erase the filter"),
    ),
    bind(
        F,
        "delete_char",
        &["Backspace"],
        Msg::DeleteChar,
        line("Backspace", "delete a character"),
    ),
    bind(F, "up", &["Up"], Msg::Up, FILTER_SELECT),
    bind(F, "down", &["Down"], Msg::Down, FILTER_SELECT),
    // The overlays.
    bind(H, "close", &["Esc", "?", "Enter", "q"], Msg::Close, CLOSE),
    bind(H, "up", &["Up", "k"], Msg::Up, HELP_SCROLL),
    bind(H, "down", &["Down", "j"], Msg::Down, HELP_SCROLL),
    bind(H, "page_up", &["PageUp"], Msg::PageUp, HELP_SCROLL),
    bind(H, "page_down", &["PageDown"], Msg::PageDown, HELP_SCROLL),
    bind(
        V,
        "close",
        &["Esc", "Enter", "q", "Backspace"],
        Msg::Close,
        CLOSE,
    ),
    bind(V, "up", &["Up"], Msg::Up, line("↑ ↓", "previous route")),
    bind(V, "down", &["Down"], Msg::Down, line("↑ ↓", "next route")),
    // Shown in the help only while a route has days to chart.
    bind(
        V,
        "span",
        &["d"],
        Msg::ToggleSpan,
        line("d", "detail view: fill over the last 24 h / 7 days"),
    ),
];

/// The footer's hints of each mode, in the order it shows them (the ones that do not fit are
/// left out).
pub const HINTS: &[Hint] = &[
    hint(D, Msg::Help, "help"),
    // Only while travelling.
    hint(D, Msg::Live, "live"),
    hint(D, Msg::Quit, "quit"),
    hint(D, Msg::StartFilter, "filter"),
    hint(D, Msg::CycleSort, "sort"),
    hint(D, Msg::Detail, "detail"),
    hint(D, Msg::ToggleEvents, "events"),
    hint(D, Msg::Refresh, "refresh"),
    hint(D, Msg::TogglePause, "pause"),
    hint_as(D, Msg::Step(TimeDelta::hours(-1)), "[]", "hour"),
    hint_as(D, Msg::Step(TimeDelta::days(-1)), "{}", "day"),
    hint(F, Msg::KeepFilter, "keep"),
    hint(F, Msg::ClearFilter, "clear"),
    hint_as(F, Msg::Down, "↑↓", "move"),
    hint(H, Msg::Close, "close"),
    hint_as(H, Msg::Down, "↑↓", "scroll"),
    hint(V, Msg::Close, "close"),
    hint_as(V, Msg::Down, "↑↓", "route"),
    // Only while a route has days to chart.
    hint(V, Msg::ToggleSpan, "24h/7d"),
];
