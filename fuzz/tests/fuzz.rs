//! The differential fuzzer: the kernels the build script generated (the seed corpus and random
//! kernels), run on every backend and compared with serial. See the `rokkos_fuzz` crate docs for
//! the environment variables; `scripts/fuzz.sh` runs long campaigns.

/// The generated kernels and their launch code.
mod generated {
    // Generated code is random on purpose: constant overflows and panics are what it tests,
    // and lints about style would only be noise.
    #![allow(
        arithmetic_overflow,
        unconditional_panic,
        overflowing_literals,
        unused,
        warnings,
        clippy::all,
        clippy::pedantic
    )]
    use rokkos::prelude::*;
    use rokkos::{MinMaxVal, TeamSize, ValLoc};
    use rokkos_fuzz::rt;
    include!(concat!(env!("OUT_DIR"), "/kernels.rs"));
}

fn main() {
    std::process::exit(rokkos_fuzz::main(&generated::Runner, generated::CASES));
}
