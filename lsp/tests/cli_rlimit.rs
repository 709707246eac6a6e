//! Issue 39: under a resource limit, the default memory budget is half of what the limit
//! leaves, so the reproducers end with a partial report, the budget's warning naming
//! the limit, and exit status 3 (incomplete), not SIGABRT. The real binary runs under
//! `setrlimit` (set in the child before `exec`); the limits are smaller than the 3-4 GB
//! so that each run reaches its budget in a few seconds of a debug build.

mod cli_support;
use cli_support::*;
use std::os::unix::process::CommandExt;

/// `litmus ARGS...` with `resource`'s soft and hard limits at `bytes`.
fn run_limited(resource: libc::__rlimit_resource_t, bytes: u64, args: &[&str]) -> Run {
    let mut c = litmus();
    c.args(args);
    // SAFETY: between fork and exec the closure only calls `setrlimit`, which is
    // async-signal-safe, on a value on its own stack.
    unsafe {
        c.pre_exec(move || {
            let r = libc::rlimit {
                rlim_cur: bytes as libc::rlim_t,
                rlim_max: bytes as libc::rlim_t,
            };
            if libc::setrlimit(resource, &r) == 0 {
                Ok(())
            } else {
                Err(std::io::Error::last_os_error())
            }
        });
    }
    c.output().expect("cannot run the litmus binary").into()
}

const MIB: u64 = 1 << 20;

/// The run stopped at the default budget the limit `name` set: exit 3, a partial report, the
/// warning naming the budget and the limit.
fn assert_stopped_at_the_budget(r: &Run, name: &str) {
    assert_eq!(r.status, 3, "stdout:\n{}\nstderr:\n{}", r.stdout, r.stderr);
    let warned =
        r.stdout.lines().chain(r.stderr.lines()).find(|l| {
            l.contains("the memory budget of") && l.contains(&format!("(half of {name} "))
        });
    assert!(
        warned.is_some(),
        "no budget warning naming {name}:\n{}\n{}",
        r.stdout,
        r.stderr
    );
    assert!(
        r.stdout.contains("incomplete"),
        "no partial report:\n{}",
        r.stdout
    );
}

/// Six threads `Pt`: `x = t+1; a = y; y = t+1; b = z; z = t+1; c = x;`.
fn six_threads() -> String {
    let threads: String = (1..=6)
        .map(|v| {
            format!(
                "thread P{} {{ x = {v}; a = y; y = {v}; b = z; z = {v}; c = x; }}\n",
                v - 1
            )
        })
        .collect();
    format!("litmus Six\nshared x = 0, y = 0, z = 0;\n{threads}")
}

#[test]
fn the_reference_explorer_under_tso_stops_at_half_of_rlimit_data() {
    let f = scratch("rlimit_six", "six.litmus", six_threads().as_bytes());
    let r = run_limited(
        libc::RLIMIT_DATA,
        128 * MIB,
        &["check", "--engine", "exhaustive", "--model", "tso", &f],
    );
    assert_stopped_at_the_budget(&r, "RLIMIT_DATA");
}

#[test]
fn ten_thousand_one_store_threads_stop_at_half_of_rlimit_data() {
    let threads: String = (0..10_000)
        .map(|t| format!("thread P{t} {{ x = 1; }}\n"))
        .collect();
    let f = scratch(
        "rlimit_many",
        "many.litmus",
        format!("litmus Many\nshared x = 0;\n{threads}").as_bytes(),
    );
    let r = run_limited(
        libc::RLIMIT_DATA,
        128 * MIB,
        &["check", "--model", "sc", &f],
    );
    assert_stopped_at_the_budget(&r, "RLIMIT_DATA");
}

#[test]
fn a_store_loop_at_a_huge_loop_bound_stops_at_half_of_rlimit_as() {
    // The address-space limit: the budget is half of what is not mapped at start; threads'
    // stacks and the allocator's arenas come later, which the other half leaves room for.
    let f = scratch(
        "rlimit_loop",
        "loop.litmus",
        b"litmus Loop\nshared x = 0;\nthread P0 { while (1) { x = 1; } }\n",
    );
    let r = run_limited(
        libc::RLIMIT_AS,
        1024 * MIB,
        &["check", "--model", "tso", "--loop-bound", "100000000", &f],
    );
    assert_stopped_at_the_budget(&r, "RLIMIT_AS");
}

#[test]
fn help_names_the_default_budget_and_the_limit_it_comes_from() {
    let r = run_limited(libc::RLIMIT_AS, 3 << 30, &["check", "--help"]);
    assert_eq!(r.status, 0, "{}", r.stderr);
    let help = r.stdout.split_whitespace().collect::<Vec<_>>().join(" ");
    // 3 GiB less what the binary maps at start, halved: a little under 1.5 GiB.
    assert!(
        help.contains("(half of RLIMIT_AS 3 GiB less ")
            || help.contains("(half of RLIMIT_AS 3 GiB)"),
        "{help}"
    );
    assert!(
        help.contains("here 1.") && help.contains(" GiB (half of RLIMIT_AS"),
        "{help}"
    );
}

/// An SB ring of `n` threads beside an array of `cells` cells nobody touches: 2^n final
/// states under TSO, each listing every cell, so the report's states take several times what
/// the exploration's set of their values does.
fn wide_ring(n: usize, cells: usize) -> String {
    let xs: Vec<String> = (0..n).map(|i| format!("x{i} = 0")).collect();
    let threads: String = (0..n)
        .map(|i| format!("thread P{i} {{ x{i} = 1; r = x{}; }}\n", (i + 1) % n))
        .collect();
    let cond: Vec<String> = (0..n).map(|i| format!("P{i}:r == 0")).collect();
    format!(
        "litmus WideRing\nshared {}, a[{cells}];\n{threads}exists ({})\n",
        xs.join(", "),
        cond.join(" && ")
    )
}

/// A complete exploration whose final states, listed with a string per key and rendered as
/// JSON, take more than the limit: the report used to be built whole after the check and abort
/// ("memory allocation of N bytes failed"). Now it lists what fits in the budget, says how many
/// states it left out (in `stats.omitted` and a warning) and keeps the verdict over them all.
#[test]
fn a_report_too_big_for_the_budget_lists_what_fits_and_counts_the_rest() {
    let f = scratch("rlimit_wide", "wide.litmus", wide_ring(10, 3600).as_bytes());
    for resource in [libc::RLIMIT_DATA, libc::RLIMIT_AS] {
        let r = run_limited(
            resource,
            256 * MIB,
            &["check", "--engine", "dpor", "--model", "tso", "--json", &f],
        );
        assert!(
            !r.stderr.contains("memory allocation"),
            "aborted: {}",
            r.stderr
        );
        let m = &r.json()["files"][0]["results"]["tso"];
        let listed = m["states"].as_array().expect("states").len() as u64;
        let found = m["stats"]["states"].as_u64().expect("stats.states");
        let omitted = m["stats"]["omitted"].as_u64().unwrap_or(0);
        assert_eq!(found, 1 << 10, "{}", m["stats"]);
        assert!(omitted > 0, "every state listed: {}", m["stats"]);
        assert_eq!(listed + omitted, found);
        assert!(
            m["warnings"]
                .to_string()
                .contains(&format!("{omitted} of {found} final states are not listed")),
            "{}",
            m["warnings"]
        );
        // The verdict covers the states left out: only the all-zero state satisfies it.
        assert_eq!(m["condition"]["positive"], 1, "{}", m["condition"]);
        assert_eq!(m["condition"]["negative"], found - 1, "{}", m["condition"]);
        assert_eq!(r.status, 0, "{}", r.stderr);
    }
}
