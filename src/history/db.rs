//! Opening a history file: where it lives, who may write it, its schema, and what is done
//! with a file that is not ours (moved aside, started afresh).
//!
//! ```sql
//! routes        (id, slug UNIQUE, name, dial_code)
//! route_samples (route, at_ms, minutes_sold, minutes_total, ports_sold, ports_total)
//!               -- a row per change of a route's figures (a change point), thinned by tier;
//!               -- all four NULL when the route left the report; PRIMARY KEY (route, at_ms),
//!               -- so a route's days and its latest row read back in one range;
//!               -- INDEX route_samples_at (at_ms), so thinning finds the rows that aged
//! polls         (at_ms PRIMARY KEY, routes)     -- the reports recorded: what was seen when
//! utilization   (at_ms PRIMARY KEY, date, minutes_run_today, daily_sold, daily_active,
//!                daily_paused, utilized, available, pct, active_ports, paused_ports,
//!                provisioning_ports)
//! meta          (key PRIMARY KEY, value)        -- origin, instants of upkeep
//! ```
//!
//! Every `at_ms` is the service's `generated_at`, UNIX milliseconds: history runs on the
//! service's clock. The file is SQLite in WAL mode: one writer at a time (the others wait up to
//! [`BUSY_TIMEOUT`] and then skip their sample), readers never blocked by it. A file whose
//! `application_id` or `user_version` is not this schema's is not ours: moved aside when opened
//! for writing, refused when opened read-only. One whose pages are damaged is found when a read or
//! write fails ([`damage`]) and moved aside then: `PRAGMA quick_check` reads the whole file, too
//! slow for every open of a `--once` or a step back in time.

use std::fs;
use std::io;
use std::path::{Path, PathBuf};
use std::time::Duration;

use rusqlite::{Connection, OpenFlags, OptionalExtension, Transaction, TransactionBehavior};

use super::HistoryError;

/// `PRAGMA application_id` of a captop history file ("capt").
pub const APPLICATION_ID: i32 = 0x6361_7074;
/// `PRAGMA user_version` of the schema written here.
pub const SCHEMA_VERSION: i32 = 1;
/// Bytes the write-ahead log is cut back to when it starts over after a transaction that grew
/// it past them: SQLite reuses the log from its start after each checkpoint but keeps the file
/// at the largest size it ever reached, so one large transaction would leave a large log for
/// good. Four times the log of SQLite's automatic checkpoint (1,000 pages), so that the usual
/// log, a few reports long, is never cut and grown again.
pub const WAL_SIZE_LIMIT: i64 = 16 << 20;

/// Pages of write-ahead log after which a writer copies the log back into the file
/// (`wal_autocheckpoint`), and bytes the log is cut back to (`journal_size_limit`, four times
/// as many, at most [`WAL_SIZE_LIMIT`]), for reports of `routes` routes. SQLite's 1,000 pages
/// at 10,000 routes, whose reports write hundreds of pages; a page for every ten routes below,
/// down to 128 pages (512 KiB), so that a small service's log is not most of its history's disk.
pub fn log_limits(routes: usize) -> (i64, i64) {
    let pages = i64::try_from(routes / 10)
        .unwrap_or(i64::MAX)
        .clamp(128, 1000);
    (pages, (pages * 4 * PAGE_BYTES).min(WAL_SIZE_LIMIT))
}

/// The size of a page of the file (SQLite's default, which captop keeps).
const PAGE_BYTES: i64 = 4096;

/// How long a writer waits for another to finish before it skips its sample.
pub const BUSY_TIMEOUT: Duration = Duration::from_secs(2);

