//! The config file's `[keys]` and `[theme]` made into the dashboard's key table and palette.
//!
//! Config keeps those tables as written, with byte offsets ([`crate::config::KeyEntries`],
//! [`crate::config::ThemeEntries`]); the checks that need to know the actions, the chords, the
//! roles and the colours are the dashboard's ([`keys::key_settings`], [`palette_from`],
//! [`keys::keymap_from`]). A problem is placed at the file's line and column by
//! [`LoadedConfig::error_at`], so it reads as any other config error: `path:line:col: message`.
//!
//! The whole file is checked, every profile, not only the one in use: a mistake in another
//! profile's `[keys]` shows at once rather than on the day that profile is picked.

use crate::config::{ConfigError, KeyEntries, LoadedConfig, Settings, ThemeEntries};
use crate::dashboard::app::keys::{self, Keymap};
use crate::dashboard::ui::palette::{Palette, palette_from};

/// The key table and the palette of the selected profile, after checking the `[keys]` and
/// `[theme]` of every profile of the config file. Called before the dashboard takes the
/// terminal, and by `captop config check`.
pub fn keymap_and_palette(settings: &Settings) -> Result<(Keymap, Palette), ConfigError> {
    let Some(file) = settings.config_file() else {
        // No file, no tables: the defaults.
        return Ok((Keymap::default(), Palette::default()));
    };
    check_config(file)?;
    keymap_and_palette_in(file, &settings.keys, &settings.theme)
}

/// Checks the `[keys]` and `[theme]` of every profile of `file` (the top level first, then the
/// named profiles by name) as the dashboard would build them.
pub fn check_config(file: &LoadedConfig) -> Result<(), ConfigError> {
    for profile in file.every_profile() {
        keymap_and_palette_in(file, &profile.keys, &profile.theme)?;
    }
    Ok(())
}

/// The key table and the palette of one profile's tables, read from `file`, or the first
/// problem placed in it. The shape of the key tables is checked first, then the theme, then
/// the rebindings themselves.
pub fn keymap_and_palette_in(
    file: &LoadedConfig,
    keys: &KeyEntries,
    theme: &ThemeEntries,
) -> Result<(Keymap, Palette), ConfigError> {
    let settings = keys::key_settings(keys).map_err(|e| file.error_at(e.at, e.message))?;
    let palette = palette_from(theme).map_err(|e| file.error_at(e.at(), e.to_string()))?;
    let keymap = keys::keymap_from(&settings).map_err(|e| file.error_at(e.at, e.message))?;
    Ok((keymap, palette))
}
