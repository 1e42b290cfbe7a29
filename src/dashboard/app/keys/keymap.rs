//! The key table itself: every binding with its chords as text, its message, its help line
//! and its footer hint.

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

/// A hint of the footer: a key and one word, in the order of `rank`.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Hint {
    /// Position among the footer's hints (lowest first; the ones that do not fit are left out).
    pub rank: u8,
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
    /// Their hint in the footer, if they have one.
    pub hint: Option<Hint>,
}

const fn line(keys: &'static str, text: &'static str) -> HelpLine {
    HelpLine { keys, text }
}

const fn hint(rank: u8, word: &'static str) -> Option<Hint> {
    Some(Hint {
        rank,
        keys: None,
        word,
    })
}

const fn hint_as(rank: u8, keys: &'static str, word: &'static str) -> Option<Hint> {
    Some(Hint {
        rank,
        keys: Some(keys),
        word,
    })
}

const fn bind(
    layer: Layer,
    name: &'static str,
    keys: &'static [&'static str],
    msg: Msg,
    help: HelpLine,
    hint: Option<Hint>,
) -> Binding {
    Binding {
        layer,
        name,
        keys,
        msg,
        help,
        hint,
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
    bind(D, "quit", &["q"], Msg::Quit, QUIT, hint(1, "quit")),
    bind(D, "back", &["Esc"], Msg::Back, QUIT, None),
    bind(G, "", &["ctrl-c"], Msg::Quit, QUIT, None),
    bind(
        D,
        "help",
        &["?"],
        Msg::Help,
        line("?", "this help"),
        hint(0, "help"),
    ),
    bind(D, "up", &["Up", "k"], Msg::Up, SELECT, None),
    bind(D, "down", &["Down", "j"], Msg::Down, SELECT, None),
    bind(D, "page_up", &["PageUp"], Msg::PageUp, PAGE, None),
    bind(D, "page_down", &["PageDown"], Msg::PageDown, PAGE, None),
    bind(D, "half_page_up", &["ctrl-u"], Msg::HalfPageUp, PAGE, None),
    bind(
        D,
        "half_page_down",
        &["ctrl-d"],
        Msg::HalfPageDown,
        PAGE,
        None,
    ),
    bind(D, "first", &["Home", "g"], Msg::First, ENDS, None),
    bind(D, "last", &["End", "G"], Msg::Last, ENDS, None),
    bind(G, "scroll_up", &["wheel-up"], Msg::ScrollUp, MOUSE, None),
    bind(
        G,
        "scroll_down",
        &["wheel-down"],
        Msg::ScrollDown,
        MOUSE,
        None,
    ),
    bind(
        G,
        "click",
        &["click"],
        Msg::Click { column: 0, row: 0 },
        MOUSE,
        None,
    ),
    bind(
        D,
        "sort",
        &["s"],
        Msg::CycleSort,
        line("s", "sort by fill, remaining, name"),
        hint(3, "sort"),
    ),
    bind(
        D,
        "reverse_sort",
        &["S"],
        Msg::ReverseSort,
        line("S", "reverse the sort"),
        None,
    ),
    bind(
        D,
        "filter",
        &["/"],
        Msg::StartFilter,
        line("/", "filter by name, slug or dial code"),
        hint(2, "filter"),
    ),
    bind(
        D,
        "detail",
        &["Enter"],
        Msg::Detail,
        line("Enter", "details of the selected route"),
        hint(4, "detail"),
    ),
    bind(
        D,
        "refresh",
        &["r"],
        Msg::Refresh,
        line("r", "refresh now (within the request budget)"),
        hint(6, "refresh"),
    ),
    bind(
        D,
        "pause",
        &["p"],
        Msg::TogglePause,
        line("p", "pause / resume polling"),
        hint(7, "pause"),
    ),
    bind(
        D,
        "events",
        &["e"],
        Msg::ToggleEvents,
        line("e", "show / hide the events pane"),
        hint(5, "events"),
    ),
    // Time travel: listed in the help where there is a history, hinted while travelling.
    bind(
        D,
        "hour_back",
        &["["],
        Msg::Step(TimeDelta::hours(-1)),
        HOUR,
        hint_as(8, "[]", "hour"),
    ),
    bind(
        D,
        "hour_forward",
        &["]"],
        Msg::Step(TimeDelta::hours(1)),
        HOUR,
        None,
    ),
    bind(
        D,
        "day_back",
        &["{"],
        Msg::Step(TimeDelta::days(-1)),
        DAY,
        hint_as(9, "{}", "day"),
    ),
    bind(
        D,
        "day_forward",
        &["}"],
        Msg::Step(TimeDelta::days(1)),
        DAY,
        None,
    ),
    bind(
        D,
        "live",
        &["L"],
        Msg::Live,
        line("L  Esc", "back to the live figures"),
        hint(0, "live"),
    ),
    // Several services: listed in the help only then, never hinted.
    bind(D, "tab_1", &["1"], Msg::Tab(1), TABS, None),
    bind(D, "tab_2", &["2"], Msg::Tab(2), TABS, None),
    bind(D, "tab_3", &["3"], Msg::Tab(3), TABS, None),
    bind(D, "tab_4", &["4"], Msg::Tab(4), TABS, None),
    bind(D, "tab_5", &["5"], Msg::Tab(5), TABS, None),
    bind(D, "tab_6", &["6"], Msg::Tab(6), TABS, None),
    bind(D, "tab_7", &["7"], Msg::Tab(7), TABS, None),
    bind(D, "tab_8", &["8"], Msg::Tab(8), TABS, None),
    bind(D, "tab_9", &["9"], Msg::Tab(9), TABS, None),
    bind(D, "next_tab", &["Tab"], Msg::NextTab, CYCLE, None),
    bind(D, "previous_tab", &["shift-Tab"], Msg::PrevTab, CYCLE, None),
    // Typing a filter: printable text goes into it (`Msg::Type`), these keys do not.
    bind(
        F,
        "keep",
        &["Enter"],
        Msg::KeepFilter,
        line("Enter", "keep the filter"),
        hint(0, "keep"),
    ),
    bind(
        F,
        "clear",
        &["Esc"],
        Msg::ClearFilter,
        line("Esc", "clear the filter"),
        hint(1, "clear"),
    ),
    bind(
        F,
        "erase",
        &["ctrl-u"],
        Msg::EraseFilter,
        line("Ctrl-U", "erase the filter"),
        None,
    ),
    bind(
        F,
        "delete_char",
        &["Backspace"],
        Msg::DeleteChar,
        line("Backspace", "delete a character"),
        None,
    ),
    bind(F, "up", &["Up"], Msg::Up, FILTER_SELECT, None),
    bind(
        F,
        "down",
        &["Down"],
        Msg::Down,
        FILTER_SELECT,
        hint_as(2, "↑↓", "move"),
    ),
    // The overlays.
    bind(
        H,
        "close",
        &["Esc", "?", "Enter", "q"],
        Msg::Close,
        CLOSE,
        hint(0, "close"),
    ),
    bind(H, "up", &["Up", "k"], Msg::Up, HELP_SCROLL, None),
    bind(
        H,
        "down",
        &["Down", "j"],
        Msg::Down,
        HELP_SCROLL,
        hint_as(1, "↑↓", "scroll"),
    ),
    bind(H, "page_up", &["PageUp"], Msg::PageUp, HELP_SCROLL, None),
    bind(
        H,
        "page_down",
        &["PageDown"],
        Msg::PageDown,
        HELP_SCROLL,
        None,
    ),
    bind(
        V,
        "close",
        &["Esc", "Enter", "q", "Backspace"],
        Msg::Close,
        CLOSE,
        hint(0, "close"),
    ),
    bind(
        V,
        "up",
        &["Up"],
        Msg::Up,
        line("↑ ↓", "previous route"),
        None,
    ),
    bind(
        V,
        "down",
        &["Down"],
        Msg::Down,
        line("↑ ↓", "next route"),
        hint_as(1, "↑↓", "route"),
    ),
    // Shown in the help and the footer only while a route has days to chart.
    bind(
        V,
        "span",
        &["d"],
        Msg::ToggleSpan,
        line("d", "detail view: fill over the last 24 h / 7 days"),
        hint(2, "24h/7d"),
    ),
];