const SCHEMA: &str = "
CREATE TABLE IF NOT EXISTS meta (key TEXT PRIMARY KEY, value TEXT NOT NULL) WITHOUT ROWID;
CREATE TABLE IF NOT EXISTS routes (
    id INTEGER PRIMARY KEY,
    slug TEXT NOT NULL UNIQUE,
    name TEXT NOT NULL,
    dial_code TEXT NOT NULL
);
CREATE TABLE IF NOT EXISTS route_samples (
    route INTEGER NOT NULL,
    at_ms INTEGER NOT NULL,
    minutes_sold INTEGER,
    minutes_total INTEGER,
    ports_sold INTEGER,
    ports_total INTEGER,
    PRIMARY KEY (route, at_ms)
) WITHOUT ROWID;
CREATE INDEX IF NOT EXISTS route_samples_at ON route_samples (at_ms);
CREATE TABLE IF NOT EXISTS polls (at_ms INTEGER PRIMARY KEY, routes INTEGER NOT NULL);
CREATE TABLE IF NOT EXISTS utilization (
    at_ms INTEGER PRIMARY KEY,
    date TEXT NOT NULL,
    minutes_run_today INTEGER NOT NULL,
    daily_sold INTEGER,
    daily_active INTEGER,
    daily_paused INTEGER,
    utilized INTEGER,
    available INTEGER,
    pct REAL,
    active_ports INTEGER,
    paused_ports INTEGER,
    provisioning_ports INTEGER
);
-- The forecasts' samples kept ready to read (see frames.rs).
CREATE TABLE IF NOT EXISTS forecast_frames (at_ms INTEGER PRIMARY KEY, routes BLOB NOT NULL);
";

/// Opens (creating it and its directory if need be) the history file at `path` for `origin`,
/// read-write, schema in place. A file that is not a captop history of this origin is moved
/// aside and started afresh, with the warning to show; a file or directory others could write
/// is refused.
pub fn open(path: &Path, origin: &str) -> Result<(Connection, Option<String>), HistoryError> {
    let dir = path.parent().unwrap_or(Path::new("."));
    create_private_dir(dir).map_err(io_at(dir))?;
    check_private(dir)?;
    // Create the file ourselves, so it is born 0600 (SQLite gives its -wal and -shm files the
    // database's mode).
    crate::poll::shared::open_private_file(path).map_err(io_at(path))?;
    check_private(path)?;
    let why = match try_open(path, origin) {
        Err(HistoryError::NotOurs { why, .. }) => why,
        opened => return opened.map(|conn| (conn, None)),
    };
    let warning = set_aside(path, &why).to_string();
    crate::poll::shared::open_private_file(path).map_err(io_at(path))?;
    let conn = try_open(path, origin)?;
    Ok((conn, Some(warning)))
}

/// Why the file a read or write failed on is damaged, if it is: SQLite said so, or
/// `PRAGMA quick_check` finds bad pages (garbage over them can read as values of the wrong type
/// rather than as corrupt). `None` for a busy file, a full disk, or sound pages.
pub fn damage(conn: &Connection, failure: &HistoryError) -> Option<String> {
    match failure {
        HistoryError::Corrupt(e) => Some(format!("damaged ({e})")),
        HistoryError::Sqlite(_) => match damaged(conn) {
            Ok(why) => why,
            Err(e) => is_not_a_database(&e).then(|| format!("damaged ({e})")),
        },
        _ => None,
    }
}

/// Moves the file at `path` (closed) aside, for the next open to start afresh:
/// [`HistoryError::SetAside`], which says where it went.
pub fn set_aside(path: &Path, why: &str) -> HistoryError {
    match move_aside(path) {
        Ok(aside) => HistoryError::SetAside {
            path: path.to_path_buf(),
            why: crate::text::fit(why, 100),
            aside,
        },
        Err(e) => io_at(path)(e),
    }
}

/// An I/O error at `path` as the history's error.
fn io_at(path: &Path) -> impl Fn(io::Error) -> HistoryError + '_ {
    move |source| HistoryError::Io {
        path: path.to_path_buf(),
        source,
    }
}

