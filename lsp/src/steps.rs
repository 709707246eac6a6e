//! Schedules for people, the one place step text is written for every client: one sentence
//! per step (diagnostic related information, the `litmus.showSchedule` command, the trace
//! view's step labels, [`labels`]) and the short text of a step in its thread's column of the
//! trace view (`x = 1 → buffer`, [`cell`]). The clients show these strings as they are.
//!
//! The store buffers are replayed from the steps themselves (a buffered store enters its
//! thread's buffer, a flush leaves it) so that a load from memory can say which other thread's
//! store to that location was still waiting: the whole point of a TSO/PSO counterexample.

use litmus_engine::ast::Test;
use litmus_engine::report::{Action, Step};

/// The buffered stores not yet flushed, in order: (thread, location, value).
#[derive(Default)]
struct Buffers(Vec<(usize, String, Option<i64>)>);

impl Buffers {
    fn apply(&mut self, s: &Step) {
        let loc = s.loc.clone().unwrap_or_default();
        match s.action {
            Action::Store if s.buffered => self.0.push((s.thread, loc, s.value)),
            Action::Flush => {
                if let Some(i) = self
                    .0
                    .iter()
                    .position(|(t, l, _)| *t == s.thread && *l == loc)
                {
                    self.0.remove(i);
                }
            }
            // Fences, locks and atomics drain the thread's buffers (the engine also reports
            // the flushes; this keeps the replay right if it does not).
            Action::Fence | Action::Lock | Action::Unlock | Action::Rmw => {
                self.0.retain(|(t, _, _)| *t != s.thread)
            }
            _ => {}
        }
    }
    fn others_pending(&self, thread: usize, loc: &str) -> Vec<&(usize, String, Option<i64>)> {
        self.0
            .iter()
            .filter(|(t, l, _)| *t != thread && l == loc)
            .collect()
    }
}

pub fn thread_name(test: &Test, t: usize) -> String {
    test.threads
        .get(t)
        .map_or_else(|| format!("thread {t}"), |th| th.name.text.clone())
}

fn val(v: Option<i64>) -> String {
    v.map_or_else(|| "?".into(), |v| v.to_string())
}

/// The source text of a step's instruction, on one line, shortened.
fn snippet(text: &str, step: &Step) -> String {
    let s = text
        .get(step.span.range())
        .unwrap_or("")
        .split_whitespace()
        .collect::<Vec<_>>();
    let mut s = s.join(" ");
    if s.chars().count() > 40 {
        s = s.chars().take(39).collect::<String>() + "…";
    }
    s
}

/// The source text of a step's instruction on one line, whole (the trace view's `text`).
pub fn source(text: &str, span: litmus_engine::Span) -> String {
    text.get(span.range())
        .unwrap_or("")
        .split_whitespace()
        .collect::<Vec<_>>()
        .join(" ")
}

/// A step as its thread's column of the trace view shows it: `x = 1 → buffer`, `read y = 0`,
/// `flush x = 1`, `lock m`, `r0 = FADD(x, 1) (old 0)`; a step that only evaluates (an assert,
/// a branch, ...) shows its source text.
pub fn cell(text: &str, s: &Step) -> String {
    let loc = s.loc.as_deref().unwrap_or("?");
    let v = val(s.value);
    match s.action {
        Action::Load if s.buffered => format!("read {loc} = {v} (own buffer)"),
        Action::Load => format!("read {loc} = {v}"),
        Action::Store if s.buffered => format!("{loc} = {v} → buffer"),
        Action::Store => format!("{loc} = {v} → memory"),
        Action::Flush => format!("flush {loc} = {v}"),
        Action::Fence => "fence".into(),
        Action::Lock => format!("lock {loc}"),
        Action::Unlock => format!("unlock {loc}"),
        Action::Rmw => format!("{} (old {v})", source(text, s.span)),
        Action::Assert | Action::Assume | Action::Await | Action::Branch | Action::Local => {
            source(text, s.span)
        }
    }
}

