//! The routes table as the dashboard shows it: which rows, in which order, which one is
//! selected and which slice is on screen.
//!
//! The view is a list of indices into the model's rows, recomputed when the rows, the sort or
//! the filter change, never per frame. Selection follows the route, not the position, when the
//! order changes; scrolling moves just enough to keep the selection on screen.

use std::sync::Arc;

use super::Msg;
use crate::store::RouteRow;

/// The order of the routes table; `s` cycles it, `S` reverses it.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
pub enum SortKey {
    /// Fullest first.
    #[default]
    Fill,
    /// Fewest minutes remaining first.
    Remaining,
    /// Alphabetical by name.
    Name,
    /// The biggest rise of the fill over the last 24 hours first; routes without a trend last.
    Trend,
}

impl SortKey {
    /// The next key in the cycle; the trend comes after the name, and only `with_trend` (when
    /// some route has one: a table without the column is not sorted by it).
    pub fn next(self, with_trend: bool) -> Self {
        match self {
            SortKey::Fill => SortKey::Remaining,
            SortKey::Remaining => SortKey::Name,
            SortKey::Name if with_trend => SortKey::Trend,
            SortKey::Name | SortKey::Trend => SortKey::Fill,
        }
    }

    /// Whether this key lists the biggest values first before `S` reverses it.
    pub fn descending(self) -> bool {
        matches!(self, SortKey::Fill | SortKey::Trend)
    }

    /// The name shown in the table title and the footer.
    pub fn label(self) -> &'static str {
        match self {
            SortKey::Fill => "fill",
            SortKey::Remaining => "remaining",
            SortKey::Name => "name",
            SortKey::Trend => "trend",
        }
    }
}

/// The longest filter kept, in bytes.
const FILTER_MAX: usize = 64;

/// The state of the routes table.
#[derive(Debug, Clone, Default)]
pub struct RoutesTable {
    /// Indices into the rows: filtered and sorted, as the table lists them.
    pub view: Vec<usize>,
    /// The table order.
    pub sort: SortKey,
    /// Whether the order is reversed.
    pub reverse: bool,
    /// The filter text (empty: no filter).
    pub filter: String,
    /// Whether keys currently go to the filter input.
    pub filter_editing: bool,
    /// Index into [`RoutesTable::view`] of the selected route.
    pub selected: usize,
    /// Index into [`RoutesTable::view`] of the first visible row.
    pub offset: usize,
    /// Every row's index in the last sorted order, before filter and reverse: where the next
    /// sort starts, so a poll that moved few rows costs about one pass, not a full sort.
    order: Vec<usize>,
    /// Every row's 24-hour trend in percentage points, by row index (empty: no route has
    /// one), set with each report by [`RoutesTable::set_trends`]: the column and its sort key.
    trends: Vec<Option<i32>>,
    /// Every row's place in name (then slug, then index) order, by row index: the sorts' tie
    /// break compares these numbers rather than the strings ([`RoutesTable::rank_names`]).
    name_rank: Vec<u32>,
    /// The names and slugs [`RoutesTable::name_rank`] was worked out for, by row index.
    ranked: Vec<(Arc<str>, Arc<str>)>,
}

/// Rows one mouse-wheel notch scrolls.
const WHEEL_STEP: isize = 3;

impl RoutesTable {
    /// Answers the messages that only move, sort or filter the table, over `rows` with `page`
    /// rows on screen; `false` (nothing done) for any other message. Esc (`Msg::Back`) clears
    /// a filter here; without one, it is the caller's.
    pub fn on_msg(&mut self, msg: Msg, rows: &[RouteRow], page: usize) -> bool {
        let half = page as isize / 2;
        match msg {
            Msg::Back if self.filter.is_empty() => return false,
            Msg::Back | Msg::EraseFilter => self.set_filter(String::new(), rows, page),
            Msg::Down => self.move_by(1, page),
            Msg::Up => self.move_by(-1, page),
            Msg::PageDown => self.move_by(page as isize, page),
            Msg::PageUp => self.move_by(-(page as isize), page),
            Msg::HalfPageDown => self.move_by(half, page),
            Msg::HalfPageUp => self.move_by(-half, page),
            Msg::First => self.select(0, page),
            Msg::Last => self.select(self.view.len().saturating_sub(1), page),
            Msg::CycleSort => {
                self.sort = self.sort.next(self.has_trends());
                self.reverse = false;
                self.recompute(rows, page);
            }
            Msg::ReverseSort => {
                self.reverse = !self.reverse;
                self.recompute(rows, page);
            }
            Msg::KeepFilter => self.filter_editing = false,
            Msg::ClearFilter => {
                self.filter_editing = false;
                self.set_filter(String::new(), rows, page);
            }
            Msg::DeleteChar => {
                self.filter.pop();
                self.recompute(rows, page);
            }
            // Not a character a terminal could act on, nor past the longest filter kept.
            Msg::Type(c) if crate::text::is_unsafe(c) || self.filter.len() >= FILTER_MAX => {}
            Msg::Type(c) => {
                self.filter.push(c);
                self.recompute(rows, page);
            }
            Msg::ScrollDown => self.move_by(WHEEL_STEP, page),
            Msg::ScrollUp => self.move_by(-WHEEL_STEP, page),
            _ => return false,
        }
        true
    }

