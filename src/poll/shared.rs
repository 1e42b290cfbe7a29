//! The request budget shared by every captop process of one user polling one service, through a
//! small JSON state file in the per-user runtime directory, taken under an exclusive file lock.
//! What the state means and how polls are paced with it is [`super::pacing`]; this module keeps
//! the file.
//!
//! ```text
//! $XDG_RUNTIME_DIR/captop/budget-<hash of the service's origin: scheme, host, port>.json
//! { "version": 2,
//!   "paused_until_ms": 1795000000000,              <- a 429 seen by anyone pauses all
//!   "last_slot_ms": 1794999990000,                 <- the last poll slot anyone claimed
//!   "sent_ms": [ ... ],                            <- every request of the last window
//!   "members": [ { "pid": 4242, "id": 77, "heartbeat_ms": ..., "every_ms": 6000,
//!                  "slot_ms": null } ] }
//! ```
//!
//! Every claim locks the file, reads and prunes the state, decides, writes it back and
//! unlocks. The file is private to its user (`0600` in a `0700` directory): captop never opens
//! a state file another user could write, so processes of different users on one host do not
//! coordinate (the service limits them per address all the same; `captop serve` is the way to
//! share one poller). A pause is never honoured for longer than [`MAX_SHARED_PAUSE`]. Times are
//! UNIX milliseconds, so processes agree on them as far as their clocks agree.

use std::fs::{self, File, OpenOptions};
use std::io::{self, Read, Seek, SeekFrom, Write};
use std::path::{Path, PathBuf};
use std::sync::{Mutex, PoisonError};
use std::time::Duration;

use super::clock::ms;
use super::pacing::{Pace, PaceState, SharedAnswer, Who};

/// Longest pause read from the file; anything longer is taken as damage, not a server's word.
pub const MAX_SHARED_PAUSE: Duration = Duration::from_secs(3600);
/// Largest state file read; a bigger one is started afresh.
const MAX_FILE_BYTES: u64 = 1024 * 1024;
/// How long to wait for the lock before giving up on this attempt.
const LOCK_ATTEMPTS: u32 = 100;
const LOCK_RETRY: Duration = Duration::from_millis(2);

/// A handle on the shared state file for one poller (or one `--once` fetch). Dropping it takes
/// the poller out of the share. [`SharedBudget::private`] keeps the same state in memory, for a
/// poller that does not share its budget.
#[derive(Debug)]
pub struct SharedBudget {
    /// The state file; `None`: the state is this poller's own, in `own`.
    path: Option<PathBuf>,
    own: Mutex<PaceState>,
    who: Who,
    pace: Pace,
}

/// A number no other budget handle of this process has, to tell its entries apart.
pub fn next_id() -> u64 {
    static IDS: std::sync::atomic::AtomicU64 = std::sync::atomic::AtomicU64::new(1);
    IDS.fetch_add(1, std::sync::atomic::Ordering::Relaxed)
}

/// What the budget is shared by: the origin of `base_url` (`scheme://host:port`, the port
/// spelled out even when it is the scheme's default), since two services on two ports of one
/// host are two services. A URL that does not parse stands for itself.
pub fn origin(base_url: &str) -> String {
    match url::Url::parse(base_url) {
        Ok(url) => match (url.host_str(), url.port_or_known_default()) {
            (Some(host), Some(port)) => format!("{}://{host}:{port}", url.scheme()),
            (Some(host), None) => format!("{}://{host}", url.scheme()),
            _ => base_url.to_owned(),
        },
        Err(_) => base_url.to_owned(),
    }
}

/// A short stable hash (FNV-1a, 64 bits) of the budget's key (the origin), so each service gets
/// its own file and the name is the same for every captop build.
pub fn key_hash(key: &str) -> String {
    let mut hash: u64 = 0xcbf2_9ce4_8422_2325;
    for byte in key.to_ascii_lowercase().bytes() {
        hash ^= u64::from(byte);
        hash = hash.wrapping_mul(0x0100_0000_01b3);
    }
    format!("{hash:016x}")
}

