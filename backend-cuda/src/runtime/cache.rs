//! Compiled kernels, cached twice: in memory per device (keyed by what determines the source, e.g.
//! the IR hash and launch options, so a hit costs no emission), and on disk as CUBINs (keyed by the
//! source, the architecture, the NVRTC version and the options), so that a second process compiles
//! nothing. A disk entry holds its full key and is used only when that key matches exactly; the
//! file name is merely a hash of it. Files are written to a temporary name and renamed, so two
//! processes racing on one kernel each see a whole file or none.

use super::compile::{self, Arch, Output, NVRTC_OPTIONS};
use super::device::Device;
use super::driver;
use cudarc::driver::{CudaFunction, CudaModule};
use rokkos_core::Result;
use rokkos_device::runtime::fast_map::FastMap;
use std::path::PathBuf;
use std::sync::atomic::{AtomicUsize, Ordering};
use std::sync::{Arc, Mutex};

/// Environment variable naming the folder of the on-disk kernel cache; `off` disables it.
/// Default: `$XDG_CACHE_HOME/rokkos/cuda`, else `$HOME/.cache/rokkos/cuda`.
pub const CACHE_DIR_ENV: &str = "ROKKOS_CUDA_CACHE_DIR";

/// First line of a cache file; bump the number when the format changes.
const MAGIC: &[u8] = b"rokkos-cuda-cubin 1\n";

static COMPILES: AtomicUsize = AtomicUsize::new(0);

pub(crate) fn count_compile() {
    COMPILES.fetch_add(1, Ordering::Relaxed);
}

/// How many times this process has run NVRTC (0 in a process whose kernels all came from the
/// disk cache).
pub fn nvrtc_compiles() -> usize {
    COMPILES.load(Ordering::Relaxed)
}

/// A loaded kernel: its module and entry point.
pub(crate) struct Compiled {
    pub function: CudaFunction,
    /// `kernel` (entry) in messages.
    pub name: String,
    /// Blocks of `block` threads one SM keeps resident (the occupancy calculator's answer,
    /// asked once per block size).
    occupancy: Mutex<FastMap<u32, u32>>,
    _module: Arc<CudaModule>,
}

impl Compiled {
    /// Blocks of `block` threads (with no dynamic shared memory) that one SM runs at once; at
    /// least 1.
    pub(crate) fn blocks_per_sm(&self, block: u32) -> Result<u32> {
        let mut m = self.occupancy.lock().unwrap_or_else(|p| p.into_inner());
        if let Some(&n) = m.get(&block) {
            return Ok(n);
        }
        let n = self
            .function
            .occupancy_max_active_blocks_per_multiprocessor(block, 0, None)
            .map_err(|e| driver::error("cuOccupancyMaxActiveBlocksPerMultiprocessor", e))?
            .max(1);
        m.insert(block, n);
        Ok(n)
    }
}

/// One loaded module and the entry points taken from it so far.
struct Loaded {
    module: Arc<CudaModule>,
    name: String,
    functions: FastMap<String, Arc<Compiled>>,
}

/// The kernels loaded on one device.
#[derive(Default)]
pub(crate) struct ModuleCache {
    loaded: Mutex<FastMap<u64, Loaded>>,
}

impl ModuleCache {
    /// The kernel `entry` for `key` (a hash of everything that determines the source): loaded
    /// already, or built from `source()` through the disk cache or NVRTC and loaded now.
    #[cfg(test)]
    pub(crate) fn get_or_load(
        &self,
        device: &Device,
        key: u64,
        entry: &str,
        source: impl FnOnce() -> Result<String>,
    ) -> Result<Arc<Compiled>> {
        Ok(self
            .entries(device, key, entry, &[entry], source)?
            .remove(0))
    }

    /// The entry points `entries` of one module, for `key` (a hash of everything that
    /// determines the source): loaded already, or built from `source()` through the disk cache
    /// or NVRTC (named `name` in errors and cache files) and loaded now, once for all entries.
    pub(crate) fn entries(
        &self,
        device: &Device,
        key: u64,
        name: &str,
        entries: &[&str],
        source: impl FnOnce() -> Result<String>,
    ) -> Result<Vec<Arc<Compiled>>> {
        let mut map = self.loaded.lock().unwrap_or_else(|p| p.into_inner());
        let loaded = match map.entry(key) {
            std::collections::hash_map::Entry::Occupied(e) => e.into_mut(),
            std::collections::hash_map::Entry::Vacant(slot) => {
                // Compiling under the lock keeps two threads from compiling one kernel twice;
                // other kernels wait meanwhile, which only happens while a program warms up.
                let source = source()?;
                let image = cubin(&source, name, device.arch())?;
                device
                    .ctx
                    .bind_to_thread()
                    .map_err(|e| driver::error("cuCtxSetCurrent", e))?;
                let module = device
                    .ctx
                    .load_module(cudarc::nvrtc::Ptx::from_binary(image))
                    .map_err(|e| driver::error("cuModuleLoadData", e))?;
                slot.insert(Loaded {
                    module,
                    name: name.to_string(),
                    functions: FastMap::default(),
                })
            }
        };
        entries
            .iter()
            .map(|&entry| {
                if let Some(c) = loaded.functions.get(entry) {
                    return Ok(c.clone());
                }
                let function = loaded
                    .module
                    .load_function(entry)
                    .map_err(|e| driver::error(&format!("cuModuleGetFunction `{entry}`"), e))?;
                let c = Arc::new(Compiled {
                    function,
                    name: format!("{} ({entry})", loaded.name),
                    occupancy: Mutex::default(),
                    _module: loaded.module.clone(),
                });
                loaded.functions.insert(entry.to_string(), c.clone());
                Ok(c)
            })
            .collect()
    }
}

