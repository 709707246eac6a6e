//! Reaching definitions, sparse: for each instruction, the definitions its uses may read.
//!
//! A definition `d` of register `r` reaches a use of `r` at `u` when some path of the flow
//! graph goes from `d` to `u` without another definition of `r` on the way; the end of a
//! statement clears the temporaries (the semantics zeroes them), so it ends every path of a
//! temporary too. Computed as in the construction of SSA form (Cytron et al.): merges of `r` are
//! placed at the iterated dominance frontier of the places that set `r` (its definitions, the
//! clears for a temporary, the entry), one walk of the dominator tree gives every use the
//! value that reaches it (a definition, "none", or a merge), and a merge's definitions are the
//! union of what flows into it (per strongly connected component of the merge graph, computed
//! only for the merges a use reaches).
//!
//! The cost is linear in the instructions, the places that set a register, the merges (on
//! structured code a few per join and register set around it) and the output, where the dense
//! data flow it replaced kept a set per instruction and register (quadratic: 10,000 distinct
//! registers in 10,000 statements took 4 GB).

use super::cfg::{def, uses};
use super::dominators::{frontiers, idoms};
use crate::ir::{Instr, Reg, ThreadCode};

/// The most (merge, definition) pairs the merges reached by uses may hold together; above it
/// the graph is skipped (see [`super::Sdg::skipped`]). On structured code they are at most the
/// output; the bound keeps a contrived thread (a definition in each of thousands of branches,
/// read after each) within memory.
pub const MAX_MERGE_DEFS: usize = 32_000_000;

/// What reaches a use: a definition, nothing (the initial value or a cleared temporary), or a
/// merge, encoded in one `u32` (definitions `0..n`, nothing `n`, merge `k` as `n + 1 + k`).
type Val = u32;

