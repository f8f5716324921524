//! A tour of rokkos in nine programs, each written once against the run-time execution space
//! `rokkos::Device` (no generic parameter, no visitor) and checking its own result:
//!
//! ```sh
//! cargo run --example tour                      # all nine on ROKKOS_BACKEND or the best backend
//! ROKKOS_BACKEND=serial cargo run --example tour jacobi
//! cargo run --features wgpu --example tour -- --n 100000 axpy_dot
//! ROKKOS_BACKEND=cuda cargo run --features cuda --example tour   # on an NVIDIA GPU
//! ```
//!
//! The test suite runs all nine on serial, rayon and wgpu (`tests/tour.rs`).

mod programs;

use rokkos::Device;

fn main() -> Result<(), Box<dyn std::error::Error>> {
    let mut n = 4096;
    let mut wanted = Vec::new();
    let mut args = std::env::args().skip(1);
    while let Some(a) = args.next() {
        match a.as_str() {
            "--n" => n = args.next().ok_or("--n needs a number")?.parse()?,
            "-h" | "--help" => {
                let names: Vec<_> = programs::ALL.iter().map(|(name, _)| *name).collect();
                println!(
                    "usage: tour [--n N] [PROGRAM ...]; programs: {}",
                    names.join(", ")
                );
                return Ok(());
            }
            name => wanted.push(name.to_string()),
        }
    }
    let dev = Device::new()?;
    println!("device: {}", rokkos::ExecutionSpace::name(&dev));
    for (name, run) in programs::ALL {
        if wanted.is_empty() || wanted.iter().any(|w| w == name) {
            println!("{name}: {}", run(&dev, n)?);
        }
    }
    Ok(())
}
