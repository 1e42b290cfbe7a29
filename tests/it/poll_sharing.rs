//! Pollers sharing one budget through one state file, under tokio's paused clock: they take
//! turns (each polls every `pollers × 2 s` at 60 requests a minute, staggered 2 s apart), a new
//! one joins within one interval, one that quits leaves its share to the others at once, and a
//! crashed one (its process gone, or its heartbeat stale) drops out within about one interval.
//! (The same over HTTP against the simulated service, in real time: `tests/it/poll_pacing.rs`.)

#![allow(clippy::unwrap_used, clippy::expect_used)]
#![allow(clippy::panic, clippy::indexing_slicing)]

use crate::support;

use std::path::PathBuf;
use std::time::{Duration, SystemTime, UNIX_EPOCH};

use captop::poll::{BudgetSharing, PollConfig, ScheduleStatus};
use support::scripted::{Run, Scripted, config, gaps, max_in_window, start};
use tokio::time::Instant;

const SECOND: Duration = Duration::from_secs(1);

/// Pollers of one (virtual) process sharing a state dir, on one pinned wall clock.
struct Share {
    dir: PathBuf,
    anchor: SystemTime,
    t0: Instant,
}

impl Share {
    fn new(tag: &str) -> Self {
        let dir = std::env::temp_dir().join(format!("captop-sharing-{tag}-{}", std::process::id()));
        let _ = std::fs::remove_dir_all(&dir);
        Self {
            dir,
            anchor: UNIX_EPOCH + Duration::from_secs(1_800_000_000),
            t0: Instant::now(),
        }
    }

    /// A poller at `--interval 1`, budget 60, sharing the dir.
    fn poller(&self) -> (Scripted, Run) {
        let source = Scripted::always_ok(Duration::from_millis(30));
        let mut config: PollConfig = config(SECOND, 60);
        config.sharing = BudgetSharing::Dir(self.dir.clone());
        // One wall clock for all: a poller started later starts later on it.
        config.wall_anchor = Some(self.anchor + (Instant::now() - self.t0));
        (source.clone(), start(source, config))
    }

    /// The state file, as the pollers keyed it.
    fn file(&self) -> PathBuf {
        let hash = captop::poll::shared::key_hash("scripted.invalid");
        self.dir.join(format!("budget-{hash}.json"))
    }

    /// The pollers' wall clock now, in UNIX milliseconds.
    fn now_ms(&self) -> u64 {
        let wall = self.anchor + (Instant::now() - self.t0);
        wall.duration_since(UNIX_EPOCH).unwrap().as_millis() as u64
    }

    /// Writes a member into the state file as another poller would have, then went silent.
    fn add_member(&self, pid: u32, id: u64, every_ms: u64) {
        let text = std::fs::read_to_string(self.file()).unwrap();
        let mut state: serde_json::Value = serde_json::from_str(&text).unwrap();
        let member = serde_json::json!({
            "pid": pid, "id": id, "heartbeat_ms": self.now_ms(), "every_ms": every_ms
        });
        state["members"].as_array_mut().unwrap().push(member);
        std::fs::write(self.file(), state.to_string()).unwrap();
    }

    fn since(&self, t: Duration) -> Instant {
        self.t0 + t
    }
}

impl Drop for Share {
    fn drop(&mut self) {
        let _ = std::fs::remove_dir_all(&self.dir);
    }
}

fn after(polls: &[Instant], from: Instant) -> Vec<Instant> {
    polls.iter().copied().filter(|&t| t >= from).collect()
}

fn between(polls: &[Instant], from: Instant, to: Instant) -> Vec<Instant> {
    polls
        .iter()
        .copied()
        .filter(|&t| t >= from && t < to)
        .collect()
}

/// Every gap within `[low, low + 10 ms]` (a poll may wait a millisecond for the sliding window,
/// which counts a request one millisecond longer than its minute).
fn all_gaps_about(polls: &[Instant], low: Duration) -> bool {
    gaps(polls)
        .iter()
        .all(|g| *g >= low && *g <= low + Duration::from_millis(10))
}

fn last_status(run: &Run) -> ScheduleStatus {
    run.schedules().last().cloned().unwrap()
}