/// For each instruction, the (definition, register) pairs its uses may read, sorted. `Err` with
/// why if `stop` says stop or the merges are too large.
pub(super) fn reaching_uses(
    code: &[Instr],
    succ: &[Vec<u32>],
    th: &ThreadCode,
    stop: &mut dyn FnMut() -> bool,
) -> Result<Vec<Vec<(u32, Reg)>>, String> {
    let stopped = || super::STOPPED.to_string();
    let n = code.len();
    let nregs = th.n_regs as usize;
    let named = th.regs.len().min(nregs);
    let none: Val = n as Val;
    let root = n as u32;
    // The forward graph without the exit, plus a root `n` with an edge to the entry and to one
    // node of each part the entry does not reach (so that every node has a dominator; the
    // root's value of every register is "nothing", which is what those parts start with).
    let mut out: Vec<Vec<u32>> = succ
        .iter()
        .map(|s| s.iter().copied().filter(|&s| (s as usize) < n).collect())
        .collect();
    out.push(Vec::new());
    let mut seen = vec![false; n + 1];
    let mut stack = Vec::new();
    for start in 0..n {
        if seen[start] {
            continue;
        }
        out[n].push(start as u32);
        seen[start] = true;
        stack.push(start);
        while let Some(v) = stack.pop() {
            for &w in &out[v] {
                if !seen[w as usize] {
                    seen[w as usize] = true;
                    stack.push(w as usize);
                }
            }
        }
    }
    drop(seen);
    let mut into: Vec<Vec<u32>> = vec![Vec::new(); n + 1];
    for (v, ss) in out.iter().enumerate() {
        for &s in ss {
            into[s as usize].push(v as u32);
        }
    }
    let (idom, _) = idoms(&out, &into, root, stop).ok_or_else(stopped)?;
    if stop() {
        return Err(stopped());
    }
    let df = frontiers(&into, &idom);
    drop(into);

    // The places that set each register: its definitions and, for a temporary, every clear.
    let clears: Vec<u32> = (0..n as u32)
        .filter(|&i| code[i as usize].clear_temps)
        .collect();
    let mut sets: Vec<Vec<u32>> = vec![Vec::new(); nregs];
    for (i, ins) in code.iter().enumerate() {
        if let Some(r) = def(&ins.kind).filter(|&r| (r as usize) < nregs) {
            if !(ins.clear_temps && r as usize >= named) {
                sets[r as usize].push(i as u32);
            }
        }
    }
    // Merges: per node, (register, merge id); per merge, its operands.
    let mut phi_at: Vec<Vec<(Reg, u32)>> = vec![Vec::new(); n + 1];
    let mut n_phis = 0u32;
    let mut placed = vec![u32::MAX; n + 1];
    let mut queued = vec![u32::MAX; n + 1];
    let mut work: Vec<u32> = Vec::new();
    for (r, set) in sets.iter().enumerate() {
        if r % 64 == 0 && stop() {
            return Err(stopped());
        }
        let stamp = r as u32;
        work.clear();
        work.extend_from_slice(set);
        if r >= named {
            work.extend_from_slice(&clears);
        }
        for &x in &work {
            queued[x as usize] = stamp;
        }
        while let Some(x) = work.pop() {
            for &y in &df[x as usize] {
                if placed[y as usize] != stamp {
                    placed[y as usize] = stamp;
                    phi_at[y as usize].push((r as Reg, n_phis));
                    n_phis += 1;
                    if queued[y as usize] != stamp {
                        queued[y as usize] = stamp;
                        work.push(y);
                    }
                }
            }
        }
    }
    drop((df, placed, queued, work, sets));
    let mut phi_args: Vec<Vec<Val>> = vec![Vec::new(); n_phis as usize];

    // Renaming: a walk of the dominator tree with a stack of values per register.
    let mut children: Vec<Vec<u32>> = vec![Vec::new(); n + 1];
    for v in 0..n {
        children[idom[v] as usize].push(v as u32);
    }
    let mut stacks: Vec<Vec<Val>> = vec![Vec::new(); nregs];
    let mut undo: Vec<Reg> = Vec::new();
    // Per instruction: (register, value reaching it), for each register it uses.
    let mut reads: Vec<Vec<(Reg, Val)>> = vec![Vec::new(); n];
    let top = |stacks: &[Vec<Val>], r: usize| stacks[r].last().copied().unwrap_or(none);
    // (node, undo length at entry, entered)
    let mut walk: Vec<(u32, usize, bool)> = vec![(root, 0, false)];
    let mut steps = 0usize;
    while let Some((v, mark, entered)) = walk.pop() {
        if entered {
            for r in undo.drain(mark..) {
                stacks[r as usize].pop();
            }
            continue;
        }
        steps += 1;
        if steps.is_multiple_of(4096) && stop() {
            return Err(stopped());
        }
        walk.push((v, undo.len(), true));
        let vi = v as usize;
        for &(r, k) in &phi_at[vi] {
            stacks[r as usize].push(none + 1 + k);
            undo.push(r);
        }
        if vi < n {
            let ins = &code[vi];
            let (a, b) = uses(&ins.kind);
            let mut regs: Vec<Reg> = a.into_iter().chain(b).collect();
            regs.sort_unstable();
            regs.dedup();
            reads[vi] = regs
                .into_iter()
                .filter(|&r| (r as usize) < nregs)
                .map(|r| (r, top(&stacks, r as usize)))
                .collect();
            if let Some(r) = def(&ins.kind).filter(|&r| (r as usize) < nregs) {
                stacks[r as usize].push(v);
                undo.push(r);
            }
            if ins.clear_temps {
                for (r, stack) in stacks.iter_mut().enumerate().skip(named) {
                    stack.push(none);
                    undo.push(r as Reg);
                }
            }
        }
        for &s in &out[vi] {
            for &(r, k) in &phi_at[s as usize] {
                phi_args[k as usize].push(top(&stacks, r as usize));
            }
        }
        for &c in children[vi].iter().rev() {
            walk.push((c, 0, false));
        }
    }
    drop((children, stacks, phi_at, out, idom));

    let (comp, sets) = merge_defs(&phi_args, &reads, none, stop)?;
    let result = reads
        .into_iter()
        .map(|rs| {
            let mut o: Vec<(u32, Reg)> = Vec::new();
            for (r, v) in rs {
                if v < none {
                    o.push((v, r));
                } else if v > none {
                    let c = comp[(v - none - 1) as usize] as usize;
                    o.extend(sets[c].iter().map(|&d| (d, r)));
                }
            }
            o.sort_unstable();
            o
        })
        .collect();
    Ok(result)
}

