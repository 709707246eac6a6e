//! The portfolio's plan: which engines run on a program, in which order, and when each joins
//! (a static measure of the program, [`lean`]), and the weight of each engine's unit of work.
//! See [`super`] for how the plan is run.

use crate::ir::{InstrKind, Program};
use crate::options::{CheckOptions, EngineKind};
use crate::report::Model;

/// The cost of one unit of `engine`'s work ([`crate::collect::WorkFn`]) on `program` under
/// `model`, in the portfolio's unit (about a nanosecond of CPU time of a release build).
///
/// Fitted on CPU time per unit over the counter, the SB ring and the corpus
/// (`docs/bench-engines.md`, "Work weights"): a unit of DPOR (256 steps) costs about
/// in proportion to the threads (each step's race search and clocks are per thread) and more
/// under TSO and PSO (buffered stores are events too); a unit of the reference explorer (one
/// state) costs more with more threads (the state holds each one's registers and buffers)
/// and under TSO and PSO; MCR's (one step, or a decided query's share) barely varies. One
/// weight per engine, as before, was off by up to fifteenfold for DPOR between two threads
/// and twelve. MCR's was refitted when its queries began to count (issue 58): CPU time per
/// unit on dev seeds 0-199 of the engine benchmark's held-out generator, the corpus and the
/// MCR paper's Example under PSO, about 1.2-1.25 µs. With the queries uncounted, CPU per unit
/// on the same runs spread with a standard deviation of 0.66 in its logarithm (up to 14
/// times off the mean); with them, 0.16 (at most 1.8 times off).
pub fn weight(engine: EngineKind, program: &Program, model: Model) -> u64 {
    let threads = program.threads.len().max(1) as f64;
    let (base, per_thread, tso, pso) = match engine {
        EngineKind::Exhaustive => WEIGHT_EXHAUSTIVE,
        EngineKind::Dpor => WEIGHT_DPOR,
        EngineKind::Mcr => WEIGHT_MCR,
    };
    let by_model = match model {
        Model::Sc => 1.0,
        Model::Tso => tso,
        Model::Pso => pso,
    };
    (base * threads.powf(per_thread) * by_model).round() as u64
}

/// Per engine: nanoseconds per unit with one thread under SC, the exponent of the thread
/// count, and the factors for TSO and PSO.
const WEIGHT_EXHAUSTIVE: (f64, f64, f64, f64) = (1_050.0, 0.5, 1.1, 1.35);
const WEIGHT_DPOR: (f64, f64, f64, f64) = (51_000.0, 1.0, 1.5, 2.2);
const WEIGHT_MCR: (f64, f64, f64, f64) = (1_040.0, 0.0, 1.1, 1.2);

/// Whether some thread of `program` has a loop (a jump backwards).
pub fn has_loop(program: &Program) -> bool {
    program.threads.iter().any(|t| {
        t.code.iter().enumerate().any(|(i, ins)| match ins.kind {
            InstrKind::Jump(target) | InstrKind::JumpIf { target, .. } => (target as usize) <= i,
            _ => false,
        })
    })
}

/// `ln(n!)`.
fn ln_factorial(n: u64) -> f64 {
    (2..=n).map(|i| (i as f64).ln()).sum()
}

/// A static measure of a loop-free `program` under `model`: the natural log of DPOR's
/// estimated work over the reference explorer's.
///
/// DPOR runs about one execution per Shasha-Snir class, each costing its steps. A class is
/// fixed, per location (a shared variable, an array as one, a mutex) that some thread writes
/// and two threads access, by the order of the writes (the multinomial of each thread's
/// count) and, for each run of reads of one thread, where it falls among the other threads'
/// writes (with `g` of them between two writes of its own on average, a run of `r` reads has
/// `C(g + r, r)` places). The reference explorer visits at most one state per combination of
/// thread positions (times, under TSO and PSO, how many stores each thread may have
/// buffered), each costing a step per thread. Both are estimates from instruction counts
/// (both arms of a branch count); what matters is their ratio: many threads racing on one
/// location (the counter: millions of classes, a few hundred states) against many locations
/// with few accesses each (the SB ring: 2^n classes, 3^n states).
pub fn lean(program: &Program, model: Model) -> f64 {
    let code: Vec<Vec<&InstrKind>> = program
        .threads
        .iter()
        .map(|t| t.code.iter().map(|i| &i.kind).collect())
        .collect();
    lean_of(program, model, &code)
}

