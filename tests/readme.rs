//! The README's claims that code can check: its length, its backend table against the backends
//! and features that exist, and its two commands against the example and CI's test command.
//! (Its first program runs as a doctest of the `rokkos` crate, and the guide's examples too.)

use std::path::Path;

fn read(rel: &str) -> String {
    let path = Path::new(env!("CARGO_MANIFEST_DIR")).join(rel);
    std::fs::read_to_string(&path).unwrap_or_else(|e| panic!("{}: {e}", path.display()))
}

/// The body rows of the first Markdown table in `text`, cell by cell.
fn first_table(text: &str) -> Vec<Vec<String>> {
    text.lines()
        .skip_while(|l| !l.starts_with('|'))
        .take_while(|l| l.starts_with('|'))
        .skip(2) // the header and the `| --- |` line
        .map(|l| {
            l.trim_matches('|')
                .split('|')
                .map(|c| c.trim().to_string())
                .collect()
        })
        .collect()
}

/// The keys of the `[features]` table of the root manifest.
fn features() -> Vec<String> {
    let manifest = read("Cargo.toml");
    manifest
        .lines()
        .skip_while(|l| l.trim() != "[features]")
        .skip(1)
        .take_while(|l| !l.trim_start().starts_with('['))
        .filter_map(|l| l.split_once('=').map(|(k, _)| k.trim().to_string()))
        .filter(|k| !k.is_empty() && !k.starts_with('#'))
        .collect()
}

#[test]
fn readme_is_short() {
    let n = read("README.md").lines().count();
    assert!(
        n <= 150,
        "README.md has {n} lines; the rest belongs in docs/guide.md"
    );
}

#[test]
fn backend_table_names_every_backend_and_real_features() {
    let rows = first_table(&read("README.md"));
    let names: Vec<&str> = rows.iter().map(|r| r[0].as_str()).collect();
    let mut known = rokkos::KNOWN_BACKENDS.to_vec();
    known.sort_unstable();
    let mut listed = names.clone();
    listed.sort_unstable();
    assert_eq!(
        listed, known,
        "the README's backend table against KNOWN_BACKENDS"
    );
    let features = features();
    for row in &rows {
        let cell = &row[2];
        if cell == "always on" {
            // Serial is compiled in without a feature; the manifest still names it.
            assert!(features.iter().any(|f| f == &row[0]), "{row:?}");
            continue;
        }
        let feature = cell
            .split('`')
            .nth(1)
            .unwrap_or_else(|| panic!("{row:?}: no feature in backticks"));
        assert!(
            features.iter().any(|f| f == feature),
            "{row:?}: `{feature}` is not a feature of the rokkos crate ({features:?})"
        );
        assert_eq!(feature, row[0], "{row:?}: a backend's feature has its name");
    }
    let default = read("Cargo.toml")
        .lines()
        .find(|l| l.trim_start().starts_with("default"))
        .map(str::to_string)
        .expect("a default feature set");
    assert!(
        default.contains("\"rayon\"") && rows.iter().any(|r| r[2].contains("(default)")),
        "the README says rayon is the default: {default}"
    );
}

#[test]
fn the_two_commands_are_the_ones_that_exist() {
    let readme = read("README.md");
    assert!(readme.contains("cargo run --release --example babelstream\n"));
    assert!(Path::new(env!("CARGO_MANIFEST_DIR"))
        .join("examples/babelstream/main.rs")
        .exists());
    let test = "cargo test --workspace --features wgpu,cuda,mpi";
    assert!(
        readme.contains(&format!("{test}\n")),
        "the README's test command"
    );
    let ci = read(".ci/run");
    assert!(
        ci.lines().any(|l| l.trim_start().starts_with(test)),
        ".ci/run must call exactly the README's test command"
    );
}

#[test]
fn readme_links_exist() {
    let readme = read("README.md");
    for link in readme.split("](").skip(1) {
        let target = link.split(')').next().unwrap_or("");
        if target.starts_with("http") {
            continue;
        }
        assert!(
            Path::new(env!("CARGO_MANIFEST_DIR")).join(target).exists(),
            "README links to {target}, which does not exist"
        );
    }
}

/// The `rokkos-*` crates a manifest's `[dependencies]` table names (not dev-dependencies).
fn rokkos_dependencies(manifest: &str) -> Vec<String> {
    let mut deps: Vec<String> = manifest
        .lines()
        .skip_while(|l| l.trim() != "[dependencies]")
        .skip(1)
        .take_while(|l| !l.trim_start().starts_with('['))
        .filter_map(|l| l.split(['=', '.']).next())
        .map(|k| k.trim().to_string())
        .filter(|k| k.starts_with("rokkos-"))
        .collect();
    deps.sort();
    deps
}

/// Every library crate's README ends with the one line that says which rokkos crates it may
/// depend on, and its manifest depends on exactly those: the layering (rules, ir, core, device,
/// backends) cannot drift without the README saying so. Host backends name no device crate.
#[test]
fn crate_readmes_state_their_dependencies() {
    let crates = [
        "rules",
        "ir",
        "core",
        "device",
        "macros",
        "backend-serial",
        "backend-rayon",
        "backend-wgpu",
        "backend-cuda",
    ];
    for dir in crates {
        let readme = read(&format!("{dir}/README.md"));
        let line = readme
            .lines()
            .find_map(|l| l.strip_prefix("Depends on: "))
            .unwrap_or_else(|| panic!("{dir}/README.md has no `Depends on:` line"));
        let mut said: Vec<String> = match line.trim_end_matches('.') {
            "nothing" => vec![],
            list => list.split(", ").map(str::to_string).collect(),
        };
        said.sort();
        let real = rokkos_dependencies(&read(&format!("{dir}/Cargo.toml")));
        assert_eq!(
            said, real,
            "{dir}: README's `Depends on:` against its manifest"
        );
        if dir.starts_with("backend-serial") || dir.starts_with("backend-rayon") {
            assert!(
                !real.iter().any(|d| d == "rokkos-device"),
                "{dir} depends on device code"
            );
        }
    }
}
