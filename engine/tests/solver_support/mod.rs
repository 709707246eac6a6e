//! The program both Z3 watcher tests explore (`solver_watch.rs`, `solver_watch_memory.rs`:
//! separate files, since the watcher is process-wide).

/// Six threads of three store-load pairs over six locations (the limits benchmark's heavy
/// program): thousands of queries, each over a trace of dozens of events.
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