/// [`lean`] of a looping `program`, from the instructions each thread runs alone with its
/// loops unrolled ([`super::unroll`]: counted loops their trip counts, loops on memory two
/// rounds, every loop at most `loop_bound`), instead of its code.
pub fn lean_unrolled(program: &Program, model: Model, loop_bound: u32) -> f64 {
    lean_of(
        program,
        model,
        &super::unroll::unrolled(program, loop_bound),
    )
}

/// [`lean`] over `code`, per thread the instructions it runs, in order.
fn lean_of(program: &Program, model: Model, code: &[Vec<&InstrKind>]) -> f64 {
    let n_vars = program.vars.len();
    let n_locs = n_vars + program.mutexes.len();
    let n_threads = program.threads.len();
    // Per location and thread: its writes and its runs of reads, in program order.
    let mut writes = vec![vec![0u64; n_threads]; n_locs];
    let mut runs: Vec<Vec<Vec<u64>>> = vec![vec![vec![]; n_threads]; n_locs];
    let mut last_read = vec![vec![false; n_threads]; n_locs];
    let (mut ln_exh, mut steps) = (0.0, 0u64);
    for (t, th) in code.iter().enumerate() {
        let (mut vis, mut stores) = (0u64, 0u64);
        for &kind in th {
            let (loc, write) = match kind {
                InstrKind::Load { loc, .. } => (Some(loc.var as usize), false),
                InstrKind::Store { loc, .. } => {
                    stores += 1;
                    (Some(loc.var as usize), true)
                }
                InstrKind::Rmw { loc, .. } => (Some(loc.var as usize), true),
                // A locked section is one unit in the order of a mutex's owners: DPOR races
                // acquisitions (`docs/design/dpor.md`), and a release races with nothing.
                InstrKind::Lock(m) => (Some(n_vars + *m as usize), true),
                _ => (None, false),
            };
            if kind.is_visible() {
                vis += 1;
            }
            if let Some(l) = loc.filter(|&l| l < n_locs) {
                if write {
                    writes[l][t] += 1;
                    last_read[l][t] = false;
                } else if last_read[l][t] {
                    *runs[l][t].last_mut().expect("a run is open") += 1;
                } else {
                    runs[l][t].push(1);
                    last_read[l][t] = true;
                }
            }
        }
        steps += vis;
        ln_exh += ((vis + 1) as f64).ln();
        if model != Model::Sc {
            ln_exh += ((stores + 1) as f64).ln();
        }
    }
    ln_exh += (n_threads.max(1) as f64).ln();
    let mut ln_dpor = (steps.max(1) as f64).ln();
    for l in 0..n_locs {
        let w = &writes[l];
        let total: u64 = w.iter().sum();
        let touching = (0..n_threads)
            .filter(|&t| w[t] > 0 || !runs[l][t].is_empty())
            .count();
        if total == 0 || touching < 2 {
            continue;
        }
        ln_dpor += ln_factorial(total) - w.iter().map(|&k| ln_factorial(k)).sum::<f64>();
        for t in 0..n_threads {
            let g = (total - w[t]) as f64 / (w[t] + 1) as f64;
            for &r in &runs[l][t] {
                ln_dpor += (1..=r)
                    .map(|j| ((g + j as f64) / j as f64).ln())
                    .sum::<f64>();
            }
        }
    }
    ln_dpor - ln_exh
}

