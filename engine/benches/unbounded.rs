//! `--unbounded` against the bounded check, on the lazy-TSO paper's first experiment
//! (Lamport's fast mutex for N threads, here in an endless loop so that "for every
//! iteration" means every number of rounds) and the endless-loop classics of
//! `tests/litmus/forever/`, and the paper's Figures 7 (Dekker with an N-branching diamond)
//! and 8 (a length-N store loop) for N = 2, 4, 8. Per program and model: the unbounded answer, the states its
//! searches visited (SC states; under TSO also the attack search's and the last refinement
//! round's of lazy TSO reachability), the refinement rounds, its time and peak heap; and the
//! bounded check (DPOR unless `UNBOUNDED_ENGINE` names another engine; the unbounded check's
//! own bounded part uses it too) at loop bounds 2, 8 and 32 (violations found, whether the bound cut
//! it, time), each with a time limit. Prints a Markdown table (committed as
//! `docs/bench-unbounded.md`).
//!
//! Run: `nice cargo bench -p litmus-engine --bench unbounded` (`UNBOUNDED_MIN_N`,
//! `UNBOUNDED_MAX_N` for the threads of Lamport's mutex, default 2 to 5; `UNBOUNDED_LIMIT_S`
//! for the per-check time limit, default 60; `UNBOUNDED_STATES` for the state budget per
//! search, default 2,000,000; `UNBOUNDED_BOUNDS` for the bounded checks' loop bounds, default
//! `2,8,32`; `UNBOUNDED_CLASSICS=0` to leave out the classics; `UNBOUNDED_FIG_N` and
//! `UNBOUNDED_FIG_MAX_N` for the figures' N, default 2 to 8, powers of two).

use litmus_engine::unbounded::{self, Verdict};
use litmus_engine::{check, syntax, CheckOptions, Control, Model};
use std::alloc::{GlobalAlloc, Layout, System};
use std::sync::atomic::{AtomicUsize, Ordering};
use std::time::{Duration, Instant};

/// The heap in use and its peak, counted by the allocator (the peak of one check: reset to
/// the heap in use before it).
struct Counting;
static IN_USE: AtomicUsize = AtomicUsize::new(0);
static PEAK: AtomicUsize = AtomicUsize::new(0);

unsafe impl GlobalAlloc for Counting {
    unsafe fn alloc(&self, l: Layout) -> *mut u8 {
        let p = unsafe { System.alloc(l) };
        if !p.is_null() {
            let now = IN_USE.fetch_add(l.size(), Ordering::Relaxed) + l.size();
            PEAK.fetch_max(now, Ordering::Relaxed);
        }
        p
    }
    unsafe fn dealloc(&self, p: *mut u8, l: Layout) {
        unsafe { System.dealloc(p, l) };
        IN_USE.fetch_sub(l.size(), Ordering::Relaxed);
    }
}

#[global_allocator]
static ALLOC: Counting = Counting;

/// Starts counting a check's peak; returns the heap in use. Waits first until the previous
/// check's memory, which the engine frees on a background thread, has not shrunk for 1 s.
fn peak_start() -> usize {
    let mut stable = 0;
    while stable < 10 {
        let before = IN_USE.load(Ordering::Relaxed);
        std::thread::sleep(Duration::from_millis(100));
        stable = if IN_USE.load(Ordering::Relaxed) >= before {
            stable + 1
        } else {
            0
        };
    }
    let now = IN_USE.load(Ordering::Relaxed);
    PEAK.store(now, Ordering::Relaxed);
    now
}

/// The peak heap since `base` (from [`peak_start`]), in MiB.
fn peak_mib(base: usize) -> f64 {
    PEAK.load(Ordering::Relaxed).saturating_sub(base) as f64 / (1024.0 * 1024.0)
}

