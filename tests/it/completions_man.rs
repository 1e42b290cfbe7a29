//! `captop completions SHELL` and `captop man` run as a user would: the real binary, for every
//! shell clap_complete supports. The lists of subcommands and flags are taken from the clap
//! command tree itself, so a subcommand or flag added later without being completed or
//! documented fails here.

#![allow(clippy::unwrap_used, clippy::expect_used, clippy::panic)]

use std::process::Command;

use clap::ValueEnum;

fn captop(args: &[&str]) -> String {
    let out = Command::new(env!("CARGO_BIN_EXE_captop"))
        .args(args)
        .env("CAPTOP_CONFIG", "/dev/null")
        .output()
        .expect("run captop");
    assert_eq!(
        out.status.code(),
        Some(0),
        "captop {args:?}: {}",
        String::from_utf8_lossy(&out.stderr)
    );
    assert!(out.stderr.is_empty(), "captop {args:?} wrote to stderr");
    String::from_utf8(out.stdout).expect("UTF-8")
}

/// Every subcommand, nested ones too, as its path of names (`["auth", "login"]`).
fn subcommand_paths(cmd: &clap::Command, parent: &[String], into: &mut Vec<Vec<String>>) {
    for sub in cmd.get_subcommands() {
        if sub.get_name() == "help" || sub.is_hide_set() {
            continue;
        }
        let mut path = parent.to_vec();
        path.push(sub.get_name().to_owned());
        into.push(path.clone());
        subcommand_paths(sub, &path, into);
    }
}

fn all_subcommands() -> Vec<Vec<String>> {
    let mut paths = Vec::new();
    subcommand_paths(&captop::commands::generate::command(), &[], &mut paths);
    // The tree must be the real one, not an empty list that passes vacuously.
    assert!(paths.iter().any(|p| p == &["auth", "login"]));
    assert!(paths.iter().any(|p| p == &["completions"]));
    paths
}

/// Whether `script` offers the subcommand at `path` as a candidate, in that shell's own
/// syntax (a bare substring would find short names such as `man` anywhere).
fn offers(shell: &str, script: &str, path: &[String]) -> bool {
    let (name, parents) = path.split_last().unwrap();
    match shell {
        "bash" => {
            let mut parent = "captop".to_owned();
            for p in parents {
                parent.push_str(&format!("__subcmd__{}", p.replace('-', "__")));
            }
            script.contains(&format!("{parent},{name})"))
        }
        "zsh" => script.contains(&format!("'{name}:")),
        "fish" => script.contains(&format!("-a \"{name}\" -d")),
        "elvish" => script.contains(&format!("cand {name} ")),
        "powershell" => script.contains(&format!("[CompletionResult]::new('{name}', '{name}'")),
        other => panic!("a shell this test does not know yet: {other}; teach `offers` its syntax"),
    }
}

#[test]
fn every_shell_completes_every_subcommand_and_flag() {
    let paths = all_subcommands();
    let root = captop::commands::generate::command();
    let shells = clap_complete::Shell::value_variants();
    assert!(shells.len() >= 5, "bash, elvish, fish, powershell, zsh");
    for shell in shells {
        let name = shell.to_possible_value().unwrap().get_name().to_owned();
        let script = captop(&["completions", &name]);
        assert!(script.len() > 200, "{name}: a script, not a stub");
        for path in &paths {
            assert!(
                offers(&name, &script, path),
                "{name} completion does not offer the subcommand `{}`",
                path.join(" ")
            );
        }
        for arg in root.get_arguments() {
            if let Some(long) = arg.get_long() {
                assert!(
                    script.contains(long),
                    "{name} completion does not offer --{long}"
                );
            }
        }
    }
}

#[test]
fn an_unknown_shell_is_a_usage_error() {
    let out = Command::new(env!("CARGO_BIN_EXE_captop"))
        .args(["completions", "tcsh"])
        .output()
        .expect("run captop");
    assert_eq!(out.status.code(), Some(2));
    let err = String::from_utf8_lossy(&out.stderr);
    assert!(err.contains("bash") && err.contains("zsh"), "{err}");
}

#[test]
fn the_man_page_documents_every_subcommand_and_flag() {
    let page = captop(&["man"]);
    assert!(
        page.contains(".TH captop 1"),
        "a roff page titled captop(1)"
    );
    // roff escapes '-' as '\-'; read the page as a reader would.
    let text = page.replace("\\-", "-");
    for path in all_subcommands() {
        let title = format!(".SS \"captop {}\"", path.join(" "));
        assert!(text.contains(&title), "the man page has no section {title}");
    }
    fn flags(cmd: &clap::Command, page: &str, at: &str) {
        for arg in cmd.get_arguments() {
            if let Some(long) = arg.get_long() {
                assert!(
                    page.contains(&format!("\\fB--{long}\\fR")),
                    "the man page does not document --{long} (of {at})"
                );
            }
        }
        for sub in cmd.get_subcommands() {
            flags(sub, page, sub.get_name());
        }
    }
    flags(&captop::commands::generate::command(), &text, "captop");
    // The preamble appears once, at the top.
    assert_eq!(page.matches(".ds Aq").count(), 2, "one .ie/.el preamble");
}
