//! The sold-minutes samples of every route, kept between runs in a small file per service, so
//! a restarted dashboard or a `captop --once` run from cron every few minutes has the trend a
//! forecast needs ([`crate::forecast`]).
//!
//! ```text
//! $XDG_STATE_HOME/captop/history-<hash of the base URL>.json   (CAPTOP_STATE_DIR overrides)
//! { "version": 1, "origin": "https://metrics.example.net/v1",
//!   "routes": { "br-sao-paulo": [ [1795000000000, 4358400, 4800000], … ] } }
//! ```
//!
//! Each sample is `[at_ms, sold, total]` (earlier captops wrote `{"at_ms": …, "sold": …,
//! "total": …}`; both are read). Bounded as [`add_report`] bounds the samples (the latest
//! report's routes, one hour, a sample per 30 s at most, at most 120 samples per route and
//! 1000 routes: about 4 MB at the very most); a file over
//! [`MAX_FILE_BYTES`] is not read. Writers take an exclusive lock on a lock file beside it,
//! read, add, write a temporary file and rename it over the old one, so a reader never sees
//! half a file and two writers never lose each other's samples. A file that cannot be parsed
//! is started afresh, and the caller is told so it can warn.

use std::fs::{self, File};
use std::io::{self, Read, Write};
use std::path::{Path, PathBuf};

use serde::{Deserialize, Serialize};

use crate::api::model::CapacityReport;
pub use crate::forecast::Series;
use crate::forecast::{Snapshot, add_report, add_samples};
use crate::poll::shared::{lock_with_retries, open_private_file};

/// Largest file read; a bigger one is started afresh.
pub const MAX_FILE_BYTES: u64 = 16 * 1024 * 1024;
const VERSION: u32 = 1;

/// The file's contents.
#[derive(Debug, Default, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
struct HistoryFile {
    version: u32,
    origin: String,
    routes: Series,
}

/// What recording a report gave.
#[derive(Debug, Default)]
pub struct Recorded {
    /// Every route's samples, the new ones included.
    pub series: Series,
    /// Set when the file was damaged and started afresh: the one-line warning to show.
    pub warning: Option<String>,
}

/// The history file of one service.
#[derive(Debug, Clone)]
pub struct History {
    path: PathBuf,
    lock_path: PathBuf,
    origin: String,
}

/// The directory for history files: `CAPTOP_STATE_DIR` if set, else the platform's state dir
/// for captop (`$XDG_STATE_HOME/captop`, `~/.local/state/captop` on Linux), else its local
/// data dir. `None` when there is no home to put it in.
pub fn default_dir() -> Option<PathBuf> {
    if let Some(dir) = std::env::var_os("CAPTOP_STATE_DIR").filter(|d| !d.is_empty()) {
        return Some(PathBuf::from(dir));
    }
    let dirs = directories::ProjectDirs::from("", "", "captop")?;
    Some(
        dirs.state_dir()
            .unwrap_or_else(|| dirs.data_local_dir())
            .to_path_buf(),
    )
}

impl History {
    /// The history of the service at `origin` (its base URL) in `dir`, created on first write.
    pub fn new(dir: &Path, origin: &str) -> History {
        let name = format!("history-{}", crate::poll::shared::key_hash(origin));
        History {
            path: dir.join(format!("{name}.json")),
            lock_path: dir.join(format!("{name}.lock")),
            origin: origin.to_owned(),
        }
    }

    /// The data file.
    pub fn path(&self) -> &Path {
        &self.path
    }

    /// Adds a report's samples and returns every route's series. A sample as old as or older
    /// than a route's newest is not added twice.
    pub fn record(&self, report: &CapacityReport) -> io::Result<Recorded> {
        self.record_with(|series| {
            add_report(series, report);
        })
    }

    /// Adds the samples of several reports, oldest first (what a dashboard gathered since its
    /// last write), and returns every route's series.
    pub fn record_snapshots(&self, snapshots: &[Snapshot]) -> io::Result<Recorded> {
        self.record_with(|series| {
            for snapshot in snapshots {
                let routes = snapshot.routes.iter();
                add_samples(
                    series,
                    snapshot.at_ms,
                    routes.map(|(slug, sold, total)| (slug.as_str(), *sold, *total)),
                );
            }
        })
    }

    /// Under the lock: reads the file, lets `add` add to its series, writes it back.
    fn record_with(&self, add: impl FnOnce(&mut Series)) -> io::Result<Recorded> {
        if let Some(dir) = self.path.parent() {
            create_dir(dir)?;
        }
        let lock = open_private_file(&self.lock_path)?;
        lock_with_retries(&lock)?;
        let result = self.record_locked(add);
        let unlocked = lock.unlock();
        let recorded = result?;
        unlocked?;
        Ok(recorded)
    }

