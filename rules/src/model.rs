//! The model: a team kernel's body reduced to what the rules look at.
//!
//! Every node and value carries a *tag* `T` chosen by whoever builds the model: the macro tags
//! with source spans and descriptions, so that a violation points at the user's code and says what
//! made a value differ between threads; the IR validator tags with `()`. The rules never look
//! inside a tag; they only hand back the tags of the nodes and sources a violation involves.
//!
//! Locals are numbered by the builder, one number per declaration (a shadowing `let` declares a
//! new local), densely from 0: [`Body::locals`] is their count.

/// A local variable or local array of the body.
pub type Local = u32;

/// A kernel body: its locals and statements.
#[derive(Clone, Debug)]
pub struct Body<T> {
    /// How many locals the body declares ([`Local`] numbers are below it).
    pub locals: usize,
    /// The statements, in program order.
    pub block: Vec<Node<T>>,
}

/// What a value depends on. It is the same in every thread of a team (*uniform*) when it has no
/// thread-varying source and every local it reads is uniform.
///
/// Sources that vary: the team rank, loads of memory the kernel can write (writable Views,
/// scratch), atomics, accumulators, the extents of thread scratch. A load of a read-only View
/// depends only on its index: the View cannot change during the launch (the launch checks refuse
/// a writable argument that overlaps it), so the same index gives every thread the same value.
#[derive(Clone, Debug, PartialEq)]
pub struct Deps<T> {
    /// The first thread-varying source found, if any.
    pub varying: Option<T>,
    /// The locals the value reads.
    pub locals: Vec<Local>,
}

impl<T> Default for Deps<T> {
    fn default() -> Self {
        Deps {
            varying: None,
            locals: Vec::new(),
        }
    }
}

impl<T> Deps<T> {
    /// A value with no sources (a literal, a scalar parameter, the league rank).
    pub fn uniform() -> Self {
        Deps::default()
    }
    /// A value that differs between threads because of `source`.
    pub fn varying(source: T) -> Self {
        Deps {
            varying: Some(source),
            locals: Vec::new(),
        }
    }
    /// The value of local `l`.
    pub fn local(l: Local) -> Self {
        Deps {
            varying: None,
            locals: vec![l],
        }
    }
    /// Adds what `other` depends on (the first varying source is kept).
    pub fn add(&mut self, other: Deps<T>) {
        if self.varying.is_none() {
            self.varying = other.varying;
        }
        self.locals.extend(other.locals);
    }
    /// `self` and `other` together.
    pub fn with(mut self, other: Deps<T>) -> Self {
        self.add(other);
        self
    }
}

/// How a nested range splits its indices.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum NestedKind {
    /// `thread_range` (Kokkos `TeamThreadRange`): across the threads of the team.
    Thread,
    /// `vector_range` (`ThreadVectorRange`): across the vector lanes of the calling thread.
    Vector,
    /// `team_vector_range` (`TeamVectorRange`): across every thread and lane of the team.
    TeamVector,
}

impl NestedKind {
    /// Whether every thread of the team takes part, so that all must reach it.
    pub fn is_team_wide(self) -> bool {
        self != NestedKind::Vector
    }
    /// Whether different indices may run in different threads.
    pub fn splits_threads(self) -> bool {
        self != NestedKind::Vector
    }
    /// Whether different indices may run in different vector lanes.
    pub fn splits_lanes(self) -> bool {
        self != NestedKind::Thread
    }
}

/// What a nested range does with its indices.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum NestedForm {
    /// `for j in team.thread_range(..) { .. }`.
    For,
    /// `team.thread_reduce(.., reducer, |j, acc| ..)`.
    Reduce,
    /// `team.thread_scan(.., |j, partial, is_final| ..)`.
    Scan,
}

/// Who runs the body of a `single`.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum SingleKind {
    /// `single_team`: one thread (one lane) of the team.
    Team,
    /// `single_thread`: one lane of each thread.
    Thread,
}

/// Who shares a scratch allocation.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum ScratchScope {
    /// `team_scratch`: the whole team.
    Team,
    /// `thread_scratch`: the lanes of one thread.
    Thread,
}

/// A team construct, as the rules name it in a violation.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum Construct {
    /// `team_barrier`.
    Barrier,
    /// A nested range, reduction or scan.
    Nested(NestedKind, NestedForm),
    /// `single_team` / `single_thread`.
    Single(SingleKind),
    /// `team_broadcast`.
    Broadcast,
    /// A scratch allocation.
    Scratch(ScratchScope),
}

/// The memory an access reaches. Scratch Views and View parameters are numbered by the builder,
/// each kind on its own.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub enum Memory {
    /// A writable View parameter (read-only ones are never written, so the rules ignore them).
    View(u32),
    /// A team scratch View: one per team, shared by its threads.
    TeamScratch(u32),
    /// A thread scratch View: one per thread, shared by its vector lanes.
    ThreadScratch(u32),
    /// The kernel's reduction accumulator (index `[]`): each thread keeps its own, so threads
    /// never race on it, but a device running a thread's vector lanes in parallel gives each lane
    /// a copy and joins them, so a contribution every lane repeats counts once per lane
    /// ([`crate::hazard::lanes_independent`]). Only the IR validator's model has it.
    Accumulator,
}

