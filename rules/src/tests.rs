//! The rules on hand-built models, tagged with names.

use crate::converge::{self, Violation};
use crate::hazard::{self, Hazard, Why};
use crate::model::*;

type N = Node<&'static str>;
type D = Deps<&'static str>;

fn body(locals: usize, block: Vec<N>) -> Body<&'static str> {
    Body { locals, block }
}
fn uni() -> D {
    Deps::uniform()
}
fn var(why: &'static str) -> D {
    Deps::varying(why)
}
fn loc(l: Local) -> D {
    Deps::local(l)
}
fn def(local: Local, value: D) -> N {
    Node::Def { local, value }
}
fn barrier(tag: &'static str) -> N {
    Node::Barrier { tag }
}
fn nested(kind: NestedKind, index: Local, bounds: D, tag: &'static str, body: Vec<N>) -> N {
    Node::Nested {
        kind,
        form: NestedForm::For,
        bounds,
        index,
        locals: vec![],
        result: None,
        body,
        tag,
    }
}
fn thread(index: Local, tag: &'static str, body: Vec<N>) -> N {
    nested(NestedKind::Thread, index, uni(), tag, body)
}
fn single(kind: SingleKind, tag: &'static str, body: Vec<N>) -> N {
    Node::Single {
        kind,
        result: None,
        body,
        tag,
    }
}
fn if_(cond: D, then: Vec<N>) -> N {
    Node::If {
        cond,
        then,
        else_: vec![],
    }
}
fn loop_(head: D, body: Vec<N>) -> N {
    Node::Loop {
        counter: None,
        head,
        body,
    }
}
fn access(memory: Memory, kind: AccessKind, index: &[Component], tag: &'static str) -> N {
    Node::Access(Access {
        memory,
        kind,
        index: index.to_vec(),
        tag,
    })
}
const S: Memory = Memory::TeamScratch(0);
fn write(index: &[Component], tag: &'static str) -> N {
    access(S, AccessKind::Write, index, tag)
}
fn read(index: &[Component], tag: &'static str) -> N {
    access(S, AccessKind::Read, index, tag)
}
use Component::{Const, Local as L, Other, TeamRank};

fn divergent(r: Result<(), Violation<&'static str>>) -> (Construct, &'static str, &'static str) {
    match r {
        Err(Violation::Divergent {
            what, at, cause, ..
        }) => (what, at, cause),
        other => panic!("expected a divergence, got {other:?}"),
    }
}

#[test]
fn uniform_control_and_bounds_pass() {
    // let n = <uniform>; let first = <read-only load at the league rank>; thread_range(first..n)
    let b = body(
        3,
        vec![
            def(0, uni()),
            def(1, uni()),
            barrier("b"),
            nested(NestedKind::Thread, 2, loc(0).with(loc(1)), "range", vec![]),
            if_(loc(0), vec![barrier("b2")]),
        ],
    );
    assert_eq!(converge::check(&b), Ok(()));
}

#[test]
fn team_wide_constructs_need_uniform_control_and_bounds() {
    let b = body(1, vec![if_(var("team_rank"), vec![barrier("b")])]);
    assert_eq!(
        divergent(converge::check(&b)),
        (Construct::Barrier, "b", "team_rank")
    );
    // The local is uniform until the fixpoint sees its second assignment, after the range.
    let b = body(
        2,
        vec![
            def(0, uni()),
            nested(NestedKind::Thread, 1, loc(0), "range", vec![]),
            def(0, var("load of writable memory")),
        ],
    );
    assert_eq!(
        divergent(converge::check(&b)),
        (
            Construct::Nested(NestedKind::Thread, NestedForm::For),
            "range",
            "load of writable memory"
        )
    );
    // Assigned under varying control.
    let b = body(
        1,
        vec![
            def(0, uni()),
            if_(var("rank"), vec![def(0, uni())]),
            single(SingleKind::Team, "s", vec![]),
            Node::Scratch {
                scope: ScratchScope::Team,
                extents: loc(0),
                tag: "scratch",
            },
        ],
    );
    assert_eq!(divergent(converge::check(&b)).1, "scratch");
}

#[test]
fn divergent_exits_make_later_control_varying() {
    let b = body(
        0,
        vec![if_(var("rank"), vec![Node::Return]), barrier("after")],
    );
    assert_eq!(divergent(converge::check(&b)).1, "after");
    let b = body(
        0,
        vec![loop_(
            uni(),
            vec![if_(var("rank"), vec![Node::Break]), barrier("in loop")],
        )],
    );
    assert_eq!(divergent(converge::check(&b)).1, "in loop");
    // A uniform break is fine.
    let b = body(
        0,
        vec![loop_(
            uni(),
            vec![if_(uni(), vec![Node::Break]), barrier("b")],
        )],
    );
    assert_eq!(converge::check(&b), Ok(()));
}

