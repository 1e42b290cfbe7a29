//! The documentation stays true to the repository: every relative link and `#anchor` in the
//! README, ARCHITECTURE.md, the changelog and the guide (`docs/src`) leads somewhere, every key of
//! the config schema is in the guide's reference, and the README's two commands are the ones CI
//! runs. No Markdown crate: links are found by a scan for `](` outside code.
#![allow(clippy::unwrap_used, clippy::expect_used, clippy::panic)]
#![allow(clippy::indexing_slicing)]

use std::collections::{BTreeMap, BTreeSet};
use std::path::{Path, PathBuf};

fn root() -> PathBuf {
    PathBuf::from(env!("CARGO_MANIFEST_DIR"))
}

fn read(path: &Path) -> String {
    std::fs::read_to_string(path).unwrap_or_else(|e| panic!("{}: {e}", path.display()))
}

/// The Markdown files whose links are checked.
fn documents() -> Vec<PathBuf> {
    let mut files: Vec<PathBuf> = ["README.md", "ARCHITECTURE.md", "CHANGELOG.md"]
        .iter()
        .map(|f| root().join(f))
        .collect();
    let mut book: Vec<PathBuf> = std::fs::read_dir(root().join("docs/src"))
        .unwrap()
        .map(|e| e.unwrap().path())
        .filter(|p| p.extension().is_some_and(|x| x == "md"))
        .collect();
    book.sort();
    files.extend(book);
    files
}

/// The lines of `text` outside fenced code blocks, with inline code spans blanked.
fn prose_lines(text: &str) -> Vec<String> {
    let mut fenced = false;
    let mut lines = Vec::new();
    for line in text.lines() {
        if line.trim_start().starts_with("```") {
            fenced = !fenced;
            continue;
        }
        if fenced {
            continue;
        }
        let mut out = String::new();
        let mut in_code = false;
        for c in line.chars() {
            if c == '`' {
                in_code = !in_code;
                out.push('`');
            } else if in_code {
                out.push(' ');
            } else {
                out.push(c);
            }
        }
        lines.push(out);
    }
    lines
}

/// The targets of the inline links and images of `text`.
fn links(text: &str) -> Vec<String> {
    let mut found = Vec::new();
    for line in prose_lines(text) {
        let mut rest = line.as_str();
        while let Some(at) = rest.find("](") {
            let after = &rest[at + 2..];
            let mut depth = 0usize;
            let end = after
                .char_indices()
                .find(|&(_, c)| match c {
                    '(' => {
                        depth += 1;
                        false
                    }
                    ')' if depth == 0 => true,
                    ')' => {
                        depth -= 1;
                        false
                    }
                    _ => false,
                })
                .map_or(after.len(), |(i, _)| i);
            let target = after[..end].split_whitespace().next().unwrap_or("");
            found.push(target.to_owned());
            rest = &after[end..];
        }
    }
    found
}

/// A heading's anchor as GitHub and mdBook make it: lower case, letters, digits, `-` and `_`
/// kept, spaces made `-`, everything else dropped.
fn slug(heading: &str) -> String {
    let mut text = String::new();
    // The text of links in the heading, without their targets.
    let mut rest = heading;
    while let Some(at) = rest.find("](") {
        text.push_str(&rest[..at]);
        rest = rest[at..].split_once(')').map_or("", |(_, r)| r);
    }
    text.push_str(rest);
    text.chars()
        .filter_map(|c| {
            if c.is_alphanumeric() || c == '-' || c == '_' {
                Some(c.to_lowercase().next().unwrap_or(c))
            } else if c == ' ' {
                Some('-')
            } else {
                None
            }
        })
        .collect()
}

/// The anchors of `text`'s headings, with `-1`, `-2` … for repeats.
fn anchors(text: &str) -> BTreeSet<String> {
    let mut fenced = false;
    let mut seen: BTreeMap<String, usize> = BTreeMap::new();
    let mut out = BTreeSet::new();
    for line in text.lines() {
        if line.trim_start().starts_with("```") {
            fenced = !fenced;
            continue;
        }
        if fenced || !line.starts_with('#') {
            continue;
        }
        let heading = line.trim_start_matches('#').trim();
        let base = slug(heading);
        let n = seen.entry(base.clone()).or_insert(0);
        out.insert(if *n == 0 {
            base.clone()
        } else {
            format!("{base}-{n}")
        });
        *n += 1;
    }
    out
}

fn broken_links(file: &Path) -> Vec<String> {
    let text = read(file);
    let mut broken = Vec::new();
    for target in links(&text) {
        if target.contains("://") || target.starts_with("mailto:") || target.is_empty() {
            continue;
        }
        let (path, anchor) = target.split_once('#').unwrap_or((&target, ""));
        let dest = if path.is_empty() {
            file.to_path_buf()
        } else {
            file.parent().unwrap().join(path)
        };
        if !dest.exists() {
            broken.push(format!("{}: {target}: no such file", file.display()));
            continue;
        }
        if !anchor.is_empty() && dest.extension().is_some_and(|x| x == "md") {
            let known = anchors(&read(&dest));
            if !known.contains(anchor) {
                broken.push(format!(
                    "{}: {target}: no heading #{anchor} in {}",
                    file.display(),
                    dest.display()
                ));
            }
        }
    }
    broken
}

