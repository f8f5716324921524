//! A launch's kernel and arguments as a device backend reads them: the IR (built, validated and
//! hashed once per kernel type), the View bindings and scalars in IR parameter order, checked
//! against the parameters, and the facts the emitters' fast variants depend on.

use super::fast_map::FastMap;
use crate::emit::inbounds::{self, Proven, Site};
use crate::emit::window::{self, Reach};
use rokkos_core::error::{Error, Result};
use rokkos_core::ir::{self, valid::KernelInfo, Value};
use rokkos_core::kernel::{KernelArg, KernelIr, ViewBinding};
use rokkos_core::space::MemorySpace;
use std::sync::{Arc, Mutex};

/// A kernel's validated IR, its analysis and its stable hash.
pub type KernelEntry = (Arc<ir::Kernel>, Arc<DeviceInfo>, u64);

/// What a device launch needs to know of a valid kernel: the validator's analysis
/// ([`KernelInfo`], which this dereferences to) and the facts only device launches use, found
/// once per kernel here rather than by the IR crate's validator.
#[derive(Debug, Clone)]
pub struct DeviceInfo {
    /// The validator's analysis.
    pub analysis: KernelInfo,
    /// The View accesses whose every index is a shifted work index, the candidates a launch may
    /// prove in bounds ([`inbounds::sites`]; proven per launch).
    pub shifted: Vec<Site>,
    /// How the body reaches each View parameter, in parameter order: whether a windowed launch
    /// can bound the elements a run of work items touches ([`window::reaches`]; planned per launch).
    pub reach: Vec<Reach>,
}

impl DeviceInfo {
    /// The facts of `kernel`, which `analysis` describes (its [`ir::valid::validate`] result).
    pub fn new(kernel: &ir::Kernel, analysis: KernelInfo) -> Self {
        DeviceInfo {
            analysis,
            shifted: inbounds::sites(kernel),
            reach: window::reaches(kernel),
        }
    }

    /// Validates `kernel` and finds its facts.
    pub fn validate(kernel: &ir::Kernel) -> std::result::Result<Self, ir::valid::ValidationError> {
        Ok(Self::new(kernel, ir::valid::validate(kernel)?))
    }
}

impl std::ops::Deref for DeviceInfo {
    type Target = KernelInfo;
    fn deref(&self) -> &KernelInfo {
        &self.analysis
    }
}

/// The validated IR of every kernel type launched on a device, keyed by the address of the type's
/// IR builder (`KernelIr::build_ir`; the IR depends only on the type).
#[derive(Default)]
pub struct KernelCache {
    kernels: Mutex<FastMap<usize, Arc<KernelEntry>>>,
}

/// A kernel's IR with its arguments.
pub struct Prepared<'a, M: MemorySpace> {
    /// The validated IR.
    pub ir: Arc<ir::Kernel>,
    /// Its analysis.
    pub info: Arc<DeviceInfo>,
    /// Its stable hash (the compiled-kernel caches' key).
    pub hash: u64,
    /// View arguments, in IR parameter order.
    pub views: Vec<ViewBinding<'a, M>>,
    /// Scalar arguments, in IR parameter order.
    pub scalars: Vec<Value>,
}

impl KernelCache {
    /// The IR of `K`, from the cache or built and validated now. `unsupported` turns a kernel
    /// the IR builder refuses into the backend's error.
    pub fn entry<K: KernelIr>(
        &self,
        unsupported: impl FnOnce(String) -> Error,
    ) -> Result<Arc<KernelEntry>> {
        // Not `type_name`, which is not unique: two `#[func] fn g` in two blocks of one function
        // (or kernels so declared) print alike, and a kernel taking one or the other as a value
        // would get the other's IR. Not `TypeId`: kernel types borrow their Views. The builder's
        // address tells kernel types apart: two types share one only where the linker merged
        // identical builders, which build the same IR, and one type with two addresses (one per
        // codegen unit) only costs a second entry.
        let key = K::build_ir as fn() -> _ as usize;
        if let Some(e) = self.kernels.lock().ok().and_then(|m| m.get(&key).cloned()) {
            return Ok(e);
        }
        let ir = K::build_ir().map_err(|e| unsupported(format!("kernel `{}`: {e}", K::NAME)))?;
        let info = DeviceInfo::validate(&ir)
            .map_err(|e| Error::InvalidArgument(format!("kernel IR rejected: {e}")))?;
        let hash = ir.stable_hash();
        let e = Arc::new((Arc::new(ir), Arc::new(info), hash));
        if let Ok(mut m) = self.kernels.lock() {
            m.insert(key, e.clone());
        }
        Ok(e)
    }

