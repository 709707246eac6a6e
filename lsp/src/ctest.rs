//! herd's C tests (the Linux kernel's and C11, `docs/reference.md#c`), for `litmus check` and
//! the language server alike: the model a test is checked under, from the user's files (the
//! kernel's model is GPL-2.0 and never bundled): herd's `-conf` file (`--conf`), `--cat` with
//! `--bell` and `--macros`, or, with neither, `tools/memory-model/linux-kernel.cfg` or
//! `linux-kernel.cfg` found in the test's folder or a folder above it (a kernel tree), each
//! read once per run ([`Models`]); a C11 test (`memory_order_*`, `atomic_*_explicit`) with
//! neither is checked under the project's own `rc11.cat` ([`RC11_NAME`]); herd's block of an
//! answer; the answer judged against the test's `Result:` header as the kernel's
//! `judgelitmus.sh` judges it ([`judge`]); and a witness or forbidden candidate as the
//! views and the JSON document draw one ([`execution`]).

use std::collections::BTreeSet;
use std::fmt::Write as _;
use std::sync::Mutex;

use litmus_engine::ast::{Quantifier, Test};
use litmus_engine::axiomatic::{self, CExecution, CKind, CReport};
use litmus_engine::c::source::{Expected, Outcome};

pub use crate::cmodel::*;

/// herd's observation from the counts.
pub fn observation(r: &CReport) -> &'static str {
    match (r.positive, r.negative) {
        (0, _) => "Never",
        (_, 0) => "Always",
        _ => "Sometimes",
    }
}

/// The answer against the `Result:` header, as `judgelitmus.sh` judges it: `Ok(line)` when
/// they agree, `Err(line)` when not.
pub fn judge(expected: &Expected, r: &CReport) -> Result<String, String> {
    let obs = observation(r);
    let race = r.flags.iter().any(|f| f == "data-race");
    // Only the relevant executions examined (`CReport::partial`): what they tell is whether
    // some execution satisfies the condition (`exists`) or violates it (`forall`).
    let some = |never: bool| match r.quantifier {
        Quantifier::Forall => !never || r.negative > 0,
        _ => (r.positive > 0) != never,
    };
    let (want, outcome_ok) = match &expected.outcome {
        Outcome::Never if r.partial => ("Never".to_string(), some(true)),
        Outcome::Sometimes if r.partial => ("Sometimes".to_string(), some(false)),
        Outcome::Always if r.partial => ("Always".to_string(), {
            match r.quantifier {
                Quantifier::Forall => r.negative == 0,
                _ => r.positive > 0,
            }
        }),
        Outcome::Never => ("Never".to_string(), obs == "Never"),
        Outcome::Sometimes => ("Sometimes".to_string(), obs == "Sometimes"),
        Outcome::Always => ("Always".to_string(), obs == "Always"),
        Outcome::Maybe => ("Maybe".to_string(), true),
        // herd writes a test no execution of which completes as `Never 0 0`
        Outcome::Deadlock => ("DEADLOCK".to_string(), r.positive == 0 && r.negative == 0),
        Outcome::Other(s) => (s.clone(), false),
    };
    let header = format!(
        "Result: {want}{}",
        if expected.datarace { " DATARACE" } else { "" }
    );
    let got = format!(
        "{obs} {} {}{}",
        r.positive,
        r.negative,
        if race { " with Flag data-race" } else { "" }
    );
    // a partial run sees the flags of the relevant executions alone
    let race_ok = expected.datarace == race
        || expected.outcome == Outcome::Maybe
        || (r.partial && expected.datarace);
    let got = if r.partial {
        format!("{got} (relevant executions only)")
    } else {
        got
    };
    if outcome_ok && race_ok {
        Ok(format!("agrees with its header `{header}`: {got}"))
    } else {
        Err(format!("DISAGREES with its header `{header}`: {got}"))
    }
}