#[test]
fn results_of_team_constructs() {
    let reduce = |kind, result| Node::Nested {
        kind,
        form: NestedForm::Reduce,
        bounds: uni(),
        index: 1,
        locals: vec![2],
        result: Some(result),
        body: vec![def(2, loc(1))],
        tag: "reduce",
    };
    let single_with = |kind, result| Node::Single {
        kind,
        result: Some(result),
        body: vec![def(result, var("rank"))],
        tag: "single",
    };
    let uses = |l| nested(NestedKind::Thread, 5, loc(l), "user", vec![]);
    for (b, ok) in [
        (vec![reduce(NestedKind::Thread, 0), uses(0)], true),
        (vec![reduce(NestedKind::Vector, 0), uses(0)], false),
        (vec![single_with(SingleKind::Team, 0), uses(0)], true),
        (vec![single_with(SingleKind::Thread, 0), uses(0)], false),
        (
            vec![
                Node::Broadcast {
                    local: 0,
                    src: uni(),
                    tag: "bc",
                },
                uses(0),
            ],
            true,
        ),
    ] {
        assert_eq!(converge::check(&body(6, b)).is_ok(), ok);
    }
}

#[test]
fn nesting() {
    let misplaced = |r| match r {
        Err(Violation::Misplaced { what, inside, .. }) => (what, inside),
        other => panic!("expected misplaced, got {other:?}"),
    };
    let t = Construct::Nested(NestedKind::Thread, NestedForm::For);
    let b = body(
        2,
        vec![thread(0, "outer", vec![thread(1, "inner", vec![])])],
    );
    assert_eq!(misplaced(converge::check(&b)), (t, t));
    let b = body(
        1,
        vec![single(
            SingleKind::Team,
            "s",
            vec![thread(0, "inner", vec![])],
        )],
    );
    assert_eq!(
        misplaced(converge::check(&b)),
        (t, Construct::Single(SingleKind::Team))
    );
    let v = |i, body| nested(NestedKind::Vector, i, uni(), "v", body);
    assert!(converge::check(&body(2, vec![thread(0, "t", vec![v(1, vec![])])])).is_ok());
    let b = body(2, vec![v(0, vec![v(1, vec![])])]);
    assert_eq!(
        misplaced(converge::check(&b)).1,
        Construct::Nested(NestedKind::Vector, NestedForm::For)
    );
    let b = body(1, vec![thread(0, "t", vec![barrier("b")])]);
    assert_eq!(misplaced(converge::check(&b)), (Construct::Barrier, t));
}

fn hazards(b: Vec<N>, locals: usize) -> Vec<Hazard<&'static str>> {
    hazard::threads(&body(locals, b))
}

#[test]
fn scratch_read_of_another_thread_needs_a_barrier() {
    let write_then = |between: Vec<N>| {
        let mut b = vec![thread(0, "fill", vec![write(&[L(0)], "s[j] =")])];
        b.extend(between);
        b.push(thread(1, "use", vec![read(&[Other], "s[n - 1 - j]")]));
        b
    };
    assert_eq!(
        hazards(write_then(vec![]), 2),
        vec![Hazard {
            first: "s[j] =",
            second: "s[n - 1 - j]",
            why: Why::Unordered
        }]
    );
    assert_eq!(hazards(write_then(vec![barrier("b")]), 2), vec![]);
    // A barrier on one path only does not order them.
    assert_eq!(
        hazards(write_then(vec![if_(uni(), vec![barrier("b")])]), 2).len(),
        1
    );
    // Different threads take different branches: branches do not separate accesses.
    let b = vec![
        single(SingleKind::Team, "s", vec![write(&[Const(0)], "s[0] =")]),
        if_(var("rank"), vec![read(&[Const(0)], "s[0]")]),
    ];
    assert_eq!(hazards(b, 0).len(), 1);
}

#[test]
fn same_thread_accesses_need_no_barrier() {
    let b = vec![thread(
        0,
        "t",
        vec![
            write(&[L(0)], "s[j] ="),
            read(&[L(0)], "s[j]"),
            loop_(
                uni(),
                vec![read(&[L(0)], "again"), write(&[L(0)], "again =")],
            ),
        ],
    )];
    assert_eq!(hazards(b, 1), vec![]);
    // One execution of a single_team, and the team rank.
    let b = vec![
        single(
            SingleKind::Team,
            "s",
            vec![write(&[Const(3)], "s[3] ="), read(&[Const(3)], "s[3]")],
        ),
        // Different constants never meet.
        read(&[Const(4)], "s[4]"),
        barrier("b"),
        single(SingleKind::Thread, "t", vec![write(&[TeamRank], "s[r] =")]),
        read(&[TeamRank], "s[r]"),
    ];
    assert_eq!(hazards(b, 0), vec![]);
    // The index at another position does not tell the threads apart.
    let b = vec![thread(
        0,
        "t",
        vec![
            write(&[L(0), Other], "s[(j, k)] ="),
            read(&[Other, L(0)], "s[(k, j)]"),
        ],
    )];
    assert_eq!(hazards(b, 1)[0].why, Why::Unordered);
    // Thread scratch is per thread.
    let b = vec![
        access(
            Memory::ThreadScratch(0),
            AccessKind::Write,
            &[Const(0)],
            "w",
        ),
        access(Memory::ThreadScratch(0), AccessKind::Read, &[Const(0)], "r"),
    ];
    assert_eq!(hazards(b, 0), vec![]);
}

