//! Unit tests of the interpreter.

use super::*;
use crate::ast::{BinOp, StmtKind};
use crate::testgen::Builder;

/// P0: x = 1; r0 = x; r1 = y    P1: y = 2; x = 2   (n6)
fn n6() -> Program {
    let mut b = Builder::new();
    let shared = vec![b.shared("x", 0), b.shared("y", 0)];
    let one = b.int(1);
    let (lx, ly) = (b.load(0), b.load(1));
    let t0 = vec![b.store(0, one), b.assign("r0", lx), b.assign("r1", ly)];
    let (two, two2) = (b.int(2), b.int(2));
    let t1 = vec![b.store(1, two), b.store(0, two2)];
    let threads = vec![b.thread("P0", t0), b.thread("P1", t1)];
    let t = b.test("n6", shared, vec![], threads, None);
    Program::lower(&t, 8).unwrap()
}

#[test]
fn events_carry_write_ids_read_from_and_program_order() {
    let p = n6();
    let mut s = State::initial(&p, Model::Tso);
    assert_eq!(s.enabled(&p), vec![Choice::Exec(0), Choice::Exec(1)]);
    let e = s.step(&p, Choice::Exec(0));
    assert_eq!(
        (e.action, e.cell, e.value, e.buffered),
        (Action::Store, Some(0), Some(1), true)
    );
    assert_eq!(
        e.write,
        Some(WriteId::Store {
            thread: 0,
            index: 0
        })
    );
    assert_eq!(e.po, 0);
    assert_eq!(
        s.enabled(&p),
        vec![
            Choice::Exec(0),
            Choice::Flush {
                thread: 0,
                cell: None
            },
            Choice::Exec(1)
        ]
    );
    // The load of x is forwarded from the buffer.
    let e = s.step(&p, Choice::Exec(0));
    assert_eq!(
        (e.action, e.value, e.buffered, e.po),
        (Action::Load, Some(1), true, 1)
    );
    assert_eq!(
        e.read_from,
        Some(WriteId::Store {
            thread: 0,
            index: 0
        })
    );
    // P1 runs and drains completely.
    for c in [
        Choice::Exec(1),
        Choice::Exec(1),
        Choice::Flush {
            thread: 1,
            cell: None,
        },
        Choice::Flush {
            thread: 1,
            cell: None,
        },
    ] {
        s.step(&p, c);
    }
    assert_eq!(s.mem, vec![2, 2]);
    assert_eq!(
        s.writer[0],
        WriteId::Store {
            thread: 1,
            index: 1
        }
    );
    let e = s.step(&p, Choice::Exec(0));
    assert_eq!(
        (e.value, e.read_from, e.buffered),
        (
            Some(2),
            Some(WriteId::Store {
                thread: 1,
                index: 0
            }),
            false
        )
    );
    assert!(s.is_running(), "P0's store is still buffered");
    let e = s.step(
        &p,
        Choice::Flush {
            thread: 0,
            cell: None,
        },
    );
    assert_eq!(
        (e.action, e.write, e.po, e.value),
        (
            Action::Flush,
            Some(WriteId::Store {
                thread: 0,
                index: 0
            }),
            0,
            Some(1)
        )
    );
    assert_eq!(*s.status(), Status::Finished);
    let fs = s.final_state(&p);
    assert_eq!(
        fs.0,
        vec![
            ("P0:r0".into(), 1),
            ("P0:r1".into(), 2),
            ("x".into(), 1),
            ("y".into(), 2)
        ]
    );
    // A choice that is not enabled changes nothing.
    let before = s.clone();
    assert!(s.try_step(&p, Choice::Exec(0)).is_none());
    assert_eq!(s, before);
}

#[test]
fn pso_flushes_per_location_and_fences_wait_for_drains() {
    let mut b = Builder::new();
    let shared = vec![b.shared("x", 0), b.shared("y", 0)];
    let (one, one2) = (b.int(1), b.int(1));
    let t0 = vec![b.store(0, one), b.store(1, one2), b.stmt(StmtKind::Fence)];
    let threads = vec![b.thread("P0", t0)];
    let t = b.test("W", shared, vec![], threads, None);
    let p = Program::lower(&t, 8).unwrap();
    let mut s = State::initial(&p, Model::Pso);
    s.step(&p, Choice::Exec(0));
    s.step(&p, Choice::Exec(0));
    // The fence is not enabled; both per-location flushes are.
    assert_eq!(
        s.enabled(&p),
        vec![
            Choice::Flush {
                thread: 0,
                cell: Some(0)
            },
            Choice::Flush {
                thread: 0,
                cell: Some(1)
            }
        ]
    );
    let e = s.step(
        &p,
        Choice::Flush {
            thread: 0,
            cell: Some(1),
        },
    );
    assert_eq!((e.cell, e.po), (Some(1), 1));
    assert_eq!(s.mem, vec![0, 1]);
    s.step(
        &p,
        Choice::Flush {
            thread: 0,
            cell: Some(0),
        },
    );
    assert_eq!(s.enabled(&p), vec![Choice::Exec(0)]);
    let e = s.step(&p, Choice::Exec(0));
    assert_eq!((e.action, e.po), (Action::Fence, 2));
    assert_eq!(*s.status(), Status::Finished);
}

#[test]
fn a_failed_await_parks_until_memory_changes() {
    // P0: await(x == 1)   P1: x = 1
    let mut b = Builder::new();
    let shared = vec![b.shared("x", 0)];
    let (l, one) = (b.load(0), b.int(1));
    let c = b.bin(BinOp::Eq, l, one);
    let t0 = vec![b.stmt(StmtKind::Await(c))];
    let one = b.int(1);
    let t1 = vec![b.store(0, one)];
    let threads = vec![b.thread("P0", t0), b.thread("P1", t1)];
    let t = b.test("A", shared, vec![], threads, None);
    let p = Program::lower(&t, 8).unwrap();
    let mut s = State::initial(&p, Model::Tso);
    let e = s.step(&p, Choice::Exec(0));
    assert_eq!((e.action, e.value), (Action::Load, Some(0)));
    assert!(s.threads[0].awaiting.is_some());
    assert_eq!(s.enabled(&p), vec![Choice::Exec(1)]);
    s.step(&p, Choice::Exec(1));
    // Buffered: memory unchanged, P0 still parked.
    assert_eq!(
        s.enabled(&p),
        vec![Choice::Flush {
            thread: 1,
            cell: None
        }]
    );
    s.step(
        &p,
        Choice::Flush {
            thread: 1,
            cell: None,
        },
    );
    assert_eq!(s.enabled(&p), vec![Choice::Exec(0)]);
    let e = s.step(&p, Choice::Exec(0));
    assert_eq!(e.value, Some(1));
    assert_eq!(*s.status(), Status::Finished);
}
