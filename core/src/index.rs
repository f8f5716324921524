//! Multi-indices: `usize` for rank 1, tuples or arrays for higher ranks.

/// Something that names one element of a rank-`R` View: `usize` (rank 1), `()` (rank 0),
/// tuples `(i, j, ...)` and arrays `[usize; R]`.
pub trait ViewIndex<const R: usize>: Copy {
    /// The index as an array.
    fn to_array(self) -> [usize; R];
}

impl ViewIndex<1> for usize {
    #[inline(always)]
    fn to_array(self) -> [usize; 1] {
        [self]
    }
}
impl ViewIndex<0> for () {
    #[inline(always)]
    fn to_array(self) -> [usize; 0] {
        []
    }
}
impl<const R: usize> ViewIndex<R> for [usize; R] {
    #[inline(always)]
    fn to_array(self) -> [usize; R] {
        self
    }
}

macro_rules! tuple_index {
    ($r:literal; $($t:ident $v:ident),+) => {
        impl ViewIndex<$r> for ($($t,)+) {
            #[inline(always)]
            fn to_array(self) -> [usize; $r] {
                let ($($v,)+) = self;
                [$($v),+]
            }
        }
    };
}
tuple_index!(1; usize a);
tuple_index!(2; usize a, usize b);
tuple_index!(3; usize a, usize b, usize c);
tuple_index!(4; usize a, usize b, usize c, usize d);
tuple_index!(5; usize a, usize b, usize c, usize d, usize e);
tuple_index!(6; usize a, usize b, usize c, usize d, usize e, usize f);
tuple_index!(7; usize a, usize b, usize c, usize d, usize e, usize f, usize g);
tuple_index!(8; usize a, usize b, usize c, usize d, usize e, usize f, usize g, usize h);

/// True when every component of `idx` is below the matching extent.
#[inline(always)]
pub fn in_bounds<const R: usize>(idx: &[usize; R], extents: &[usize; R]) -> bool {
    let mut ok = true;
    for k in 0..R {
        ok &= idx[k] < extents[k];
    }
    ok
}

/// Formats an index or extents list as `(a, b, c)` for messages.
pub fn fmt_index(idx: &[usize]) -> String {
    let parts: Vec<String> = idx.iter().map(|x| x.to_string()).collect();
    format!("({})", parts.join(", "))
}

/// Calls `f` for every multi-index of `extents` in row-major order (last index fastest).
pub fn for_each_index<const R: usize>(extents: &[usize; R], mut f: impl FnMut(&[usize; R])) {
    if extents.contains(&0) {
        return;
    }
    let mut idx = [0usize; R];
    loop {
        f(&idx);
        let mut k = R;
        loop {
            if k == 0 {
                return;
            }
            k -= 1;
            idx[k] += 1;
            if idx[k] < extents[k] {
                break;
            }
            idx[k] = 0;
        }
    }
}