/// The directory for the state file: `CAPTOP_RUNTIME_DIR` if set, else the per-user runtime
/// dir (`$XDG_RUNTIME_DIR/captop`), else (on Unix, e.g. after `su` or in a cron job, where no
/// runtime dir is set) a private `captop-<uid>` in the temp dir. `None` when there is none.
pub fn default_dir() -> Option<PathBuf> {
    if let Some(dir) = std::env::var_os("CAPTOP_RUNTIME_DIR").filter(|d| !d.is_empty()) {
        return Some(PathBuf::from(dir));
    }
    directories::BaseDirs::new()
        .and_then(|dirs| dirs.runtime_dir().map(Path::to_path_buf))
        .map(|dir| dir.join("captop"))
        .or_else(temp_dir_fallback)
}

#[cfg(unix)]
fn temp_dir_fallback() -> Option<PathBuf> {
    use std::os::unix::fs::MetadataExt;
    let uid = fs::metadata("/proc/self").ok()?.uid();
    Some(std::env::temp_dir().join(format!("captop-{uid}")))
}

#[cfg(not(unix))]
fn temp_dir_fallback() -> Option<PathBuf> {
    None
}

/// Whether process `pid` still runs. Only Linux can tell cheaply (`/proc`); elsewhere every
/// process counts as alive and a crashed one leaves when its heartbeat goes stale.
fn pid_alive(pid: u32) -> bool {
    #[cfg(target_os = "linux")]
    {
        Path::new("/proc").join(pid.to_string()).exists()
    }
    #[cfg(not(target_os = "linux"))]
    {
        let _ = pid;
        true
    }
}

impl SharedBudget {
    /// Opens (creating if need be) the state file for the service `key` (its [`origin`]) in
    /// `dir`, checking that it can be locked, read and written. `id` tells apart pollers of one
    /// process. Nothing is recorded yet: a poller then [`join`](Self::join)s.
    pub fn open(dir: &Path, key: &str, id: u64, pace: Pace) -> io::Result<Self> {
        create_private_dir(dir)?;
        let path = dir.join(format!("budget-{}.json", key_hash(key)));
        // Can it be opened for writing and locked? (Nothing is read or changed yet.)
        let file = open_private_file(&path)?;
        lock_with_retries(&file)?;
        file.unlock()?;
        Ok(Self::new(Some(path), id, pace))
    }

    /// The budget's shape.
    pub fn pace(&self) -> Pace {
        self.pace
    }

    /// A budget this poller keeps to itself, in memory.
    pub fn private(id: u64, pace: Pace) -> Self {
        Self::new(None, id, pace)
    }

    fn new(path: Option<PathBuf>, id: u64, pace: Pace) -> Self {
        Self {
            path,
            own: Mutex::default(),
            who: Who {
                pid: std::process::id(),
                id,
            },
            pace,
        }
    }

    /// This poller takes part from `now_ms` on, polling about every `every`: the others widen
    /// their share at once.
    pub fn join(&self, now_ms: u64, every: Duration) -> io::Result<()> {
        let who = self.who;
        self.with_state(Some(now_ms), |state| {
            state.join(who, now_ms, ms(every));
        })
    }

    /// Asks for a poll's turn at `now_ms`. `every` is the poller's interval in force (its
    /// heartbeat says how soon it should be heard of again); `None` for a one-shot fetch, which
    /// takes a turn without becoming a member.
    pub fn claim(&self, now_ms: u64, every: Option<Duration>) -> io::Result<SharedAnswer> {
        let (pace, who) = (self.pace, self.who);
        let every_ms = every.map_or(0, |e| ms(e).max(1));
        self.with_state(Some(now_ms), |state| {
            state.claim(pace, who, now_ms, every_ms)
        })
    }

    /// Requests of everyone in the window at `now_ms`, and the pollers sharing the budget
    /// (this one counted if `polls`).
    pub fn status(&self, now_ms: u64, polls: bool) -> io::Result<(u32, u32)> {
        self.with_state(Some(now_ms), |state| {
            (state.used(), state.members(self.who, polls))
        })
    }

    /// A 429 told this instance to wait until `until_ms`: every instance waits.
    pub fn publish_pause(&self, now_ms: u64, until_ms: u64) -> io::Result<()> {
        self.with_state(Some(now_ms), |state| state.pause_until(until_ms))
    }