    /// The selected row of `rows`, if the view is not empty.
    pub fn selected_row<'a>(&self, rows: &'a [RouteRow]) -> Option<&'a RouteRow> {
        self.view.get(self.selected).and_then(|&i| rows.get(i))
    }

    /// The rows listed, in order.
    pub fn listed<'a>(&'a self, rows: &'a [RouteRow]) -> impl Iterator<Item = &'a RouteRow> {
        self.view.iter().filter_map(|&i| rows.get(i))
    }

    /// Moves the selection by `by` rows (negative: up), `page` rows on screen.
    pub fn move_by(&mut self, by: isize, page: usize) {
        let target = self.selected.saturating_add_signed(by);
        self.select(target, page);
    }

    /// Selects the row at `index` of the view (the last if past it).
    pub fn select(&mut self, index: usize, page: usize) {
        self.selected = index.min(self.view.len().saturating_sub(1));
        self.keep_selection_visible(page);
    }

    /// Selects the row shown `on_screen` rows below the first visible one, if there is one.
    pub fn select_visible(&mut self, on_screen: usize, page: usize) {
        let index = self.offset + on_screen;
        if index < self.view.len() {
            self.select(index, page);
        }
    }

    /// Scrolls just enough that the selected row is among the `page` rows on screen.
    pub fn keep_selection_visible(&mut self, page: usize) {
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

    /// Takes the rows' 24-hour trends, by row index (see [`crate::dashboard::fill_trend::trend`]),
    /// for the next [`RoutesTable::recompute`]; none at all is kept as none.
    pub fn set_trends(&mut self, trends: Vec<Option<i32>>) {
        self.trends = if trends.iter().any(Option::is_some) {
            trends
        } else {
            Vec::new()
        };
    }

    /// The trend of row `index` of the rows, if it has one.
    pub fn trend_of(&self, index: usize) -> Option<i32> {
        self.trends.get(index).copied().flatten()
    }

    /// Whether some route has a trend (a day of history): the column is shown only then.
    pub fn has_trends(&self) -> bool {
        !self.trends.is_empty()
    }

    /// Replaces the filter and recomputes the view.
    pub fn set_filter(&mut self, filter: String, rows: &[RouteRow], page: usize) {
        self.filter = filter;
        self.recompute(rows, page);
    }

    /// Works out each row's place in name order again when a row's name or slug is not the one
    /// it was worked out for (a pointer comparison a row: the usual poll shares them), so that
    /// sorting 10,000 rows with many equal fills compares numbers, not names.
    fn rank_names(&mut self, rows: &[RouteRow]) {
        let same = self.ranked.len() == rows.len()
            && self.ranked.iter().zip(rows).all(|((name, slug), row)| {
                Arc::ptr_eq(name, &row.name) && Arc::ptr_eq(slug, &row.slug)
            });
        if same {
            return;
        }
        let mut by_name: Vec<(usize, &RouteRow)> = rows.iter().enumerate().collect();
        by_name.sort_by(|&(i, a), &(j, b)| {
            a.name
                .cmp(&b.name)
                .then(a.slug.cmp(&b.slug))
                .then(i.cmp(&j))
        });
        self.name_rank = vec![0; rows.len()];
        for (rank, &(i, _)) in by_name.iter().enumerate() {
            if let Some(slot) = self.name_rank.get_mut(i) {
                *slot = u32::try_from(rank).unwrap_or(u32::MAX);
            }
        }
        self.ranked = rows
            .iter()
            .map(|row| (Arc::clone(&row.name), Arc::clone(&row.slug)))
            .collect();
    }

    /// Recomputes the filtered, sorted view of `rows`, keeping the selected route selected if
    /// it is still listed.
    pub fn recompute(&mut self, rows: &[RouteRow], page: usize) {
        let keep = self.selected_row(rows).map(|r| r.slug.clone());
        let needle = self.filter.to_lowercase();
        // Start from the last order when it still covers the rows (the usual poll): the sort
        // finds it nearly sorted and runs in about one pass. The index as the last tie-break
        // makes the result the same whatever order it starts from.
        let mut order = std::mem::take(&mut self.order);
        if order.len() != rows.len() {
            order = (0..rows.len()).collect();
        }
        let mut keyed: Vec<(usize, &RouteRow)> = order
            .iter()
            .filter_map(|&i| rows.get(i).map(|row| (i, row)))
            .collect();
        self.rank_names(rows);
        let rank = |i: usize| self.name_rank.get(i).copied().unwrap_or(u32::MAX);
        let by_name = |i: usize, j: usize| rank(i).cmp(&rank(j));
        match self.sort {
            SortKey::Fill => keyed.sort_by(|&(i, a), &(j, b)| {
                b.filled_pct.cmp(&a.filled_pct).then_with(|| by_name(i, j))
            }),
            SortKey::Remaining => keyed.sort_by(|&(i, a), &(j, b)| {
                a.minutes
                    .remaining
                    .cmp(&b.minutes.remaining)
                    .then_with(|| by_name(i, j))
            }),
            SortKey::Name => keyed.sort_by(|&(i, _), &(j, _)| by_name(i, j)),
            SortKey::Trend => keyed.sort_by(|&(i, _), &(j, _)| {
                // `None` is less than any `Some`: descending puts it last.
                self.trend_of(j)
                    .cmp(&self.trend_of(i))
                    .then_with(|| by_name(i, j))
            }),
        }
        self.order = keyed.iter().map(|&(i, _)| i).collect();
        let mut view: Vec<(usize, &RouteRow)> = keyed
            .into_iter()
            .filter(|(_, row)| row.matches(&needle))
            .collect();
        if self.reverse {
            view.reverse();
        }
        let selected = keep
            .and_then(|slug| view.iter().position(|(_, row)| row.slug == slug))
            .unwrap_or(0);
        self.view = view.into_iter().map(|(i, _)| i).collect();
        self.selected = selected;
        self.keep_selection_visible(page);
    }
}

