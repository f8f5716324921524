//! Ordering of accesses to shared memory: two accesses to one element, one of them a plain write,
//! that different threads (or, per [`lanes_independent`], different vector lanes of one thread) may
//! run with no `team_barrier` between them are a data race on a GPU, where a team's threads are
//! real, while the host backends (one thread per team) see program order.
//!
//! Shared memory is what the threads of a team share: writable View parameters (at the team's own
//! elements: the owner-computes rule makes every access to them contain the league rank) and team
//! scratch; thread scratch is shared by the lanes of one thread only. Read-only Views are never
//! written during a launch.
//!
//! **Phases.** Team barriers are reached by every thread in the same order (the convergence rules
//! of [`crate::converge`]), so they cut every thread's run into the same sequence of phases, and
//! two accesses can race only in the same phase. An access's possible phases are named by the
//! barriers that can be the last one before it, found along one thread's paths: branches taken by
//! different threads do not separate accesses, barriers do.
//!
//! **Same thread.** Two accesses to one element run in the same thread when their indices hold,
//! at the same position, the team rank, or the index of one execution of an enclosing
//! `thread_range` / `team_vector_range` (or reduction or scan; an index goes to one thread, and
//! equal elements mean equal indices), or when both sit in one execution of a `single_team`. An
//! execution is *one* only if the construct cannot run again in the same phase, e.g. in a loop
//! with no barrier: a second run may give the same index to another thread. A write that nothing
//! assigns to one thread (no such index, outside `single_team`) is run by several threads on the
//! same element. Accesses whose indices differ in a constant component never meet.
//!
//! Accesses of one kind of atomic never race with each other (a kernel may not mix plain and
//! atomic accesses to one View: the macro refuses it), so an atomic counts as a write only against
//! plain accesses.

use crate::model::{
    Access, AccessKind, Body, Component, Local, Memory, NestedKind, Node, SingleKind,
};
use std::collections::{BTreeSet, HashMap};

/// Two accesses that may race.
#[derive(Clone, Debug, PartialEq)]
pub struct Hazard<T> {
    /// The earlier access in program order.
    pub first: T,
    /// The later one (the same as `first` for [`Why::Replicated`]).
    pub second: T,
    /// Why nothing orders them.
    pub why: Why<T>,
}

/// Why two accesses may race.
#[derive(Clone, Debug, PartialEq)]
pub enum Why<T> {
    /// One write that several threads run on the same element: nothing in its index tells the
    /// threads apart.
    Replicated,
    /// The two would be in the same thread, but the construct tagged here can run again in the
    /// same phase (in a loop with no barrier) and give the index to another thread.
    Reentered(T),
    /// Nothing makes the threads of the two accesses the same, and no barrier separates them.
    Unordered,
}

/// The hazards between threads in a team kernel's body, ordered by their later access: what
/// `#[kernel]` refuses in safe code. A write several threads run is reported once, alone: the
/// pairs it also forms with other accesses go with it.
pub fn threads<T: Clone>(body: &Body<T>) -> Vec<Hazard<T>> {
    let facts = Facts::of(body);
    let mut found = Vec::new();
    for (second, b) in facts.accesses.iter().enumerate() {
        for (first, a) in facts.accesses[..=second].iter().enumerate() {
            if a.access.memory != b.access.memory
                || matches!(
                    a.access.memory,
                    Memory::ThreadScratch(_) | Memory::Accumulator
                )
                || !facts.may_meet(a, b, false)
            {
                continue;
            }
            if let Err(why) = facts.same_thread(a, b) {
                let why = match why {
                    Some(frame) => Why::Reentered(frame.clone()),
                    None if first == second => Why::Replicated,
                    None => Why::Unordered,
                };
                found.push((first, second, why));
            }
        }
    }
    let replicated: Vec<usize> = found
        .iter()
        .filter(|(_, _, w)| matches!(w, Why::Replicated))
        .map(|&(a, _, _)| a)
        .collect();
    found
        .into_iter()
        .filter(|(a, b, w)| {
            matches!(w, Why::Replicated) || !(replicated.contains(a) || replicated.contains(b))
        })
        .map(|(a, b, why)| Hazard {
            first: facts.accesses[a].access.tag.clone(),
            second: facts.accesses[b].access.tag.clone(),
            why,
        })
        .collect()
}