    /// Cuts a pause in the file that lasts past `until_ms` back to it: a hold longer than this
    /// poller's `max_retry_after` is honoured that long, once, not again at every claim.
    pub fn cut_pause(&self, now_ms: u64, until_ms: u64) -> io::Result<()> {
        self.with_state(Some(now_ms), |state| {
            state.paused_until_ms = state.paused_until_ms.map(|u| u.min(until_ms));
        })
    }

    fn prune(&self, state: &mut PaceState, now_ms: u64) {
        state.prune(
            self.pace,
            now_ms,
            ms(MAX_SHARED_PAUSE),
            self.who,
            &pid_alive,
        );
    }

    /// Takes the lock, reads the state (pruned at `now_ms`, if given), runs `f`, writes the
    /// state back.
    fn with_state<T>(
        &self,
        now_ms: Option<u64>,
        f: impl FnOnce(&mut PaceState) -> T,
    ) -> io::Result<T> {
        let Some(path) = &self.path else {
            let mut state = self.own.lock().unwrap_or_else(PoisonError::into_inner);
            if let Some(now_ms) = now_ms {
                self.prune(&mut state, now_ms);
            }
            return Ok(f(&mut state));
        };
        let mut file = open_private_file(path)?;
        lock_with_retries(&file)?;
        let result = (|| -> io::Result<T> {
            let mut state = read_state(&mut file);
            if let Some(now_ms) = now_ms {
                self.prune(&mut state, now_ms);
            }
            let answer = f(&mut state);
            let bytes = serde_json::to_vec(&state).map_err(io::Error::other)?;
            // Written over the old state, then cut to its length: the file keeps its block,
            // where emptying it first had the file system free and find one every request.
            file.seek(SeekFrom::Start(0))?;
            file.write_all(&bytes)?;
            file.set_len(bytes.len() as u64)?;
            file.flush()?;
            Ok(answer)
        })();
        let unlocked = file.unlock();
        let answer = result?;
        unlocked?;
        Ok(answer)
    }
}

/// This poller ends: the others take over its share.
impl Drop for SharedBudget {
    fn drop(&mut self) {
        let who = self.who;
        let _ = self.with_state(None, |state| state.leave(who));
    }
}

fn read_state(file: &mut File) -> PaceState {
    let mut text = String::new();
    let read = file
        .seek(SeekFrom::Start(0))
        .and_then(|_| file.take(MAX_FILE_BYTES).read_to_string(&mut text));
    match read {
        Ok(_) if !text.trim().is_empty() => serde_json::from_str(&text).unwrap_or_default(),
        _ => PaceState::default(),
    }
}

/// Takes the exclusive lock on `file`, retrying for a short while (also used by the forecast
/// history, [`crate::history`]).
pub(crate) fn lock_with_retries(file: &File) -> io::Result<()> {
    for _ in 0..LOCK_ATTEMPTS {
        match file.try_lock() {
            Ok(()) => return Ok(()),
            Err(fs::TryLockError::WouldBlock) => std::thread::sleep(LOCK_RETRY),
            Err(fs::TryLockError::Error(e)) => return Err(e),
        }
    }
    Err(io::Error::new(
        io::ErrorKind::WouldBlock,
        "the state file stayed locked by another captop",
    ))
}

fn create_private_dir(dir: &Path) -> io::Result<()> {
    let mut builder = fs::DirBuilder::new();
    builder.recursive(true);
    #[cfg(unix)]
    {
        use std::os::unix::fs::DirBuilderExt;
        builder.mode(0o700);
    }
    builder.create(dir)?;
    // A directory in a shared place (the temp dir) could have been made by someone else:
    // use it only if it is ours and private, or they could read or block our budget.
    #[cfg(unix)]
    {
        use std::os::unix::fs::{MetadataExt, PermissionsExt};
        let meta = fs::symlink_metadata(dir)?;
        let ours = fs::metadata("/proc/self").map_or(true, |me| me.uid() == meta.uid());
        if !meta.is_dir() || !ours || meta.permissions().mode() & 0o077 != 0 {
            return Err(io::Error::new(
                io::ErrorKind::PermissionDenied,
                format!("{} is not a private directory of this user", dir.display()),
            ));
        }
    }
    Ok(())
}

