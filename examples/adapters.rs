//! Lists the wgpu adapters of this machine, best first, with the capabilities rokkos kernels use,
//! and says which one `Wgpu::new()` (and so `Device::new()`) takes and why.
//!
//! ```text
//! cargo run --example adapters --features wgpu
//! ```
//!
//! `ROKKOS_WGPU_ADAPTER=<part of a name>` picks another; `ROKKOS_WGPU_HIDE=int64,f64,atomic64`
//! hides capabilities (a testing switch); `WGPU_BACKEND=vulkan|gl|...` limits the graphics APIs
//! wgpu looks at.

#[cfg(feature = "wgpu")]
fn main() {
    let all = rokkos::wgpu_adapters();
    if all.is_empty() {
        println!("no wgpu adapter on this machine");
    }
    for a in &all {
        println!("{a}");
    }
    match rokkos::Wgpu::new() {
        Ok(w) => println!(
            "\ntaken: {} ({}); int64 {}, f64 {}, atomic64 {} (what {} leaves)",
            w.adapter_name(),
            w.chosen_because(),
            w.has_int64(),
            w.has_f64(),
            w.has_atomic64(),
            rokkos::WGPU_HIDE_ENV
        ),
        Err(e) => println!("\nnone taken: {e}"),
    }
}

#[cfg(not(feature = "wgpu"))]
fn main() {
    println!("built without the `wgpu` feature: `cargo run --example adapters --features wgpu`");
}