/// The definitions each merge a use reads stands for: the definitions among its operands and,
/// transitively, its operand merges'. Tarjan's strongly connected components of the merge
/// graph (iteratively), each component's set the union of its members' definitions and of the
/// sets of the components they point to, which Tarjan finishes first. Gives each merge's
/// component (`u32::MAX` for the merges no use reaches) and each component's definitions.
fn merge_defs(
    args: &[Vec<Val>],
    reads: &[Vec<(Reg, Val)>],
    none: Val,
    stop: &mut dyn FnMut() -> bool,
) -> Result<(Vec<u32>, Vec<Vec<u32>>), String> {
    const UNSEEN: u32 = u32::MAX;
    let m = args.len();
    let phi = |v: Val| (v > none).then(|| (v - none - 1) as usize);
    let mut index = vec![UNSEEN; m];
    let mut low = vec![0u32; m];
    let mut on_stack = vec![false; m];
    let mut comp_stack: Vec<usize> = Vec::new();
    // Per merge its component (`UNSEEN` if no use reaches it), per component its definitions.
    let mut comp = vec![UNSEEN; m];
    let mut sets: Vec<Vec<u32>> = Vec::new();
    let mut next = 0u32;
    let mut total = 0usize;
    let mut polls = 0usize;
    for root in reads.iter().flatten().filter_map(|&(_, v)| phi(v)) {
        if index[root] != UNSEEN {
            continue;
        }
        // (merge, next operand to look at)
        let mut dfs: Vec<(usize, usize)> = vec![(root, 0)];
        index[root] = next;
        low[root] = next;
        next += 1;
        on_stack[root] = true;
        comp_stack.push(root);
        while let Some(&mut (v, ref mut k)) = dfs.last_mut() {
            polls += 1;
            if polls.is_multiple_of(4096) && stop() {
                return Err(super::STOPPED.to_string());
            }
            if let Some(&a) = args[v].get(*k) {
                *k += 1;
                if let Some(w) = phi(a) {
                    if index[w] == UNSEEN {
                        index[w] = next;
                        low[w] = next;
                        next += 1;
                        on_stack[w] = true;
                        comp_stack.push(w);
                        dfs.push((w, 0));
                    } else if on_stack[w] {
                        low[v] = low[v].min(index[w]);
                    }
                }
                continue;
            }
            dfs.pop();
            if let Some(&(u, _)) = dfs.last() {
                low[u] = low[u].min(low[v]);
            }
            if low[v] != index[v] {
                continue;
            }
            // `v` roots a component: pop it. The operands still on the stack are its members
            // (an operand on the stack outside it would have lowered `v`'s link); the others
            // are in finished components.
            let at = comp_stack.iter().rposition(|&x| x == v).unwrap_or(0);
            let c = sets.len() as u32;
            let mut set: Vec<u32> = Vec::new();
            for &x in &comp_stack[at..] {
                for &a in &args[x] {
                    match phi(a) {
                        None if a < none => set.push(a),
                        Some(w) if !on_stack[w] => set.extend_from_slice(&sets[comp[w] as usize]),
                        _ => {}
                    }
                }
            }
            for x in comp_stack.drain(at..) {
                on_stack[x] = false;
                comp[x] = c;
            }
            set.sort_unstable();
            set.dedup();
            total = total.saturating_add(set.len());
            if total > MAX_MERGE_DEFS {
                return Err(format!(
                    "more than {MAX_MERGE_DEFS} definitions through merges in one thread"
                ));
            }
            sets.push(set);
        }
    }
    Ok((comp, sets))
}
