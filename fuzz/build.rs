//! Writes the fuzzer's kernels into `$OUT_DIR/kernels.rs`: the seed corpus plus
//! `ROKKOS_FUZZ_KERNELS` random kernels of seed `ROKKOS_FUZZ_SEED`, or exactly the specs of
//! `ROKKOS_FUZZ_CASES` (comma-separated).

use rokkos_fuzz_gen::{corpus, source_file, Spec, DEFAULT_KERNELS, DEFAULT_SEED};

fn env_num(key: &str, default: u64) -> u64 {
    println!("cargo:rerun-if-env-changed={key}");
    match std::env::var(key) {
        Ok(v) => v
            .trim()
            .parse()
            .unwrap_or_else(|_| panic!("{key}={v} is not a number")),
        Err(_) => default,
    }
}

fn main() {
    println!("cargo:rerun-if-changed=build.rs");
    println!("cargo:rerun-if-env-changed=ROKKOS_FUZZ_CASES");
    let seed = env_num("ROKKOS_FUZZ_SEED", DEFAULT_SEED);
    let count = env_num("ROKKOS_FUZZ_KERNELS", DEFAULT_KERNELS);
    let (cases, header) = match std::env::var("ROKKOS_FUZZ_CASES") {
        Ok(list) if !list.trim().is_empty() => {
            let cases: Vec<Spec> = list
                .split(',')
                .map(|t| {
                    Spec::parse(t).unwrap_or_else(|| panic!("bad spec `{t}` in ROKKOS_FUZZ_CASES"))
                })
                .collect();
            (cases, format!("ROKKOS_FUZZ_CASES={list}"))
        }
        _ => {
            let mut cases: Vec<Spec> = corpus::CASES
                .iter()
                .map(|c| Spec::Corpus(c.name.to_string()))
                .collect();
            cases.extend((0..count).map(|index| Spec::Random { seed, index }));
            (cases, format!("Seed {seed}, {count} random kernels."))
        }
    };
    let out = std::path::Path::new(&std::env::var("OUT_DIR").expect("OUT_DIR")).join("kernels.rs");
    std::fs::write(&out, source_file(&cases, &header)).expect("writing kernels.rs");
}