/// Where [`lean`] says the reference explorer first, for a program without loops or awaits
/// under SC and under TSO/PSO, and for one with awaits under TSO/PSO (under SC awaits always
/// say the reference explorer). Chosen on the counter, the SB ring, the corpus and the x86
/// set: the estimate leaves out register values and buffered values, which the reference
/// explorer's states also hold, and awaits cost DPOR real steps per failed round.
const LEAN_SC: f64 = 3.7;
const LEAN_WEAK: f64 = 2.2;
const LEAN_AWAIT_WEAK: f64 = 4.0;

/// Where [`lean_unrolled`] says the reference explorer first for a looping program, under
/// every model (issue 58). Chosen under PSO on seeds 0-199 of the held-out family's generator
/// (the benchmark's `ENGINES_HELDOUT_SEED=0`), which the benchmark's own seeds (from
/// 5,800,000) never use: at 3.5, 11 of 196 programs go first to the slower of DPOR and the
/// reference explorer by more than 1.2x (12 at 3 and 10 at 4), against 26 with DPOR always
/// first. Kept for SC and TSO: on the same dev seeds under those models (simulated from each
/// member's measured CPU time) thresholds from 0 to 3.5 were within noise of each other
/// (geometric mean 1.040-1.052 under SC, where the reference explorer always first gave 1.090).
const LEAN_LOOP: f64 = 3.5;

/// The head start of a guess [`lean_unrolled`] made: `e^d` times [`ALONE`] where it is DPOR,
/// [`UNSURE`] where it is the reference explorer, at most [`CONFIDENT`]. On the dev seeds
/// (simulated from each member's measured CPU time, the starts from 5 to 80 ms and the
/// threshold from 2 to 5) these were among the best within 1%: DPOR first is
/// wrong mostly by a little (the reference explorer joins sooner), the reference explorer first
/// is right by a lot or wrong by a lot.
fn loop_head_start(lean: f64, at: f64) -> u64 {
    let base = if lean > at { UNSURE } else { ALONE };
    let x = (lean - at).abs().exp() * base as f64;
    x.clamp(base as f64, CONFIDENT as f64) as u64
}

/// The head start of a guess [`lean`] made, by how far it was from the threshold `at`:
/// [`UNSURE`] times `e^d`, at most [`CONFIDENT`]. Near the threshold the engines cost about
/// the same, so running the guess alone loses little where it is wrong and running both
/// halves each one's share of a busy machine; far from it the guess is much cheaper, unless
/// the estimate (which grows with the program, as its error does) is badly off.
fn head_start(lean: f64, at: f64) -> u64 {
    let x = (lean - at).abs().exp() * (UNSURE / ALONE) as f64;
    (ALONE as f64 * x.clamp(1.0, (CONFIDENT / ALONE) as f64)) as u64
}