    /// Reads the series without adding anything (no lock: the file is only ever replaced whole).
    pub fn read(&self) -> Recorded {
        let (file, warning) = self.load();
        Recorded {
            series: file.routes,
            warning,
        }
    }

    fn record_locked(&self, add: impl FnOnce(&mut Series)) -> io::Result<Recorded> {
        let (mut file, warning) = self.load();
        add(&mut file.routes);
        file.version = VERSION;
        file.origin.clone_from(&self.origin);
        self.store(&file)?;
        Ok(Recorded {
            series: file.routes,
            warning,
        })
    }

    /// The file's contents, or a fresh start with the reason when it is damaged.
    fn load(&self) -> (HistoryFile, Option<String>) {
        let fresh = || HistoryFile {
            version: VERSION,
            origin: self.origin.clone(),
            routes: Series::new(),
        };
        // Read as a stream rather than into a string first: the text of a full file (some
        // megabytes) never sits in memory beside the samples made of it.
        let file = match File::open(&self.path) {
            Err(e) if e.kind() == io::ErrorKind::NotFound => return (fresh(), None),
            Err(e) => return (fresh(), Some(self.damaged(&e.to_string()))),
            Ok(file) => file,
        };
        match file.metadata() {
            Ok(meta) if meta.len() > MAX_FILE_BYTES => {
                return (fresh(), Some(self.damaged("it is too large")));
            }
            Ok(_) => {}
            Err(e) => return (fresh(), Some(self.damaged(&e.to_string()))),
        }
        // The cap holds should the file grow between the look and the read.
        let reader = io::BufReader::new(file.take(MAX_FILE_BYTES));
        match serde_json::from_reader::<_, HistoryFile>(reader) {
            Ok(file) if file.version == VERSION && file.origin == self.origin => (file, None),
            Ok(_) => (
                fresh(),
                Some(self.damaged("it is of another version or service")),
            ),
            Err(e) => (fresh(), Some(self.damaged(&e.to_string()))),
        }
    }

    fn damaged(&self, why: &str) -> String {
        format!(
            "the forecast history {} was unreadable ({}) and is started afresh",
            self.path.display(),
            crate::text::fit(why, 120)
        )
    }

    /// Writes a temporary file beside the data file and renames it over it.
    fn store(&self, file: &HistoryFile) -> io::Result<()> {
        let tmp = self
            .path
            .with_extension(format!("json.{}.tmp", std::process::id()));
        let written = (|| {
            let out = open_private_file(&tmp)?;
            out.set_len(0)?;
            // Written as a stream too, for the same reason as `load` reads one.
            let mut out = io::BufWriter::new(out);
            serde_json::to_writer(&mut out, file).map_err(io::Error::other)?;
            out.flush()?;
            // No fsync: the rename alone keeps readers from a half-written file, and what a
            // power cut could still damage is samples, which a damaged file restarts (with a
            // warning). An fsync per `--once` and per dashboard poll cost more than the rest of
            // the write.
            fs::rename(&tmp, &self.path)
        })();
        if written.is_err() {
            let _ = fs::remove_file(&tmp);
        }
        written
    }
}

/// Creates the state dir (mode 0700 for what it makes). Unlike the runtime dir's budget file,
/// which lives in a shared temp dir as a fallback, the state dir is the user's own, so an
/// existing one is used as it is.
fn create_dir(dir: &Path) -> io::Result<()> {
    let mut builder = fs::DirBuilder::new();
    builder.recursive(true);
    #[cfg(unix)]
    {
        use std::os::unix::fs::DirBuilderExt;
        builder.mode(0o700);
    }
    builder.create(dir)
}

#[cfg(test)]
mod tests {
    #![allow(clippy::unwrap_used, clippy::indexing_slicing)]
    use super::*;
    use chrono::{DateTime, TimeZone, Utc};

    fn report(at: DateTime<Utc>, sold: &[(&str, i64)]) -> CapacityReport {
        let (mut cap, _) = crate::report::sample_reports();
        cap.generated_at = at;
        cap.routes.truncate(sold.len());
        for (r, (slug, sold)) in cap.routes.iter_mut().zip(sold) {
            r.route = (*slug).to_owned();
            r.capacity_minutes.sold = *sold;
            r.capacity_minutes.total = 1_000_000;
        }
        cap
    }

    fn at(min: i64) -> DateTime<Utc> {
        Utc.with_ymd_and_hms(2026, 11, 22, 12, 0, 0).unwrap() + chrono::Duration::minutes(min)
    }

