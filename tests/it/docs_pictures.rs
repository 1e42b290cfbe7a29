//! The pictures of the guide (`docs/src/images/*.svg`) are frames that captop's own renderer
//! draws from the snapshot tests' fixed sessions, turned into SVG here; a picture that no longer
//! matches what captop draws fails this test, so the guide never shows a screen captop lost.
//! `UPDATE_PICTURES=1 cargo test --test it docs_pictures` rewrites them.
#![allow(clippy::unwrap_used, clippy::expect_used, clippy::panic)]
#![allow(clippy::indexing_slicing)]

use std::fmt::Write as _;
use std::path::PathBuf;
use std::time::Instant;

use crate::support::frames::draw;
use crate::ui_days_snapshots::{demo, selling_out, week};
use captop::dashboard::app::Event;
use captop::dashboard::screen::fixture::two_services;
use ratatui::Terminal;
use ratatui::backend::TestBackend;
use ratatui::buffer::{Buffer, Cell};
use ratatui::crossterm::event::{KeyCode, KeyEvent, KeyModifiers};
use ratatui::style::{Color, Modifier};

/// Width and height of a cell, in SVG units, for a 14-px monospace font.
const CELL_W: f64 = 8.4;
const CELL_H: f64 = 17.0;
/// The terminal's own colours, which the dark theme's named ANSI colours stand for: those of a
/// common dark terminal palette (VS Code's), readable on its background.
const BACKGROUND: &str = "#1d1f21";
const FOREGROUND: &str = "#d0d0d0";

/// The three pictures: the dashboard with a week of history, the detail view of a route about
/// to sell out, and the overview of two services, one of them down.
fn pictures() -> Vec<(&'static str, Terminal<TestBackend>)> {
    let mut dashboard = week(demo());
    let mut detail = selling_out(demo());
    detail.update(Event::Key(KeyEvent::new(
        KeyCode::Enter,
        KeyModifiers::NONE,
    )));
    let mut several = two_services(Instant::now());
    several.update(Event::Resize(120, 16));
    let mut overview = Terminal::new(TestBackend::new(120, 16)).unwrap();
    overview
        .draw(|f| captop::dashboard::ui::screen::render(f, &several))
        .unwrap();
    vec![
        ("dashboard", draw(&mut dashboard, 150, 24)),
        ("detail-chart", draw(&mut detail, 80, 28)),
        ("several-overview", overview),
    ]
}

fn images_dir() -> PathBuf {
    PathBuf::from(env!("CARGO_MANIFEST_DIR")).join("docs/src/images")
}

#[test]
fn the_guides_pictures_are_what_captop_draws() {
    let update = std::env::var_os("UPDATE_PICTURES").is_some();
    let mut stale = Vec::new();
    for (name, terminal) in pictures() {
        let svg = to_svg(terminal.backend().buffer());
        let path = images_dir().join(format!("{name}.svg"));
        if update {
            std::fs::write(&path, &svg).unwrap();
        } else if std::fs::read_to_string(&path).ok().as_deref() != Some(svg.as_str()) {
            stale.push(path.display().to_string());
        }
    }
    assert!(
        stale.is_empty(),
        "the guide's pictures no longer match what captop draws: {stale:?}; look at the change, \
         then run UPDATE_PICTURES=1 cargo test --test it docs_pictures"
    );
}

/// The SVG colour of a terminal colour; `None` for the terminal's default.
fn rgb(color: Color) -> Option<String> {
    const ANSI: [&str; 16] = [
        "#000000", "#cd3131", "#0dbc79", "#e5e510", "#2472c8", "#bc3fbc", "#11a8cd", "#e5e5e5",
        "#666666", "#f14c4c", "#23d18b", "#f5f543", "#3b8eea", "#d670d6", "#29b8db", "#ffffff",
    ];
    let index = match color {
        Color::Reset => return None,
        Color::Rgb(r, g, b) => return Some(format!("#{r:02x}{g:02x}{b:02x}")),
        Color::Black => 0,
        Color::Red => 1,
        Color::Green => 2,
        Color::Yellow => 3,
        Color::Blue => 4,
        Color::Magenta => 5,
        Color::Cyan => 6,
        Color::Gray => 7,
        Color::DarkGray => 8,
        Color::LightRed => 9,
        Color::LightGreen => 10,
        Color::LightYellow => 11,
        Color::LightBlue => 12,
        Color::LightMagenta => 13,
        Color::LightCyan => 14,
        Color::White => 15,
        Color::Indexed(i) => i,
    };
    Some(match index {
        0..16 => ANSI[usize::from(index)].to_owned(),
        16..232 => {
            let level = |v: u8| if v == 0 { 0 } else { 55 + 40 * v };
            let i = index - 16;
            format!(
                "#{:02x}{:02x}{:02x}",
                level(i / 36),
                level(i / 6 % 6),
                level(i % 6)
            )
        }
        _ => {
            let v = 8 + 10 * (index - 232);
            format!("#{v:02x}{v:02x}{v:02x}")
        }
    })
}

/// What decides how a cell looks, apart from its text.
#[derive(PartialEq, Clone)]
struct Look {
    fill: Option<String>,
    background: Option<String>,
    bold: bool,
    dim: bool,
}