/// Whether the vector lanes of each thread can run in parallel with the effect of running them one
/// after the other (what the host backends do): no write or atomic that several lanes run on one
/// element (code outside vector ranges and `single`s runs on every lane), no write of the
/// [`Memory::Accumulator`] that every lane repeats, and no two accesses of
/// one thread to one element, one a write, that different lanes may run in one phase. Pairs whose
/// threads may differ are the business of [`threads`], which running lanes one after the other
/// does not change.
///
/// Backends use it to decide between physical lanes and lanes run one after the other; it is
/// conservative (a `false` costs parallelism, never correctness).
pub fn lanes_independent<T: Clone>(body: &Body<T>) -> bool {
    let facts = Facts::of(body);
    for (second, b) in facts.accesses.iter().enumerate() {
        if b.access.memory == Memory::Accumulator {
            // Lanes fold into copies joined at the end (a commutative join: their order does
            // not matter), so only a contribution that every lane repeats differs from one lane
            // after the other: one outside any vector-level range and `single`.
            if b.access.kind != AccessKind::Read && !facts.one_lane(b) {
                return false;
            }
            continue;
        }
        for (first, a) in facts.accesses[..=second].iter().enumerate() {
            // One access meeting itself is one thread's lanes repeating it, whoever the thread is.
            let same_thread = first == second
                || matches!(a.access.memory, Memory::ThreadScratch(_))
                || facts.same_thread(a, b).is_ok();
            if a.access.memory == b.access.memory
                && same_thread
                && facts.may_meet(a, b, true)
                && !facts.same_lane(a, b)
            {
                return false;
            }
        }
    }
    true
}

/// A team construct whose body runs in one thread (and lane) per index or per team / thread.
#[derive(Clone, Copy, PartialEq)]
enum FrameKind {
    Nested(NestedKind, Local),
    Single(SingleKind),
}

struct Frame<'a, T> {
    kind: FrameKind,
    tag: &'a T,
}

struct Seen<'a, T> {
    access: &'a Access<T>,
    /// Enclosing frames, outermost first.
    frames: Vec<usize>,
    /// The barriers that can be the last one before it (0: the start of the work item).
    phases: BTreeSet<usize>,
}

struct Facts<'a, T> {
    accesses: Vec<Seen<'a, T>>,
    frames: Vec<Frame<'a, T>>,
    /// Frames that can run again in one phase.
    reentered: Vec<bool>,
}

impl<'a, T: Clone> Facts<'a, T> {
    fn of(body: &'a Body<T>) -> Self {
        let mut c = Collect {
            facts: Facts {
                accesses: Vec::new(),
                frames: Vec::new(),
                reentered: Vec::new(),
            },
            stack: Vec::new(),
            access_ids: HashMap::new(),
            frame_ids: HashMap::new(),
            barrier_ids: HashMap::new(),
        };
        c.number(&body.block);
        let start = Flow {
            phases: BTreeSet::from([0]),
            exited: BTreeSet::new(),
        };
        c.block(&body.block, start, &mut None);
        c.facts
    }

    /// Whether `a` and `b` (in program order) can touch one element in one phase with at least one
    /// of them writing. With `lanes`, an atomic that runs more than once on one element counts.
    fn may_meet(&self, a: &Seen<'a, T>, b: &Seen<'a, T>, lanes: bool) -> bool {
        use AccessKind::*;
        let same = std::ptr::eq(a.access, b.access);
        let writes = match (a.access.kind, b.access.kind) {
            (Read, Read) => false,
            (Atomic, Atomic) => same && lanes,
            _ => true,
        };
        let apart =
            a.access.index.iter().zip(&b.access.index).any(
                |(x, y)| matches!((x, y), (Component::Const(p), Component::Const(q)) if p != q),
            );
        writes && !apart && a.phases.intersection(&b.phases).next().is_some()
    }

