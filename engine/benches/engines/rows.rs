//! The rows of the `auto` comparison and the programs built for them.

use crate::programs::{counter, nidhugg, sb_ring};
use litmus_engine::syntax;

/// After the MCR paper's Example (its Figure 6, the electron microscope's PSO bug): a writer
/// builds an object (zeroes then sets its fields) and publishes it, a reader reads it; both
/// loop `n` times.
pub fn mcr_example(n: usize) -> String {
    format!(
        "litmus Example{n}\nshared x = 0, y = 0, z = 0;\n\
         thread P0 {{\n  i = 0;\n  while (i < {n}) {{\n    x = 0;\n    y = 0;\n    x = 2;\n    y = 3;\n    z = 1;\n    i = i + 1;\n  }}\n}}\n\
         thread P1 {{\n  j = 0;\n  while (j < {n}) {{\n    r = z;\n    if (r == 1) {{\n      a = x;\n      b = y;\n      assert(a != 0 && b != 0);\n    }}\n    j = j + 1;\n  }}\n}}\n"
    )
}

/// One row of the `auto` comparison: family, label, source, loop bound, whether the
/// portfolio's weights were fitted on it.
pub struct Row {
    pub family: &'static str,
    pub label: String,
    pub src: String,
    pub bound: u32,
    pub fitted: bool,
}

pub fn files_in(dir: &std::path::Path) -> Vec<std::path::PathBuf> {
    let mut files: Vec<_> = std::fs::read_dir(dir)
        .map(|d| d.filter_map(|e| e.ok().map(|e| e.path())).collect())
        .unwrap_or_default();
    files.retain(|p: &std::path::PathBuf| p.extension().is_some_and(|x| x == "litmus"));
    files.sort();
    files
}

/// The rows of the `auto` comparison. Fitted: the counter, the SB ring and the corpus (the
/// weights and the static guess), the MCR paper's Example (where MCR joins). Held out: the
/// mutual exclusion programs, the examples.
pub fn auto_rows() -> Vec<Row> {
    let mut rows = vec![];
    for (t, k) in [
        (2, 1),
        (2, 2),
        (2, 3),
        (2, 4),
        (3, 1),
        (3, 2),
        (4, 1),
        (3, 3),
    ] {
        rows.push(Row {
            family: "counter",
            label: format!("{t}x{k}"),
            src: counter(t, k),
            bound: 8,
            fitted: true,
        });
    }
    for n in [3, 5, 7, 8, 10, 12] {
        rows.push(Row {
            family: "SB ring",
            label: format!("{n}"),
            src: sb_ring(n),
            bound: 8,
            fitted: true,
        });
    }
    let root = std::path::Path::new(env!("CARGO_MANIFEST_DIR")).join("..");
    for f in files_in(&root.join("tests/litmus")) {
        let src = std::fs::read_to_string(&f).unwrap();
        if syntax::parse(&src).test.is_some() {
            let label = f.file_stem().unwrap().to_string_lossy().to_string();
            rows.push(Row {
                family: "corpus",
                label,
                src,
                bound: 8,
                fitted: true,
            });
        }
    }
    for n in 1..=5 {
        rows.push(Row {
            family: "Example",
            label: format!("N={n}"),
            src: mcr_example(n),
            bound: 8,
            fitted: true,
        });
    }
    for name in ["dekker", "peterson", "szymanski", "lamport"] {
        for f in ["none", "TSO", "PSO"] {
            rows.push(Row {
                family: "mutex",
                label: format!("{name} {f}"),
                src: nidhugg(name, f),
                bound: 8,
                fitted: false,
            });
        }
    }
    for f in files_in(&root.join("examples")) {
        let src = std::fs::read_to_string(&f).unwrap();
        let label = f.file_stem().unwrap().to_string_lossy().to_string();
        rows.push(Row {
            family: "examples",
            label,
            src,
            bound: 8,
            fitted: false,
        });
    }
    // `ENGINES_FAMILY=counter,mutex`: only those families (to re-measure a few rows).
    if let Ok(f) = std::env::var("ENGINES_FAMILY") {
        rows.retain(|r| f.split(',').any(|x| x == r.family));
    }
    rows
}

pub fn geo_mean(v: &[f64]) -> f64 {
    if v.is_empty() {
        return f64::NAN;
    }
    (v.iter().map(|x| x.ln()).sum::<f64>() / v.len() as f64).exp()
}