#[tokio::test(start_paused = true)]
async fn pollers_take_turns_a_new_one_joins_within_an_interval_and_leavers_free_their_share() {
    let share = Share::new("turns");
    let (a_src, a) = share.poller();
    tokio::time::sleep(Duration::from_secs(30)).await;
    // Alone: every 2 s, the budget floor.
    assert!(
        all_gaps_about(&a_src.polls(), 2 * SECOND),
        "{:?}",
        gaps(&a_src.polls())
    );
    assert_eq!(last_status(&a).shared_by, 1);

    let (b_src, b) = share.poller();
    let (c_src, c) = share.poller();
    tokio::time::sleep(Duration::from_secs(60)).await;
    // Both newcomers polled within one interval of the new share (6 s) ...
    let joined = share.since(Duration::from_secs(30));
    for (name, src) in [("b", &b_src), ("c", &c_src)] {
        let first = src.polls()[0];
        assert!(
            first - joined <= 6 * SECOND,
            "{name} first polled after {:?}",
            first - joined
        );
    }
    // ... and from then on each polls every 3 × 2 s, in turns 2 s apart.
    let settled = share.since(Duration::from_secs(42));
    for (name, src) in [("a", &a_src), ("b", &b_src), ("c", &c_src)] {
        let polls = after(&src.polls(), settled);
        assert!(
            all_gaps_about(&polls, 6 * SECOND),
            "{name}: {:?}",
            gaps(&polls)
        );
    }
    let mut all: Vec<Instant> = [&a_src, &b_src, &c_src]
        .iter()
        .flat_map(|s| after(&s.polls(), settled))
        .collect();
    all.sort();
    assert!(all_gaps_about(&all, 2 * SECOND), "{:?}", gaps(&all));
    // The header's figures: the interval really used, and why.
    let status = last_status(&a);
    assert_eq!((status.shared_by, status.interval), (3, 6 * SECOND));
    assert_eq!(status.requested_interval, SECOND);

    // c quits: a and b share its turns from their next poll on (every 4 s).
    c.stop().await;
    let left = Instant::now();
    tokio::time::sleep(Duration::from_secs(40)).await;
    for (name, src) in [("a", &a_src), ("b", &b_src)] {
        let polls = after(&src.polls(), left + 6 * SECOND);
        assert!(
            all_gaps_about(&polls, 4 * SECOND),
            "{name}: {:?}",
            gaps(&polls)
        );
    }
    assert_eq!(last_status(&b).shared_by, 2);
    let mut polls = [a_src.polls(), b_src.polls(), c_src.polls()].concat();
    polls.sort();
    assert!(max_in_window(&polls, Duration::from_secs(60)) <= 60);
    a.stop().await;
    b.stop().await;
}

#[tokio::test(start_paused = true)]
async fn a_crashed_poller_drops_out_within_about_an_interval() {
    let share = Share::new("crash");
    let (a_src, a) = share.poller();
    tokio::time::sleep(Duration::from_secs(10)).await;

    // A poller whose process is gone (no such pid) counts for nothing, at once.
    share.add_member(4_000_000_000, 1, 4_000);
    tokio::time::sleep(Duration::from_secs(20)).await;
    assert!(
        all_gaps_about(&a_src.polls(), 2 * SECOND),
        "{:?}",
        gaps(&a_src.polls())
    );
    assert!(a.schedules().iter().all(|s| s.shared_by == 1));

    // One whose process lives but that stopped claiming turns (hung, or crashed in a process
    // with other pollers): a takes it for a partner at once ...
    let hung_at = Instant::now();
    share.add_member(std::process::id(), 987_654, 4_000);
    tokio::time::sleep(Duration::from_secs(40)).await;
    let statuses = a.schedules();
    assert!(
        statuses
            .iter()
            .any(|s| s.shared_by == 2 && s.interval == 4 * SECOND)
    );
    // ... until its heartbeat is two of its intervals and a second old (9 s): then a is alone
    // again, polling every 2 s from its next poll on.
    let polls = a_src.polls();
    let during = between(&polls, hung_at + 2 * SECOND, hung_at + 9 * SECOND);
    assert!(all_gaps_about(&during, 4 * SECOND), "{:?}", gaps(&during));
    let alone = after(&polls, hung_at + 9 * SECOND + 4 * SECOND);
    assert!(all_gaps_about(&alone, 2 * SECOND), "{:?}", gaps(&alone));
    assert_eq!(last_status(&a).shared_by, 1);
    a.stop().await;
}
