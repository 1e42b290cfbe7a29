//! The request budget shared by every captop process of one user on one host, through a small
//! JSON state file in the per-user runtime directory, taken under an exclusive file lock.
//!
//! ```text
//! $XDG_RUNTIME_DIR/captop/budget-<hash of the base URL's host>.json
//! { "version": 1,
//!   "paused_until_ms": 1795000000000,               <- a 429 seen by anyone pauses all
//!   "instances": [ { "pid": 4242, "id": 77, "sent_ms": [ ... ] } ] }
//! ```
//!
//! Before each poll an instance locks the file, drops send times older than the window, checks
//! the count of all instances against the budget, adds its own send times if they fit, writes
//! the file back and unlocks. The requests of a process that has ended (a `captop --once`, a
//! crashed dashboard) still count until they leave the window, since the service counts them
//! too; a pause is never honoured for longer than [`MAX_SHARED_PAUSE`].
//! Times are UNIX milliseconds, so processes agree on them as far as their clocks agree.

use std::fs::{self, File, OpenOptions};
use std::io::{self, Read, Seek, SeekFrom, Write};
use std::path::{Path, PathBuf};
use std::time::Duration;

use serde::{Deserialize, Serialize};

use super::budget::{in_window, room_at};

/// Longest pause read from the file; anything longer is taken as damage, not a server's word.
pub const MAX_SHARED_PAUSE: Duration = Duration::from_secs(3600);
/// Largest state file read; a bigger one is started afresh.
const MAX_FILE_BYTES: u64 = 1024 * 1024;
/// How long to wait for the lock before giving up on this attempt.
const LOCK_ATTEMPTS: u32 = 100;
const LOCK_RETRY: Duration = Duration::from_millis(2);

/// The state file's contents.
#[derive(Debug, Default, Serialize, Deserialize)]
struct StateFile {
    version: u32,
    #[serde(default)]
    paused_until_ms: Option<u64>,
    #[serde(default)]
    instances: Vec<InstanceEntry>,
}

/// One process's (one poller's) recent requests.
#[derive(Debug, Serialize, Deserialize)]
struct InstanceEntry {
    pid: u32,
    id: u64,
    sent_ms: Vec<u64>,
}

/// What the shared budget answered.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum SharedAnswer {
    /// The requests were recorded; `used` counts all instances' requests in the window, these
    /// included.
    Granted {
        /// Requests in the window now.
        used: u32,
    },
    /// A 429 seen by some instance holds everyone until this time.
    Paused {
        /// UNIX milliseconds.
        until_ms: u64,
    },
    /// No room before this time (`None`: the request alone is over the limit).
    Full {
        /// UNIX milliseconds.
        room_at_ms: Option<u64>,
        /// Requests in the window now.
        used: u32,
    },
}

/// A handle on the shared state file.
#[derive(Debug)]
pub struct SharedBudget {
    path: PathBuf,
    pid: u32,
    id: u64,
    limit: u32,
    window_ms: u64,
}

/// A number no other budget handle of this process has, to tell its entries apart.
pub fn next_id() -> u64 {
    static IDS: std::sync::atomic::AtomicU64 = std::sync::atomic::AtomicU64::new(1);
    IDS.fetch_add(1, std::sync::atomic::Ordering::Relaxed)
}

