//! The project's RC11 model (`engine/src/axiomatic/rc11.cat`, issue 53): the classic tests
//! by hand with their known verdicts under RC11, under both the project's and herd's
//! `rc11.cat`. The differential test on random executions is in `rc11_random.rs`.

mod rc11_support;

use litmus_engine::axiomatic::rc11_model;
use rc11_support::*;

/// SB: each thread writes its location, (a fence,) then reads the other's initial value.
fn sb(w: Option<&'static str>, r: Option<&'static str>, fence: Option<&'static str>) -> Exec {
    let t = |th: usize, mine: usize, other: usize| -> Vec<Ev> {
        let mut v = vec![ev(th, W, mine, 1, w)];
        if fence.is_some() {
            v.push(ev(th, F, 0, 0, fence));
        }
        v.push(ev(th, R, other, 0, r));
        v
    };
    let (t0, t1) = (t(0, X, Y), t(1, Y, X));
    let k = t0.len();
    // events: 0 1 init; 2.. thread 0; 2+k.. thread 1
    let (w0, r0, w1, r1) = (2, 2 + k - 1, 2 + k, 2 + 2 * k - 1);
    exec(2, &[&t0, &t1], &[(Y, r0), (X, r1)], &[&[w0], &[w1]])
}

/// MP: thread 0 writes x (`wx`) then y (`wy`); thread 1 reads y = 1 (`ry`) then x = 0 (`rx`).
fn mp(
    wx: Option<&'static str>,
    wy: Option<&'static str>,
    ry: Option<&'static str>,
    rx: Option<&'static str>,
) -> Exec {
    exec(
        2,
        &[
            &[ev(0, W, X, 1, wx), ev(0, W, Y, 1, wy)],
            &[ev(1, R, Y, 1, ry), ev(1, R, X, 0, rx)],
        ],
        &[(3, 4), (X, 5)],
        &[&[2], &[3]],
    )
}

