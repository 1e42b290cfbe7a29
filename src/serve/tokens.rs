//! Readers' bearer tokens: read from `--token-file`, checked in constant time.
//!
//! The file holds one token a line; blank lines and lines starting with `#` are skipped. It must
//! be readable by its owner alone (mode 600): a token file anyone on the host can read would
//! let anyone read the figures, so the relay refuses to start rather than warn. Tokens are
//! compared with [`subtle`]'s constant-time equality against every configured token, so the
//! time an answer takes says nothing about how much of a guess was right. Tokens are never
//! logged or shown; `Debug` prints only how many there are.
//!
//! The relay holds them as [`LiveTokens`], so a reload ([`super::reload`]) replaces the whole
//! set at once while requests go on.

use std::path::{Path, PathBuf};
use std::sync::Arc;

use arc_swap::ArcSwap;

use crate::secret_file::SecretFile;
use subtle::ConstantTimeEq;
use zeroize::Zeroizing;

/// Largest token file read, in bytes: thousands of tokens, not an accident like a log file.
const MAX_TOKEN_FILE: u64 = 1024 * 1024;

/// Why a private file of the relay (the readers' tokens, a webhook's headers) cannot be read.
#[derive(Debug, thiserror::Error)]
pub enum PrivateFileError {
    /// It could not be opened or read.
    #[error("cannot read {what} {path}: {reason}")]
    Read {
        /// What the file is, for the message ("the token file").
        what: &'static str,
        /// The file, as shown.
        path: String,
        /// The system's reason.
        reason: String,
    },
    /// Group or others may read or write it.
    #[error("{what} {path} is open to group or others (mode {mode:o}) — run `chmod 600 {path}`")]
    TooOpen {
        /// What the file is, for the message.
        what: &'static str,
        /// The file, as shown.
        path: String,
        /// Its permission bits.
        mode: u32,
    },
}

/// The text of the private file `path` (at most `max` bytes), `what` naming it in errors: it
/// holds secrets, so a file group or others may open is refused before it is read.
pub fn read_private(
    path: &Path,
    what: &'static str,
    max: u64,
) -> Result<Zeroizing<String>, PrivateFileError> {
    let read_error = |e: std::io::Error| PrivateFileError::Read {
        what,
        path: path.display().to_string(),
        reason: e.to_string(),
    };
    let file = SecretFile::open(path).map_err(read_error)?;
    if let Some(mode) = file.open_to_others(0o077) {
        let path = path.display().to_string();
        return Err(PrivateFileError::TooOpen { what, path, mode });
    }
    file.read(max).map_err(read_error)
}

/// The lines of a private file that say something, trimmed and numbered from 1: blank lines
/// and `#` comments are skipped.
pub fn content_lines(text: &str) -> impl Iterator<Item = (usize, &str)> {
    let lines = text
        .lines()
        .enumerate()
        .map(|(i, line)| (i + 1, line.trim()));
    lines.filter(|(_, line)| !line.is_empty() && !line.starts_with('#'))
}

/// Why the token file cannot be used.
#[derive(Debug, thiserror::Error)]
pub enum TokenFileError {
    /// It could not be read, or others may read it.
    #[error(transparent)]
    File(#[from] PrivateFileError),
    /// A line is not a usable token (the line number, never the text).
    #[error("the token file {} has an unusable token on line {line}: {problem}", path.display())]
    BadToken {
        /// The file.
        path: PathBuf,
        /// 1-based line number.
        line: usize,
        /// What is wrong with it.
        problem: &'static str,
    },
    /// No token in it.
    #[error("the token file {} holds no token", path.display())]
    Empty {
        /// The file.
        path: PathBuf,
    },
}

/// The tokens in force: every request reads the set of its moment, a reload swaps a new set in.
pub type LiveTokens = Arc<ArcSwap<ReaderTokens>>;

/// The tokens readers may present as `Authorization: Bearer <token>`.
pub struct ReaderTokens {
    tokens: Vec<Zeroizing<Vec<u8>>>,
}

impl std::fmt::Debug for ReaderTokens {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        write!(f, "ReaderTokens({} tokens)", self.tokens.len())
    }
}

/// Shortest token accepted: a guessable token guards nothing.
pub const MIN_TOKEN_LEN: usize = 16;