    /// `kernel`'s IR and arguments, each checked against its parameter (count, element type,
    /// rank, and `on_device`: whether a View's buffer belongs to this device).
    pub fn prepare<'a, K: KernelIr>(
        &self,
        kernel: &'a K,
        unsupported: impl FnOnce(String) -> Error,
        on_device: impl Fn(&<K::Space as MemorySpace>::Buffer) -> bool,
    ) -> Result<Prepared<'a, K::Space>> {
        let entry = self.entry::<K>(unsupported)?;
        let (ir, info, hash) = (entry.0.clone(), entry.1.clone(), entry.2);
        let mut views = Vec::new();
        let mut scalars = Vec::new();
        kernel.visit_args(&mut |a| match a {
            KernelArg::View(v) => views.push(v),
            KernelArg::Scalar(s) => scalars.push(s),
        });
        if views.len() != ir.views.len() || scalars.len() != ir.scalars.len() {
            return Err(Error::InvalidArgument(format!(
                "kernel `{}`: {} View and {} scalar arguments for {} View and {} scalar parameters",
                ir.name,
                views.len(),
                scalars.len(),
                ir.views.len(),
                ir.scalars.len()
            )));
        }
        for (v, p) in views.iter().zip(&ir.views) {
            if v.elem != p.elem || v.extents.len() != p.rank as usize {
                return Err(Error::InvalidArgument(format!(
                    "kernel `{}`: argument `{}` is not a rank-{} {} View",
                    ir.name, p.name, p.rank, p.elem
                )));
            }
            if !on_device(v.buffer) {
                return Err(Error::InvalidArgument(format!(
                    "kernel `{}`: View `{}` lives on another device",
                    ir.name, v.label
                )));
            }
        }
        for (s, p) in scalars.iter().zip(&ir.scalars) {
            if s.ty() != p.ty {
                return Err(Error::InvalidArgument(format!(
                    "kernel `{}`: scalar `{}` is {}, expected {}",
                    ir.name,
                    p.name,
                    s.ty(),
                    p.ty
                )));
            }
        }
        Ok(Prepared {
            ir,
            info,
            hash,
            views,
            scalars,
        })
    }
}