/// herd's block for a C test.
pub fn block(test: &Test, text: &str, r: &CReport) -> String {
    let mut s = String::new();
    let name = &test.name.text;
    let kind = match r.quantifier {
        Quantifier::Exists => "Allowed",
        Quantifier::NotExists => "Forbidden",
        Quantifier::Forall => "Required",
    };
    let _ = writeln!(s, "Test {name} {kind}");
    let _ = writeln!(s, "States {}", r.states.len());
    for line in &r.states {
        let _ = writeln!(s, "{line}");
    }
    let _ = writeln!(s, "{}", if r.ok { "Ok" } else { "No" });
    let _ = writeln!(s, "Witnesses");
    let _ = writeln!(s, "Positive: {} Negative: {}", r.positive, r.negative);
    for f in &r.flags {
        let _ = writeln!(s, "Flag {f}");
    }
    let cond = test.condition.as_ref().map_or("", |c| {
        text.get(c.span.start as usize..c.span.end as usize)
            .unwrap_or("")
    });
    let cond = cond.split_whitespace().collect::<Vec<_>>().join(" ");
    let _ = writeln!(s, "Condition {cond}");
    let _ = writeln!(
        s,
        "Observation {name} {} {} {}",
        observation(r),
        r.positive,
        r.negative
    );
    if r.partial {
        let _ = writeln!(
            s,
            "Speedcheck: only the executions relevant to the condition were examined, as \
             herd7 -speedcheck true does (by default when a test has more than {} \
             combinations of thread paths or a full count more than {} model runs); the \
             verdict is exact, the counts, states and flags are theirs alone; \
             `--speedcheck false` examines every execution",
            litmus_engine::axiomatic::FULL_COMBOS,
            litmus_engine::axiomatic::FULL_RUNS
        );
    }
    s
}

/// What a C test's answer adds to the axiomatic dialects' (`crate::dialect::Answer`): herd's
/// final states as herd writes them, herd's observation, and the
/// judgement against the `Result:` header.
#[derive(Clone, Debug)]
pub struct CAnswer {
    /// herd's final states (`0:r0=1; [x]=y;`).
    pub states: Vec<String>,
    /// `Never`, `Sometimes` or `Always`.
    pub observation: &'static str,
    /// The `Result:` header, if the test has one, and the answer judged against it.
    pub judged: Option<Judged>,
    /// Only the executions relevant to the condition were examined (`CReport::partial`).
    pub partial: bool,
}

#[derive(Clone, Debug)]
pub struct Judged {
    pub expected: Expected,
    /// `agrees with its header ...` or `DISAGREES with its header ...`.
    pub line: String,
    pub agrees: bool,
}

impl CAnswer {
    pub fn new(expected: Option<&Expected>, r: &CReport) -> CAnswer {
        CAnswer {
            states: r.states.clone(),
            observation: observation(r),
            judged: expected.map(|e| {
                let j = judge(e, r);
                Judged {
                    expected: e.clone(),
                    agrees: j.is_ok(),
                    line: j.unwrap_or_else(|l| l),
                }
            }),
            partial: r.partial,
        }
    }

    /// Whether the answer disagrees with the test's `Result:` header.
    pub fn disagrees(&self) -> bool {
        self.judged.as_ref().is_some_and(|j| !j.agrees)
    }

    /// The judgement's line for `path`, as `litmus check` prints it after herd's block.
    pub fn judgement_line(&self, path: &str) -> String {
        match &self.judged {
            None => format!("{path}: no `Result:` header to compare with\n"),
            Some(j) => format!("{path}: {}\n", j.line),
        }
    }
}

/// A C test's execution as the asm dialects' views and JSON document draw one
/// (`axiomatic::Execution`): its events (a C11 read-modify-write, one event in herd, and a
/// lock event are `W` events with their written value, a `RMW` tag on the former; an SRCU
/// event an `R`), its `rf`, the check that forbids it and its cycle. Per location its
/// coherence order where the execution fixes it (the initial write, then at most one other
/// write); where the model chose among several writes, none (the views name a cycle's step
/// between such accesses `co` or `fr` by its events' kinds). No final state (`state` empty)
/// and no dependencies. `locs` gains the names of the locations touched.
pub fn execution(
    test: &Test,
    x: &CExecution,
    locs: &mut std::collections::BTreeMap<i64, String>,
) -> axiomatic::Execution {
    let events: Vec<axiomatic::Event> = x
        .events
        .iter()
        .map(|e| {
            let (kind, value) = match e.kind {
                CKind::R | CKind::Srcu => (axiomatic::Kind::R, e.read),
                CKind::F => (axiomatic::Kind::F, 0),
                CKind::W | CKind::U | CKind::Lock => (axiomatic::Kind::W, e.write),
            };
            let mut tags: Vec<&'static str> = e.tags.iter().map(|t| intern(t)).collect();
            if e.kind == CKind::U && !tags.contains(&"RMW") {
                tags.push("RMW");
            }
            if e.thread.is_none() && !tags.contains(&"IW") {
                tags.push("IW");
            }
            if e.kind != CKind::F {
                locs.entry(e.addr).or_insert_with(|| {
                    (0..test.shared.len())
                        .find(|&i| axiomatic::c_address(i) == e.addr)
                        .map_or_else(
                            || format!("{:#x}", e.addr),
                            |i| test.shared[i].name.text.clone(),
                        )
                });
            }
            axiomatic::Event {
                thread: e.thread,
                kind,
                addr: e.addr,
                value,
                po: e.po,
                tags,
            }
        })
        .collect();
    let mut co = Vec::new();
    for (i, e) in events.iter().enumerate() {
        if e.thread.is_some() || e.kind != axiomatic::Kind::W {
            continue;
        }
        let others: Vec<usize> = (0..events.len())
            .filter(|&j| j != i && events[j].kind == axiomatic::Kind::W)
            .filter(|&j| events[j].addr == e.addr)
            .collect();
        if others.len() <= 1 {
            co.push(std::iter::once(i).chain(others).collect());
        }
    }
    let n = events.len();
    // the views index the events by the cycle's and rf's ids: keep only those in range
    let mut failure = x.failure.clone();
    if let Some(f) = failure
        .as_mut()
        .filter(|f| f.events.iter().any(|&e| e >= n))
    {
        f.events.clear();
    }
    axiomatic::Execution {
        events,
        rf: x
            .rf
            .iter()
            .copied()
            .filter(|&(w, r)| w < n && r < n)
            .collect(),
        co,
        state: vec![],
        failure,
        deps: vec![],
        values: x
            .values
            .iter()
            .map(|(k, v)| (k.clone(), in_range(v, n)))
            .collect(),
        base: vec![],
    }
}