/// Lamport's fast mutex for `n` threads in an endless loop, each round guarded by
/// `fetch_add(inside)` and an assertion; with `fenced`, a fence after every store a later load
/// of the thread could overtake (TSO).
fn lamport(n: usize, fenced: bool) -> String {
    let f = if fenced { "fence;" } else { "" };
    let bs: Vec<String> = (1..=n).map(|i| format!("b{i} = 0")).collect();
    let mut s = format!(
        "litmus Lamport{n}\nshared {}, x = 0, y = 0, inside = 0;\n",
        bs.join(", ")
    );
    for i in 1..=n {
        let waits: String = (1..=n)
            .filter(|&j| j != i)
            .map(|j| format!("await(b{j} == 0);\n"))
            .collect();
        s += &format!(
            "thread P{i} {{
while (1) {{
b{i} = 1; {f}
x = {i}; {f}
ok = 0;
r = y;
if (r == 0) {{
  y = {i}; {f}
  r = x;
  if (r == {i}) {{ ok = 1; }} else {{
    b{i} = 0; {f}
    {waits}
    r = y;
    if (r == {i}) {{ ok = 1; }} else {{ await(y == 0); }}
  }}
}} else {{ b{i} = 0; {f} await(y == 0); }}
if (ok == 1) {{
  r = fetch_add(inside, 1);
  assert(r == 0);
  r = fetch_add(inside, -1);
  y = 0;
  b{i} = 0;
}}
}}
}}
"
        );
    }
    s
}

/// The lazy-TSO paper's Figure 7: Dekker's entry with an "N-branching diamond" over
/// addresses `a`, `b` (distinct from `x`, `y`) between each thread's store and its load; the
/// goal (both threads read 0) is TSO-reachable when the first store is delayed past the last
/// load. Our rendering of the diamond (the language has no nondeterministic branch): `n`
/// two-way diamonds in sequence, each branching on a value read from `a` or `b` (which both
/// threads write), so up to `2^n` paths. The goal is the failure of `~exists` (a violation).
fn diamond(n: usize) -> String {
    let mut s = "litmus Diamond\nshared x = 0, y = 0, a = 0, b = 0;\n".to_string();
    for (i, (mine, theirs)) in [("x", "y"), ("y", "x")].into_iter().enumerate() {
        let d: String = (0..n)
            .map(|k| {
                let (r, w) = if k % 2 == 0 { ("a", "b") } else { ("b", "a") };
                format!("d = {r}; if (d == 0) {{ {r} = 1; }} else {{ {w} = 0; }}\n")
            })
            .collect();
        s += &format!("thread P{i} {{ {mine} = 1;\n{d}\nr = {theirs}; }}\n");
    }
    s + "~exists (P0:r == 0 && P1:r == 0)\n"
}

/// The lazy-TSO paper's Figure 8: thread P0 runs a loop of `n` stores to `x` (`n - 1` of 1,
/// then 0) twice and then expects to load `y`'s initial value; P1 stores `y` first and then
/// expects to load 1 and then 0 from `x`. Only TSO (P1's store of `y` delayed past its loads)
/// reaches the goal (the failure of `~exists`): under SC, P0's load of `y` precedes P1's
/// store, so P0 has finished and `x` is 0 before P1 loads it.
fn store_loop(n: usize) -> String {
    let stores: String = (1..n).map(|_| "x = 1; ".to_string()).collect();
    format!(
        "litmus StoreLoop{n}
shared x = 0, y = 0;
thread P0 {{ k = 0; while (k < 2) {{ {stores}x = 0; k = k + 1; }} r = y; assume(r == 0); }}
thread P1 {{ y = 1; q = x; assume(q == 1); q = x; assume(q == 0); }}
~exists (P0:r == 0)
"
    )
}

