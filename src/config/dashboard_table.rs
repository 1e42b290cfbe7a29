//! The top level's `[dashboard]` table: the services the dashboard, `--once` and `check` show
//! side by side when no `--profile` names them (`profiles = ["prod", "lab"]`).

use std::collections::BTreeMap;

use serde::Deserialize;
use toml::Spanned;

use super::values::DEFAULT_PROFILE;

/// `[dashboard]` as written.
#[derive(Debug, Deserialize)]
#[serde(deny_unknown_fields)]
pub(super) struct RawDashboard {
    /// The profiles to show side by side, in the order of their tabs.
    profiles: Option<Vec<Spanned<String>>>,
}

impl RawDashboard {
    /// The profiles it names, each one checked against the file's: `Err` carries the offset
    /// of the first name the file has no profile of, and the one-line message naming it.
    pub(super) fn profiles<T>(
        self,
        known: &BTreeMap<String, T>,
    ) -> Result<Vec<String>, (usize, String)> {
        let mut names: Vec<String> = Vec::new();
        for name in self.profiles.unwrap_or_default() {
            let at = name.span().start;
            let name = name.into_inner();
            if name != DEFAULT_PROFILE && !known.contains_key(&name) {
                let shown = crate::text::fit(&name, 64);
                return Err((
                    at,
                    format!(
                        "[dashboard] profiles names `{shown}`, but there is no [profiles.{shown}]"
                    ),
                ));
            }
            if !names.contains(&name) {
                names.push(name);
            }
        }
        Ok(names)
    }
}