/// Opens an existing history file read-only (for `history export` and `--once --at` on a
/// machine that only reads), its pages checked first when `check_pages` (`history info` and
/// `export`, which read it all anyway). `Ok(None)` when there is none.
pub fn open_read_only(
    path: &Path,
    origin: &str,
    check_pages: bool,
) -> Result<Option<Connection>, HistoryError> {
    if !path.exists() {
        return Ok(None);
    }
    let sqlite = HistoryError::from;
    let conn = Connection::open_with_flags(
        path,
        OpenFlags::SQLITE_OPEN_READ_ONLY | OpenFlags::SQLITE_OPEN_NO_MUTEX,
    )
    .map_err(sqlite)?;
    conn.busy_timeout(BUSY_TIMEOUT).map_err(sqlite)?;
    match whose(&conn, origin).and_then(|why| match why {
        None if check_pages => damaged(&conn),
        why => Ok(why),
    }) {
        Ok(None) => Ok(Some(conn)),
        Ok(Some(why)) => Err(HistoryError::NotOurs {
            path: path.to_path_buf(),
            why,
        }),
        Err(source) if is_not_a_database(&source) => Err(HistoryError::NotOurs {
            path: path.to_path_buf(),
            why: format!("damaged ({source})"),
        }),
        Err(source) => Err(sqlite(source)),
    }
}

/// Opens the file at `path` read-write, schema in place; [`HistoryError::NotOurs`] when it is
/// not a captop history of `origin`.
fn try_open(path: &Path, origin: &str) -> Result<Connection, HistoryError> {
    let not_ours = |why| HistoryError::NotOurs {
        path: path.to_path_buf(),
        why,
    };
    let sqlite = |source: rusqlite::Error| {
        if is_not_a_database(&source) {
            not_ours(format!("not a database ({source})"))
        } else {
            HistoryError::from(source)
        }
    };
    let conn = Connection::open(path).map_err(sqlite)?;
    conn.busy_timeout(BUSY_TIMEOUT).map_err(sqlite)?;
    // WAL: readers never wait for the writer. NORMAL: a crash loses at most the last
    // transactions, never the file.
    conn.pragma_update(None, "journal_mode", "WAL")
        .map_err(sqlite)?;
    conn.pragma_update(None, "synchronous", "NORMAL")
        .map_err(sqlite)?;
    conn.pragma_update(None, "journal_size_limit", WAL_SIZE_LIMIT)
        .map_err(sqlite)?;
    if let Some(why) = whose(&conn, origin).map_err(sqlite)? {
        return Err(not_ours(why));
    }
    let fresh: i32 = conn
        .pragma_query_value(None, "application_id", |row| row.get(0))
        .map_err(sqlite)?;
    if fresh == 0 {
        create_schema(&conn, origin).map_err(sqlite)?;
    }
    Ok(conn)
}

/// The `meta` key of the instant before which the frames are thinned ([`super::frames::write`]):
/// where the next writer's thinning starts.
pub const FRAMES_THINNED_KEY: &str = "frames_thinned_from_ms";

/// An instant the file keeps in `meta` under `key` (when it was thinned, from when its forecast
/// frames are whole).
pub fn meta_ms(conn: &Connection, key: &str) -> rusqlite::Result<Option<i64>> {
    let value: Option<String> = conn
        .prepare_cached("SELECT value FROM meta WHERE key = ?1")?
        .query_row([key], |row| row.get(0))
        .optional()?;
    Ok(value.and_then(|v| v.parse().ok()))
}

/// Keeps the instant `at_ms` in `meta` under `key`, as [`meta_ms`] reads it.
pub fn set_meta_ms(conn: &Connection, key: &str, at_ms: i64) -> rusqlite::Result<()> {
    conn.prepare_cached("INSERT OR REPLACE INTO meta VALUES (?1, ?2)")?
        .execute(rusqlite::params![key, at_ms.to_string()])
        .map(drop)
}

fn create_schema(conn: &Connection, origin: &str) -> rusqlite::Result<()> {
    let tx = Transaction::new_unchecked(conn, TransactionBehavior::Immediate)?;
    tx.execute_batch(SCHEMA)?;
    tx.execute(
        "INSERT OR REPLACE INTO meta (key, value) VALUES ('origin', ?1)",
        [origin],
    )?;
    tx.pragma_update(None, "application_id", APPLICATION_ID)?;
    tx.pragma_update(None, "user_version", SCHEMA_VERSION)?;
    tx.commit()
}