/// The static guess's plan: the engines in the order that breaks ties, each with its start:
/// the weighted work of the first candidate (the static guess, start 0)
/// at which it joins, which is also the work it is charged for joining (so it can only answer
/// where it would have finished first had every engine started at its start).
///
/// Where no thread loops: under SC with an await, the reference explorer (it merges equal
/// states: await-heavy locks such as Szymanski's converge on few); else [`lean`] chooses
/// between DPOR and the reference explorer, and the further it is from its threshold the
/// longer the guess runs alone.
///
/// Where a thread loops, under every model: [`lean_unrolled`] chooses, with the runner-up's
/// start by how far it is from its threshold ([`loop_head_start`]). Until issue 58's second
/// part a loop under SC always went to the reference explorer (the MCR paper's Example at
/// N = 5: 5 ms against DPOR's 560, which `lean_unrolled` also puts there) and under TSO to
/// DPOR with the reference explorer at [`EARLY`]; on the held-out family under SC and TSO
/// that cost 1.158 of the best member in CPU, now 1.097 (`docs/bench-engines.md`).
/// MCR joins them under PSO, with the runner-up, where no thread awaits: what it is good at is loops
/// that rewrite equal values, and under PSO each rewrite of a location reorders against every
/// other location's stores, which multiplies DPOR's classes and the reference explorer's
/// states but not MCR's causal states (the Example at N = 3: MCR 11 ms, DPOR 48; at N = 4:
/// 40 ms, the reference explorer 680, DPOR 1.9 s; at N = 5 it alone finishes within 10 s).
/// Under TSO it lost every looping row of the benchmark (the Example at N = 5: 230 ms, the
/// reference explorer 93), under SC every row, with awaits every looping one. Not with
/// `--first` (kept from when MCR's `--first` control counted no work, so that the picks stay
/// as they were).
fn guess_plan(program: &Program, model: Model, opts: &CheckOptions) -> Vec<(EngineKind, u64)> {
    use EngineKind::{Dpor, Exhaustive, Mcr};
    let awaits = program.threads.iter().any(|t| {
        t.code
            .iter()
            .any(|i| matches!(i.kind, InstrKind::AwaitBegin))
    });
    let sc = model == Model::Sc;
    // A member answers with the report it gives alone (`tests/auto.rs`); MCR alone is swept
    // against the reference explorer on every program (`tests/sweep.rs`, issue 39), and so is
    // the portfolio with every member, MCR answering on about a sixth of the programs.
    let mcr = model == Model::Pso && !opts.first && !awaits;
    // `--first` under TSO or PSO on a program that asserts or awaits (a lock): DPOR's first
    // executions run each thread through, where a broken lock shows, while the reference
    // explorer reaches a violation only after the states of the shorter interleavings
    // (Nidhugg's Szymanski under TSO: DPOR 35 executions, the reference explorer 1,466).
    // Without a violation `--first` explores everything, and the reference explorer joins.
    let asserts = program.threads.iter().any(|t| {
        t.code
            .iter()
            .any(|i| matches!(i.kind, InstrKind::Assert(_)))
    });
    if opts.first && !sc && (asserts || awaits) {
        return vec![(Dpor, 0), (Exhaustive, UNSURE)];
    }
    if !has_loop(program) {
        if awaits && sc {
            return vec![(Exhaustive, 0), (Dpor, UNSURE)];
        }
        let at = match (awaits, sc) {
            (true, _) => LEAN_AWAIT_WEAK,
            (false, true) => LEAN_SC,
            (false, false) => LEAN_WEAK,
        };
        let l = lean(program, model);
        let start = head_start(l, at);
        if l > at {
            return vec![(Exhaustive, 0), (Dpor, start)];
        }
        return vec![(Dpor, 0), (Exhaustive, start)];
    }
    let l = lean_unrolled(program, model, opts.loop_bound);
    let start = loop_head_start(l, LEAN_LOOP);
    let mut v = if l > LEAN_LOOP {
        vec![(Exhaustive, 0), (Dpor, start)]
    } else {
        vec![(Dpor, 0), (Exhaustive, start)]
    };
    if mcr {
        v.push((Mcr, start));
    }
    v
}

