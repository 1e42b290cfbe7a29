//! Reusable drawing pieces: an inline fill gauge and a proportional split bar, both as spans so
//! they sit inside table rows and text lines.

use ratatui::style::Style;
use ratatui::text::Span;

use super::theme::Theme;

/// A gauge `width` cells wide filled to `ratio` (clamped into 0..=1; NaN counts as empty), the
/// filled part in `style`, with eighth-cell precision when the theme allows unicode.
pub fn inline_gauge(ratio: f64, width: u16, style: Style, theme: &Theme) -> Vec<Span<'static>> {
    let width = usize::from(width);
    if width == 0 {
        return Vec::new();
    }
    let ratio = if ratio.is_finite() {
        ratio.clamp(0.0, 1.0)
    } else {
        0.0
    };
    let glyphs = theme.glyphs();
    // In steps of an eighth of a cell, or with ASCII of whole cells, never empty for a non-zero
    // figure.
    let steps = if glyphs.eighths.is_some() { 8 } else { 1 };
    let mut total = (ratio * (width * steps) as f64).round() as usize;
    if steps == 1 && total == 0 && ratio > 0.0 {
        total = 1;
    }
    let (full, part) = ((total / steps).min(width), total % steps);
    let mut filled = glyphs.full.repeat(full);
    let mut used = full;
    let partial = glyphs
        .eighths
        .filter(|_| used < width)
        .and_then(|eighths| eighths.get(part.checked_sub(1)?).copied());
    if let Some(partial) = partial {
        filled.push_str(partial);
        used += 1;
    }
    let mut spans = vec![Span::styled(filled, style)];
    if used < width {
        spans.push(Span::styled(
            glyphs.empty.repeat(width - used),
            theme.muted(),
        ));
    }
    spans
}

/// One bar `width` cells wide split between `counts` in proportion (largest remainder, so the
/// cells always add up to `width`), each part in its own style and glyph so it reads without
/// colour too. Negative counts count as zero.
pub fn split_bar(
    counts: &[i64],
    styles: &[Style],
    glyphs: &[&str],
    width: u16,
) -> Vec<Span<'static>> {
    let width = usize::from(width);
    let counts: Vec<u128> = counts.iter().map(|&c| c.max(0) as u128).collect();
    let sum: u128 = counts.iter().sum();
    if sum == 0 || width == 0 {
        return vec![Span::raw(" ".repeat(width))];
    }
    let mut cells: Vec<usize> = counts
        .iter()
        .map(|&c| (c * width as u128 / sum) as usize)
        .collect();
    // The cells left over go to the largest remainders, which are all non-zero: there are
    // fewer cells left than parts with a remainder.
    let rest = width - cells.iter().sum::<usize>();
    let mut order: Vec<usize> = (0..counts.len()).collect();
    order
        .sort_by_key(|&i| std::cmp::Reverse(counts.get(i).map_or(0, |&c| c * width as u128 % sum)));
    for &i in order.iter().take(rest) {
        if let Some(cell) = cells.get_mut(i) {
            *cell += 1;
        }
    }
    cells
        .iter()
        .enumerate()
        .filter(|&(_, &n)| n > 0)
        .map(|(i, &n)| {
            let glyph = glyphs.get(i).copied().unwrap_or("#");
            let style = styles.get(i).copied().unwrap_or_default();
            Span::styled(glyph.repeat(n), style)
        })
        .collect()
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::dashboard::app::UiOptions;

    fn text(spans: &[Span<'_>]) -> String {
        spans.iter().map(|s| s.content.as_ref()).collect()
    }

    #[test]
    fn gauge_clamps_and_keeps_its_width() {
        let theme = Theme::new(&UiOptions::default());
        for ratio in [-1.0, 0.0, 0.33, 0.5, 1.0, 7.0, f64::NAN] {
            let g = text(&inline_gauge(ratio, 10, Style::new(), &theme));
            assert_eq!(g.chars().count(), 10, "{ratio}: {g}");
        }
        assert_eq!(text(&inline_gauge(0.5, 4, Style::new(), &theme)), "██░░");
        assert_eq!(text(&inline_gauge(9.0, 4, Style::new(), &theme)), "████");
        let ascii = Theme::new(&UiOptions {
            ascii: true,
            ..UiOptions::default()
        });
        assert_eq!(text(&inline_gauge(0.01, 4, Style::new(), &ascii)), "#...");
    }

    #[test]
    fn split_bar_fills_exactly() {
        let bar = text(&split_bar(&[5, 3, 2], &[], &["a", "b", "c"], 7));
        assert_eq!(bar.len(), 7);
        assert_eq!(bar, "aaaabbc");
        assert_eq!(text(&split_bar(&[0, 0, 0], &[], &["a"], 3)), "   ");
        assert_eq!(
            text(&split_bar(
                &[i64::MAX, i64::MAX, -4],
                &[],
                &["a", "b", "c"],
                5
            ))
            .len(),
            5
        );
    }
}
