//! The one-hour JSON file earlier captops kept (`history-<hash>.json`), read once into the
//! database and then removed, so an upgrade keeps the hour of samples the forecasts had.
//!
//! ```text
//! { "version": 1, "origin": "https://metrics.example.net/v1",
//!   "routes": { "br-sao-paulo": [ [1795000000000, 4358400, 4800000], … ] } }
//! ```
//!
//! Each sample is `[at_ms, sold, total]` (older files wrote `{"at_ms": …, "sold": …, "total":
//! …}`; both are read). A file over [`MAX_FILE_BYTES`], of another version or service, or that
//! does not parse is left where it is and not read.

use std::fs::File;
use std::io::{self, Read};
use std::path::Path;

use serde::Deserialize;

use crate::forecast::Series;

/// Largest file read.
pub const MAX_FILE_BYTES: u64 = 16 * 1024 * 1024;
const VERSION: u32 = 1;

#[derive(Debug, Deserialize)]
#[serde(deny_unknown_fields)]
struct HistoryFile {
    version: u32,
    origin: String,
    routes: Series,
}

/// The samples of the old file at `path`, if it is one of `origin`'s; `Ok(None)` when there
/// is none, `Err` with the reason when it cannot be used.
pub fn read(path: &Path, origin: &str) -> io::Result<Option<Series>> {
    let file = match File::open(path) {
        Err(e) if e.kind() == io::ErrorKind::NotFound => return Ok(None),
        other => other?,
    };
    if file.metadata()?.len() > MAX_FILE_BYTES {
        return Err(io::Error::other("it is too large"));
    }
    let reader = io::BufReader::new(file.take(MAX_FILE_BYTES));
    let parsed: HistoryFile = serde_json::from_reader(reader).map_err(io::Error::other)?;
    if parsed.version != VERSION || parsed.origin != origin {
        return Err(io::Error::other("it is of another version or service"));
    }
    Ok(Some(parsed.routes))
}

#[cfg(test)]
mod tests {
    #![allow(clippy::unwrap_used, clippy::indexing_slicing)]
    use super::*;

    #[test]
    fn arrays_and_objects_are_read_and_another_service_is_not() {
        let dir = tempfile::tempdir().unwrap();
        let path = dir.path().join("h.json");
        let text = r#"{"version": 1, "origin": "http://a/v1",
            "routes": {"a": [[1000, 5, 10], {"at_ms": 2000, "sold": 6, "total": 10}]}}"#;
        std::fs::write(&path, text).unwrap();
        let series = read(&path, "http://a/v1").unwrap().unwrap();
        assert_eq!(series["a"].len(), 2);
        assert_eq!(series["a"][1].sold, 6);
        assert!(read(&path, "http://b/v1").is_err());
        assert!(read(&dir.path().join("none.json"), "x").unwrap().is_none());
        std::fs::write(&path, "{not json").unwrap();
        assert!(read(&path, "http://a/v1").is_err());
    }
}
