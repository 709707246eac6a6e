//! The language server's `litmus/axiomatic` reply (`docs/design/lsp.md#axiomatic-tests`): the
//! axiomatic engine's verdict on an AArch64 or RISC-V test (herd's block, `Ok`/`No`,
//! allowed/forbidden, the model) and the execution behind it, as a graph the editors draw: the
//! witness of an allowed state, or for a forbidden one the candidate reaching it with the failed
//! check and the cycle's edges marked. Also herd's block and the base relation naming an edge,
//! which `litmus check` prints too.

use std::fmt::Write as _;

use litmus_engine::asm::Code;
use litmus_engine::ast::{Quantifier, Test};
use litmus_engine::axiomatic::{self, Execution, Kind, Report};
use litmus_engine::cat::CheckKind;
use serde::Serialize;

use super::axsite::{AxLocation, ModelFiles};
use crate::ctest::CAnswer;

/// The whole reply.
#[derive(Serialize, Clone, Debug)]
pub struct AxView {
    pub uri: String,
    pub test: String,
    /// `AArch64` or `RISCV`, as herd writes it.
    pub arch: &'static str,
    pub model: String,
    /// The condition's source text and quantifier (`exists`, `~exists`, `forall`).
    pub condition: String,
    pub quantifier: &'static str,
    /// herd's `Ok` / `No`.
    pub herd: &'static str,
    /// Whether an allowed execution reaches the condition's state: `allowed` / `forbidden`.
    pub verdict: &'static str,
    pub positive: u64,
    pub negative: u64,
    /// herd's block, one line a string.
    pub block: Vec<String>,
    pub execution: Option<AxExecution>,
    /// The verdict, the check and the cycle in words (Neovim's buffer, the hover).
    pub text: Vec<String>,
    /// herd's C tests: the observation and the answer against the `Result:` header.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub judgement: Option<AxJudgement>,
    /// The model's files, for the check's location.
    #[serde(skip)]
    pub files: Option<ModelFiles>,
}

/// A C test's answer against its `Result:` header (`crate::ctest::judge`).
#[derive(Serialize, Clone, Debug)]
pub struct AxJudgement {
    /// `Never`, `Sometimes`, `Always`.
    pub observation: &'static str,
    /// Whether it agrees with the header; `None` without one.
    pub agrees: Option<bool>,
    /// `agrees with its header ...`, `DISAGREES with its header ...`, or that there is none.
    pub message: String,
    /// Where the header is.
    #[serde(skip)]
    pub header: Option<litmus_engine::Span>,
}

/// The witness (`role: "witness"`) or the forbidden candidate (`role: "forbidden"`).
#[derive(Serialize, Clone, Debug)]
pub struct AxExecution {
    pub role: &'static str,
    /// Thread names, indexed by a node's `thread`.
    pub threads: Vec<String>,
    pub nodes: Vec<AxNode>,
    pub edges: Vec<AxEdge>,
    /// The execution's reads-from, `(write, read)`, and per location its writes in coherence
    /// order (the initial write first).
    pub rf: Vec<(usize, usize)>,
    pub co: Vec<Vec<usize>>,
    /// The failed check (forbidden only).
    pub check: Option<AxCheck>,
    /// The final values of the condition's names.
    pub state: Vec<(String, i64)>,
    /// The model's named sets and relations on it (the hover on a name in a cat file).
    #[serde(skip)]
    pub values: Vec<(String, litmus_engine::cat::Named)>,
    /// Its base sets and relations, to run another model on it (`cat::evaluate`).
    #[serde(skip)]
    pub base: Vec<(String, litmus_engine::cat::Named)>,
}

#[derive(Serialize, Clone, Debug)]
pub struct AxNode {
    pub id: usize,
    /// `None` for an initial write.
    pub thread: Option<usize>,
    /// `R`, `W` or `F`.
    pub kind: Kind,
    pub loc: String,
    pub value: i64,
    pub tags: Vec<&'static str>,
    /// Position in its thread's program order.
    pub po: usize,
    /// `e3`, as the text names it.
    pub name: String,
    /// `W x=1`, `R[A] y=0`, `F[DMB.SY]`.
    pub label: String,
}

