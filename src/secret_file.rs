//! A file that holds a secret (an API key, reader tokens, a webhook's headers, a Prometheus
//! token or password), read one way: opened once, its mode taken from the open file rather
//! than by a second lookup of the path, then at most a bounded number of bytes read into
//! memory that is wiped when dropped. What a mode open to others means (a warning, a refusal)
//! is the caller's, decided before the secret is read.

use std::io::Read;
use std::path::Path;

use zeroize::Zeroizing;

/// An open secret file and its permission bits.
pub struct SecretFile {
    file: std::fs::File,
    /// Its permission bits (`mode & 0o777`); `None` where the system has none.
    pub mode: Option<u32>,
}

impl SecretFile {
    /// Opens `path`. An error is the system's; the caller names the file.
    pub fn open(path: &Path) -> std::io::Result<SecretFile> {
        let file = std::fs::File::open(path)?;
        #[cfg(unix)]
        let mode = {
            use std::os::unix::fs::PermissionsExt;
            Some(file.metadata()?.permissions().mode() & 0o777)
        };
        #[cfg(not(unix))]
        let mode = None;
        Ok(SecretFile { file, mode })
    }

    /// Its permission bits when group or others have any of those in `mask` (e.g. `0o077`).
    pub fn open_to_others(&self, mask: u32) -> Option<u32> {
        self.mode.filter(|mode| mode & mask != 0)
    }

    /// Its text, at most `max` bytes of it.
    pub fn read(self, max: u64) -> std::io::Result<Zeroizing<String>> {
        let mut text = Zeroizing::new(String::new());
        self.file.take(max).read_to_string(&mut text)?;
        Ok(text)
    }
}