/// What an access does.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum AccessKind {
    /// A plain load.
    Read,
    /// A plain store (a compound assignment is a read and a write).
    Write,
    /// An atomic read-modify-write, load or store: atomics never race with each other.
    Atomic,
}

/// One component of an access's index, as far as the ordering rules can tell.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum Component {
    /// A bare local (the index of an enclosing nested range, when it is one).
    Local(Local),
    /// The team rank (`team.team_rank()`, or a local that holds nothing else).
    TeamRank,
    /// An integer literal.
    Const(u64),
    /// `a * x + local` with `a` the power-of-two payload and `local` known to lie in `[0, a)`:
    /// the component's remainder by `a` is the local, so two such components of one radix are
    /// equal only for equal values of the local.
    RadixLow(Local, u64),
    /// `a * local + d` with `a` the power-of-two payload, `d` known to lie in `[0, a)` and `local`
    /// below a literal bound (so `a * local` does not wrap): the component divided by `a` is the
    /// local.
    RadixHigh(Local, u64),
    /// Anything else.
    Other,
}

impl Component {
    /// Whether equal components (at one position of two accesses) have equal values of `local`.
    pub fn keyed_by(self, local: Local) -> bool {
        matches!(self, Component::Local(l) | Component::RadixLow(l, _) | Component::RadixHigh(l, _) if l == local)
    }
}

/// A load, store or atomic of one element.
#[derive(Clone, Debug)]
pub struct Access<T> {
    /// What it reaches.
    pub memory: Memory,
    /// What it does.
    pub kind: AccessKind,
    /// One entry per index component.
    pub index: Vec<Component>,
    /// Its tag.
    pub tag: T,
}

/// A statement of the model.
///
/// Memory accesses inside an expression come as [`Node::Access`] nodes just before the node that
/// evaluates it (for a `while` condition, also at the start of the loop body, since it is evaluated
/// again before each iteration).
#[derive(Clone, Debug)]
pub enum Node<T> {
    /// `local` takes `value` (a `let`, an assignment, a local array's declaration or element store:
    /// an element store's index is part of its value).
    Def {
        /// The local.
        local: Local,
        /// What the new value depends on.
        value: Deps<T>,
    },
    /// `if cond { then } else { else_ }`.
    If {
        /// The condition.
        cond: Deps<T>,
        /// Run when it holds.
        then: Vec<Node<T>>,
        /// Run otherwise.
        else_: Vec<Node<T>>,
    },
    /// A sequential loop: `for counter in ..` (its bounds and step in `head`), `while head { .. }`
    /// or `loop { .. }` (`head` uniform).
    Loop {
        /// A counted loop's counter.
        counter: Option<Local>,
        /// What the number of iterations depends on.
        head: Deps<T>,
        /// The body.
        body: Vec<Node<T>>,
    },
    /// `break` out of the innermost loop.
    Break,
    /// `continue` with the innermost loop.
    Continue,
    /// `return`: ends the work item.
    Return,
    /// `team.team_barrier()`.
    Barrier {
        /// Its tag.
        tag: T,
    },
    /// A nested range, reduction or scan.
    Nested {
        /// How it splits its indices.
        kind: NestedKind,
        /// Loop, reduction or scan.
        form: NestedForm,
        /// What its bounds depend on.
        bounds: Deps<T>,
        /// The index, declared for the body.
        index: Local,
        /// The other locals it declares for the body (an accumulator, a scan's partial value and
        /// final flag).
        locals: Vec<Local>,
        /// The local declared before it that receives a reduction's or scan's result.
        result: Option<Local>,
        /// The body, run once per index.
        body: Vec<Node<T>>,
        /// Its tag.
        tag: T,
    },
    /// `team.single_team(|| body)` / `team.single_thread(|| body)`.
    Single {
        /// Once per team or once per thread.
        kind: SingleKind,
        /// The local declared before it that receives the body's value (every thread gets it).
        result: Option<Local>,
        /// The body.
        body: Vec<Node<T>>,
        /// Its tag.
        tag: T,
    },
    /// `local = team.team_broadcast(value, src)`.
    Broadcast {
        /// The local that receives the source thread's value.
        local: Local,
        /// What the source thread's rank depends on.
        src: Deps<T>,
        /// Its tag.
        tag: T,
    },
    /// A scratch allocation.
    Scratch {
        /// Team or thread scratch.
        scope: ScratchScope,
        /// What its extents depend on.
        extents: Deps<T>,
        /// Its tag.
        tag: T,
    },
    /// A memory access.
    Access(Access<T>),
}

impl<T> Node<T> {
    /// The nested blocks of this node, in order.
    pub fn blocks(&self) -> Vec<&[Node<T>]> {
        match self {
            Node::If { then, else_, .. } => vec![then, else_],
            Node::Loop { body, .. } | Node::Nested { body, .. } | Node::Single { body, .. } => {
                vec![body]
            }
            _ => Vec::new(),
        }
    }
}