#[test]
fn writes_every_thread_runs_are_replicated() {
    let replicated = |b: Vec<N>| {
        let h = hazards(b, 2);
        assert_eq!(h.len(), 1, "{h:?}");
        assert_eq!(h[0].why, Why::Replicated);
    };
    replicated(vec![write(&[Const(0)], "top")]);
    // Reported once, not again with every access it meets.
    replicated(vec![
        single(
            SingleKind::Thread,
            "st",
            vec![read(&[L(1)], "s[l]"), write(&[L(1)], "s[l] =")],
        ),
        read(&[L(1)], "s[l] again"),
    ]);
    replicated(vec![single(
        SingleKind::Thread,
        "st",
        vec![write(&[L(1)], "o[l] =")],
    )]);
    replicated(vec![nested(
        NestedKind::Vector,
        0,
        uni(),
        "v",
        vec![write(&[L(0)], "o[k] =")],
    )]);
    replicated(vec![thread(0, "t", vec![write(&[L(1)], "s[l] =")])]);
    // Atomics may repeat per thread (a team-size dependent result, not a race).
    assert_eq!(
        hazards(vec![access(S, AccessKind::Atomic, &[Const(0)], "a")], 0),
        vec![]
    );
}

#[test]
fn a_construct_run_again_in_one_phase_may_move_an_index() {
    let lp = |extra: Vec<N>| {
        let mut body = vec![thread(
            0,
            "range",
            vec![read(&[L(0)], "s[j]"), write(&[L(0)], "s[j] =")],
        )];
        body.extend(extra);
        hazards(vec![loop_(uni(), body)], 1)
    };
    let h = lp(vec![]);
    assert!(!h.is_empty());
    assert!(h.iter().all(|h| h.why == Why::Reentered("range")), "{h:?}");
    assert_eq!(lp(vec![barrier("b")]), vec![]);
}

#[test]
fn lanes() {
    let lanes = |b: Vec<N>| hazard::lanes_independent(&body(3, b));
    let v = |i, body| nested(NestedKind::Vector, i, uni(), "v", body);
    // A write every lane of the thread runs.
    assert!(!lanes(vec![thread(0, "t", vec![write(&[L(0)], "o[j] =")])]));
    // Each lane its own element.
    assert!(lanes(vec![thread(
        0,
        "t",
        vec![v(
            1,
            vec![
                write(&[L(0), L(1)], "o[(j, k)] ="),
                read(&[L(0), L(1)], "o[(j, k)]")
            ]
        )]
    )]));
    // Another lane's element, in another vector range.
    let th = Memory::ThreadScratch(0);
    assert!(!lanes(vec![thread(
        0,
        "t",
        vec![
            v(1, vec![access(th, AccessKind::Write, &[L(1)], "w")]),
            v(2, vec![access(th, AccessKind::Read, &[Other], "r")]),
        ]
    )]));
    // An atomic every lane repeats; one per lane is fine.
    assert!(!lanes(vec![access(
        S,
        AccessKind::Atomic,
        &[Const(0)],
        "a"
    )]));
    assert!(lanes(vec![v(
        1,
        vec![access(S, AccessKind::Atomic, &[L(1)], "a")]
    )]));
    // Singles run on the first lane.
    assert!(lanes(vec![
        single(SingleKind::Team, "s", vec![write(&[Const(0)], "w")]),
        barrier("b"),
        single(SingleKind::Thread, "t", vec![read(&[Const(0)], "r")]),
    ]));
    // The accumulator: a contribution every lane repeats (at thread level, in a thread range)
    // counts once per lane; one inside a vector range or a single is one lane's. Its reads
    // and the threads' own copies never matter.
    let acc = |kind| access(Memory::Accumulator, kind, &[], "*acc +=");
    assert!(!lanes(vec![acc(AccessKind::Write)]));
    assert!(!lanes(vec![thread(0, "t", vec![acc(AccessKind::Write)])]));
    assert!(lanes(vec![thread(
        0,
        "t",
        vec![v(1, vec![acc(AccessKind::Write)])]
    )]));
    assert!(lanes(vec![single(
        SingleKind::Thread,
        "s",
        vec![acc(AccessKind::Write)]
    )]));
    assert!(lanes(vec![acc(AccessKind::Read)]));
    assert!(hazards(vec![thread(0, "t", vec![acc(AccessKind::Write)])], 3).is_empty());
}
