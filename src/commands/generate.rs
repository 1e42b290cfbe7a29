//! `captop completions SHELL` and `captop man`: shell completion scripts and the manual page,
//! both generated from the clap definitions in [`crate::cli`], so a new flag or subcommand is
//! completed and documented without anyone remembering to.
//!
//! The manual page is one page, `captop(1)`: clap_mangen's title, synopsis, description and
//! options of the top-level command, then a COMMANDS section with every subcommand (nested
//! ones too) and its own flags, instead of the `captop-auth(1)`-style references to pages that
//! would have to be installed separately.

use std::io::Write;

use clap::CommandFactory;
use roff::{Roff, bold, italic, roman};

use crate::cli::Cli;

/// The clap command tree of captop, built (global flags propagated, help flags added), as the
/// completions and the manual page see it.
pub fn command() -> clap::Command {
    let mut cmd = Cli::command();
    cmd.build();
    cmd
}

/// Writes the completion script for `shell`; returns the exit code: 0, also when the reader went away, or 1.
pub fn completions(shell: clap_complete::Shell, out: &mut impl Write) -> u8 {
    let mut cmd = command();
    let mut script = Vec::new();
    clap_complete::generate(shell, &mut cmd, "captop", &mut script);
    write_out(out, &script)
}

/// Writes the manual page in roff; returns the exit code: 0, also when the reader went away, or 1.
pub fn man_page(out: &mut impl Write) -> u8 {
    let mut page = Vec::new();
    if render_man(&mut page).is_err() {
        return 1;
    }
    // Every section rendered on its own repeats roff's preamble: kept once, at the top.
    let page = String::from_utf8_lossy(&page).replace(PREAMBLE, "");
    write_out(out, format!("{PREAMBLE}{page}").as_bytes())
}

/// roff's two-line preamble, which defines the apostrophe it writes.
const PREAMBLE: &str = ".ie \\n(.g .ds Aq \\(aq\n.el .ds Aq '\n";

/// Writes `bytes` and flushes; returns 0, also when the reader went away (`| head -1`), or 1
/// when stdout fails otherwise.
fn write_out(out: &mut impl Write, bytes: &[u8]) -> u8 {
    match out.write_all(bytes).and_then(|()| out.flush()) {
        Err(e) if e.kind() != std::io::ErrorKind::BrokenPipe => 1,
        _ => 0,
    }
}

/// The whole page into `w`.
fn render_man(w: &mut dyn Write) -> std::io::Result<()> {
    let cmd = command();
    let man = clap_mangen::Man::new(cmd.clone()).manual("captop manual");
    man.render_title(w)?;
    man.render_name_section(w)?;
    man.render_synopsis_section(w)?;
    man.render_description_section(w)?;
    man.render_options_section(w)?;
    let mut roff = Roff::default();
    roff.control("SH", ["COMMANDS"]);
    roff.text([roman(
        "Without a command, captop draws the dashboard, or prints the --once report when stdout is not a terminal.",
    )]);
    for sub in cmd.get_subcommands() {
        subcommand_section(&mut roff, sub, "captop", &[]);
    }
    roff.control("SH", ["FILES"]);
    roff.text([roman(
        "The config file: captop config path prints where it is read from; config.example.toml documents every key.",
    )]);
    roff.to_writer(w)?;
    man.render_version_section(w)
}

/// One `.SS` entry per subcommand, depth first: its full name, what it does, its own flags
/// (not those `inherited` from its parent: `captop auth`'s are listed once, not again under
/// `captop auth login`).
fn subcommand_section(roff: &mut Roff, cmd: &clap::Command, parent: &str, inherited: &[&str]) {
    if cmd.is_hide_set() || cmd.get_name() == "help" {
        return;
    }
    let name = format!("{parent} {}", cmd.get_name());
    roff.control("SS", [name.as_str()]);
    let about = cmd
        .get_long_about()
        .or_else(|| cmd.get_about())
        .map(ToString::to_string)
        .unwrap_or_default();
    roff.text([roman(about)]);
    for arg in own_args(cmd, inherited) {
        roff.control("TP", []);
        roff.text(arg_header(arg));
        let help = arg
            .get_long_help()
            .or_else(|| arg.get_help())
            .map(ToString::to_string)
            .unwrap_or_default();
        let mut body = vec![roman(help)];
        let values: Vec<String> = arg
            .get_possible_values()
            .iter()
            .filter(|v| !v.is_hide_set())
            .map(|v| v.get_name().to_owned())
            .collect();
        if !values.is_empty() {
            body.push(roman(format!(". One of: {}.", values.join(", "))));
        }
        roff.text(body);
    }
    let globals: Vec<&str> = cmd
        .get_arguments()
        .filter(|arg| arg.is_global_set())
        .map(|arg| arg.get_id().as_str())
        .collect();
    for sub in cmd.get_subcommands() {
        subcommand_section(roff, sub, &name, &globals);
    }
}

/// The arguments a subcommand adds: not the global ones its parent passes down (`inherited`),
/// not the generated `--help` / `--version`.
pub fn own_args<'c>(
    cmd: &'c clap::Command,
    inherited: &[&str],
) -> impl Iterator<Item = &'c clap::Arg> {
    cmd.get_arguments().filter(|arg| {
        let id = arg.get_id().as_str();
        let passed_down = arg.is_global_set() && inherited.contains(&id);
        !(passed_down || arg.is_hide_set() || matches!(id, "help" | "version"))
    })
}

/// `--listen <ADDR> [default: 127.0.0.1:0]`, or `<SHELL>` for a positional argument.
fn arg_header(arg: &clap::Arg) -> Vec<roff::Inline> {
    let value = arg
        .get_value_names()
        .and_then(|names| names.first())
        .map(ToString::to_string)
        .unwrap_or_else(|| arg.get_id().as_str().to_uppercase());
    let mut header = Vec::new();
    match (arg.get_long(), arg.is_positional()) {
        (_, true) => header.push(italic(format!("<{value}>"))),
        (Some(long), false) => {
            header.push(bold(format!("--{long}")));
            if arg.get_num_args().is_some_and(|n| n.takes_values()) {
                header.push(roman(" "));
                header.push(italic(format!("<{value}>")));
            }
        }
        (None, false) => header.push(italic(format!("<{value}>"))),
    }
    let defaults: Vec<String> = arg
        .get_default_values()
        .iter()
        .map(|v| v.to_string_lossy().into_owned())
        .collect();
    if !defaults.is_empty() && !arg.is_positional() {
        header.push(roman(format!(" [default: {}]", defaults.join(","))));
    }
    header
}
