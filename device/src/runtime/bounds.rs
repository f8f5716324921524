//! Which View bounds checks a device launch keeps: the one switch of every device backend,
//! `ROKKOS_DEVICE_BOUNDS_CHECKS`.
//!
//! # The decision: checks stay on in every build
//!
//! The native path checks every View index in debug **and release** builds (an index outside the
//! extents is `Err(OutOfBounds)`, as a slice index panics in release Rust too); it drops only the
//! per-element checks of accesses it has proven in bounds for a whole chunk or tile before
//! running it (`#[kernel]`'s box-checked body variant). The device backends do the same, in
//! every build profile:
//!
//! - every View access of a device kernel is checked against its extents, and a violation is
//!   `Err(OutOfBounds)` naming kernel, View, index and extent at the next synchronisation;
//! - a check is dropped only where the launcher proved it redundant for the whole launch: an
//!   access whose every index is a work index plus or minus a literal (`u[i - 1]`,
//!   `u[(i, j + 1)]`), when the policy's bounds keep it inside the View's extents for every work
//!   item ([`crate::emit::inbounds`], [`crate::runtime::prepare::Prepared::proven`]).
//!
//! There is deliberately no setting that turns checks off. An unchecked device access is reachable
//! from safe code (the index is the user's value) and would read or write device memory outside
//! the View's buffer: undefined behaviour, which no public item may allow. The cost the checks
//! leave is a compare and a not-taken branch per access (the recording is off the hot path).
//!
//! # The switch
//!
//! `ROKKOS_DEVICE_BOUNDS_CHECKS`, read once per process:
//!
//! - unset, `proven` or `1`: [`BoundsChecks::DropProven`], the default in every build;
//! - `all`: [`BoundsChecks::All`], every access checked, the proven ones too. For checking the
//!   launchers' proofs, or comparing a kernel's speed with and without the elision;
//! - `0`, `off` or anything else: not honoured (see above); the default applies and one line on
//!   standard error says why.

use std::sync::OnceLock;

/// The environment variable of the switch.
pub const ENV: &str = "ROKKOS_DEVICE_BOUNDS_CHECKS";

/// Which bounds checks a device launch keeps (see the module documentation).
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum BoundsChecks {
    /// Every access is checked except those the launcher proved in bounds for the whole launch.
    DropProven,
    /// Every access is checked.
    All,
}

impl BoundsChecks {
    /// The setting a value of [`ENV`] asks for: `Err` with the reason for a value that is not
    /// honoured (the caller falls back to [`BoundsChecks::DropProven`]).
    pub fn parse(value: Option<&str>) -> Result<BoundsChecks, String> {
        match value.map(str::trim) {
            None | Some("" | "proven" | "1") => Ok(BoundsChecks::DropProven),
            Some("all") => Ok(BoundsChecks::All),
            Some(v @ ("0" | "off" | "false" | "none")) => Err(format!(
                "{ENV}={v} is not honoured: device bounds checks stay on in every build, as on \
                 the native path (an unchecked access could touch memory outside the View's \
                 buffer); only checks proven redundant are dropped"
            )),
            Some(v) => Err(format!(
                "{ENV}={v} is not a setting (`proven`, the default, or `all`)"
            )),
        }
    }

    /// This process's setting: [`ENV`] read once (a value not honoured is reported once on
    /// standard error and the default applies).
    pub fn get() -> BoundsChecks {
        static SETTING: OnceLock<BoundsChecks> = OnceLock::new();
        *SETTING.get_or_init(|| {
            let v = std::env::var(ENV).ok();
            BoundsChecks::parse(v.as_deref()).unwrap_or_else(|why| {
                // Straight to the process's standard error (a test harness's capture takes
                // only the print macros), so that the line is seen wherever the setting is.
                use std::io::Write;
                let _ = writeln!(std::io::stderr().lock(), "rokkos: {why}");
                BoundsChecks::DropProven
            })
        })
    }

    /// Whether a check the launcher proved redundant may be dropped.
    pub fn drop_proven(self) -> bool {
        self == BoundsChecks::DropProven
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_switch_keeps_checks_on_whatever_it_is_set_to() {
        use BoundsChecks::*;
        assert_eq!(BoundsChecks::parse(None), Ok(DropProven));
        for v in ["", "proven", "1", " proven "] {
            assert_eq!(BoundsChecks::parse(Some(v)), Ok(DropProven), "{v:?}");
        }
        assert_eq!(BoundsChecks::parse(Some("all")), Ok(All));
        assert!(!All.drop_proven() && DropProven.drop_proven());
        for v in ["0", "off", "false", "none"] {
            let why = BoundsChecks::parse(Some(v)).unwrap_err();
            assert!(why.contains("not honoured"), "{why}");
        }
        let why = BoundsChecks::parse(Some("fast")).unwrap_err();
        assert!(why.contains("not a setting"), "{why}");
    }
}
