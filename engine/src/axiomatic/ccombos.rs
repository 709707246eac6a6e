//! The combinations of one path per thread that can make a candidate: every read's value
//! must be written by some write it may read from. Which writes those are is the rule of
//! [`super::cexec::c_skeleton`]: the last write of its own thread before it, or (when there
//! is none) the initial write, or any write of another thread. So a path *needs* from the
//! other threads every (location, value) its reads take that its own thread or the initial
//! state does not give, and a combination is possible only when the other threads' chosen
//! paths write each of them. The combinations are enumerated depth first, pruning a partial
//! choice as soon as some need can be met neither by the threads chosen so far nor by any
//! path of those still to choose (a necessary condition: what is pruned is exactly what
//! `c_skeleton` would reject for lack of a write to read from). The order is the odometer's
//! (thread 0 varies fastest), so results that depend on the first candidate found do not
//! change.

use super::cthread::CPath;
use std::collections::BTreeSet;

/// What one path writes, and what it needs some other thread to write.
pub struct PathNeeds {
    pub writes: BTreeSet<(i64, i64)>,
    pub needs: Vec<(i64, i64)>,
}

/// `init`: per location its address and initial value (and whether it is observed).
pub fn path_needs(init: &[(i64, i64, bool)], p: &CPath) -> PathNeeds {
    let ev = &p.events;
    let writes = ev
        .iter()
        .filter(|e| e.writes())
        .map(|e| (e.addr, e.write))
        .collect();
    let mut needs = Vec::new();
    for (i, e) in ev.iter().enumerate() {
        if !e.reads() {
            continue;
        }
        // as `c_skeleton` picks it: the latest in program order among the earlier writes
        let own = (0..ev.len())
            .filter(|&j| j != i && ev[j].writes() && ev[j].addr == e.addr && ev[j].po < e.po)
            .max_by_key(|&j| ev[j].po);
        let local = match own {
            Some(o) => ev[o].write == e.read,
            None => init.iter().any(|&(a, v, _)| a == e.addr && v == e.read),
        };
        if !local {
            needs.push((e.addr, e.read));
        }
    }
    PathNeeds { writes, needs }
}

/// Calls `visit` with each possible combination (per thread, the index of its path), in
/// odometer order, until it returns an error.
pub fn for_each_combo<E>(
    init: &[(i64, i64, bool)],
    all: &[Vec<CPath>],
    visit: &mut dyn FnMut(&[usize]) -> Result<(), E>,
) -> Result<(), E> {
    let info: Vec<Vec<PathNeeds>> = all
        .iter()
        .map(|ps| ps.iter().map(|p| path_needs(init, p)).collect())
        .collect();
    let n = all.len();
    // below[k]: what any path of threads 0..k may write
    let mut below = vec![BTreeSet::new()];
    for ps in &info {
        let mut s: BTreeSet<(i64, i64)> = below.last().cloned().unwrap_or_default();
        s.extend(ps.iter().flat_map(|p| p.writes.iter().copied()));
        below.push(s);
    }
    let mut choice = vec![0usize; n];
    if n == 0 {
        return visit(&choice);
    }
    let cx = Dfs {
        info: &info,
        below: &below,
    };
    cx.go(n, &mut choice, visit)
}

struct Dfs<'a> {
    info: &'a [Vec<PathNeeds>],
    below: &'a [BTreeSet<(i64, i64)>],
}

impl Dfs<'_> {
    /// Threads `k..` are chosen; choose thread `k - 1`'s path.
    fn go<E>(
        &self,
        k: usize,
        choice: &mut [usize],
        visit: &mut dyn FnMut(&[usize]) -> Result<(), E>,
    ) -> Result<(), E> {
        if k == 0 {
            return visit(choice);
        }
        let t = k - 1;
        for c in 0..self.info[t].len() {
            choice[t] = c;
            if self.possible(t, choice) {
                self.go(t, choice, visit)?;
            }
        }
        Ok(())
    }

    /// With threads `t..` chosen: can every chosen path's needs still be met?
    fn possible(&self, t: usize, choice: &[usize]) -> bool {
        let n = choice.len();
        (t..n).all(|i| {
            self.info[i][choice[i]].needs.iter().all(|need| {
                self.below[t].contains(need)
                    || (t..n).any(|j| j != i && self.info[j][choice[j]].writes.contains(need))
            })
        })
    }
}
