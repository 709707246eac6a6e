//! The reproducers that are generated rather than written out: shared by the limits
//! tests (`tests/cli_limits.rs`) and the limits benchmark (`benches/limits.rs`), so that both
//! measure the same programs.

/// One thread of `n` plain register assignments over `regs` registers.
pub fn straight_line(n: usize, regs: usize) -> String {
    let body: String = (0..n)
        .map(|i| format!("  r{} = {i};\n", i % regs))
        .collect();
    format!("litmus S\nshared x = 0;\nthread P0 {{\n{body}}}\n")
}

/// Six threads of three store-load pairs over six locations: more states than a small memory
/// budget holds.
pub fn heavy() -> String {
    let th: Vec<String> = (0..6)
        .map(|t| {
            let ops: String = (0..3)
                .map(|k| {
                    format!(
                        "x{} = {}; r{k} = x{}; ",
                        (t + k) % 6,
                        k + 1,
                        (t + k + 1) % 6
                    )
                })
                .collect();
            format!("thread P{t} {{ {ops}}}")
        })
        .collect();
    let shared: Vec<String> = (0..6).map(|i| format!("x{i} = 0")).collect();
    format!(
        "litmus H\nshared {};\n{}\n",
        shared.join(", "),
        th.join("\n")
    )
}