#[derive(Serialize, Clone, Debug)]
pub struct AxEdge {
    pub from: usize,
    pub to: usize,
    /// `po`, `rf`, `co`, `fr`, `addr`, `data`, `ctrl`, `rmw`, or `other` (a cycle step no base
    /// relation holds).
    pub kind: &'static str,
    /// On the cycle of the failed check.
    pub cycle: bool,
    /// A cycle's step in program order: what orders it as herd names it (`dmb.sy`,
    /// `fence.rw.rw`, `[A];po`, `po;[L]`, `po-loc`; `crate::json::axview::po_name`), where
    /// that says more than `po`; absent otherwise.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub name: Option<String>,
}

#[derive(Serialize, Clone, Debug)]
pub struct AxCheck {
    /// The check's name (`ob`, `external`) and kind (`acyclic`, `irreflexive`, `empty`).
    pub name: String,
    pub kind: &'static str,
    /// The events of the cycle, in order (`irreflexive`: the one event; `empty`: a pair).
    pub cycle: Vec<usize>,
    /// Where the check is (the server fills it in from [`AxCheck::site`]).
    #[serde(skip_serializing_if = "Option::is_none")]
    pub location: Option<AxLocation>,
    /// The check's byte offset and file as the engine gives them (`cat::Failure`).
    #[serde(skip)]
    pub site: (usize, Option<std::sync::Arc<str>>),
}

/// Names an address as the test does (`x`, `a[1]`).
pub fn loc_name(test: &Test, code: &Code, addr: i64) -> String {
    axiomatic::location_name(test, code, addr)
}

/// herd's block: `Test`, `States`, the states as herd7 writes them, `Ok`/`No`, `Witnesses`,
/// `Positive`/`Negative`, `Condition`, `Observation`.
pub fn block(test: &Test, code: &Code, text: &str, r: &Report) -> String {
    let mut s = String::new();
    let name = &test.name.text;
    let kind = match r.quantifier {
        Quantifier::Exists => "Allowed",
        Quantifier::NotExists => "Forbidden",
        Quantifier::Forall => "Required",
    };
    let _ = writeln!(s, "Test {name} {kind}");
    let _ = writeln!(s, "States {}", r.states.len());
    for line in r.herd_states(test, code, true) {
        let _ = writeln!(s, "{line}");
    }
    let _ = writeln!(s, "{}", if r.ok { "Ok" } else { "No" });
    let _ = writeln!(s, "Witnesses");
    let _ = writeln!(s, "Positive: {} Negative: {}", r.positive, r.negative);
    let _ = writeln!(s, "Condition {}", condition_text(test, text));
    let obs = match (r.positive, r.negative) {
        (0, _) => "Never",
        (_, 0) => "Always",
        _ => "Sometimes",
    };
    let _ = writeln!(s, "Observation {name} {obs} {} {}", r.positive, r.negative);
    s
}

pub(crate) fn condition_text(test: &Test, text: &str) -> String {
    let cond = test.condition.as_ref().map_or("", |c| {
        text.get(c.span.start as usize..c.span.end as usize)
            .unwrap_or("")
    });
    cond.split_whitespace().collect::<Vec<_>>().join(" ")
}

fn co_before(x: &Execution, p: usize, q: usize) -> bool {
    x.co.iter().any(|o| {
        let i = o.iter().position(|e| *e == p);
        let j = o.iter().position(|e| *e == q);
        matches!((i, j), (Some(i), Some(j)) if i < j)
    })
}

/// The edge from `a` to `b` named by the base relation that holds it as herd names it (`rfe`,
/// `coe`, `fre` between threads, `rfi`, `coi`, `fri` within one), a step in program order by what orders it as herd's models name it
/// ([`po_name`]: `addr`, `data`, `ctrl`, `rmw`, the fence, `[A];po`, `po;[L]`, `po-loc`,
/// `po`), or `?`.
pub fn edge(x: &Execution, a: usize, b: usize) -> String {
    let (ea, eb) = (&x.events[a], &x.events[b]);
    let external = ea.thread != eb.thread;
    // a C test's execution records no coherence order where the model chose it (a
    // location with several writes besides its initial one): a step between accesses to
    // such a location is `co` from a write, `fr` from a read ([`co_unknown`]).
    let guess = co_unknown(x, a, b);
    let fr = x.rf.iter().any(|&(w, r)| r == a && co_before(x, w, b))
        || (guess && ea.kind == Kind::R && !x.rf.contains(&(b, a)));
    let co = co_before(x, a, b) || (guess && ea.kind == Kind::W);
    let name = if x.rf.contains(&(a, b)) && external {
        "rfe"
    } else if co && external {
        "coe"
    } else if fr && external {
        "fre"
    } else if ea.thread.is_some() && !external && ea.po < eb.po {
        return po_name(x, a, b);
    } else if x.rf.contains(&(a, b)) {
        "rfi"
    } else if co {
        "coi"
    } else if fr {
        "fri"
    } else {
        "?"
    };
    name.to_string()
}