/// The engines the portfolio runs on `program` under `model`, in the order that breaks ties,
/// each with its start (see [`guess_plan`]), where the static guess is unsure with the
/// runner-up's start lowered to [`EARLY`] (about 2 ms of the guess's work) from 20-80 ms or
/// more (issue 42). On free cores (a single check: `litmus check` of one file, an editor's
/// save with the server idle) the check then takes about its best member's time whichever
/// that is: by the counted-work rule the winner answers once each other member's work has
/// passed its own, which on a core of its own takes each about the winner's time. The price
/// is CPU where the guess was right and runs past `EARLY`: the runner-up runs beside it until
/// its work passes the guess's (and with no free worker slot, after it on the same thread:
/// the plan does not depend on the slots, so neither does the report, `-j 1` or `-j N`).
///
/// Unsure (measured on the engine benchmark, `docs/bench-engines.md`): MCR beside a looping
/// program under PSO (below); and a loop-free program that assumes where [`lean`] picked the
/// reference explorer: `lean` does not model `assume`, which cuts DPOR's blocked executions
/// short, so it overestimates DPOR there (Nidhugg's Szymanski without fences: `lean` far above
/// its threshold, DPOR cheaper), and DPOR starts early. Where it picked DPOR, DPOR is cheaper
/// still, and the reference explorer keeps its head start (the corpus's `lamport_fast`
/// under TSO: DPOR 2.5 ms, the reference explorer 11 ms, beside it 8 ms of CPU in all). Not under
/// `--first`, whose plan is its own. Until issue 58 a loop under TSO had the reference
/// explorer early beside DPOR; with a static guess for loops the runner-up keeps the head
/// start that guess gives (on the held-out family's dev seeds under TSO, simulated: 1.117 of
/// the best member in CPU and 1.102 on free cores, against 1.152 and 1.076 with it early).
///
/// Under PSO where a thread loops and takes a mutex (issue 58: JMCR's RVExample, the held-out
/// family of the engine benchmark), MCR at [`UNSURE`] at least: MCR, early beside DPOR,
/// answered on none of the first 58 programs of that family and cost CPU on each one past
/// 2 ms (it is the fastest member on some locking programs, e.g. 2.6 ms against DPOR's 10.4,
/// which this gives up). Lock-free loops where the reference explorer is first keep MCR
/// early (the MCR paper's Example).
pub fn candidates(program: &Program, model: Model, opts: &CheckOptions) -> Vec<(EngineKind, u64)> {
    use EngineKind::{Exhaustive, Mcr};
    let mut plan = guess_plan(program, model, opts);
    if opts.first {
        return plan;
    }
    let looping = has_loop(program);
    let locks = locks(program);
    let dpor_early = plan[0].0 == Exhaustive && assumes(program);
    let first = plan[0].0;
    for p in plan.iter_mut().skip(1) {
        let early = match p.0 {
            _ if !looping => p.0 == EngineKind::Dpor && dpor_early,
            // MCR (a member only under PSO, [`guess_plan`]) on lock-free loops where
            // [`lean_unrolled`] put the reference explorer first: early (the MCR paper's
            // Example from N = 3, where it is 4-70x faster than both); where DPOR is first it
            // is rarely beaten by much, and MCR beside it doubled the CPU (Lamport's mutex
            // with JMCR's busy waits: 1.8x). The others where [`lean_unrolled`] placed them.
            Mcr => !locks && first == Exhaustive,
            _ => false,
        };
        if early {
            p.1 = p.1.min(EARLY);
        } else if p.0 == Mcr && locks {
            p.1 = p.1.max(UNSURE);
        }
    }
    plan
}

/// Whether some thread of `program` takes a mutex.
fn locks(program: &Program) -> bool {
    program
        .threads
        .iter()
        .any(|t| t.code.iter().any(|i| matches!(i.kind, InstrKind::Lock(_))))
}

/// Whether some thread of `program` assumes.
fn assumes(program: &Program) -> bool {
    program.threads.iter().any(|t| {
        t.code
            .iter()
            .any(|i| matches!(i.kind, InstrKind::Assume(_)))
    })
}

/// The head start of a runner-up where the guess is unsure ([`candidates`]): about 2 ms of the guess's work, so that a check the guess finishes in
/// that time (most tests) costs one engine and no thread.
pub const EARLY: u64 = ALONE / 10;

/// The unit of head starts: about 20 ms of weighted work. Head starts are work, never time,
/// so whether the others run does not depend on timing either.
pub const ALONE: u64 = 20_000_000;

/// How long a guess runs alone where [`lean`] does not apply or is near its threshold (about
/// 80 ms of weighted work; DPOR's weight is an average over programs whose real cost per poll
/// varies fivefold, so on small programs this is nearer 20 ms of DPOR).
pub const UNSURE: u64 = 4 * ALONE;

/// The longest a guess runs alone (about 3 s): on a busy machine a second engine
/// beside it takes its core, doubling its time, so the others join only where the guess is
/// slow enough that being wrong would cost more.
pub const CONFIDENT: u64 = 150 * ALONE;

/// One engine for callers that need a single exploration on one thread (fence synthesis):
/// the first candidate.
pub fn single(program: &Program, model: Model, opts: &CheckOptions) -> EngineKind {
    candidates(program, model, opts)[0].0
}