fn look(cell: &Cell) -> Look {
    let (mut fg, mut bg) = (rgb(cell.fg), rgb(cell.bg));
    if cell.modifier.contains(Modifier::REVERSED) {
        (fg, bg) = (
            Some(bg.unwrap_or_else(|| BACKGROUND.to_owned())),
            Some(fg.unwrap_or_else(|| FOREGROUND.to_owned())),
        );
    }
    Look {
        fill: fg,
        background: bg,
        bold: cell.modifier.contains(Modifier::BOLD),
        dim: cell.modifier.contains(Modifier::DIM),
    }
}

fn escape(text: &str) -> String {
    text.replace('&', "&amp;")
        .replace('<', "&lt;")
        .replace('>', "&gt;")
}

/// The buffer as an SVG: a rectangle per run of cells with a background of their own, and a
/// `<text>` per stretch of same-looking text, stretched to its cells so that columns line up
/// whatever monospace font the reader has.
fn to_svg(buffer: &Buffer) -> String {
    let area = buffer.area;
    let (width, height) = (
        f64::from(area.width) * CELL_W,
        f64::from(area.height) * CELL_H,
    );
    let mut svg = format!(
        "<svg xmlns=\"http://www.w3.org/2000/svg\" width=\"{width:.0}\" height=\"{height:.0}\" \
         viewBox=\"0 0 {width:.1} {height:.1}\" font-family=\"'DejaVu Sans Mono', Menlo, \
         Consolas, monospace\" font-size=\"14\" fill=\"{FOREGROUND}\" xml:space=\"preserve\" style=\"white-space:pre\">\n\
         <rect width=\"100%\" height=\"100%\" fill=\"{BACKGROUND}\"/>\n"
    );
    for y in 0..area.height {
        let mut x = 0;
        while x < area.width {
            let first = &buffer[(x, y)];
            let style = look(first);
            let mut symbols: Vec<&str> = Vec::new();
            while x + (symbols.len() as u16) < area.width
                && look(&buffer[(x + symbols.len() as u16, y)]) == style
            {
                symbols.push(buffer[(x + symbols.len() as u16, y)].symbol());
            }
            let cells = symbols.len() as u16;
            let (left, top) = (f64::from(x) * CELL_W, f64::from(y) * CELL_H);
            if let Some(bg) = &style.background {
                let run_w = f64::from(cells) * CELL_W;
                let _ = writeln!(
                    svg,
                    "<rect x=\"{left:.1}\" y=\"{top:.1}\" width=\"{run_w:.1}\" height=\"{CELL_H}\" fill=\"{bg}\"/>"
                );
            }
            for (from, to) in words(&symbols) {
                let mut attrs = format!(
                    "x=\"{:.1}\" y=\"{:.1}\" textLength=\"{:.1}\" lengthAdjust=\"spacingAndGlyphs\"",
                    f64::from(x + from) * CELL_W,
                    top + CELL_H * 0.78,
                    f64::from(to - from) * CELL_W
                );
                if let Some(fill) = &style.fill {
                    let _ = write!(attrs, " fill=\"{fill}\"");
                }
                if style.bold {
                    attrs.push_str(" font-weight=\"bold\"");
                }
                if style.dim {
                    attrs.push_str(" opacity=\"0.6\"");
                }
                let text: String = symbols[usize::from(from)..usize::from(to)].concat();
                let _ = writeln!(svg, "<text {attrs}>{}</text>", escape(&text));
            }
            x += cells;
        }
    }
    svg.push_str("</svg>\n");
    svg
}

/// The stretches of a run's cells that hold text, split where two or more blanks meet, as
/// (first cell, cell after the last): each becomes a `<text>` of its own, so that no renderer
/// can collapse the blanks between columns and shift what follows.
fn words(symbols: &[&str]) -> Vec<(u16, u16)> {
    let blank = |i: usize| symbols.get(i).is_none_or(|s| s.trim().is_empty());
    let mut out = Vec::new();
    let mut i = 0;
    while i < symbols.len() {
        if blank(i) {
            i += 1;
            continue;
        }
        let start = i;
        while i < symbols.len() && !(blank(i) && blank(i + 1)) {
            i += 1;
        }
        let mut end = i;
        while end > start && blank(end - 1) {
            end -= 1;
        }
        out.push((start as u16, end as u16));
    }
    out
}

#[test]
fn the_svg_escapes_text_and_joins_cells_of_one_look() {
    let mut buffer = Buffer::empty(ratatui::layout::Rect::new(0, 0, 12, 1));
    buffer.set_string(0, 0, "a<b&", ratatui::style::Style::default());
    buffer.set_string(
        5,
        0,
        "ok",
        ratatui::style::Style::default().fg(Color::Green),
    );
    let svg = to_svg(&buffer);
    assert!(svg.contains(">a&lt;b&amp;</text>"), "{svg}");
    assert!(svg.contains("fill=\"#0dbc79\">ok</text>"), "{svg}");
    assert_eq!(svg.matches("<text").count(), 2, "{svg}");
    assert_eq!(
        words(&["a", " ", "b", " ", " ", "c", " "]),
        [(0, 3), (5, 6)]
    );
}
