//! Scalable programs in the native dialect, shared by the engine's tests and its benchmarks
//! (`engine/benches/engines/main.rs` includes this file by path).
#![allow(dead_code)]

/// Each of `threads` threads increments `c` (a load, then a store) `incs` times; the condition
/// asks whether no increment was lost.
pub fn counter(threads: usize, incs: usize) -> String {
    let mut s = format!("litmus Counter{threads}x{incs}\nshared c = 0;\n");
    for t in 0..threads {
        s += &format!("thread P{t} {{\n");
        for _ in 0..incs {
            s += "  r = c;\n  c = r + 1;\n";
        }
        s += "}\n";
    }
    s + &format!("exists (c == {})\n", threads * incs)
}

/// Store buffering around a ring of `n` threads: thread i writes `x_i` and reads `x_(i+1)`;
/// the condition asks whether every read saw 0.
pub fn sb_ring(n: usize) -> String {
    let cells: Vec<String> = (0..n).map(|i| format!("x{i} = 0")).collect();
    let mut s = format!("litmus SBring{n}\nshared {};\n", cells.join(", "));
    for t in 0..n {
        s += &format!("thread P{t} {{\n  x{t} = 1;\n  r = x{};\n}}\n", (t + 1) % n);
    }
    let all: Vec<String> = (0..n).map(|t| format!("P{t}:r == 0")).collect();
    s + &format!("exists ({})\n", all.join(" && "))
}

/// One of Nidhugg's TACAS'15 benchmarks as translated in `engine/benches/engines/` (`dekker`,
/// `peterson`, `szymanski`, `lamport`), with the fences of `fences` (`none`, `TSO`, `PSO`).
pub fn nidhugg(name: &str, fences: &str) -> String {
    let path = format!(
        "{}/benches/engines/{name}.litmus.tpl",
        env!("CARGO_MANIFEST_DIR")
    );
    let tpl = std::fs::read_to_string(path).expect("template");
    let (t, p) = match fences {
        "none" => ("", ""),
        "TSO" => ("fence;", ""),
        _ => ("fence;", "fence;"),
    };
    tpl.replace("{T}", t).replace("{P}", p)
}

/// Benchmark, unroll bound, fences, and per model ("all", "first").
pub type NidhuggRow = (&'static str, u32, &'static str, [(u64, u64); 3]);

/// Nidhugg 0.4's executions (traces plus assume-blocked traces) on its TACAS'15 benchmarks,
/// "all" (`--keep-going`) and "first" (to the first error), per benchmark, unroll bound (0:
/// none), fences and model (SC, TSO, PSO): `../shared/notes/peers.md`, measured on this machine
/// on 2026-11-26.
pub const NIDHUGG: [NidhuggRow; 15] = [
    ("dekker", 4, "none", [(21, 21), (27, 24), (55, 9)]),
    ("dekker", 4, "TSO", [(21, 21), (21, 21), (49, 9)]),
    ("dekker", 4, "PSO", [(21, 21), (21, 21), (24, 24)]),
    ("dekker", 10, "none", [(21, 21), (27, 24), (55, 9)]),
    ("dekker", 10, "TSO", [(21, 21), (21, 21), (49, 9)]),
    ("dekker", 10, "PSO", [(21, 21), (21, 21), (24, 24)]),
    ("peterson", 0, "none", [(10, 10), (30, 11), (42, 3)]),
    ("peterson", 0, "TSO", [(10, 10), (10, 10), (32, 3)]),
    ("peterson", 0, "PSO", [(10, 10), (10, 10), (10, 10)]),
    ("szymanski", 0, "none", [(103, 103), (1018, 518), (1256, 5)]),
    ("szymanski", 0, "TSO", [(103, 103), (103, 103), (115, 5)]),
    ("szymanski", 0, "PSO", [(103, 103), (103, 103), (103, 103)]),
    ("lamport", 8, "none", [(32, 32), (60, 10), (230, 4)]),
    ("lamport", 8, "TSO", [(32, 32), (32, 32), (96, 4)]),
    ("lamport", 8, "PSO", [(32, 32), (32, 32), (46, 46)]),
];

/// Nidhugg's ("all", "first") executions for a benchmark, fences and model: its row in
/// [`NIDHUGG`] (the same at every unroll bound it was run with).
pub fn nidhugg_counts(name: &str, fences: &str, model: usize) -> (u64, u64) {
    NIDHUGG
        .iter()
        .find(|r| r.0 == name && r.2 == fences)
        .expect("Nidhugg's row")
        .3[model]
}