/// Whether `a` and `b` access one location and `b` is a write of no recorded coherence
/// order (`x.co` leaves out a C test's locations whose order the model chose).
fn co_unknown(x: &Execution, a: usize, b: usize) -> bool {
    let (ea, eb) = (&x.events[a], &x.events[b]);
    ea.kind != Kind::F
        && eb.kind == Kind::W
        && ea.addr == eb.addr
        && !x.co.iter().any(|o| o.contains(&b))
}

/// What orders `a` before `b`, two events of one thread in program order, as herd's cat
/// models name it: a dependency (`addr`, `data`, `ctrl`) or exclusive pair (`rmw`), a fence
/// between them (its event's name, lower case: `dmb.sy`, `fence.rw.rw`), an acquire before
/// (`[A];po`, RISC-V `[AQ];po`) or a release after (`po;[L]`, `po;[RL]`), the same location
/// (`po-loc`), else `po`.
pub fn po_name(x: &Execution, a: usize, b: usize) -> String {
    let (ea, eb) = (&x.events[a], &x.events[b]);
    for rel in ["addr", "data", "ctrl", "rmw"] {
        if x.deps.contains(&(rel, a, b)) {
            return rel.to_string();
        }
    }
    let fence = x
        .events
        .iter()
        .find(|f| f.kind == Kind::F && f.thread == ea.thread && ea.po < f.po && f.po < eb.po);
    if let Some(tag) = fence.and_then(|f| f.tags.first()) {
        return tag.to_ascii_lowercase();
    }
    // herd's names in the asm models, C11's (`rc11.cat`) and the kernel's bell file
    if let Some(t) = ea
        .tags
        .iter()
        .find(|t| matches!(**t, "A" | "Q" | "AQ" | "ACQ" | "ACQUIRE" | "Acquire"))
    {
        return format!("[{t}];po");
    }
    if let Some(t) = eb
        .tags
        .iter()
        .find(|t| matches!(**t, "L" | "RL" | "REL" | "RELEASE" | "Release"))
    {
        return format!("po;[{t}]");
    }
    if ea.kind != Kind::F && eb.kind != Kind::F && ea.addr == eb.addr {
        return "po-loc".to_string();
    }
    "po".to_string()
}

fn label(loc: &dyn Fn(i64) -> String, e: &axiomatic::Event) -> String {
    let tags: Vec<&str> = e.tags.iter().copied().filter(|t| *t != "IW").collect();
    let tags = if tags.is_empty() {
        String::new()
    } else {
        format!("[{}]", tags.join(","))
    };
    match e.kind {
        Kind::R => format!("R{tags} {}={}", loc(e.addr), e.value),
        Kind::W => format!("W{tags} {}={}", loc(e.addr), e.value),
        Kind::F => format!("F{tags}"),
    }
}