/// A value with the events past the view's `n` left out.
fn in_range(v: &litmus_engine::cat::Named, n: usize) -> litmus_engine::cat::Named {
    use litmus_engine::cat::Named;
    match v {
        Named::Set(s) => Named::Set(s.iter().copied().filter(|&e| e < n).collect()),
        Named::Rel(r) => Named::Rel(r.iter().copied().filter(|&(a, b)| a < n && b < n).collect()),
    }
}

/// A tag's name for the lifetime of the process (`axiomatic::Event` holds `&'static str`):
/// each distinct name, from the model's bell file or C11's orders, is kept once.
fn intern(tag: &str) -> &'static str {
    static TAGS: Mutex<BTreeSet<&'static str>> = Mutex::new(BTreeSet::new());
    let mut tags = TAGS.lock().unwrap_or_else(|e| e.into_inner());
    if let Some(t) = tags.get(tag) {
        return t;
    }
    let t: &'static str = Box::leak(tag.to_string().into_boxed_str());
    tags.insert(t);
    t
}

#[cfg(test)]
mod tests {
    use super::*;
    use litmus_engine::axiomatic::{c_address, CEvent};
    use litmus_engine::cat::{CheckKind, Failure};

    fn ev(thread: Option<usize>, kind: CKind, loc: usize, read: i64, write: i64) -> CEvent {
        CEvent {
            thread,
            kind,
            addr: c_address(loc),
            read,
            write,
            po: 0,
            tags: vec![if thread.is_none() { "IW" } else { "RLX" }.to_string()],
            atomic: kind == CKind::U,
        }
    }

    #[test]
    fn a_c_execution_becomes_the_views_execution() {
        let text = "C T\n{}\nP0(int *x, int *y) { *x = 1; }\nexists (x=1)\n";
        let test = litmus_engine::syntax::parse(text).test.unwrap();
        let x = CExecution {
            events: vec![
                ev(None, CKind::W, 0, 0, 0),
                ev(None, CKind::W, 1, 0, 0),
                ev(Some(0), CKind::U, 0, 0, 1),
                ev(Some(0), CKind::W, 1, 0, 1),
                ev(Some(1), CKind::W, 1, 0, 2),
            ],
            rf: vec![(0, 2), (9, 2)],
            failure: Some(Failure {
                kind: CheckKind::Acyclic,
                name: "hb".into(),
                negated: false,
                events: vec![2, 7],
                at: 0,
                file: None,
            }),
            values: vec![],
        };
        let mut locs = std::collections::BTreeMap::new();
        let e = execution(&test, &x, &mut locs);
        // the RMW: a write of its written value, tagged
        assert_eq!(e.events[2].kind, axiomatic::Kind::W);
        assert_eq!(e.events[2].value, 1);
        assert_eq!(e.events[2].tags, vec!["RLX", "RMW"]);
        assert_eq!(e.events[0].tags, vec!["IW"]);
        // x's order is fixed, y's (two writes besides the initial one) is not
        assert_eq!(e.co, vec![vec![0, 2]]);
        assert_eq!(locs.get(&c_address(0)).map(String::as_str), Some("x"));
        // ids out of range are dropped, the check kept
        assert_eq!(e.rf, vec![(0, 2)]);
        let f = e.failure.unwrap();
        assert_eq!((f.name.as_str(), f.events.len()), ("hb", 0));
    }
}