/// Opens `path` for reading and writing, creating it with mode 0600.
pub(crate) fn open_private_file(path: &Path) -> io::Result<File> {
    let mut options = OpenOptions::new();
    options.read(true).write(true).create(true).truncate(false);
    #[cfg(unix)]
    {
        use std::os::unix::fs::OpenOptionsExt;
        options.mode(0o600);
    }
    options.open(path)
}

#[cfg(test)]
pub(crate) mod tests {
    use super::*;
    use crate::poll::pacing::Verdict;

    #[cfg(unix)]
    #[test]
    fn a_directory_others_can_read_is_refused() {
        use std::os::unix::fs::PermissionsExt;
        let tmp = tempfile::tempdir().unwrap();
        let open = tmp.path().join("open");
        fs::create_dir(&open).unwrap();
        fs::set_permissions(&open, fs::Permissions::from_mode(0o755)).unwrap();
        assert!(create_private_dir(&open).is_err());
        let private = tmp.path().join("private");
        create_private_dir(&private).unwrap();
        assert_eq!(
            fs::metadata(&private).unwrap().permissions().mode() & 0o777,
            0o700
        );
    }

    /// A fresh directory under the system temp dir, removed on drop.
    pub(crate) struct TempDir(pub PathBuf);

    impl TempDir {
        pub(crate) fn new(tag: &str) -> Self {
            use std::sync::atomic::{AtomicU32, Ordering};
            static N: AtomicU32 = AtomicU32::new(0);
            let dir = std::env::temp_dir().join(format!(
                "captop-{tag}-{}-{}",
                std::process::id(),
                N.fetch_add(1, Ordering::Relaxed)
            ));
            let _ = fs::remove_dir_all(&dir);
            Self(dir)
        }
    }

    impl Drop for TempDir {
        fn drop(&mut self) {
            let _ = fs::remove_dir_all(&self.0);
        }
    }

    const W: Duration = Duration::from_secs(10);

    fn pace(limit: u32) -> Pace {
        Pace::new(limit, W, 2)
    }
    /// A poller's interval in these tests (its heartbeat's yardstick).
    const EVERY: Option<Duration> = Some(Duration::from_secs(1));

    fn granted(answer: SharedAnswer) -> bool {
        answer.verdict == Verdict::Granted
    }

    #[test]
    fn the_budget_is_keyed_by_origin_not_host() {
        assert_eq!(origin("http://127.0.0.1:8080/v1"), "http://127.0.0.1:8080");
        assert_eq!(origin("HTTPS://Example.NET/v1/"), "https://example.net:443");
        assert_eq!(
            origin("https://example.net:443/v2"),
            origin("https://example.net/v1")
        );
        assert_ne!(
            origin("http://127.0.0.1:8080/v1"),
            origin("http://127.0.0.1:8081/v1")
        );
        assert_ne!(
            origin("http://example.net/v1"),
            origin("https://example.net/v1")
        );
        let dir = TempDir::new("origin");
        let a = SharedBudget::open(&dir.0, &origin("http://h:1/v1"), 1, pace(6)).unwrap();
        let b = SharedBudget::open(&dir.0, &origin("http://h:2/v1"), 2, pace(6)).unwrap();
        assert_ne!(a.path, b.path);
        assert!(a.path.is_some());
    }

