//! What a history writer remembers of each route between reports: its id in the file, its
//! safe name and dial code, and its last figures, found by the route's place in the report.
//!
//! The usual report lists the same routes in the same order as the one before, so the route at
//! place `i` is looked for first where the last report had it, with one comparison of slugs;
//! only a route that moved or is new is looked up by slug (hashing every slug of every report
//! is what this spares).

use std::collections::HashMap;
use std::hash::BuildHasher;
use std::sync::Arc;

use rusqlite::{Connection, params};

use crate::api::model::RouteCapacity;
// Sanitized and cut: the text the file keeps of a server's name or dial code.
use crate::text::fit;

/// A route's figures as a row holds them: minutes sold and total, ports sold and total.
pub type Figures = [i64; 4];

/// What the writer remembers of a route.
#[derive(Debug)]
pub struct Memo {
    /// Its row in `routes`.
    pub id: i64,
    /// Shared with the last report's route where the text is the same, so the next report's,
    /// which shares it too, is compared by pointer.
    slug: Arc<str>,
    texts: Texts,
    /// `None`: not in the last report recorded (or never given figures).
    pub last: Option<Figures>,
    /// The report (by count) that last listed it.
    pub seen: u64,
}

/// A route's name and dial code as the writer knows them.
#[derive(Debug)]
enum Texts {
    /// As the file holds them, known by their hash ([`stored_texts`]): what a writer reads
    /// back, compared once with the next report's and then replaced by them.
    Stored(u64),
    /// The last report's, shared with it.
    Shared { name: Arc<str>, dial_code: Arc<str> },
}

/// The hash a [`Memo`] read back from the file knows a route's name and dial code by.
pub fn stored_texts(name: &[u8], dial_code: &[u8]) -> u64 {
    foldhash::fast::FixedState::default().hash_one((name, dial_code))
}

/// Every route the file knows, by slug and by its place in the last report.
#[derive(Debug, Default)]
pub struct Memos {
    list: Vec<Memo>,
    /// Keyed by the memo's own slug, shared; made only when a route is not found at its place
    /// (the usual report finds every route there), and then brought up to date with the memos
    /// pushed since ([`Memos::indexed`]).
    by_slug: HashMap<Arc<str>, usize>,
    /// How many memos of `list`, from the first, `by_slug` holds.
    indexed: usize,
    /// The memo of the route at each place of the last report.
    by_place: Vec<usize>,
}

impl Memos {
    /// Forgets every route (another process wrote: read them again).
    pub fn clear(&mut self) {
        *self = Memos::default();
    }

    /// Remembers a route read back from the file. Routes are read in id order, which is the
    /// order the reports first listed them in, so each is first looked for at its place in
    /// that order.
    /// `texts` is the [`stored_texts`] of its name and dial code.
    pub fn load(&mut self, id: i64, slug: &str, texts: u64, last: Option<Figures>) {
        let at = self.push(Memo {
            id,
            slug: slug.into(),
            texts: Texts::Stored(texts),
            last,
            seen: 0,
        });
        self.by_place.push(at);
    }

    fn push(&mut self, memo: Memo) -> usize {
        self.list.push(memo);
        self.list.len() - 1
    }

    /// The first `n` routes the file knows (ids ascending: loaded in id order, and a new
    /// route's id is above every other's).
    pub fn first(&self, n: usize) -> impl Iterator<Item = &Memo> + Clone {
        self.list.iter().take(n)
    }

    /// Every route remembered.
    pub fn iter_mut(&mut self) -> impl Iterator<Item = &mut Memo> {
        self.list.iter_mut()
    }