#[cfg(test)]
#[allow(clippy::unwrap_used)]
mod tests {
    use super::*;
    use crate::fixtures::route;

    fn rows() -> Vec<RouteRow> {
        [
            route("a", "Alpha", "+1", 100, 10, 10, 1),
            route("b", "Bravo", "+2", 100, 90, 10, 1),
            route("c", "Charlie", "+3", 100, 50, 10, 1),
        ]
        .iter()
        .map(RouteRow::of)
        .collect()
    }

    fn names(table: &RoutesTable, rows: &[RouteRow]) -> Vec<String> {
        table.listed(rows).map(|r| r.name.to_string()).collect()
    }

    #[test]
    fn sorts_reverse_and_keep_the_selected_route() {
        let rows = rows();
        let mut table = RoutesTable::default();
        table.recompute(&rows, 10);
        assert_eq!(names(&table, &rows), ["Bravo", "Charlie", "Alpha"]);
        table.move_by(1, 10);
        table.on_msg(Msg::CycleSort, &rows, 10); // remaining: fewest first
        table.on_msg(Msg::CycleSort, &rows, 10); // name
        assert_eq!(names(&table, &rows), ["Alpha", "Bravo", "Charlie"]);
        assert_eq!(table.selected_row(&rows).unwrap().name.as_ref(), "Charlie");
        table.on_msg(Msg::ReverseSort, &rows, 10);
        assert_eq!(names(&table, &rows), ["Charlie", "Bravo", "Alpha"]);
        assert_eq!(table.selected, 0);
    }

    #[test]
    fn a_new_poll_sorts_from_the_last_order_to_the_same_result_as_from_scratch() {
        let mut table = RoutesTable::default();
        let mut routes: Vec<_> = (0..40)
            .map(|i| {
                let name = format!("Route {}", i % 7); // repeated names: the slug decides
                route(&format!("r{i:02}"), &name, "+1", 100, (i * 37) % 101, 10, 1)
            })
            .collect();
        let rows: Vec<RouteRow> = routes.iter().map(RouteRow::of).collect();
        table.recompute(&rows, 10);
        for poll in 1..6 {
            for (i, r) in routes.iter_mut().enumerate() {
                r.filled_pct = ((i * 13 + poll * 29) % 101) as i64;
                r.capacity_minutes.remaining = ((i * 7 + poll) % 11) as i64;
            }
            let rows: Vec<RouteRow> = routes.iter().map(RouteRow::of).collect();
            for sort in [SortKey::Fill, SortKey::Remaining, SortKey::Name] {
                table.sort = sort;
                table.recompute(&rows, 10);
                let mut fresh = RoutesTable {
                    sort,
                    ..RoutesTable::default()
                };
                fresh.recompute(&rows, 10);
                assert_eq!(table.view, fresh.view, "poll {poll}, {sort:?}");
            }
        }
    }

