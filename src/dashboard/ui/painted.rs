//! Lines set as the frame before set them, copied rather than laid out again.
//!
//! The dashboard draws every second while a countdown runs, and most of those frames differ
//! only in the header: at 10,000 routes, laying out the routes table's forty lines cell by cell
//! (graphemes, widths, styles) was the largest part of drawing a frame. [`set_line`] keeps, row
//! by row of the screen, the last line set there and the cells it made; when the same line is
//! set at the same place over the same blank cells, it copies those cells instead.
//! [`set_keyed`] goes one step further for a line made from a few values (a route's row): when
//! the values are those of the last frame, the line is not even made. The result is the same
//! cells `Buffer::set_line` makes, so rendering stays a pure function of the state: this only
//! remembers one.

use std::any::Any;
use std::borrow::Cow;
use std::cell::RefCell;

use ratatui::buffer::{Buffer, Cell};
use ratatui::text::{Line, Span};

/// One row of the screen as the last frame set it.
struct Painted {
    x: u16,
    width: u16,
    made: Made,
    cells: Vec<Cell>,
}

/// What the cells of a [`Painted`] row were made from.
enum Made {
    /// A line given whole ([`set_line`]).
    Line(Line<'static>),
    /// The values a line was made from ([`set_keyed`]).
    Key(Box<dyn Any>),
}

thread_local! {
    /// By row of the screen (`y`): bounded by the terminal's height.
    static ROWS: RefCell<Vec<Option<Painted>>> = const { RefCell::new(Vec::new()) };
}

/// What `buf.set_line(x, y, line, width)` does, copying the cells the last frame made when it
/// set the same line at the same place over the same blank cells.
pub fn set_line(buf: &mut Buffer, x: u16, y: u16, line: &Line<'_>, width: u16) {
    paint(buf, (x, y, width), |made| match made {
        Some(Made::Line(last)) if last == line => None,
        _ => Some((Cow::Borrowed(line), Made::Line(owned(line)))),
    });
}

/// What `buf.set_line(x, y, &make(&key), width)` does, copying the cells the last frame made
/// when it set a line of an equal `key` at the same place over the same blank cells: then
/// `make` is not called. The line must be made from `key` alone.
pub fn set_keyed<'a, K: PartialEq + 'static>(
    buf: &mut Buffer,
    (x, y, width): (u16, u16, u16),
    key: K,
    make: impl FnOnce(&K) -> Line<'a>,
) {
    paint(buf, (x, y, width), |made| match made {
        Some(Made::Key(last)) if last.downcast_ref::<K>() == Some(&key) => None,
        _ => Some((Cow::Owned(make(&key)), Made::Key(Box::new(key)))),
    });
}

/// Sets row `y` from `x` over `width` cells: `fresh` is shown what the last frame's cells there
/// were made from, and answers `None` to have them copied (when the cells are blank), or the
/// line to set and what it was made from.
fn paint<'l, 'a: 'l>(
    buf: &mut Buffer,
    (x, y, width): (u16, u16, u16),
    fresh: impl FnOnce(Option<&Made>) -> Option<(Cow<'l, Line<'a>>, Made)>,
) {
    let end = x.saturating_add(width);
    let blank = (x..end).all(|cx| buf.cell((cx, y)).is_none_or(|c| *c == Cell::EMPTY));
    ROWS.with_borrow_mut(|rows| {
        let slot = usize::from(y);
        let last = rows
            .get(slot)
            .and_then(Option::as_ref)
            .filter(|last| blank && (last.x, last.width) == (x, width));
        let Some((line, made)) = fresh(last.map(|last| &last.made)) else {
            if let Some(last) = last {
                for (cx, cell) in (x..end).zip(&last.cells) {
                    if let Some(to) = buf.cell_mut((cx, y)) {
                        to.clone_from(cell);
                    }
                }
            }
            return;
        };
        buf.set_line(x, y, &line, width);
        if !blank {
            return;
        }
        let cells = (x..end)
            .map(|cx| buf.cell((cx, y)).cloned().unwrap_or(Cell::EMPTY))
            .collect();
        if rows.len() <= slot {
            rows.resize_with(slot + 1, || None);
        }
        if let Some(row) = rows.get_mut(slot) {
            *row = Some(Painted {
                x,
                width,
                made,
                cells,
            });
        }
    });
}

fn owned(line: &Line<'_>) -> Line<'static> {
    let spans: Vec<Span<'static>> = line
        .spans
        .iter()
        .map(|s| Span::styled(s.content.clone().into_owned(), s.style))
        .collect();
    let mut owned = Line::from(spans).style(line.style);
    owned.alignment = line.alignment;
    owned
}

#[cfg(test)]
mod tests {
    #![allow(clippy::unwrap_used)]
    use ratatui::layout::Rect;
    use ratatui::style::{Color, Style};

    use super::*;

    fn line(text: &str, color: Color) -> Line<'static> {
        Line::from(vec![
            Span::styled(text.to_owned(), Style::new().fg(color)),
            Span::raw(" ▶ 東京"),
        ])
    }

    #[test]
    fn sets_what_buffer_set_line_sets_frame_after_frame() {
        let area = Rect::new(0, 0, 20, 3);
        for (text, color, width) in [
            ("alpha", Color::Red, 20),
            ("alpha", Color::Red, 20),
            ("alpha", Color::Green, 20),
            ("alpha", Color::Green, 8),
            ("beta", Color::Green, 8),
            ("beta", Color::Green, 8),
        ] {
            let l = line(text, color);
            let mut plain = Buffer::empty(area);
            plain.set_line(1, 1, &l, width);
            let mut copied = Buffer::empty(area);
            set_line(&mut copied, 1, 1, &l, width);
            assert_eq!(copied, plain, "{text} {color:?} {width}");
        }
    }

    #[test]
    fn a_keyed_line_is_made_again_only_when_its_key_changes() {
        let area = Rect::new(0, 0, 20, 2);
        let mut made = 0;
        for (key, width) in [(1, 20), (1, 20), (2, 20), (2, 12), (2, 12)] {
            let mut copied = Buffer::empty(area);
            let make = |k: &i32| {
                made += 1;
                line(&format!("row {k}"), Color::Cyan)
            };
            set_keyed(&mut copied, (1, 1, width), key, make);
            let mut plain = Buffer::empty(area);
            plain.set_line(1, 1, &line(&format!("row {key}"), Color::Cyan), width);
            assert_eq!(copied, plain, "{key} {width}");
        }
        assert_eq!(made, 3, "made for the first frame, a new key, a new width");
        // A line given whole at the same place is never taken for the keyed one.
        let mut whole = Buffer::empty(area);
        set_line(&mut whole, 1, 1, &Line::raw(""), 12);
        let mut plain = Buffer::empty(area);
        plain.set_line(1, 1, &Line::raw(""), 12);
        assert_eq!(whole, plain);
    }

    #[test]
    fn cells_already_set_are_laid_over_as_set_line_does() {
        let area = Rect::new(0, 0, 20, 1);
        let l = Line::raw("ab");
        let mut first = Buffer::empty(area);
        set_line(&mut first, 0, 0, &l, 20);
        let mut under = Buffer::empty(area);
        under.set_string(0, 0, "xxxxxxxx", Style::new());
        let mut plain = under.clone();
        plain.set_line(0, 0, &l, 20);
        set_line(&mut under, 0, 0, &l, 20);
        assert_eq!(under, plain, "the x beyond ab stay");
    }
}