/// The CUBIN of `source` for `arch`: from the disk cache, or compiled by NVRTC now and stored
/// there. Needs NVRTC only on a miss, and no GPU.
pub fn cubin(source: &str, kernel: &str, arch: Arch) -> Result<Vec<u8>> {
    let (major, minor) = driver::nvrtc()?;
    let key = format!(
        "{arch}\nnvrtc {major}.{minor}\n{}\n{kernel}\n{source}",
        NVRTC_OPTIONS.join(" ")
    );
    let file =
        cache_dir().map(|d| d.join(format!("{kernel}-{:016x}.cubin", fnv1a(key.as_bytes()))));
    if let Some(image) = file.as_ref().and_then(|f| read_entry(f, key.as_bytes())) {
        return Ok(image);
    }
    let image = compile::compile(source, kernel, arch, Output::Cubin)?;
    if let Some(f) = &file {
        // The cache is an optimisation: failing to write it is not an error of the launch.
        let _ = write_entry(f, key.as_bytes(), &image);
    }
    Ok(image)
}

/// The cache folder, or `None` when disabled or no home is known.
fn cache_dir() -> Option<PathBuf> {
    match std::env::var_os(CACHE_DIR_ENV) {
        Some(d) if d == "off" => None,
        Some(d) if !d.is_empty() => Some(PathBuf::from(d)),
        _ => std::env::var_os("XDG_CACHE_HOME")
            .filter(|d| !d.is_empty())
            .map(PathBuf::from)
            .or_else(|| std::env::var_os("HOME").map(|h| PathBuf::from(h).join(".cache")))
            .map(|d| d.join("rokkos").join("cuda")),
    }
}

/// The image stored in `file` under exactly `key`, or `None`.
fn read_entry(file: &std::path::Path, key: &[u8]) -> Option<Vec<u8>> {
    let data = std::fs::read(file).ok()?;
    let rest = data.strip_prefix(MAGIC)?;
    let (len, rest) = rest.split_first_chunk::<8>()?;
    let len = usize::try_from(u64::from_le_bytes(*len)).ok()?;
    let (stored, image) = (rest.get(..len)?, rest.get(len..)?);
    (stored == key && !image.is_empty()).then(|| image.to_vec())
}

/// Writes `key` and `image` to `file` through a temporary file and a rename.
fn write_entry(file: &std::path::Path, key: &[u8], image: &[u8]) -> std::io::Result<()> {
    static SEQ: AtomicUsize = AtomicUsize::new(0);
    let dir = file.parent().ok_or(std::io::ErrorKind::NotFound)?;
    std::fs::create_dir_all(dir)?;
    let tmp = dir.join(format!(
        ".{}.{}.{}.tmp",
        file.file_name().and_then(|n| n.to_str()).unwrap_or("entry"),
        std::process::id(),
        SEQ.fetch_add(1, Ordering::Relaxed)
    ));
    let mut data = Vec::with_capacity(MAGIC.len() + 8 + key.len() + image.len());
    data.extend_from_slice(MAGIC);
    data.extend_from_slice(&(key.len() as u64).to_le_bytes());
    data.extend_from_slice(key);
    data.extend_from_slice(image);
    let written = std::fs::write(&tmp, &data).and_then(|()| std::fs::rename(&tmp, file));
    if written.is_err() {
        let _ = std::fs::remove_file(&tmp);
    }
    written
}

/// FNV-1a, 64-bit: names cache files (collisions are harmless, the stored key decides).
fn fnv1a(bytes: &[u8]) -> u64 {
    bytes.iter().fold(0xcbf2_9ce4_8422_2325, |h, &b| {
        (h ^ b as u64).wrapping_mul(0x0000_0100_0000_01b3)
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn entries_round_trip_and_a_different_key_misses() {
        let dir =
            std::env::temp_dir().join(format!("rokkos-cuda-cache-test-{}", std::process::id()));
        let f = dir.join("k-0.cubin");
        write_entry(&f, b"key one", b"\x7fELF image").unwrap();
        assert_eq!(
            read_entry(&f, b"key one").as_deref(),
            Some(&b"\x7fELF image"[..])
        );
        assert_eq!(read_entry(&f, b"key two"), None);
        assert_eq!(read_entry(&f, b"key on"), None);
        // A truncated file (a crash mid-write without the rename would leave none) is a miss.
        let data = std::fs::read(&f).unwrap();
        std::fs::write(&f, &data[..MAGIC.len() + 4]).unwrap();
        assert_eq!(read_entry(&f, b"key one"), None);
        // No temporary files remain.
        let left: Vec<_> = std::fs::read_dir(&dir)
            .unwrap()
            .map(|e| e.unwrap().file_name())
            .collect();
        assert_eq!(left.len(), 1, "{left:?}");
        std::fs::remove_dir_all(&dir).unwrap();
    }

    #[test]
    fn file_names_hash_the_key() {
        assert_eq!(fnv1a(b""), 0xcbf2_9ce4_8422_2325);
        assert_eq!(fnv1a(b"a"), 0xaf63_dc4c_8601_ec8c);
        assert_ne!(fnv1a(b"sm_90"), fnv1a(b"sm_80"));
    }
}
