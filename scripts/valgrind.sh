#!/usr/bin/env bash
# Memcheck (valgrind) over the host backends' tests: the code that does unsafe things on the
# host runs with its memory accesses checked (invalid reads and writes, use of uninitialised
# values, invalid frees). Exits non-zero when memcheck reports an error or a test fails.
#
# Covered (6 to 7 minutes of two cores here):
#   - the equivalence suite on serial and on rayon (a private pool of two workers): View
#     accessors of every rank and layout, subviews and strided Views, team scratch arenas,
#     rayon's chunked for/reduce/scan and tiled MDRange, atomics, host guards blocking launches,
#     launch argument checks, failing kernels (panics unwinding through a launch);
#   - the host View API tests that need no space: host()/host_mut() guards, adopted and
#     unmanaged Views, deep_copy across layouts, resize/realloc, mirrors;
#   - the differential fuzzer's kernels (corpus and the default seed) on serial, rayon and the
#     IR evaluator: generated code through the same accessors, with edge values and failures.
# Not covered: data races (helgrind and DRD report thousands of false positives on the C11
# atomics of Rust's std and rayon, which they do not model; ThreadSanitizer needs nightly),
# leaks (not undefined behaviour; std and test-harness allocations would need suppressions),
# the wgpu backend (lavapipe under valgrind is impractically slow), the CUDA backend and its
# compile check, rayon's global pool
# (`rayon_global`: the same code as the private pool) and the IR-evaluator copies of the suite
# (safe code over the same host buffers, whose copies the fuzzer's evaluator runs exercise).
#
# The executables are built with the profile and features of the README's test command
# (`cargo test --workspace --features wgpu,cuda,mpi`), so that command then reuses them.
set -euo pipefail
cd "$(dirname "$0")/.."
export CARGO_TERM_COLOR=never
command -v valgrind >/dev/null || { echo "valgrind.sh: valgrind is not installed" >&2; exit 1; }
mkdir -p target/valgrind
cargo test --workspace --features wgpu,cuda,mpi --no-run --message-format=json >target/valgrind/build.json
exe() {
    grep -o "\"executable\":\"[^\"]*/deps/$1-[0-9a-f]*\"" target/valgrind/build.json |
        head -1 | sed 's/"executable":"//; s/"$//'
}
equivalence="$(exe equivalence)"
fuzz="$(exe fuzz)"
if [ -z "$equivalence" ] || [ -z "$fuzz" ]; then echo "valgrind.sh: test executables not found" >&2; exit 1; fi
memcheck=(valgrind --error-exitcode=99 --leak-check=no -q)
# `run_on_every_available_backend` starts wgpu too: loading the Vulkan driver trips memcheck's
# known false positive in glibc's dynamic loader (an 8-byte strncmp read past a strdup'd rpath).
# `cuda_check` runs the evaluator (covered by the fuzzer's runs) and NVRTC, a closed library that
# takes hours under memcheck; `cuda` and `device_cuda` run on a GPU's driver or on the CUDA
# emulator (tools/cuda-emu), whose fibers switch stacks under memcheck's feet.
skip=(--skip wgpu --skip ir_eval --skip rayon_global --skip ir_hashes --skip run_on_every_available_backend
    --skip cuda)
export ROKKOS_FUZZ_BACKENDS=rayon,ir-eval
run() {
    local name="$1"
    shift
    local start=$SECONDS
    if "$@" >"target/valgrind/$name.log" 2>&1; then
        echo "valgrind.sh: $name clean ($((SECONDS - start)) s)"
    else
        echo "valgrind.sh: $name FAILED (exit $?), last lines of target/valgrind/$name.log:"
        tail -40 "target/valgrind/$name.log"
        return 1
    fi
}
# Two processes at a time (valgrind runs each process's threads on one core), of about the same
# length here: the rayon instances with `more_atomic_operations` on serial (the suite's slowest
# test under memcheck, 90 s of 340 for the serial and host tests), and the others; then the
# fuzzer.
slow=atomics::more_atomic_operations::serial
status=0
run equivalence-rayon "${memcheck[@]}" "$equivalence" ::rayon "$slow" "${skip[@]}" --test-threads=1 &
a=$!
run equivalence-serial-and-host "${memcheck[@]}" "$equivalence" --skip ::rayon --skip "$slow" "${skip[@]}" \
    --test-threads=1 || status=1
run fuzz-host "${memcheck[@]}" "$fuzz" || status=1
wait $a || status=1
exit $status