    #[test]
    fn the_trend_sorts_biggest_rise_first_and_routes_without_one_last() {
        let rows = rows(); // Alpha, Bravo, Charlie
        let mut table = RoutesTable::default();
        assert_eq!(
            SortKey::Name.next(false),
            SortKey::Fill,
            "no trend: skipped"
        );
        table.set_trends(vec![None, None, None]);
        assert!(!table.has_trends(), "none at all is none");
        table.set_trends(vec![Some(-3), None, Some(12)]);
        assert!(table.has_trends());
        for _ in 0..3 {
            table.on_msg(Msg::CycleSort, &rows, 10);
        }
        assert_eq!(table.sort, SortKey::Trend);
        assert_eq!(names(&table, &rows), ["Charlie", "Alpha", "Bravo"]);
        table.on_msg(Msg::ReverseSort, &rows, 10);
        assert_eq!(names(&table, &rows), ["Bravo", "Alpha", "Charlie"]);
        table.on_msg(Msg::CycleSort, &rows, 10);
        assert_eq!(table.sort, SortKey::Fill);
    }

    #[test]
    fn filters_by_name_slug_or_dial_code_and_refuses_unsafe_text() {
        let rows = rows();
        let mut table = RoutesTable::default();
        table.recompute(&rows, 10);
        for c in "+3".chars() {
            table.on_msg(Msg::Type(c), &rows, 10);
        }
        assert_eq!(names(&table, &rows), ["Charlie"]);
        table.on_msg(Msg::Type('\u{1b}'), &rows, 10);
        assert_eq!(table.filter, "+3");
        table.on_msg(Msg::DeleteChar, &rows, 10);
        table.on_msg(Msg::DeleteChar, &rows, 10);
        assert_eq!(table.view.len(), 3);
        for _ in 0..100 {
            table.on_msg(Msg::Type('x'), &rows, 10);
        }
        assert_eq!(table.filter.len(), FILTER_MAX);
    }

    #[test]
    fn scrolling_keeps_the_selection_on_a_page() {
        let rows: Vec<RouteRow> = (0..50)
            .map(|i| {
                route(
                    &format!("r{i:02}"),
                    &format!("R{i:02}"),
                    "+1",
                    100,
                    50,
                    10,
                    1,
                )
            })
            .map(|r| RouteRow::of(&r))
            .collect();
        let mut table = RoutesTable::default();
        table.recompute(&rows, 10);
        table.on_msg(Msg::Last, &rows, 10);
        assert_eq!((table.selected, table.offset), (49, 40));
        table.move_by(-15, 10);
        assert_eq!((table.selected, table.offset), (34, 34));
        table.select_visible(3, 10);
        assert_eq!(table.selected, 37);
        table.select_visible(30, 10);
        assert_eq!(table.selected, 37, "a row past the end selects nothing");
        table.keep_selection_visible(5);
        assert_eq!(table.offset, 34);
        table.select(0, 10);
        assert_eq!((table.selected, table.offset), (0, 0));
    }

    #[test]
    fn equal_fills_list_by_name_and_a_renamed_route_moves() {
        let mut rows: Vec<RouteRow> = [
            route("d", "Delta", "+4", 100, 50, 10, 1),
            route("b", "Bravo", "+2", 100, 50, 10, 1),
            route("c", "Charlie", "+3", 100, 50, 10, 1),
            route("a", "Alpha", "+1", 100, 90, 10, 1),
        ]
        .iter()
        .map(RouteRow::of)
        .collect();
        let mut table = RoutesTable::default();
        table.recompute(&rows, 10);
        assert_eq!(names(&table, &rows), ["Alpha", "Bravo", "Charlie", "Delta"]);
        rows[0] = RouteRow::of(&route("d", "Aardvark", "+4", 100, 50, 10, 1));
        table.recompute(&rows, 10);
        assert_eq!(
            names(&table, &rows),
            ["Alpha", "Aardvark", "Bravo", "Charlie"]
        );
    }
}