    /// `Ok` when `a` and `b` run in one thread whenever they touch one element; else `Err` with
    /// the re-entered construct that keeps them from it, if that is the reason.
    fn same_thread(&self, a: &Seen<'a, T>, b: &Seen<'a, T>) -> Result<(), Option<&'a T>> {
        if shares(a, b, Component::TeamRank) {
            return Ok(());
        }
        let mut blocked = None;
        for f in common(a, b) {
            let frame = &self.frames[f];
            let keyed = match frame.kind {
                FrameKind::Nested(kind, index) => {
                    kind.splits_threads() && shares_index(a, b, index)
                }
                FrameKind::Single(kind) => kind == SingleKind::Team,
            };
            if keyed {
                if self.one_execution(f, a, b) {
                    return Ok(());
                }
                blocked = Some(frame.tag);
            }
        }
        Err(blocked)
    }

    /// Whether `a` and `b`, in one thread, run in one lane whenever they touch one element: the
    /// index of one execution of an enclosing vector-splitting range at the same position, or both
    /// in `single`s (which run on the first lane).
    /// Whether `a` runs on one lane per execution: inside a `single`, or inside a nested range
    /// that gives each lane its own indices.
    fn one_lane(&self, a: &Seen<'a, T>) -> bool {
        a.frames.iter().any(|&f| match self.frames[f].kind {
            FrameKind::Nested(kind, _) => kind.splits_lanes(),
            FrameKind::Single(_) => true,
        })
    }

    fn same_lane(&self, a: &Seen<'a, T>, b: &Seen<'a, T>) -> bool {
        let in_single = |s: &Seen<'a, T>| {
            s.frames
                .iter()
                .any(|&f| matches!(self.frames[f].kind, FrameKind::Single(_)))
        };
        if in_single(a) && in_single(b) {
            return true;
        }
        common(a, b).any(|f| match self.frames[f].kind {
            FrameKind::Nested(kind, index) => {
                kind.splits_lanes() && shares_index(a, b, index) && self.one_execution(f, a, b)
            }
            FrameKind::Single(_) => false,
        })
    }

    /// Whether frame `f`, around both `a` and `b`, runs once for both when they touch one element:
    /// it cannot run again in one phase, and every nested range around it gives both the same
    /// index (each index of an outer range runs the frame once more).
    fn one_execution(&self, f: usize, a: &Seen<'a, T>, b: &Seen<'a, T>) -> bool {
        !self.reentered[f]
            && common(a, b)
                .take_while(|&g| g != f)
                .all(|g| match self.frames[g].kind {
                    FrameKind::Nested(_, index) => shares_index(a, b, index),
                    FrameKind::Single(_) => true,
                })
    }
}

/// Whether the indices of `a` and `b` hold, at one position, one component that determines the
/// value of `index` ([`Component::keyed_by`]).
fn shares_index<T>(a: &Seen<'_, T>, b: &Seen<'_, T>, index: crate::model::Local) -> bool {
    a.access
        .index
        .iter()
        .zip(&b.access.index)
        .any(|(x, y)| x == y && x.keyed_by(index))
}

/// Whether the indices of `a` and `b` both hold `c` at one position.
fn shares<T>(a: &Seen<'_, T>, b: &Seen<'_, T>, c: Component) -> bool {
    a.access
        .index
        .iter()
        .zip(&b.access.index)
        .any(|(x, y)| *x == c && *y == c)
}

/// The frames enclosing both `a` and `b`.
fn common<'s, T>(a: &'s Seen<'_, T>, b: &'s Seen<'_, T>) -> impl Iterator<Item = usize> + 's {
    a.frames
        .iter()
        .zip(&b.frames)
        .take_while(|(x, y)| x == y)
        .map(|(x, _)| *x)
}

/// What one thread can have done since the last barrier: which barriers can be the last, and
/// which frames it can have left.
#[derive(Clone, PartialEq, Default)]
struct Flow {
    phases: BTreeSet<usize>,
    exited: BTreeSet<usize>,
}

impl Flow {
    fn join(mut self, other: &Flow) -> Flow {
        self.phases.extend(&other.phases);
        self.exited.extend(&other.exited);
        self
    }
}

/// Where `break` and `continue` of the innermost loop lead.
#[derive(Default)]
struct Jumps {
    breaks: Flow,
    continues: Flow,
}