/// The graph of `x`: immediate po, rf, immediate co, fr to the next write in co, the
/// dependencies; the cycle of its failed check marked (a step between events no drawn edge
/// joins gets an edge of its own).
pub(crate) fn graph(
    threads: Vec<String>,
    loc: &dyn Fn(i64) -> String,
    x: &Execution,
    role: &'static str,
) -> AxExecution {
    let nodes: Vec<AxNode> = x
        .events
        .iter()
        .enumerate()
        .map(|(i, e)| AxNode {
            id: i,
            thread: e.thread,
            kind: e.kind,
            loc: if e.kind == Kind::F {
                String::new()
            } else {
                loc(e.addr)
            },
            value: e.value,
            tags: e.tags.clone(),
            po: e.po,
            name: format!("e{i}"),
            label: label(loc, e),
        })
        .collect();
    let mut edges = Vec::new();
    let mut add = |from, to, kind| edges.push((from, to, kind));
    let ev = &x.events;
    for a in 0..ev.len() {
        let next = (0..ev.len())
            .filter(|&b| ev[a].thread.is_some() && ev[b].thread == ev[a].thread)
            .filter(|&b| ev[b].po > ev[a].po)
            .min_by_key(|&b| ev[b].po);
        if let Some(b) = next {
            add(a, b, "po");
        }
    }
    for &(w, r) in &x.rf {
        add(w, r, "rf");
    }
    for o in &x.co {
        for p in o.windows(2) {
            add(p[0], p[1], "co");
        }
    }
    for &(w, r) in &x.rf {
        if let Some(next) =
            x.co.iter()
                .find_map(|o| o.iter().position(|e| *e == w).and_then(|i| o.get(i + 1)))
        {
            add(r, *next, "fr");
        }
    }
    for &(rel, a, b) in &x.deps {
        add(a, b, rel);
    }
    let mut edges: Vec<AxEdge> = edges
        .into_iter()
        .map(|(from, to, kind)| AxEdge {
            from,
            to,
            kind,
            cycle: false,
            name: None,
        })
        .collect();
    let check = x.failure.as_ref().map(|f| {
        if f.kind == CheckKind::Acyclic && f.events.len() > 1 {
            for (k, &a) in f.events.iter().enumerate() {
                let b = f.events[(k + 1) % f.events.len()];
                let name = edge(x, a, b);
                let kind = match name.as_str() {
                    "rfe" | "rfi" => "rf",
                    "coe" | "coi" => "co",
                    "fre" | "fri" => "fr",
                    "addr" => "addr",
                    "data" => "data",
                    "ctrl" => "ctrl",
                    "rmw" => "rmw",
                    "?" => "other",
                    _ => "po",
                };
                // herd's name of a program-order step, where it says more than `po`.
                let name = (kind == "po" && name != "po").then_some(name);
                match edges
                    .iter_mut()
                    .find(|e| e.from == a && e.to == b && e.kind == kind)
                {
                    Some(e) => {
                        e.cycle = true;
                        e.name = name;
                    }
                    None => edges.push(AxEdge {
                        from: a,
                        to: b,
                        kind,
                        cycle: true,
                        name,
                    }),
                }
            }
        }
        AxCheck {
            name: f.name.clone(),
            kind: f.kind.as_str(),
            cycle: f.events.clone(),
            location: None,
            site: (f.at, f.file.clone()),
        }
    });
    AxExecution {
        role,
        threads,
        nodes,
        edges,
        rf: x.rf.clone(),
        co: x.co.clone(),
        check,
        state: x.state.clone(),
        values: x.values.clone(),
        base: x.base.clone(),
    }
}

/// A C test's answer, for [`AxView::c`].
pub struct CParts<'a> {
    /// The summary report with its witness or forbidden candidate
    /// (`crate::ctest::execution`).
    pub report: &'a Report,
    /// The threads' names.
    pub threads: Vec<String>,
    /// The locations' names by address.
    pub locs: &'a std::collections::BTreeMap<i64, String>,
    /// herd's block.
    pub block: &'a str,
    /// The observation and judgement.
    pub c: &'a CAnswer,
}

/// The execution a view shows: the witness, else the forbidden candidate.
fn shown(r: &Report, threads: Vec<String>, loc: &dyn Fn(i64) -> String) -> Option<AxExecution> {
    match (&r.witness, &r.forbidden) {
        (Some(w), _) => Some(graph(threads, loc, w, "witness")),
        (None, Some(f)) => Some(graph(threads, loc, f, "forbidden")),
        _ => None,
    }
}

/// herd's word for a state some allowed execution reaches (`positive` of them) or none does.
pub(crate) fn verdict_word(positive: u64) -> &'static str {
    if positive > 0 {
        "allowed"
    } else {
        "forbidden"
    }
}