    /// The memo of `route`, listed at `place` in the report: made (a row of `routes`) when the
    /// route is new, its name and dial code brought up to date when they changed.
    pub fn of(
        &mut self,
        conn: &Connection,
        place: usize,
        route: &RouteCapacity,
    ) -> rusqlite::Result<&mut Memo> {
        let found = self
            .find(place, &route.route)
            .and_then(|at| Some(at).zip(self.list.get_mut(at)));
        let at = match found {
            Some((at, memo)) => {
                // The same text: keep the report's, so the next poll's compares pointers.
                memo.slug = Arc::clone(&route.route);
                rename(conn, memo, route)?;
                at
            }
            None => {
                let (name, dial_code) = (fit(&route.name, 200), fit(&route.dial_code, 40));
                conn.prepare_cached(
                    "INSERT INTO routes (slug, name, dial_code) VALUES (?1, ?2, ?3)",
                )?
                .execute(params![route.route, name, dial_code])?;
                self.push(Memo {
                    id: conn.last_insert_rowid(),
                    slug: Arc::clone(&route.route),
                    texts: Texts::Shared {
                        name: kept(name, &route.name),
                        dial_code: kept(dial_code, &route.dial_code),
                    },
                    last: None,
                    seen: 0,
                })
            }
        };
        match self.by_place.get_mut(place) {
            Some(slot) => *slot = at,
            None => self.by_place.push(at),
        }
        self.list
            .get_mut(at)
            .ok_or(rusqlite::Error::QueryReturnedNoRows)
    }

    /// Where the memo of `slug` is: first where the last report had its `place`.
    fn find(&mut self, place: usize, slug: &Arc<str>) -> Option<usize> {
        let hint = self.by_place.get(place).copied();
        // `Arc`'s `==` compares the pointers first: the usual poll shares the last one's slugs.
        if let Some(at) = hint.filter(|&at| self.list.get(at).is_some_and(|m| m.slug == *slug)) {
            return Some(at);
        }
        for (at, memo) in self.list.iter().enumerate().skip(self.indexed) {
            self.by_slug.insert(Arc::clone(&memo.slug), at);
        }
        self.indexed = self.list.len();
        self.by_slug.get(&**slug).copied()
    }
}

/// Brings the memo's name and dial code (and the file's) up to date with `route`'s; the usual
/// poll compares the same safe strings without a copy.
fn rename(conn: &Connection, memo: &mut Memo, route: &RouteCapacity) -> rusqlite::Result<()> {
    if memo.texts.are(&route.name, &route.dial_code) {
        // Equal, maybe as text only (a memo read from the file): the report's from now on.
        memo.texts = Texts::Shared {
            name: Arc::clone(&route.name),
            dial_code: Arc::clone(&route.dial_code),
        };
        return Ok(());
    }
    let (name, dial_code) = (fit(&route.name, 200), fit(&route.dial_code, 40));
    if !memo.texts.are(&name, &dial_code) {
        conn.prepare_cached("UPDATE routes SET name = ?2, dial_code = ?3 WHERE id = ?1")?
            .execute(params![memo.id, name, dial_code])?;
    }
    memo.texts = Texts::Shared {
        name: kept(name, &route.name),
        dial_code: kept(dial_code, &route.dial_code),
    };
    Ok(())
}

impl Texts {
    /// Whether they are `name` and `dial_code` (compared by pointer first when shared).
    fn are(&self, name: &str, dial_code: &str) -> bool {
        match self {
            Texts::Stored(hash) => *hash == stored_texts(name.as_bytes(), dial_code.as_bytes()),
            Texts::Shared {
                name: known,
                dial_code: known_code,
            } => same(known, name) && same(known_code, dial_code),
        }
    }
}

/// Whether `known` is `text`: the same string (the usual poll's) or equal ones.
fn same(known: &Arc<str>, text: &str) -> bool {
    std::ptr::eq(Arc::as_ptr(known), text) || **known == *text
}

/// `fitted`, the text kept of `text`: `text` itself (shared) when fitting left it as it was.
fn kept(fitted: String, text: &Arc<str>) -> Arc<str> {
    if *fitted == **text {
        Arc::clone(text)
    } else {
        fitted.into()
    }
}