#[test]
fn classic_tests_have_their_rc11_verdicts() {
    let ours = rc11_model();
    let herd = herds_rc11();
    let mut checked = 0;
    let mut expect = |name: &str, x: Exec, allowed: bool, flags: &[&str]| {
        let mut models = vec![("litmus's rc11.cat", &ours)];
        if let Some(h) = &herd {
            models.push(("herd's rc11.cat", h));
        }
        for (m_name, m) in models {
            let got = judge(m, &x);
            match (&got, allowed) {
                (Ok(f), true) => assert_eq!(f, flags, "{name} under {m_name}: flags"),
                (Err(_), false) => {}
                _ => panic!("{name} under {m_name}: expected allowed = {allowed}, got {got:?}"),
            }
        }
        checked += 1;
    };
    // SB: forbidden with seq_cst accesses, allowed with release/acquire or relaxed ones.
    expect("SB+sc", sb(SC, SC, None), false, &[]);
    expect("SB+rel+acq", sb(REL, ACQ, None), true, &[]);
    expect("SB+rlx", sb(RLX, RLX, None), true, &[]);
    // ... forbidden again with seq_cst fences between relaxed accesses (psc_F / psc_base).
    expect("SB+rlx+fences-sc", sb(RLX, RLX, SC), false, &[]);
    expect("SB+rlx+fences-acq_rel", sb(RLX, RLX, ACQ_REL), true, &[]);
    // SB with non-atomic accesses: racy (both write/read pairs unordered), herd's `*undef*`.
    expect("SB+na", sb(NA, NA, None), true, &[UNDEF_FLAG]);
    // MP: the stale read of x is forbidden with release/acquire, allowed with relaxed.
    expect("MP+rel+acq", mp(RLX, REL, ACQ, RLX), false, &[]);
    expect("MP+rlx", mp(RLX, RLX, RLX, RLX), true, &[]);
    expect("MP+sc", mp(SC, SC, SC, SC), false, &[]);
    // MP with a non-atomic x: no race when release/acquire orders it (the outcome that
    // reads x = 1), a race (undefined) with a relaxed flag.
    let mut ok = mp(NA, REL, ACQ, NA);
    ok.evs[5].value = 1;
    ok.rf = vec![(3, 4), (2, 5)];
    expect("MP+na+rel+acq (x = 1)", ok, true, &[]);
    let mut racy = mp(NA, RLX, RLX, NA);
    racy.evs[5].value = 1;
    racy.rf = vec![(3, 4), (2, 5)];
    expect("MP+na+rlx (x = 1)", racy, true, &[UNDEF_FLAG]);
    // MP through fences: release fence before a relaxed write, acquire fence after a relaxed
    // read: forbidden.
    let fenced = exec(
        2,
        &[
            &[
                ev(0, W, X, 1, RLX),
                ev(0, F, 0, 0, REL),
                ev(0, W, Y, 1, RLX),
            ],
            &[
                ev(1, R, Y, 1, RLX),
                ev(1, F, 0, 0, ACQ),
                ev(1, R, X, 0, RLX),
            ],
        ],
        &[(4, 5), (X, 7)],
        &[&[2], &[4]],
    );
    expect("MP+fence-rel+fence-acq", fenced, false, &[]);
    // LB: both reads see the other thread's later write: forbidden by no-thin-air even with
    // relaxed accesses.
    let lb = |m| {
        exec(
            2,
            &[
                &[ev(0, R, X, 1, m), ev(0, W, Y, 1, m)],
                &[ev(1, R, Y, 1, m), ev(1, W, X, 1, m)],
            ],
            &[(5, 2), (3, 4)],
            &[&[5], &[3]],
        )
    };
    expect("LB+rlx", lb(RLX), false, &[]);
    // IRIW: two writers, two readers that see the writes in opposite orders: forbidden with
    // seq_cst everywhere, allowed with release writes and acquire reads.
    let iriw = |w, r| {
        exec(
            2,
            &[
                &[ev(0, W, X, 1, w)],
                &[ev(1, W, Y, 1, w)],
                &[ev(2, R, X, 1, r), ev(2, R, Y, 0, r)],
                &[ev(3, R, Y, 1, r), ev(3, R, X, 0, r)],
            ],
            &[(2, 4), (Y, 5), (3, 6), (X, 7)],
            &[&[2], &[3]],
        )
    };
    expect("IRIW+sc", iriw(SC, SC), false, &[]);
    expect("IRIW+rel+acq", iriw(REL, ACQ), true, &[]);
    // ... and with relaxed accesses and seq_cst fences between the reads: forbidden, by psc_F
    // alone (the cycle goes through rf, which scb leaves out).
    let iriw_fences = |fence| {
        exec(
            2,
            &[
                &[ev(0, W, X, 1, RLX)],
                &[ev(1, W, Y, 1, RLX)],
                &[
                    ev(2, R, X, 1, RLX),
                    ev(2, F, 0, 0, fence),
                    ev(2, R, Y, 0, RLX),
                ],
                &[
                    ev(3, R, Y, 1, RLX),
                    ev(3, F, 0, 0, fence),
                    ev(3, R, X, 0, RLX),
                ],
            ],
            &[(2, 4), (Y, 6), (3, 7), (X, 9)],
            &[&[2], &[3]],
        )
    };
    expect("IRIW+rlx+fences-sc", iriw_fences(SC), false, &[]);
    expect("IRIW+rlx+fences-acq_rel", iriw_fences(ACQ_REL), true, &[]);
    // The paper's reason for scb's `sb|≠loc ; hb ; sb|≠loc`: seq_cst accesses ordered only
    // through a release/acquire pair of other locations. P0: x =sc 1; y =rel 1. P1: y =acq
    // 1; z =sc 0. P2: z =sc 1; x =sc 0. Forbidden; with a relaxed write of y, allowed.
    let scb = |wy| {
        exec(
            3,
            &[
                &[ev(0, W, X, 1, SC), ev(0, W, Y, 1, wy)],
                &[ev(1, R, Y, 1, ACQ), ev(1, R, 2, 0, SC)],
                &[ev(2, W, 2, 1, SC), ev(2, R, X, 0, SC)],
            ],
            &[(4, 5), (2, 6), (X, 8)],
            &[&[3], &[4], &[7]],
        )
    };
    expect("scb through release/acquire", scb(REL), false, &[]);
    expect("scb without synchronisation", scb(RLX), true, &[]);
    // 2+2W: x = 1; y = 2 || y = 1; x = 2, with x = 1 and y = 1 last: forbidden with
    // seq_cst writes, allowed with relaxed or release ones (no rf, so no hb between them).
    let two_plus_two = |m| {
        exec(
            2,
            &[
                &[ev(0, W, X, 1, m), ev(0, W, Y, 2, m)],
                &[ev(1, W, Y, 1, m), ev(1, W, X, 2, m)],
            ],
            &[],
            &[&[5, 2], &[3, 4]],
        )
    };
    expect("2+2W+sc", two_plus_two(SC), false, &[]);
    expect("2+2W+rel", two_plus_two(REL), true, &[]);
    expect("2+2W+rlx", two_plus_two(RLX), true, &[]);
    // Two fetch_adds that both read 0: the second breaks atomicity (forbidden); reading each
    // other in turn is allowed.
    // (An RMW event's value is the one it writes; its rf source gives the one it reads.)
    let adds = |second_reads: usize| {
        exec(
            1,
            &[&[ev(0, U, X, 1, RLX)], &[ev(1, U, X, 2, RLX)]],
            &[(X, 1), (second_reads, 2)],
            &[&[1, 2]],
        )
    };
    expect("2xfetch_add, both read 0", adds(X), false, &[]);
    expect("2xfetch_add in turn", adds(1), true, &[]);
    // An RMW that reads from the write coherence-after it: incoherent.
    let late = exec(
        1,
        &[&[ev(0, U, X, 1, SC)], &[ev(1, W, X, 2, SC)]],
        &[(2, 1)],
        &[&[1, 2]],
    );
    expect("RMW reading a later write", late, false, &[]);
    // Release sequence: a release write, then a relaxed RMW of another thread reading it; an
    // acquire read of the RMW synchronises with the release write.
    let rs = exec(
        2,
        &[
            &[ev(0, W, X, 1, RLX), ev(0, W, Y, 1, REL)],
            &[ev(1, U, Y, 2, RLX)],
            &[ev(2, R, Y, 2, ACQ), ev(2, R, X, 0, RLX)],
        ],
        &[(3, 4), (4, 5), (X, 6)],
        &[&[2], &[3, 4]],
    );
    expect("release sequence through an RMW", rs, false, &[]);
    println!("{checked} classic executions checked");
}