/// A short stable hash (FNV-1a, 64 bits) of the host, so each service gets its own file and the
/// name is the same for every captop build.
pub fn host_hash(host: &str) -> String {
    let mut hash: u64 = 0xcbf2_9ce4_8422_2325;
    for byte in host.to_ascii_lowercase().bytes() {
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

impl SharedBudget {
    /// Opens (creating if need be) the state file for `host` in `dir`, checking that it can be
    /// locked, read and written. `id` tells apart pollers of one process.
    pub fn open(dir: &Path, host: &str, id: u64, limit: u32, window: Duration) -> io::Result<Self> {
        create_private_dir(dir)?;
        let budget = Self {
            path: dir.join(format!("budget-{}.json", host_hash(host))),
            pid: std::process::id(),
            id,
            limit,
            window_ms: u64::try_from(window.as_millis()).unwrap_or(u64::MAX),
        };
        // Can it be opened for writing and locked? (Nothing is read or changed yet.)
        let file = open_private_file(&budget.path)?;
        lock_with_retries(&file)?;
        file.unlock()?;
        Ok(budget)
    }

    /// Where the state file is.
    pub fn path(&self) -> &Path {
        &self.path
    }

    /// Asks for `n` requests at `now_ms`, recording them if they fit.
    pub fn acquire(&self, now_ms: u64, n: u32) -> io::Result<SharedAnswer> {
        let (limit, window_ms, pid, id) = (self.limit, self.window_ms, self.pid, self.id);
        self.with_state(now_ms, |state| {
            if let Some(until_ms) = state.paused_until_ms.filter(|&u| u > now_ms) {
                return SharedAnswer::Paused { until_ms };
            }
            let mut all: Vec<u64> = state
                .instances
                .iter()
                .flat_map(|i| i.sent_ms.iter().copied())
                .collect();
            all.sort_unstable();
            let used = u32::try_from(all.len()).unwrap_or(u32::MAX);
            match room_at(&all, now_ms, window_ms, limit, n) {
                Some(at) if at <= now_ms => {
                    let sent = std::iter::repeat_n(now_ms, n as usize);
                    match state
                        .instances
                        .iter_mut()
                        .find(|i| i.pid == pid && i.id == id)
                    {
                        Some(own) => own.sent_ms.extend(sent),
                        None => state.instances.push(InstanceEntry {
                            pid,
                            id,
                            sent_ms: sent.collect(),
                        }),
                    }
                    SharedAnswer::Granted { used: used + n }
                }
                room_at_ms => SharedAnswer::Full { room_at_ms, used },
            }
        })
    }

    /// Requests of all instances in the window at `now_ms`.
    pub fn used(&self, now_ms: u64) -> io::Result<u32> {
        self.read_state(now_ms, |state| {
            let count: usize = state.instances.iter().map(|i| i.sent_ms.len()).sum();
            u32::try_from(count).unwrap_or(u32::MAX)
        })
    }

    /// A 429 told this instance to wait until `until_ms`: every instance waits.
    pub fn publish_pause(&self, now_ms: u64, until_ms: u64) -> io::Result<()> {
        self.with_state(now_ms, |state| {
            state.paused_until_ms =
                Some(state.paused_until_ms.map_or(until_ms, |u| u.max(until_ms)));
        })
    }

    /// Takes the lock, reads and prunes the state, runs `f` on it, leaves the file as it was.
    fn read_state<T>(&self, now_ms: u64, f: impl FnOnce(&StateFile) -> T) -> io::Result<T> {
        let mut file = open_private_file(&self.path)?;
        lock_with_retries(&file)?;
        let mut state = read_state(&mut file);
        let unlocked = file.unlock();
        self.prune(&mut state, now_ms);
        unlocked?;
        Ok(f(&state))
    }

    /// Takes the lock, reads and prunes the state, runs `f`, writes the state back.
    fn with_state<T>(&self, now_ms: u64, f: impl FnOnce(&mut StateFile) -> T) -> io::Result<T> {
        let mut file = open_private_file(&self.path)?;
        lock_with_retries(&file)?;
        let result = (|| -> io::Result<T> {
            let mut state = read_state(&mut file);
            self.prune(&mut state, now_ms);
            let answer = f(&mut state);
            let bytes = serde_json::to_vec(&state).map_err(io::Error::other)?;
            file.seek(SeekFrom::Start(0))?;
            file.set_len(0)?;
            file.write_all(&bytes)?;
            file.flush()?;
            Ok(answer)
        })();
        let unlocked = file.unlock();
        let answer = result?;
        unlocked?;
        Ok(answer)
    }

    fn prune(&self, state: &mut StateFile, now_ms: u64) {
        state.version = 1;
        let max_pause = u64::try_from(MAX_SHARED_PAUSE.as_millis()).unwrap_or(u64::MAX);
        state.paused_until_ms = state
            .paused_until_ms
            .filter(|&u| u > now_ms)
            .map(|u| u.min(now_ms.saturating_add(max_pause)));
        let window_ms = self.window_ms;
        state.instances.retain_mut(|instance| {
            // A time in the future (another clock, or damage) counts as now, so it ages out.
            for t in &mut instance.sent_ms {
                *t = (*t).min(now_ms);
            }
            instance
                .sent_ms
                .retain(|&t| in_window(t, now_ms, window_ms));
            !instance.sent_ms.is_empty() || (instance.pid == self.pid && instance.id == self.id)
        });
    }
}

fn read_state(file: &mut File) -> StateFile {
    let mut text = String::new();
    let read = file
        .seek(SeekFrom::Start(0))
        .and_then(|_| file.take(MAX_FILE_BYTES).read_to_string(&mut text));
    match read {
        Ok(_) if !text.trim().is_empty() => serde_json::from_str(&text).unwrap_or_default(),
        _ => StateFile::default(),
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

    #[test]
    fn instances_share_one_count() {
        let dir = TempDir::new("shared");
        let a = SharedBudget::open(&dir.0, "127.0.0.1", 1, 6, W).unwrap();
        let b = SharedBudget::open(&dir.0, "127.0.0.1", 2, 6, W).unwrap();
        let other_host = SharedBudget::open(&dir.0, "example.net", 3, 6, W).unwrap();
        assert_ne!(a.path(), other_host.path());
        assert_eq!(
            a.acquire(1_000, 2).unwrap(),
            SharedAnswer::Granted { used: 2 }
        );
        assert_eq!(
            b.acquire(1_500, 2).unwrap(),
            SharedAnswer::Granted { used: 4 }
        );
        assert_eq!(
            a.acquire(2_000, 2).unwrap(),
            SharedAnswer::Granted { used: 6 }
        );
        assert_eq!(
            b.acquire(3_000, 2).unwrap(),
            SharedAnswer::Full {
                room_at_ms: Some(11_001),
                used: 6
            }
        );
        assert_eq!(
            other_host.acquire(3_000, 2).unwrap(),
            SharedAnswer::Granted { used: 2 }
        );
        assert_eq!(
            b.acquire(11_001, 2).unwrap(),
            SharedAnswer::Granted { used: 6 }
        );
        assert_eq!(a.used(30_000).unwrap(), 0);
    }

    #[test]
    fn a_pause_reaches_everyone_and_is_bounded() {
        let dir = TempDir::new("pause");
        let a = SharedBudget::open(&dir.0, "h", 1, 60, W).unwrap();
        let b = SharedBudget::open(&dir.0, "h", 2, 60, W).unwrap();
        a.publish_pause(1_000, 8_000).unwrap();
        assert_eq!(
            b.acquire(2_000, 2).unwrap(),
            SharedAnswer::Paused { until_ms: 8_000 }
        );
        assert_eq!(
            b.acquire(8_000, 2).unwrap(),
            SharedAnswer::Granted { used: 2 }
        );
        // A damaged pause far in the future is cut to the maximum.
        a.publish_pause(10_000, u64::MAX).unwrap();
        let max = 10_000 + MAX_SHARED_PAUSE.as_millis() as u64;
        assert_eq!(
            b.acquire(10_000, 2).unwrap(),
            SharedAnswer::Paused { until_ms: max }
        );
    }

    #[test]
    fn ended_instances_count_until_their_window_and_damaged_files_do_not_block() {
        let dir = TempDir::new("stale");
        let a = SharedBudget::open(&dir.0, "h", 1, 4, W).unwrap();
        // A process that has ended (pid far above pid_max) filled the budget: the service
        // still counts those requests, so they count here until they leave the window.
        let ended = serde_json::json!({
            "version": 1,
            "instances": [{ "pid": 4_000_000_000u32, "id": 9, "sent_ms": [1000, 1000, 1000, 1000] }]
        });
        fs::write(a.path(), ended.to_string()).unwrap();
        assert!(matches!(
            a.acquire(1_500, 2).unwrap(),
            SharedAnswer::Full { used: 4, .. }
        ));
        fs::write(a.path(), ended.to_string()).unwrap();
        assert_eq!(
            a.acquire(1_000 + W.as_millis() as u64 + 1, 2).unwrap(),
            SharedAnswer::Granted { used: 2 }
        );
        // A live one (ourselves, another id) with times in the future: they count as now.
        let future = serde_json::json!({
            "version": 1,
            "instances": [{ "pid": std::process::id(), "id": 9, "sent_ms": [u64::MAX, u64::MAX] }]
        });
        fs::write(a.path(), future.to_string()).unwrap();
        assert_eq!(
            a.acquire(2_000, 2).unwrap(),
            SharedAnswer::Granted { used: 4 }
        );
        assert_eq!(a.used(12_001).unwrap(), 0);
        // Garbage is started afresh.
        fs::write(a.path(), b"\x00not json{{{").unwrap();
        assert_eq!(
            a.acquire(3_000, 2).unwrap(),
            SharedAnswer::Granted { used: 2 }
        );
    }

    #[test]
    fn unusable_dir_is_an_error() {
        let dir = TempDir::new("unusable");
        fs::write(&dir.0, b"a file, not a dir").unwrap();
        assert!(SharedBudget::open(&dir.0.join("sub"), "h", 1, 60, W).is_err());
        let _ = fs::remove_file(&dir.0);
    }
}