fn main() {
    let env = |k: &str, d: usize| -> usize {
        std::env::var(k)
            .ok()
            .and_then(|v| v.parse().ok())
            .unwrap_or(d)
    };
    let (min_n, max_n) = (env("UNBOUNDED_MIN_N", 2), env("UNBOUNDED_MAX_N", 5));
    let bounds: Vec<u32> = std::env::var("UNBOUNDED_BOUNDS")
        .unwrap_or_else(|_| "2,8,32".to_string())
        .split(',')
        .filter_map(|b| b.trim().parse().ok())
        .collect();
    let budget = unbounded::Budget {
        states: env("UNBOUNDED_STATES", 2_000_000) as u64,
        ..unbounded::Budget::default()
    };
    let limit = Duration::from_secs_f64(
        std::env::var("UNBOUNDED_LIMIT_S")
            .ok()
            .and_then(|v| v.parse().ok())
            .unwrap_or(60.0),
    );
    let mut programs: Vec<(String, String)> = Vec::new();
    for n in min_n..=max_n {
        for fenced in [true, false] {
            let name = format!("Lamport N={n}{}", if fenced { " +fences" } else { "" });
            programs.push((name, lamport(n, fenced)));
        }
    }
    for n in env("UNBOUNDED_FIG_N", 2)..=env("UNBOUNDED_FIG_MAX_N", 8) {
        if n.is_power_of_two() {
            programs.push((format!("Fig. 7 diamond N={n}"), diamond(n)));
            programs.push((format!("Fig. 8 store loop N={n}"), store_loop(n)));
        }
    }
    let engine = std::env::var("UNBOUNDED_ENGINE").unwrap_or_else(|_| "dpor".to_string());
    let engine = litmus_engine::EngineChoice::parse(&engine).expect("an engine name");
    let root = concat!(env!("CARGO_MANIFEST_DIR"), "/../tests/litmus/forever");
    let classics: &[&str] = if env("UNBOUNDED_CLASSICS", 1) == 0 {
        &[]
    } else {
        &["dekker", "peterson", "szymanski"]
    };
    for name in classics {
        for fenced in [true, false] {
            let file = format!("{name}{}", if fenced { "_fence" } else { "" });
            let src = std::fs::read_to_string(format!("{root}/{file}.litmus")).unwrap();
            programs.push((format!("forever/{file}"), src));
        }
    }
    let head: String = bounds
        .iter()
        .map(|b| format!(" bound {b}: violations, cut, time (s) |"))
        .collect();
    println!(
        "| program | model | unbounded | robust | rounds | SC states | attack states | \
         last round states | time (s) | peak heap (MiB) |{head}"
    );
    println!(
        "|---|---|---|---|---|---|---|---|---|---|{}",
        "---|".repeat(bounds.len())
    );
    for (name, src) in &programs {
        let t = syntax::parse(src).test.expect("parses");
        for m in [Model::Sc, Model::Tso] {
            let opts = CheckOptions {
                engine,
                loop_bound: 2,
                timeout: Some(limit),
                ..CheckOptions::default()
            };
            let base = peak_start();
            let start = Instant::now();
            let u = unbounded::check_with(&t, m, &opts, &Control::new(), budget);
            let secs = start.elapsed().as_secs_f64();
            let mib = peak_mib(base);
            let verdict = match u.unbounded.verdict {
                Verdict::EveryIteration => "every iteration".to_string(),
                Verdict::Violation => format!("violation (bound {})", u.unbounded.loop_bound),
                Verdict::Unknown => {
                    let r = u.unbounded.reason.as_deref().unwrap_or("");
                    let why = if r.contains("half the time limit") {
                        "timeout: the SC search's half"
                    } else if r.contains("timeout") {
                        "timeout"
                    } else if r.contains("memory") {
                        "memory"
                    } else if r.contains("did not close") || r.contains("budget of") {
                        "state budget"
                    } else {
                        "not robust"
                    };
                    format!("unknown ({why})")
                }
            };
            let (robust, attack) = match &u.unbounded.robust {
                Some(r) if !r.complete => ("unknown".to_string(), r.states.to_string()),
                Some(r) => (
                    if r.holds { "yes" } else { "no" }.to_string(),
                    r.states.to_string(),
                ),
                None => ("-".to_string(), "-".to_string()),
            };
            let mut bounded = Vec::new();
            for &bound in &bounds {
                let o = CheckOptions {
                    loop_bound: bound,
                    ..opts.clone()
                };
                let start = Instant::now();
                let r = check(&t, m, &o, &Control::new());
                let cut = r.warnings.iter().any(|w| w.message.contains("loop bound"));
                bounded.push(format!(
                    "{}{}, {}, {:.2}",
                    r.violations.len(),
                    if r.complete { "" } else { " (timeout)" },
                    if cut { "cut" } else { "-" },
                    start.elapsed().as_secs_f64()
                ));
            }
            println!(
                "| {name} | {} | {verdict} | {robust} | {} | {} | {attack} | {} | {secs:.2} | \
                 {mib:.0} | {} |",
                m.label(),
                u.unbounded.rounds,
                u.unbounded.states,
                u.unbounded.round_states,
                bounded.join(" | ")
            );
        }
    }
}