impl<M: MemorySpace> Prepared<'_, M> {
    /// What the error book keeps of a launch of this kernel with these arguments, launched by
    /// the calling thread and not submitted yet.
    pub fn launch_record(&self) -> crate::runtime::errors::LaunchRecord {
        crate::runtime::errors::LaunchRecord {
            ir: self.ir.clone(),
            views: self
                .views
                .iter()
                .map(|v| (v.label.to_string(), v.extents.to_vec()))
                .collect(),
            thread: std::thread::current().id(),
            batch: u64::MAX,
        }
    }

    /// Whether every View argument's addressed elements lie below element `u32::MAX` of its
    /// buffer, so that 32-bit address arithmetic computes the same offsets.
    pub fn addr32_ok(&self) -> bool {
        self.views.iter().all(|v| {
            let span = rokkos_core::layout::span_of(v.extents, v.strides) as u64;
            (v.offset as u64)
                .checked_add(span)
                .is_some_and(|end| end < u32::MAX as u64)
        })
    }

    /// Whether this launch satisfies the 32-bit index variant's launch facts
    /// ([`crate::emit::width`]): every View extent, every `usize` scalar argument and every
    /// policy bound in `bounds` at most [`crate::emit::width::ATOM_MAX`], and every View's
    /// elements below element `u32::MAX` of its buffer. Every device backend decides its
    /// variant here, so that they agree on which launches may run 32-bit.
    pub fn launch_fits(&self, bounds: &[u64]) -> bool {
        let sizes = self
            .views
            .iter()
            .flat_map(|v| v.extents.iter().map(|&e| e as u64))
            .chain(self.scalars.iter().filter_map(|s| match s {
                Value::U64(x) => Some(*x),
                _ => None,
            }))
            .chain(bounds.iter().copied());
        crate::emit::width::launch_fits(sizes, self.addr32_ok())
    }

    /// The index variant of this launch ([`crate::emit::width::choose`]), the one decision
    /// every device backend takes: the 32-bit one when the launch satisfies the launch facts
    /// ([`Prepared::launch_fits`] over `bounds`) and the kernel's plan or this launch's own
    /// proof holds. `work` is the policy's work space: the begin and end of each dimension, or
    /// a team launch's league size, team size and vector length.
    pub fn index_width(
        &self,
        work: crate::emit::width::Work,
        bounds: &[u64],
    ) -> crate::emit::width::Choice {
        crate::emit::width::choose(self.hash, &self.ir, self.launch_fits(bounds), || {
            crate::emit::width::LaunchAtoms {
                work,
                extents: self
                    .views
                    .iter()
                    .map(|v| v.extents.iter().map(|&e| e as u64).collect())
                    .collect(),
                scalars: self
                    .scalars
                    .iter()
                    .map(|s| match s {
                        Value::U64(x) => Some(*x),
                        _ => None,
                    })
                    .collect(),
            }
        })
    }

    /// The accesses a device launch over `bounds` (`begin..end` of each work dimension: one for
    /// a range, `N` for an MDRange) emits unchecked: those [`Prepared::prove`] proves, unless the
    /// device bounds-check setting ([`crate::runtime::bounds`]) keeps every check.
    pub fn proven(&self, bounds: &[(usize, usize)]) -> Proven {
        if crate::runtime::bounds::BoundsChecks::get().drop_proven() {
            self.prove(bounds)
        } else {
            Proven::NONE
        }
    }

    /// The kernel's accesses at shifted work indices ([`crate::emit::inbounds`]) that stay
    /// inside their View's extents for every work item of a launch over `bounds`.
    pub fn prove(&self, bounds: &[(usize, usize)]) -> Proven {
        let bounds: Vec<(u64, u64)> = bounds.iter().map(|&(b, e)| (b as u64, e as u64)).collect();
        let extents: Vec<&[usize]> = self.views.iter().map(|v| v.extents).collect();
        Proven::prove(&self.info.shifted, &bounds, &extents)
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::emit::width::ATOM_MAX;
    use rokkos_core::ir::build::KernelBuilder;
    use rokkos_core::ir::{Access, ScalarType, WorkKind};
    use rokkos_core::{HostBuffer, HostSpace};

    /// The launch facts: every extent, `usize` scalar and policy bound at most `ATOM_MAX`, and
    /// every View's elements below element `u32::MAX` of its buffer; any one past its limit
    /// sends the launch to the 64-bit variant.
    #[test]
    fn launch_fits_checks_every_launch_fact() {
        let mut kb = KernelBuilder::new("facts", WorkKind::Range);
        let i = kb.work_index(0);
        let a = kb.view::<f32>("a", 1, Access::Writable);
        let _n = kb.scalar::<usize>("n");
        kb.store(a, i, 1.0f32);
        let ir = kb.finish().unwrap();
        let info = DeviceInfo::validate(&ir).unwrap();
        let buf = HostBuffer::from_owner(vec![0u8; 16]);
        let at =
            |offset: usize, extent: &'static [usize], stride: &'static [usize], n: u64| Prepared::<
                HostSpace,
            > {
                ir: Arc::new(ir.clone()),
                info: Arc::new(info.clone()),
                hash: 0,
                views: vec![ViewBinding {
                    param: "a",
                    label: "A",
                    buffer: &buf,
                    elem: ScalarType::F32,
                    offset,
                    extents: extent,
                    strides: stride,
                    writable: true,
                }],
                scalars: vec![Value::U64(n)],
            };
        let max = ATOM_MAX as usize;
        assert!(at(0, &[4], &[1], 7).launch_fits(&[0, 4]));
        assert!(at(0, &[2147483647], &[1], ATOM_MAX).launch_fits(&[0, ATOM_MAX]));
        // An extent, a scalar, a bound past 2^31 - 1.
        assert!(!at(0, &[2147483648], &[1], 7).launch_fits(&[0, 4]));
        assert!(!at(0, &[4], &[1], ATOM_MAX + 1).launch_fits(&[0, 4]));
        assert!(!at(0, &[4], &[1], 7).launch_fits(&[0, ATOM_MAX + 1]));
        // A span reaching element u32::MAX: a stride that multiplies a small extent past it,
        // or an offset that puts the View there.
        assert!(!at(0, &[4], &[1 << 31], 7).launch_fits(&[0, 4]));
        assert!(!at(u32::MAX as usize - 2, &[4], &[1], 7).launch_fits(&[0, 4]));
        assert!(at(max, &[4], &[1], 7).launch_fits(&[0, 4]));
    }
}
