//! Parse + lower time of a generated 5,000-line native test (target: well under 50 ms), and
//! of an incremental reparse after a one-character edit. `cargo bench -p litmus-engine --bench parse`
//! prints a table; a plain harness keeps the build light (no criterion).

use litmus_engine::syntax;
use std::time::{Duration, Instant};
use tree_sitter::{InputEdit, Point};

/// A valid native test of about `lines` lines: many threads with mixed statements.
fn generate(lines: usize) -> String {
    let mut s = String::from(
        "litmus Big \"generated\"\nshared x = 0, y = 0, a[4] = {1, 2, 3, 4};\nmutex m;\n",
    );
    let mut t = 0;
    while s.lines().count() < lines {
        s.push_str(&format!("thread P{t} {{\n"));
        for i in 0..40 {
            match i % 8 {
                0 => s.push_str("  x = 1;\n"),
                1 => s.push_str(&format!("  r{i} = y + a[{}] * 2;\n", i % 4)),
                2 => s.push_str(
                    "  if (r1 == 0 && x != 2) {\n    y = r1 + 1;\n  } else {\n    fence;\n  }\n",
                ),
                3 => s.push_str("  lock(m);\n  r2 = xchg(x, 3);\n  unlock(m);\n"),
                4 => s.push_str("  while (r3 < 2) { r3 = r3 + 1; }\n"),
                5 => s.push_str("  r4 = cas(y, 0, 1);\n"),
                6 => s.push_str("  assert(r4 >= 0 || !(r1 == 1));\n"),
                _ => s.push_str("  fetch_add(a[2], 1);\n"),
            }
        }
        s.push_str("}\n");
        t += 1;
    }
    s.push_str("exists (P0:r1 == 0 && x == 1)\n");
    s
}

fn median(mut v: Vec<Duration>) -> Duration {
    v.sort();
    v[v.len() / 2]
}

/// CPU time this thread has run, from Linux's schedstat (`None` elsewhere). On a loaded
/// machine it is far closer to the unloaded wall time than the wall time is.
fn thread_cpu() -> Option<Duration> {
    let s = std::fs::read_to_string("/proc/thread-self/schedstat").ok()?;
    Some(Duration::from_nanos(
        s.split_whitespace().next()?.parse().ok()?,
    ))
}

struct Row {
    name: String,
    wall: Vec<Duration>,
    cpu: Vec<Duration>,
}

/// Runs `f` `runs` times; `f` returns the part of its work to time (setup excluded).
fn measure(
    name: impl Into<String>,
    runs: usize,
    mut f: impl FnMut() -> (Duration, Option<Duration>),
) -> Row {
    let mut wall = Vec::new();
    let mut cpu = Vec::new();
    for _ in 0..runs {
        let (w, c) = f();
        wall.push(w);
        if let Some(c) = c {
            cpu.push(c);
        }
    }
    Row {
        name: name.into(),
        wall,
        cpu,
    }
}

fn timed<T>(f: impl FnOnce() -> T) -> (Duration, Option<Duration>) {
    let c0 = thread_cpu();
    let t = Instant::now();
    let out = f();
    let w = t.elapsed();
    let c1 = thread_cpu();
    std::hint::black_box(out);
    (w, c0.zip(c1).map(|(a, b)| b.saturating_sub(a)))
}

fn main() {
    let text = generate(5000);
    let lines = text.lines().count();
    let first = syntax::parse(&text);
    assert!(
        first.test.is_some(),
        "generated file must be valid: {:?}",
        &first.diagnostics[..1.min(first.diagnostics.len())]
    );
    let runs = 30;
    let mut rows = Vec::new();

    rows.push(measure(
        format!("parse+lower {lines} lines ({} KB)", text.len() / 1024),
        runs,
        || timed(|| syntax::parse(&text).test),
    ));
    rows.push(measure("  of which tree-sitter parse", runs, || {
        let mut parser = syntax::parser();
        timed(|| parser.parse(&text, None))
    }));
    rows.push(measure("  of which lowering", runs, || {
        timed(|| syntax::lower(&text, &first.tree))
    }));

    // Incremental: change the first `x = 1;` into `x = 2;`.
    let at = text.find("x = 1;").unwrap() + 4;
    let mut edited = text.clone();
    edited.replace_range(at..at + 1, "2");
    let row = text[..at].matches('\n').count();
    let col = at - text[..at].rfind('\n').map_or(0, |i| i + 1);
    let edit = InputEdit {
        start_byte: at,
        old_end_byte: at + 1,
        new_end_byte: at + 1,
        start_position: Point::new(row, col),
        old_end_position: Point::new(row, col + 1),
        new_end_position: Point::new(row, col + 1),
    };
    rows.push(measure(
        "incremental 1-char edit (+ full lowering)",
        runs,
        || {
            let mut old = first.tree.clone();
            old.edit(&edit);
            timed(|| syntax::parse_incremental(&edited, Some(&old)).test)
        },
    ));

    println!(
        "{:<44} {:>10} {:>10} {:>10}",
        "benchmark", "median", "min", "cpu med"
    );
    for r in rows {
        let cpu = if r.cpu.is_empty() {
            "-".to_string()
        } else {
            format!("{:.2?}", median(r.cpu.clone()))
        };
        println!(
            "{:<44} {:>10.2?} {:>10.2?} {:>10}",
            r.name,
            median(r.wall.clone()),
            r.wall.iter().min().unwrap(),
            cpu
        );
    }
}