    #[test]
    fn samples_survive_between_runs_and_stay_bounded() {
        let dir = tempfile::tempdir().unwrap();
        let h = History::new(dir.path(), "http://a/v1");
        for m in 0..200 {
            h.record(&report(at(m), &[("a", 100 * m), ("b", 5)]))
                .unwrap();
        }
        // The same report again adds nothing.
        let again = h.record(&report(at(199), &[("a", 1), ("b", 5)])).unwrap();
        let a = &again.series["a"];
        assert_eq!(a.len(), 61, "an hour of minutes, both ends in");
        assert_eq!(a.last().unwrap().sold, 19_900);
        // A route gone from the report is gone from the file; another service has its own.
        let later = History::new(dir.path(), "http://a/v1")
            .record(&report(at(200), &[("b", 6)]))
            .unwrap();
        assert_eq!(later.series.keys().collect::<Vec<_>>(), ["b"]);
        let other = History::new(dir.path(), "http://b/v1").read();
        assert!(other.series.is_empty() && other.warning.is_none());
        assert!(fs::metadata(h.path()).unwrap().len() < 64 * 1024);
    }

    #[test]
    fn samples_are_written_as_arrays_and_objects_are_still_read() {
        let dir = tempfile::tempdir().unwrap();
        let h = History::new(dir.path(), "http://a/v1");
        let old = r#"{"version": 1, "origin": "http://a/v1",
            "routes": {"a": [{"at_ms": 1795000000000, "sold": 7, "total": 9}]}}"#;
        fs::write(h.path(), old).unwrap();
        let kept = h.read();
        assert!(kept.warning.is_none(), "{:?}", kept.warning);
        assert_eq!(kept.series["a"][0].sold, 7);
        let later = chrono::DateTime::from_timestamp_millis(1_795_000_060_000).unwrap();
        h.record(&report(later, &[("a", 8)])).unwrap();
        let text = fs::read_to_string(h.path()).unwrap();
        assert!(
            text.contains(r#""a":[[1795000000000,7,9],[1795000060000,8,1000000]]"#),
            "{text}"
        );
    }

    #[test]
    fn a_damaged_file_is_started_afresh_with_a_warning() {
        let dir = tempfile::tempdir().unwrap();
        let h = History::new(dir.path(), "http://a/v1");
        for damage in [
            &b"{\"version\": 1, \"origin\": \"http://a/v1\", \"routes\": {\"a\": [{\"at_ms\":"[..],
            b"\x00\xff garbage",
            b"{\"version\": 99, \"origin\": \"http://a/v1\", \"routes\": {}}",
            b"[]",
        ] {
            fs::write(h.path(), damage).unwrap();
            let r = h.record(&report(at(0), &[("a", 1)])).unwrap();
            let warning = r.warning.expect("a warning");
            assert!(warning.contains("started afresh"), "{warning}");
            assert_eq!(r.series["a"].len(), 1);
            assert!(h.read().warning.is_none(), "the file is whole again");
        }
    }

    #[test]
    fn concurrent_writers_lose_nothing_and_never_tear_the_file() {
        let dir = tempfile::tempdir().unwrap();
        let threads: Vec<_> = (0..8)
            .map(|t| {
                let h = History::new(dir.path(), "http://a/v1");
                std::thread::spawn(move || {
                    let mut accepted = 0;
                    for i in 0..12 {
                        // Each writer its own minutes; one older than the newest in the file
                        // is skipped, one newer must be kept by every later writer.
                        // Half a minute apart, so that all 96 fit in the hour kept.
                        let m = i * 8 + t;
                        let when = at(0) + chrono::Duration::seconds(30 * m);
                        let r = h.record(&report(when, &[("a", m)])).unwrap();
                        assert!(r.warning.is_none(), "{:?}", r.warning);
                        let mine = when.timestamp_millis();
                        accepted += usize::from(r.series["a"].iter().any(|s| s.at_ms == mine));
                        assert!(h.read().warning.is_none(), "never a torn file");
                    }
                    accepted
                })
            })
            .collect();
        let accepted: usize = threads.into_iter().map(|t| t.join().unwrap()).sum();
        let series = History::new(dir.path(), "http://a/v1").read().series;
        let a = &series["a"];
        assert_eq!(a.len(), accepted, "no accepted sample was lost");
        assert!(a.windows(2).all(|w| w[0].at_ms < w[1].at_ms));
        let leftovers = fs::read_dir(dir.path())
            .unwrap()
            .filter(|e| {
                e.as_ref()
                    .unwrap()
                    .path()
                    .to_string_lossy()
                    .ends_with(".tmp")
            })
            .count();
        assert_eq!(leftovers, 0);
    }
}