/// One sentence per step, e.g. `P1 reads x = 0 from memory (P0's store x = 1 still buffered)`.
pub fn labels(test: &Test, text: &str, steps: &[Step]) -> Vec<String> {
    let mut bufs = Buffers::default();
    steps
        .iter()
        .map(|s| {
            let t = thread_name(test, s.thread);
            let loc = s.loc.clone().unwrap_or_else(|| "?".into());
            let v = val(s.value);
            let label = match s.action {
                Action::Load if s.buffered => {
                    format!("{t} reads {loc} = {v} from its store buffer")
                }
                Action::Load => {
                    let pending = bufs.others_pending(s.thread, &loc);
                    let mut l = format!("{t} reads {loc} = {v} from memory");
                    if !pending.is_empty() {
                        let what: Vec<String> = pending
                            .iter()
                            .map(|(pt, pl, pv)| {
                                format!("{}'s store {pl} = {}", thread_name(test, *pt), val(*pv))
                            })
                            .collect();
                        l += &format!(" ({} still buffered)", what.join(", "));
                    }
                    l
                }
                Action::Store if s.buffered => {
                    format!("{t} stores {loc} = {v} into its store buffer")
                }
                Action::Store => format!("{t} stores {loc} = {v} to memory"),
                Action::Flush => format!("{t}'s buffered store {loc} = {v} reaches memory"),
                Action::Fence => format!("{t} executes a fence"),
                Action::Lock => format!("{t} locks {loc}"),
                Action::Unlock => format!("{t} unlocks {loc}"),
                Action::Rmw => format!(
                    "{t} atomically updates {loc} (`{}`), old value {v}",
                    snippet(text, s)
                ),
                Action::Assert => format!("{t} checks `{}`", snippet(text, s)),
                Action::Assume => format!("{t} assumes `{}`", snippet(text, s)),
                Action::Await => format!("{t} waits at `{}`", snippet(text, s)),
                Action::Branch => format!("{t} evaluates `{}`", snippet(text, s)),
                Action::Local => format!("{t} computes `{}`", snippet(text, s)),
            };
            bufs.apply(s);
            label
        })
        .collect()
}

#[cfg(test)]
mod tests {
    use super::*;
    use litmus_engine::ast::{Dialect, Name, Test, Thread};
    use litmus_engine::Span;

    fn test2() -> Test {
        let th = |n: &str| Thread {
            name: Name {
                text: n.into(),
                span: Span::default(),
            },
            reg_init: vec![],
            body: vec![],
            span: Span::default(),
        };
        Test {
            dialect: Dialect::Native,
            name: Name {
                text: "SB".into(),
                span: Span::default(),
            },
            description: None,
            shared: vec![],
            mutexes: vec![],
            threads: vec![th("P0"), th("P1")],
            condition: None,
            span: Span::default(),
        }
    }

    fn step(thread: usize, action: Action, loc: &str, value: i64, buffered: bool) -> Step {
        Step {
            thread,
            span: Span::default(),
            action,
            loc: Some(loc.into()),
            value: Some(value),
            buffered,
        }
    }

    #[test]
    fn names_the_store_still_buffered_when_a_load_misses_it() {
        let steps = [
            step(0, Action::Store, "x", 1, true),
            step(1, Action::Store, "y", 1, true),
            step(1, Action::Load, "x", 0, false),
            step(0, Action::Flush, "x", 1, false),
            step(0, Action::Load, "y", 0, false),
        ];
        let l = labels(&test2(), "", &steps);
        assert_eq!(l[0], "P0 stores x = 1 into its store buffer");
        assert_eq!(
            l[2],
            "P1 reads x = 0 from memory (P0's store x = 1 still buffered)"
        );
        assert_eq!(l[3], "P0's buffered store x = 1 reaches memory");
        assert_eq!(
            l[4],
            "P0 reads y = 0 from memory (P1's store y = 1 still buffered)"
        );
    }

    #[test]
    fn every_step_has_words_for_its_thread_column() {
        let text = "r0 = xchg(x, 1); assert(r0 == 0);";
        let at = |a: usize, b: usize| Span::new(a, b);
        let s = |action, loc: Option<&str>, value: Option<i64>, buffered, span| Step {
            thread: 0,
            span,
            action,
            loc: loc.map(String::from),
            value,
            buffered,
        };
        let cells: Vec<String> = [
            s(Action::Load, Some("x"), Some(1), true, at(0, 0)),
            s(Action::Load, Some("x"), Some(0), false, at(0, 0)),
            s(Action::Store, Some("y"), Some(2), false, at(0, 0)),
            s(Action::Fence, None, None, false, at(0, 0)),
            s(Action::Lock, Some("m"), None, false, at(0, 0)),
            s(Action::Unlock, Some("m"), None, false, at(0, 0)),
            s(Action::Rmw, Some("x"), Some(0), false, at(0, 16)),
            s(Action::Assert, None, None, false, at(17, 33)),
            s(Action::Load, None, None, false, at(0, 0)),
        ]
        .iter()
        .map(|st| cell(text, st))
        .collect();
        assert_eq!(
            cells,
            [
                "read x = 1 (own buffer)",
                "read x = 0",
                "y = 2 → memory",
                "fence",
                "lock m",
                "unlock m",
                "r0 = xchg(x, 1); (old 0)",
                "assert(r0 == 0);",
                "read ? = ?",
            ]
        );
    }
}