impl AxView {
    pub fn new(uri: &str, model: &str, test: &Test, code: &Code, text: &str, r: &Report) -> AxView {
        let arch = code.arch;
        let herd = if r.ok { "Ok" } else { "No" };
        let verdict = verdict_word(r.positive);
        let threads = test.threads.iter().map(|t| t.name.text.clone()).collect();
        let execution = shown(r, threads, &|a| loc_name(test, code, a));
        let mut view = AxView {
            uri: uri.into(),
            test: test.name.text.clone(),
            arch: arch.herd_name(),
            model: model.into(),
            condition: condition_text(test, text),
            quantifier: r.quantifier.as_str(),
            herd,
            verdict,
            positive: r.positive,
            negative: r.negative,
            block: block(test, code, text, r)
                .lines()
                .map(String::from)
                .collect(),
            execution,
            text: vec![],
            judgement: None,
            files: None,
        };
        view.text = view.words();
        view
    }

    /// The view of a C test's answer ([`CParts`]).
    pub fn c(uri: &str, model: &str, test: &Test, text: &str, parts: CParts) -> AxView {
        let CParts {
            report: r,
            threads,
            locs,
            block,
            c,
        } = parts;
        let loc = |a: i64| locs.get(&a).cloned().unwrap_or_else(|| format!("{a:#x}"));
        let mut view = AxView {
            uri: uri.into(),
            test: test.name.text.clone(),
            arch: "C",
            model: model.into(),
            condition: condition_text(test, text),
            quantifier: r.quantifier.as_str(),
            herd: if r.ok { "Ok" } else { "No" },
            verdict: verdict_word(r.positive),
            positive: r.positive,
            negative: r.negative,
            block: block.lines().map(String::from).collect(),
            execution: shown(r, threads, &loc),
            text: vec![],
            judgement: Some(AxJudgement {
                observation: c.observation,
                agrees: c.judged.as_ref().map(|j| j.agrees),
                message: c.judged.as_ref().map_or_else(
                    || "no `Result:` header to compare with".to_string(),
                    |j| j.line.clone(),
                ),
                header: c.judged.as_ref().map(|j| j.expected.span),
            }),
            files: None,
        };
        view.text = view.words();
        view
    }

    /// Whether the answer fails: a `~exists` or `forall` that does not hold; for a C test, an
    /// answer that disagrees with its `Result:` header.
    pub fn failed(&self) -> bool {
        match &self.judgement {
            Some(j) => j.agrees == Some(false),
            None => self.herd == "No" && self.quantifier != Quantifier::Exists.as_str(),
        }
    }

    /// The first line of the text: `No: the state is forbidden under aarch64.cat (litmus)`.
    pub fn headline(&self) -> String {
        if let Some(j) = &self.judgement {
            return format!(
                "{} {} {} under {}: {}",
                j.observation, self.positive, self.negative, self.model, j.message
            );
        }
        format!(
            "{}: the condition's state is {} under {}",
            self.herd, self.verdict, self.model
        )
    }

    /// `acyclic ob: e2 -po-> e3 -rf-> e4 -fr-> e2`, for a forbidden state.
    pub fn cycle_line(&self) -> Option<String> {
        let x = self.execution.as_ref()?;
        let c = x.check.as_ref()?;
        let mut s = format!("{} {}", c.kind, c.name);
        if !c.cycle.is_empty() {
            s += ":";
            for (k, a) in c.cycle.iter().enumerate() {
                let _ = write!(s, " e{a}");
                let b = c.cycle[(k + 1) % c.cycle.len()];
                if c.kind == "acyclic" && c.cycle.len() > 1 {
                    let kind = x
                        .edges
                        .iter()
                        .find(|e| e.cycle && e.from == *a && e.to == b)
                        .map_or("?", |e| e.name.as_deref().unwrap_or(e.kind));
                    let _ = write!(s, " -{kind}->");
                }
            }
            if c.kind == "acyclic" {
                let _ = write!(s, " e{}", c.cycle[0]);
            }
        }
        Some(s)
    }

    pub(crate) fn words(&self) -> Vec<String> {
        let mut out = vec![self.headline()];
        if let Some(x) = &self.execution {
            match (x.role, self.cycle_line()) {
                ("forbidden", Some(c)) => {
                    out.push(format!("forbidden by {c}"));
                    out.push("the candidate execution reaching it:".into());
                }
                _ => out.push("a witness execution:".into()),
            }
            for n in &x.nodes {
                let who = n.thread.map_or("init".to_string(), |t| {
                    x.threads.get(t).cloned().unwrap_or_else(|| format!("P{t}"))
                });
                out.push(format!("  {} {who}: {}", n.name, n.label));
            }
        }
        out
    }
}