#[test]
fn every_relative_link_and_anchor_leads_somewhere() {
    let broken: Vec<String> = documents().iter().flat_map(|f| broken_links(f)).collect();
    assert!(broken.is_empty(), "{broken:#?}");
}

#[test]
fn the_link_scan_finds_links_and_headings_as_a_reader_sees_them() {
    let text = "# The `--once` flag\n## Keys and colours\n\
                see [a](a.md#b) and ![p](images/x.svg) and `[no](code.md)`\n\
                ```\n[no](fenced.md)\n```\n[c](https://example.net/(x)) ";
    assert_eq!(
        links(text),
        ["a.md#b", "images/x.svg", "https://example.net/(x)"]
    );
    let known = anchors(text);
    assert!(known.contains("the---once-flag"), "{known:?}");
    assert!(known.contains("keys-and-colours"), "{known:?}");
}

#[test]
fn every_page_of_the_book_is_in_its_summary_and_every_entry_exists() {
    let summary = read(&root().join("docs/src/SUMMARY.md"));
    let listed: BTreeSet<String> = links(&summary).into_iter().collect();
    for page in documents()
        .iter()
        .filter(|p| p.starts_with(root().join("docs")))
    {
        let name = page.file_name().unwrap().to_string_lossy().into_owned();
        if name != "SUMMARY.md" {
            assert!(listed.contains(&name), "{name} is not in SUMMARY.md");
        }
    }
}

/// Every key name of the config schema, at any depth, `$ref`s followed.
fn schema_keys(schema: &serde_json::Value) -> BTreeSet<String> {
    fn resolve<'a>(root: &'a serde_json::Value, v: &'a serde_json::Value) -> &'a serde_json::Value {
        match v.get("$ref").and_then(|r| r.as_str()) {
            Some(r) => resolve(root, root.pointer(r.trim_start_matches('#')).unwrap()),
            None => v,
        }
    }
    fn walk(root: &serde_json::Value, v: &serde_json::Value, out: &mut BTreeSet<String>) {
        let v = resolve(root, v);
        if let Some(props) = v.get("properties").and_then(|p| p.as_object()) {
            for (key, value) in props {
                out.insert(key.clone());
                walk(root, value, out);
            }
        }
        if let Some(more) = v.get("additionalProperties").filter(|a| a.is_object()) {
            walk(root, more, out);
        }
    }
    let mut out = BTreeSet::new();
    walk(schema, schema, &mut out);
    out
}

#[test]
fn every_key_of_the_config_schema_is_in_the_guides_reference() {
    let schema: serde_json::Value =
        serde_json::from_str(&read(&root().join("schemas/config.schema.json"))).unwrap();
    let keys = schema_keys(&schema);
    assert!(
        keys.contains("keep_firing_for") && keys.contains("provisioning"),
        "{keys:?}"
    );
    let reference = read(&root().join("docs/src/configuration.md"));
    let missing: Vec<&String> = keys
        .iter()
        .filter(|k| {
            !reference.contains(&format!("`{k}`")) && !reference.contains(&format!("[{k}]"))
        })
        .collect();
    assert!(
        missing.is_empty(),
        "not in docs/src/configuration.md: {missing:?}"
    );
}

/// The commands of the README's first `sh` block.
fn readme_commands() -> Vec<String> {
    let readme = read(&root().join("README.md"));
    let block = readme
        .split("```sh\n")
        .nth(1)
        .and_then(|b| b.split("```").next())
        .expect("a ```sh block in the README");
    block
        .lines()
        .map(|l| l.split(" #").next().unwrap_or("").trim().to_owned())
        .filter(|l| !l.is_empty())
        .collect()
}

#[test]
fn the_readmes_two_commands_are_the_ones_ci_runs() {
    assert_eq!(
        readme_commands(),
        ["cargo run --release -- --demo", "cargo test"],
        "the README's first block is its two commands"
    );
    let ci = read(&root().join(".ci/run"));
    assert!(
        ci.lines().any(|l| l.trim() == "cargo test"),
        ".ci/run runs the README's test command as it stands"
    );
    // The demo command's flag is one the binary takes.
    let help = std::process::Command::new(env!("CARGO_BIN_EXE_captop"))
        .arg("--help")
        .output()
        .unwrap();
    assert!(String::from_utf8_lossy(&help.stdout).contains("--demo"));
}

#[test]
fn architectures_code_map_names_every_top_level_module_of_src() {
    let map = read(&root().join("ARCHITECTURE.md"));
    let mut missing = Vec::new();
    for entry in std::fs::read_dir(root().join("src")).unwrap() {
        let name = entry.unwrap().file_name().to_string_lossy().into_owned();
        let module = name.trim_end_matches(".rs");
        if matches!(module, "lib") {
            continue; // the crate root, shown by the data-flow diagram
        }
        // A heading of the map links the module: [`src/api/`](src/api), [`src/cli.rs`](src/cli.rs).
        let target = format!("](src/{})", name.trim_end_matches('/'));
        if !map.contains(&target) {
            missing.push(name);
        }
    }
    assert!(
        missing.is_empty(),
        "not in ARCHITECTURE.md's code map: {missing:?}"
    );
}
