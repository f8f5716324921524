//! Team operations: queries of the team member, nested ranges, built-in nested reducers, `single`.
//!
//! Nested constructs split their index range across the threads (`Thread`), the vector lanes of the
//! calling thread (`Vector`) or all threads and lanes of the team (`TeamVector`). A team-wide construct
//! (a barrier, a `Thread`/`TeamVector` nested range, a team `single`, a broadcast, a team scratch
//! allocation) must be reached by every thread of the team: the validator rejects it under control
//! flow that depends on thread-varying values (see `crate::valid`).

use crate::types::{ScalarType, Value};

/// A query of the team member; every query has type `u64` (`usize`).
#[derive(Clone, Copy, Debug, PartialEq, Eq, PartialOrd, Ord, Hash)]
pub enum TeamQuery {
    /// This team's index in the league.
    LeagueRank,
    /// Number of teams.
    LeagueSize,
    /// This thread's index in its team.
    TeamRank,
    /// Threads per team.
    TeamSize,
    /// Vector lanes per thread.
    VectorLength,
}

impl TeamQuery {
    /// The `TeamMember` method name.
    pub fn name(self) -> &'static str {
        match self {
            TeamQuery::LeagueRank => "league_rank",
            TeamQuery::LeagueSize => "league_size",
            TeamQuery::TeamRank => "team_rank",
            TeamQuery::TeamSize => "team_size",
            TeamQuery::VectorLength => "vector_length",
        }
    }
    /// Whether every thread of a team sees the same value.
    pub fn is_team_uniform(self) -> bool {
        self != TeamQuery::TeamRank
    }
}

/// How a nested range is split.
#[derive(Clone, Copy, Debug, PartialEq, Eq, PartialOrd, Ord, Hash)]
pub enum NestedKind {
    /// `TeamThreadRange`: across the team's threads.
    Thread,
    /// `ThreadVectorRange`: across the calling thread's vector lanes.
    Vector,
    /// `TeamVectorRange`: across all threads and lanes of the team.
    TeamVector,
}

impl NestedKind {
    /// The name used by the printer (`thread_range`, ...).
    pub fn name(self) -> &'static str {
        match self {
            NestedKind::Thread => "thread",
            NestedKind::Vector => "vector",
            NestedKind::TeamVector => "team_vector",
        }
    }
    /// Whether all threads of the team take part (and so must all reach it).
    pub fn is_team_wide(self) -> bool {
        self != NestedKind::Vector
    }
}

/// Who runs the body of a `single`.
#[derive(Clone, Copy, Debug, PartialEq, Eq, PartialOrd, Ord, Hash)]
pub enum SingleKind {
    /// Once per team; the result reaches every thread.
    Team,
    /// Once per thread (one lane); the result reaches the thread's lanes.
    Thread,
}

impl SingleKind {
    /// The name used by the printer.
    pub fn name(self) -> &'static str {
        match self {
            SingleKind::Team => "team",
            SingleKind::Thread => "thread",
        }
    }
}

/// A built-in reducer of a nested reduction (`rokkos_core::reducer`), and the join a device applies
/// to partial results of a kernel-level reduction. Every join is commutative and associative on
/// every value (see `rokkos_core::reducer` for why), and [`ReducerKind::join`] is its definition.
#[derive(Clone, Copy, Debug, PartialEq, Eq, PartialOrd, Ord, Hash)]
pub enum ReducerKind {
    /// `+`, identity 0 (integers wrap).
    Sum,
    /// `*`, identity 1 (integers wrap).
    Prod,
    /// Minimum, identity the highest value (`+inf` for floats); floats by IEEE 754-2019 `minimum`:
    /// a NaN operand gives NaN, `-0.0 < 0.0`.
    Min,
    /// Maximum, identity the lowest value (`-inf` for floats); floats by IEEE 754-2019 `maximum`:
    /// a NaN operand gives NaN, `0.0 > -0.0`.
    Max,
    /// `&&` on `bool`, identity `true`.
    LAnd,
    /// `||` on `bool`, identity `false`.
    LOr,
    /// `&` on integers, identity all bits set.
    BAnd,
    /// `|` on integers, identity 0.
    BOr,
}