struct Collect<'a, T> {
    facts: Facts<'a, T>,
    stack: Vec<usize>,
    access_ids: HashMap<*const Access<T>, usize>,
    frame_ids: HashMap<*const Node<T>, usize>,
    barrier_ids: HashMap<*const Node<T>, usize>,
}

impl<'a, T> Collect<'a, T> {
    /// Numbers accesses, frames and barriers in program order, and records each access's frames.
    fn number(&mut self, b: &'a [Node<T>]) {
        for n in b {
            match n {
                Node::Access(a) => {
                    self.access_ids
                        .insert(std::ptr::from_ref(a), self.facts.accesses.len());
                    self.facts.accesses.push(Seen {
                        access: a,
                        frames: self.stack.clone(),
                        phases: BTreeSet::new(),
                    });
                }
                Node::Barrier { .. } => {
                    let id = self.barrier_ids.len() + 1;
                    self.barrier_ids.insert(std::ptr::from_ref(n), id);
                }
                Node::Nested {
                    kind,
                    index,
                    body,
                    tag,
                    ..
                } => self.frame(n, FrameKind::Nested(*kind, *index), tag, body),
                Node::Single {
                    kind, body, tag, ..
                } => self.frame(n, FrameKind::Single(*kind), tag, body),
                _ => n.blocks().into_iter().for_each(|b| self.number(b)),
            }
        }
    }

    fn frame(&mut self, n: &'a Node<T>, kind: FrameKind, tag: &'a T, body: &'a [Node<T>]) {
        let id = self.facts.frames.len();
        self.frame_ids.insert(std::ptr::from_ref(n), id);
        self.facts.frames.push(Frame { kind, tag });
        self.facts.reentered.push(false);
        self.stack.push(id);
        self.number(body);
        self.stack.pop();
    }

    fn block(&mut self, b: &[Node<T>], mut f: Flow, jumps: &mut Option<Jumps>) -> Flow {
        for n in b {
            f = self.node(n, f, jumps);
        }
        f
    }

    fn node(&mut self, n: &Node<T>, f: Flow, jumps: &mut Option<Jumps>) -> Flow {
        match n {
            Node::Access(a) => {
                let id = self.access_ids[&std::ptr::from_ref(a)];
                self.facts.accesses[id].phases.extend(&f.phases);
                f
            }
            Node::Barrier { .. } => Flow {
                phases: BTreeSet::from([self.barrier_ids[&std::ptr::from_ref(n)]]),
                exited: BTreeSet::new(),
            },
            Node::If { then, else_, .. } => {
                let t = self.block(then, f.clone(), jumps);
                self.block(else_, f, jumps).join(&t)
            }
            Node::Loop { body, .. } => self.looped(body, f),
            // Both jumps also fall through: a superset of the paths, so nothing is missed.
            Node::Break => {
                if let Some(j) = jumps {
                    j.breaks = std::mem::take(&mut j.breaks).join(&f);
                }
                f
            }
            Node::Continue => {
                if let Some(j) = jumps {
                    j.continues = std::mem::take(&mut j.continues).join(&f);
                }
                f
            }
            Node::Nested { body, .. } | Node::Single { body, .. } => {
                let id = self.frame_ids[&std::ptr::from_ref(n)];
                if f.exited.contains(&id) {
                    self.facts.reentered[id] = true;
                }
                // One index's run: the runs for other indices are told apart by the index
                // (`one_execution`), not by this flow.
                let inner = self.block(body, f.clone(), &mut None);
                let mut out = inner.join(&f);
                out.exited.insert(id);
                out
            }
            Node::Return | Node::Def { .. } | Node::Broadcast { .. } | Node::Scratch { .. } => f,
        }
    }

    /// A body that runs any number of times from `entry`: the flow after it.
    fn looped(&mut self, body: &[Node<T>], entry: Flow) -> Flow {
        let mut head = entry;
        let mut breaks = Flow::default();
        loop {
            let mut jumps = Some(Jumps::default());
            let end = self.block(body, head.clone(), &mut jumps);
            let jumps = jumps.unwrap_or_default();
            breaks = breaks.join(&jumps.breaks);
            let next = head.clone().join(&end).join(&jumps.continues);
            if next == head {
                return head.join(&breaks);
            }
            head = next;
        }
    }
}
