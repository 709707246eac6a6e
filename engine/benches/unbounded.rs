//! `--unbounded` against the bounded check, on the lazy-TSO paper's first experiment
//! (Lamport's fast mutex for N threads, here in an endless loop so that "for every
//! iteration" means every number of rounds) and the endless-loop classics of
//! `tests/litmus/forever/`. Per program and model: the unbounded answer, the states its
//! searches visited (SC states; under TSO also the attack search's), its time; and the bounded
//! reference explorer at loop bounds 2 and 8 (violations found, whether the bound cut it, time),
//! each with a time limit. Prints a Markdown table (committed as `docs/bench-unbounded.md`).
//!
//! Run: `cargo bench -p litmus-engine --bench unbounded` (`UNBOUNDED_MAX_N=4` for fewer
//! threads, `UNBOUNDED_LIMIT_S` for the per-check time limit, default 60).

use litmus_engine::unbounded::{self, Verdict};
use litmus_engine::{check, syntax, CheckOptions, Control, EngineKind, Model};
use std::time::{Duration, Instant};

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

fn main() {
    let max_n: usize = std::env::var("UNBOUNDED_MAX_N")
        .ok()
        .and_then(|v| v.parse().ok())
        .unwrap_or(5);
    let limit = Duration::from_secs_f64(
        std::env::var("UNBOUNDED_LIMIT_S")
            .ok()
            .and_then(|v| v.parse().ok())
            .unwrap_or(60.0),
    );
    let mut programs: Vec<(String, String)> = Vec::new();
    for n in 2..=max_n {
        for fenced in [true, false] {
            let name = format!("Lamport N={n}{}", if fenced { " +fences" } else { "" });
            programs.push((name, lamport(n, fenced)));
        }
    }
    let root = concat!(env!("CARGO_MANIFEST_DIR"), "/../tests/litmus/forever");
    for name in ["dekker", "peterson", "szymanski"] {
        for fenced in [true, false] {
            let file = format!("{name}{}", if fenced { "_fence" } else { "" });
            let src = std::fs::read_to_string(format!("{root}/{file}.litmus")).unwrap();
            programs.push((format!("forever/{file}"), src));
        }
    }
    println!(
        "| program | model | unbounded | robust | SC states | attack states | time (s) | \
         bound 2: violations, cut, time (s) | bound 8: violations, cut, time (s) |"
    );
    println!("|---|---|---|---|---|---|---|---|---|");
    for (name, src) in &programs {
        let t = syntax::parse(src).test.expect("parses");
        for m in [Model::Sc, Model::Tso] {
            let opts = CheckOptions {
                engine: EngineKind::Exhaustive.into(),
                loop_bound: 2,
                timeout: Some(limit),
                ..CheckOptions::default()
            };
            let start = Instant::now();
            let u = unbounded::check(&t, m, &opts, &Control::new());
            let secs = start.elapsed().as_secs_f64();
            let verdict = match u.unbounded.verdict {
                Verdict::EveryIteration => "every iteration".to_string(),
                Verdict::Violation => format!("violation (bound {})", u.unbounded.loop_bound),
                Verdict::Unknown => "unknown".to_string(),
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
            for bound in [2, 8] {
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
                "| {name} | {} | {verdict} | {robust} | {} | {attack} | {secs:.2} | {} | {} |",
                m.label(),
                u.unbounded.states,
                bounded[0],
                bounded[1]
            );
        }
    }
}