impl ReducerKind {
    /// The reducer's name in `rokkos_core`.
    pub fn name(self) -> &'static str {
        match self {
            ReducerKind::Sum => "Sum",
            ReducerKind::Prod => "Prod",
            ReducerKind::Min => "Min",
            ReducerKind::Max => "Max",
            ReducerKind::LAnd => "LAnd",
            ReducerKind::LOr => "LOr",
            ReducerKind::BAnd => "BAnd",
            ReducerKind::BOr => "BOr",
        }
    }
    /// Whether the reducer works on values of type `ty`.
    pub fn supports(self, ty: ScalarType) -> bool {
        match self {
            ReducerKind::Sum | ReducerKind::Prod | ReducerKind::Min | ReducerKind::Max => {
                ty.is_numeric()
            }
            ReducerKind::LAnd | ReducerKind::LOr => ty == ScalarType::Bool,
            ReducerKind::BAnd | ReducerKind::BOr => ty.is_int(),
        }
    }
    /// `a` joined with `b` (both of one type the reducer supports; `None` otherwise). Of two NaNs
    /// the result is `a`'s, a choice backends need not copy (NaN payloads are unspecified).
    ///
    /// ```
    /// use rokkos_ir::{ReducerKind, Value};
    /// let j = |r: ReducerKind, a, b| r.join(Value::F64(a), Value::F64(b)).unwrap().to_bits();
    /// assert_eq!(j(ReducerKind::Max, 0.0, -0.0), 0.0f64.to_bits());
    /// assert_eq!(j(ReducerKind::Max, -0.0, 0.0), 0.0f64.to_bits());
    /// assert_eq!(j(ReducerKind::Min, 0.0, -0.0), (-0.0f64).to_bits());
    /// assert!(f64::from_bits(j(ReducerKind::Max, 1.0, f64::NAN)).is_nan());
    /// ```
    pub fn join(self, a: Value, b: Value) -> Option<Value> {
        use crate::scalar::Scalar;
        macro_rules! num {
            ($x:expr, $y:expr, $v:ident) => {
                Value::$v(match self {
                    ReducerKind::Sum => Scalar::add($x, $y),
                    ReducerKind::Prod => Scalar::mul($x, $y),
                    ReducerKind::Min => Scalar::minimum($x, $y),
                    ReducerKind::Max => Scalar::maximum($x, $y),
                    ReducerKind::BAnd if ScalarType::$v.is_int() => {
                        return Value::from_bits(ScalarType::$v, a.to_bits() & b.to_bits()).into()
                    }
                    ReducerKind::BOr if ScalarType::$v.is_int() => {
                        return Value::from_bits(ScalarType::$v, a.to_bits() | b.to_bits()).into()
                    }
                    _ => return None,
                })
            };
        }
        Some(match (a, b) {
            (Value::Bool(x), Value::Bool(y)) => match self {
                ReducerKind::LAnd => Value::Bool(x && y),
                ReducerKind::LOr => Value::Bool(x || y),
                _ => return None,
            },
            (Value::I32(x), Value::I32(y)) => num!(x, y, I32),
            (Value::U32(x), Value::U32(y)) => num!(x, y, U32),
            (Value::I64(x), Value::I64(y)) => num!(x, y, I64),
            (Value::U64(x), Value::U64(y)) => num!(x, y, U64),
            (Value::F32(x), Value::F32(y)) => num!(x, y, F32),
            (Value::F64(x), Value::F64(y)) => num!(x, y, F64),
            (Value::U8(x), Value::U8(y)) => num!(x, y, U8),
            (Value::U16(x), Value::U16(y)) => num!(x, y, U16),
            (Value::I8(x), Value::I8(y)) => num!(x, y, I8),
            (Value::I16(x), Value::I16(y)) => num!(x, y, I16),
            _ => return None,
        })
    }
    /// The identity for values of type `ty`; `None` when the reducer does not support `ty`.
    pub fn identity(self, ty: ScalarType) -> Option<Value> {
        use ScalarType as T;
        if !self.supports(ty) {
            return None;
        }
        Some(match (self, ty) {
            (ReducerKind::Sum | ReducerKind::BOr | ReducerKind::LOr, _) => Value::zero(ty),
            (ReducerKind::LAnd, _) => Value::Bool(true),
            (ReducerKind::BAnd, _) => Value::from_bits(ty, u64::MAX),
            (ReducerKind::Prod, T::F32) => Value::F32(1.0),
            (ReducerKind::Prod, T::F64) => Value::F64(1.0),
            (ReducerKind::Prod, _) => Value::from_bits(ty, 1),
            (ReducerKind::Min, T::F32) => Value::F32(f32::INFINITY),
            (ReducerKind::Min, T::F64) => Value::F64(f64::INFINITY),
            (ReducerKind::Min, T::I8) => Value::I8(i8::MAX),
            (ReducerKind::Min, T::I16) => Value::I16(i16::MAX),
            (ReducerKind::Min, T::I32) => Value::I32(i32::MAX),
            (ReducerKind::Min, T::I64) => Value::I64(i64::MAX),
            (ReducerKind::Min, _) => Value::from_bits(ty, u64::MAX),
            (ReducerKind::Max, T::F32) => Value::F32(f32::NEG_INFINITY),
            (ReducerKind::Max, T::F64) => Value::F64(f64::NEG_INFINITY),
            (ReducerKind::Max, T::I8) => Value::I8(i8::MIN),
            (ReducerKind::Max, T::I16) => Value::I16(i16::MIN),
            (ReducerKind::Max, T::I32) => Value::I32(i32::MIN),
            (ReducerKind::Max, T::I64) => Value::I64(i64::MIN),
            (ReducerKind::Max, _) => Value::zero(ty),
        })
    }
}