/// `None` when the file is empty or a captop history of `origin`, else why it is not.
fn whose(conn: &Connection, origin: &str) -> rusqlite::Result<Option<String>> {
    let app: i32 = conn.pragma_query_value(None, "application_id", |row| row.get(0))?;
    let version: i32 = conn.pragma_query_value(None, "user_version", |row| row.get(0))?;
    if app == 0 {
        let tables: i64 =
            conn.query_row("SELECT count(*) FROM sqlite_schema", [], |row| row.get(0))?;
        return Ok((tables > 0).then(|| "another program's database".to_owned()));
    }
    if app != APPLICATION_ID {
        return Ok(Some("another program's database".to_owned()));
    }
    if version != SCHEMA_VERSION {
        return Ok(Some(format!("of another schema version ({version})")));
    }
    let theirs: Option<String> = conn
        .query_row("SELECT value FROM meta WHERE key = 'origin'", [], |row| {
            row.get(0)
        })
        .optional()?;
    Ok(match theirs {
        Some(theirs) if theirs == origin => None,
        Some(_) => Some("the history of another service".to_owned()),
        None => Some("missing its origin".to_owned()),
    })
}

/// `None` when SQLite's `PRAGMA quick_check` finds the file's pages sound, else what it found
/// first: pages overwritten by garbage can read as values of the wrong type rather than fail
/// as corrupt, and a writer on such a file would fail at every report.
pub fn damaged(conn: &Connection) -> rusqlite::Result<Option<String>> {
    let first: String = conn.query_row("PRAGMA quick_check(1)", [], |row| row.get(0))?;
    Ok((first != "ok").then(|| format!("damaged ({})", crate::text::fit(&first, 80))))
}

/// Whether SQLite refused the file as not a database (or a damaged one).
pub fn is_not_a_database(e: &rusqlite::Error) -> bool {
    matches!(
        e.sqlite_error_code(),
        Some(rusqlite::ErrorCode::NotADatabase | rusqlite::ErrorCode::DatabaseCorrupt)
    )
}

/// Renames the file (and its -wal and -shm) to `<name>.bad-<unix seconds>`.
fn move_aside(path: &Path) -> io::Result<PathBuf> {
    let stamp = std::time::SystemTime::now()
        .duration_since(std::time::UNIX_EPOCH)
        .map_or(0, |d| d.as_secs());
    let aside = path.with_extension(format!("sqlite3.bad-{stamp}"));
    fs::rename(path, &aside)?;
    for suffix in ["-wal", "-shm"] {
        let _ = fs::remove_file(beside(path, suffix));
    }
    Ok(aside)
}

/// The file SQLite keeps beside the history at `path`: `-wal` its write-ahead log, `-shm` the
/// log's index.
pub fn beside(path: &Path, suffix: &str) -> PathBuf {
    let mut side = path.as_os_str().to_owned();
    side.push(suffix);
    PathBuf::from(side)
}

/// Creates `dir` (and its parents) 0700 if missing.
pub fn create_private_dir(dir: &Path) -> io::Result<()> {
    let mut builder = fs::DirBuilder::new();
    builder.recursive(true);
    #[cfg(unix)]
    {
        use std::os::unix::fs::DirBuilderExt;
        builder.mode(0o700);
    }
    builder.create(dir)
}

/// Refuses a file or directory that is not ours or that others may write.
fn check_private(path: &Path) -> Result<(), HistoryError> {
    #[cfg(unix)]
    {
        use std::os::unix::fs::MetadataExt;
        let meta = fs::metadata(path).map_err(io_at(path))?;
        let ours = fs::metadata("/proc/self").map_or(true, |me| me.uid() == meta.uid());
        if !ours || meta.mode() & 0o022 != 0 {
            return Err(HistoryError::Unsafe {
                path: path.to_path_buf(),
            });
        }
    }
    Ok(())
}
