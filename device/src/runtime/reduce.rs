//! The host's side of a device reduction: the reducer's identity and joins as the device needs
//! them, the partials read back (one column per accumulator field), joined on the host in partial
//! order, and the choice between joining into a result View's element on the device and writing it
//! from the host.

use rokkos_core::error::{Error, Result};
use rokkos_core::ir::{AccField, ScalarType, Value};
use rokkos_core::reducer::{describe_reducer, AccValue, JoinKind, Reducer};

/// Most partials a host join takes; more are first joined on the device.
pub const HOST_PARTIALS: u64 = 1024;

/// The reducer's join per accumulator and its identity as IR values, checked against the
/// kernel's accumulator `fields`. A user-defined (`Custom`) reducer's join is host code, which no
/// device runs: `unsupported` names that (a pattern that can join on the host takes
/// [`plan_values`] instead).
pub fn init_values<V: AccValue, Rd: Reducer<V>>(
    reducer: &Rd,
    fields: &[(AccField, ScalarType)],
    unsupported: impl FnOnce(&str) -> Error,
) -> Result<(Vec<JoinKind>, Vec<Value>)> {
    match plan_values(reducer, fields)? {
        (Some(joins), init) => Ok((joins, init)),
        (None, _) => Err(unsupported(
            "user-defined (Custom) reducer here: its join is host code, which a device backend \
             runs only in the ordered-partials mode (Range, MDRange and team reductions, range \
             scans)",
        )),
    }
}

/// The reducer's identity as IR values, checked against the kernel's accumulator `fields`, and
/// its device joins: one per accumulator, or `None` for a reducer whose join is host code (a
/// `Custom` one), which runs in the ordered-partials mode ([`super::ordered`]).
pub fn plan_values<V: AccValue, Rd: Reducer<V>>(
    reducer: &Rd,
    fields: &[(AccField, ScalarType)],
) -> Result<(Option<Vec<JoinKind>>, Vec<Value>)> {
    let joins = describe_reducer::<V, Rd>(reducer);
    let mut init = Vec::new();
    reducer.init().push_values(&mut init);
    if init.len() != fields.len() || init.iter().zip(fields).any(|(v, (_, t))| v.ty() != *t) {
        return Err(Error::InvalidArgument(format!(
            "accumulator values {init:?} do not match the kernel's accumulator fields"
        )));
    }
    Ok((joins, init))
}

/// The Rust value of one partial's field values.
pub fn to_value<V: AccValue>(vals: &[Value]) -> Result<V> {
    V::from_values(&mut vals.iter())
        .ok_or_else(|| Error::InvalidArgument(format!("accumulator values {vals:?}")))
}

/// Partials read back from the device: `count` values of each accumulator field.
pub struct Columns {
    count: usize,
    fields: Vec<Vec<Value>>,
}

impl Columns {
    /// `count` partials given column by column (one `Vec` per field).
    pub fn new(count: usize, fields: Vec<Vec<Value>>) -> Self {
        Columns { count, fields }
    }
    /// Calls `f` with each partial's index and field values, in order. One row buffer serves
    /// every partial: a blocking reduction reads up to a thousand of them, and a vector per
    /// partial once cost more host time than the rest of the launch.
    pub fn for_each(&self, mut f: impl FnMut(usize, &[Value]) -> Result<()>) -> Result<()> {
        let mut row = Vec::with_capacity(self.fields.len());
        for i in 0..self.count {
            row.clear();
            row.extend(self.fields.iter().map(|col| col[i]));
            f(i, &row)?;
        }
        Ok(())
    }
    /// The partials joined by `reducer` onto its identity, in partial order.
    pub fn join<V: AccValue, Rd: Reducer<V>>(&self, reducer: &Rd) -> Result<V> {
        let mut acc = reducer.init();
        self.for_each(|_, part| {
            reducer.join(&mut acc, to_value::<V>(part)?);
            Ok(())
        })?;
        Ok(acc)
    }
}

/// Values of type `t` decoded from little-endian storage words of `size` bytes each (1 to 8: a
/// backend with 8- and 16-bit storage keeps narrow accumulators at their own size).
pub fn decode_column(t: ScalarType, size: usize, bytes: &[u8], count: usize) -> Vec<Value> {
    let words = bytes[..count * size].chunks_exact(size);
    // Most storage types are one or two words; a fixed width keeps the copy inline.
    match size {
        8 => words
            .map(|c| Value::from_bits(t, u64::from_le_bytes(c.try_into().expect("8 bytes"))))
            .collect(),
        4 => words
            .map(|c| Value::from_bits(t, u32::from_le_bytes(c.try_into().expect("4 bytes")) as u64))
            .collect(),
        _ => words
            .map(|c| {
                let mut b = [0u8; 8];
                b[..c.len()].copy_from_slice(c);
                Value::from_bits(t, u64::from_le_bytes(b))
            })
            .collect(),
    }
}

/// Values stored as little-endian words of `size` bytes each (4 or 8; a value's low bytes when
/// `size` is 4): the inverse of [`decode_column`], for values the host uploads (a scan's
/// prefixes).
pub fn encode_column(vals: &[Value], size: usize) -> Vec<u8> {
    let mut out = Vec::with_capacity(vals.len() * size);
    for v in vals {
        out.extend_from_slice(&storage_bits(*v).to_le_bytes()[..size]);
    }
    out
}

/// The bits of `v` as a word wider than its type holds it: [`Value::to_bits`], but sign-extended
/// for `i8` and `i16`, which a device backend without 8- and 16-bit values keeps in an `i32`
/// (read back, [`Value::from_bits`] keeps the low bits, so [`decode_column`] needs no twin).
pub fn storage_bits(v: Value) -> u64 {
    match v {
        Value::I8(x) => x as i64 as u64,
        Value::I16(x) => x as i64 as u64,
        _ => v.to_bits(),
    }
}

/// The element index at which a device join may write the result of `parallel_reduce_into` into
/// the result View's buffer (the result at byte `byte_offset`, of a Rust type of `size` bytes):
/// a single scalar accumulator whose Rust value is its device representation, at an aligned
/// offset. `None`: the value goes through the host.
pub fn device_result_element(
    fields: &[(AccField, ScalarType)],
    size: usize,
    byte_offset: usize,
) -> Option<u32> {
    match fields {
        [(_, t)] if *t != ScalarType::Bool && t.size() == size => (byte_offset % size == 0)
            .then(|| u32::try_from(byte_offset / size).ok())
            .flatten(),
        _ => None,
    }
}
