//! Lines set as the frame before set them, copied rather than laid out again.
//!
//! The dashboard draws every second while a countdown runs, and most of those frames differ
//! only in the header: at 10,000 routes, laying out the routes table's forty lines cell by cell
//! (graphemes, widths, styles) was the largest part of drawing a frame. [`set_line`] keeps, row
//! by row of the screen, the last line set there and the cells it made; when the same line is
//! set at the same place over the same blank cells, it copies those cells instead. The result
//! is the same cells `Buffer::set_line` makes, so rendering stays a pure function of the state:
//! this only remembers one.

use std::cell::RefCell;

use ratatui::buffer::{Buffer, Cell};
use ratatui::text::{Line, Span};

/// One row of the screen as the last frame set it.
struct Painted {
    x: u16,
    width: u16,
    line: Line<'static>,
    cells: Vec<Cell>,
}

thread_local! {
    /// By row of the screen (`y`): bounded by the terminal's height.
    static ROWS: RefCell<Vec<Option<Painted>>> = const { RefCell::new(Vec::new()) };
}

/// What `buf.set_line(x, y, line, width)` does, copying the cells the last frame made when it
/// set the same line at the same place over the same blank cells.
pub fn set_line(buf: &mut Buffer, x: u16, y: u16, line: &Line<'_>, width: u16) {
    let end = x.saturating_add(width);
    let blank = (x..end).all(|cx| buf.cell((cx, y)).is_none_or(|c| *c == Cell::EMPTY));
    if !blank {
        buf.set_line(x, y, line, width);
        return;
    }
    ROWS.with_borrow_mut(|rows| {
        let slot = usize::from(y);
        if let Some(Some(last)) = rows.get(slot)
            && (last.x, last.width) == (x, width)
            && last.line == *line
        {
            for (cx, cell) in (x..end).zip(&last.cells) {
                if let Some(to) = buf.cell_mut((cx, y)) {
                    to.clone_from(cell);
                }
            }
            return;
        }
        buf.set_line(x, y, line, width);
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
                line: owned(line),
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
