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