impl ReaderTokens {
    /// Reads and checks `path` (see the module doc).
    pub fn from_file(path: &Path) -> Result<Self, TokenFileError> {
        let text = read_private(path, "the token file", MAX_TOKEN_FILE)?;
        Self::parse(&text).map_err(|(line, problem)| match line {
            0 => TokenFileError::Empty {
                path: path.to_owned(),
            },
            line => TokenFileError::BadToken {
                path: path.to_owned(),
                line,
                problem,
            },
        })
    }

    /// Parses the file's text; an error is `(line, problem)`, line 0 for "no token at all".
    pub fn parse(text: &str) -> Result<Self, (usize, &'static str)> {
        let mut tokens = Vec::new();
        for (line, token) in content_lines(text) {
            if !token.bytes().all(|b| b.is_ascii_graphic()) {
                return Err((
                    line,
                    "only printable ASCII without spaces may be in a token",
                ));
            }
            if token.len() < MIN_TOKEN_LEN {
                return Err((line, "shorter than 16 characters"));
            }
            tokens.push(Zeroizing::new(token.as_bytes().to_vec()));
        }
        if tokens.is_empty() {
            return Err((0, "no token"));
        }
        Ok(ReaderTokens { tokens })
    }

    /// How many tokens there are (never which).
    pub fn count(&self) -> usize {
        self.tokens.len()
    }

    /// Whether an `Authorization` header value carries one of the tokens. Every configured token
    /// is compared, each in constant time, whatever the outcome.
    pub fn admits(&self, authorization: Option<&[u8]>) -> bool {
        let Some(value) = authorization else {
            return false;
        };
        let presented = match value.get(..7) {
            Some(scheme) if scheme.eq_ignore_ascii_case(b"bearer ") => {
                value.get(7..).unwrap_or_default().trim_ascii()
            }
            _ => return false,
        };
        let mut found = subtle::Choice::from(0);
        for token in &self.tokens {
            found |= token.as_slice().ct_eq(presented);
        }
        found.into()
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    const A: &str = "reader-token-aaaaaaaaaaaa";
    const B: &str = "reader-token-bbbbbbbbbbbb";

    #[test]
    fn any_listed_token_is_admitted_and_nothing_else() {
        let tokens = ReaderTokens::parse(&format!("# team\n{A}\n\n  {B}  \n")).unwrap();
        assert!(tokens.admits(Some(format!("Bearer {A}").as_bytes())));
        assert!(tokens.admits(Some(format!("bearer {B}").as_bytes())));
        for refused in [
            String::new(),
            A.to_owned(),
            format!("Basic {A}"),
            format!("Bearer {A}x"),
            format!("Bearer {}", &A[..A.len() - 1]),
            "Bearer ".to_owned(),
        ] {
            assert!(!tokens.admits(Some(refused.as_bytes())), "{refused:?}");
        }
        assert!(!tokens.admits(None));
        assert_eq!(format!("{tokens:?}"), "ReaderTokens(2 tokens)");
    }

    #[test]
    fn unusable_files_are_refused_by_line() {
        assert_eq!(
            ReaderTokens::parse("# none\n\n").err().map(|e| e.0),
            Some(0)
        );
        assert_eq!(
            ReaderTokens::parse(&format!("{A}\nshort\n"))
                .err()
                .map(|e| e.0),
            Some(2)
        );
        assert_eq!(
            ReaderTokens::parse("a token with spaces in it\n")
                .err()
                .map(|e| e.0),
            Some(1)
        );
    }

    #[cfg(unix)]
    #[test]
    fn a_token_file_others_may_read_is_refused() {
        use std::os::unix::fs::PermissionsExt;
        let dir = tempfile::tempdir().unwrap();
        let path = dir.path().join("tokens");
        std::fs::write(&path, format!("{A}\n")).unwrap();
        std::fs::set_permissions(&path, std::fs::Permissions::from_mode(0o640)).unwrap();
        let err = ReaderTokens::from_file(&path).unwrap_err();
        assert!(
            matches!(
                err,
                TokenFileError::File(PrivateFileError::TooOpen { mode: 0o640, .. })
            ),
            "{err}"
        );
        assert!(!err.to_string().contains(A));
        std::fs::set_permissions(&path, std::fs::Permissions::from_mode(0o600)).unwrap();
        assert!(ReaderTokens::from_file(&path).is_ok());
    }
}