    #[test]
    fn instances_share_one_count_and_take_turns() {
        let dir = TempDir::new("shared");
        // 6 requests per 10 s at 2 a poll: one poll every 3.333 s, by anyone.
        let a = SharedBudget::open(&dir.0, "http://h:1", 1, pace(6)).unwrap();
        let b = SharedBudget::open(&dir.0, "http://h:1", 2, pace(6)).unwrap();
        let other = SharedBudget::open(&dir.0, "http://h:2", 3, pace(6)).unwrap();
        let first = a.claim(1_000, EVERY).unwrap();
        assert_eq!(
            (first.verdict, first.used, first.members),
            (Verdict::Granted, 2, 1)
        );
        // b comes at once: its turn is one gap later.
        let second = b.claim(1_000, EVERY).unwrap();
        assert_eq!(second.verdict, Verdict::Slot { at_ms: 4_333 });
        assert_eq!(second.members, 2);
        assert_eq!(a.status(1_000, true).unwrap(), (2, 2));
        // Asking again early changes nothing; at its slot it goes.
        assert_eq!(
            b.claim(2_000, EVERY).unwrap().verdict,
            Verdict::Slot { at_ms: 4_333 }
        );
        let go = b.claim(4_333, EVERY).unwrap();
        assert_eq!((go.verdict, go.used), (Verdict::Granted, 4));
        // Another service on the same host is not affected.
        assert!(granted(other.claim(4_400, EVERY).unwrap()));
        assert!(granted(a.claim(7_666, EVERY).unwrap()));
        // The window is full (6 in 10 s): the next turn waits for the oldest to leave.
        assert_eq!(
            b.claim(11_000, EVERY).unwrap().verdict,
            Verdict::Full {
                room_at_ms: Some(11_001)
            }
        );
        // ... and keeps its turn for then.
        assert!(granted(b.claim(11_001, EVERY).unwrap()));
        drop(b);
        assert_eq!(a.status(11_001, true).unwrap().1, 1, "b left when dropped");
    }

    #[test]
    fn a_pause_reaches_everyone_and_is_bounded() {
        let dir = TempDir::new("pause");
        let a = SharedBudget::open(&dir.0, "h", 1, pace(60)).unwrap();
        let b = SharedBudget::open(&dir.0, "h", 2, pace(60)).unwrap();
        a.publish_pause(1_000, 8_000).unwrap();
        assert_eq!(
            b.claim(2_000, EVERY).unwrap().verdict,
            Verdict::Paused { until_ms: 8_000 }
        );
        assert!(granted(b.claim(8_000, EVERY).unwrap()));
        // A damaged pause far in the future is cut to the maximum.
        a.publish_pause(10_000, u64::MAX).unwrap();
        let max = 10_000 + MAX_SHARED_PAUSE.as_millis() as u64;
        assert_eq!(
            b.claim(10_000, EVERY).unwrap().verdict,
            Verdict::Paused { until_ms: max }
        );
    }

    #[test]
    fn ended_instances_count_until_their_window_and_damaged_files_do_not_block() {
        let dir = TempDir::new("stale");
        let a = SharedBudget::open(&dir.0, "h", 1, pace(4)).unwrap();
        // A process that has ended (pid far above pid_max) filled the budget: the service
        // still counts those requests, so they count here until they leave the window; the
        // process itself no longer shares.
        let ended = serde_json::json!({
            "version": 2,
            "sent_ms": [1000, 1000, 1000, 1000],
            "members": [{ "pid": 4_000_000_000u32, "id": 9, "heartbeat_ms": 1000,
                          "every_ms": 1000 }]
        });
        fs::write(a.path.as_deref().unwrap(), ended.to_string()).unwrap();
        let full = a.claim(1_500, EVERY).unwrap();
        assert_eq!(
            full.verdict,
            Verdict::Full {
                room_at_ms: Some(11_001)
            }
        );
        assert_eq!((full.used, full.members), (4, 1));
        fs::write(a.path.as_deref().unwrap(), ended.to_string()).unwrap();
        assert!(granted(
            a.claim(1_000 + W.as_millis() as u64 + 1, EVERY).unwrap()
        ));
        // Times in the future (another clock, or damage) count as now.
        let future = serde_json::json!({ "version": 2, "sent_ms": [u64::MAX, u64::MAX] });
        fs::write(a.path.as_deref().unwrap(), future.to_string()).unwrap();
        let answer = a.claim(2_000, EVERY).unwrap();
        assert_eq!((answer.verdict, answer.used), (Verdict::Granted, 4));
        assert_eq!(a.status(12_001, true).unwrap().0, 0);
        // Garbage is started afresh.
        fs::write(a.path.as_deref().unwrap(), b"\x00not json{{{").unwrap();
        assert!(granted(a.claim(3_000, EVERY).unwrap()));
    }

    #[test]
    fn unusable_dir_is_an_error() {
        let dir = TempDir::new("unusable");
        fs::write(&dir.0, b"a file, not a dir").unwrap();
        assert!(SharedBudget::open(&dir.0.join("sub"), "h", 1, pace(60)).is_err());
        let _ = fs::remove_file(&dir.0);
    }
}
