//! Frames of the dashboard drawn in memory for the snapshot tests: draw an `App` at a size,
//! read the screen back as text, compare it with a snapshot in `snapshots/`.

use captop::dashboard::app::{App, Event};
use ratatui::Terminal;
use ratatui::backend::TestBackend;

/// `app` drawn on a `w`×`h` terminal, after it was told the size.
pub fn draw(app: &mut App, w: u16, h: u16) -> Terminal<TestBackend> {
    app.update(Event::Resize(w, h));
    let mut terminal = Terminal::new(TestBackend::new(w, h)).unwrap();
    terminal
        .draw(|f| captop::dashboard::ui::render(f, app))
        .unwrap();
    terminal
}

/// Compares the frame with `snapshots/<name>.snap`.
pub fn snap(name: &str, terminal: &Terminal<TestBackend>) {
    insta::with_settings!({ snapshot_path => "../../snapshots", prepend_module_to_snapshot => false }, {
        insta::assert_snapshot!(name, terminal.backend());
    });
}

/// The screen as text, a line per row.
pub fn screen(terminal: &Terminal<TestBackend>) -> String {
    let buf = terminal.backend().buffer();
    let mut out = String::new();
    for y in 0..buf.area.height {
        for x in 0..buf.area.width {
            out.push_str(buf[(x, y)].symbol());
        }
        out.push('\n');
    }
    out
}
