//! One measurement: a child process of this binary runs one check (source on standard
//! input) and prints its counts; the parent reads them and the child's CPU time.

use litmus_engine::check::check_counting;
use litmus_engine::ir::Program;
use litmus_engine::report::Model;
use litmus_engine::{auto, syntax, CheckOptions, Control, EngineChoice, EngineKind};
use std::io::{Read, Write};
use std::process::{Command, Stdio};
use std::sync::atomic::{AtomicU64, Ordering};
use std::sync::Arc;
use std::time::{Duration, Instant};

pub const ENGINES: [(&str, EngineChoice); 3] = [
    ("MCR", EngineChoice::Fixed(EngineKind::Mcr)),
    ("exhaustive", EngineChoice::Fixed(EngineKind::Exhaustive)),
    ("DPOR", EngineChoice::Fixed(EngineKind::Dpor)),
];

/// One run's result, as the child prints it.
#[derive(Clone, Debug)]
pub struct Run {
    pub executions: u64,
    pub blocked: u64,
    pub states: u64,
    pub violations: u64,
    pub complete: bool,
    pub stopped: bool,
    pub ms: f64,
    pub rss_kb: u64,
    /// `Control::should_stop` polls (the portfolio's work units, unweighted).
    pub polls: u64,
    /// The engine that answered (`auto`: the portfolio's winner).
    pub engine: String,
    /// CPU time (user + system, all threads) of the check: the child's whole CPU time, read
    /// by the parent when it reaps it (so an outrun member's teardown counts), less what the
    /// child had used before the check (process start-up, reading and parsing the source).
    pub cpu_ms: f64,
    /// The portfolio's plan for the program (`engine@start` per candidate).
    pub plan: String,
    /// [`auto::lean`] of the program ([`auto::lean_unrolled`] where a thread loops).
    pub lean: f64,
    /// The check's time on free cores, in CPU ms: a single engine's is the CPU time of the
    /// thread that runs it (the check's); `auto`'s is its critical path ([`auto::CpuPath`]:
    /// the latest of each member's start, in the check's thread's CPU time, plus its own
    /// thread's CPU time to its end).
    pub path_ms: f64,
}

impl Run {
    pub fn cell(&self) -> String {
        let mark = if self.stopped {
            " first"
        } else if !self.complete {
            " **timeout**"
        } else {
            ""
        };
        format!(
            "{} / {:.0} ms / {:.1} MB{mark}",
            self.executions,
            self.ms,
            self.rss_kb as f64 / 1024.0
        )
    }
}

/// A number field of `/proc/self/status` (`VmHWM:`, `Threads:`), if it has one.
fn status_field(name: &str) -> Option<u64> {
    let s = std::fs::read_to_string("/proc/self/status").unwrap_or_default();
    s.lines()
        .find(|l| l.starts_with(name))
        .and_then(|l| l.split_whitespace().nth(1))
        .and_then(|n| n.parse().ok())
}

fn peak_rss_kb() -> u64 {
    status_field("VmHWM:").unwrap_or(0)
}

/// The child: `--child ENGINE MODEL LOOP_BOUND TIMEOUT_S FIRST`, source on stdin.
pub fn child(args: &[String]) {
    let engine = EngineChoice::parse(&args[0]).unwrap_or(EngineKind::Dpor.into());
    let model = Model::parse(&args[1]).expect("model");
    let mut src = String::new();
    std::io::stdin().read_to_string(&mut src).expect("stdin");
    let test = syntax::parse(&src)
        .test
        .expect("the benchmark program parses");
    let opts = CheckOptions {
        engine,
        loop_bound: args[2].parse().expect("bound"),
        timeout: Some(Duration::from_secs_f64(args[3].parse().expect("seconds"))),
        first: args[4] == "1",
        ..CheckOptions::default()
    };
    // The engine's units of work, unweighted (a fixed engine's; `auto` counts its own).
    let units = Arc::new(AtomicU64::new(0));
    let counter = units.clone();
    let work = Arc::new(move |n| {
        counter.fetch_add(n, Ordering::Relaxed);
    });
    // The plan `auto` makes for the program, and the CPU time used so far.
    let (plan, lean) = match Program::lower_with(&test, opts.loop_bound, &|| false) {
        Ok(p) => {
            let plan: Vec<String> = auto::candidates(&p, model, &opts)
                .iter()
                .map(|(e, at)| format!("{}@{at}", e.key()))
                .collect();
            let lean = if auto::has_loop(&p) {
                auto::lean_unrolled(&p, model, opts.loop_bound)
            } else {
                auto::lean(&p, model)
            };
            (plan.join(","), lean)
        }
        Err(_) => ("none".to_string(), f64::NAN),
    };
    let path = Arc::new(auto::CpuPath::default());
    let ctl = Control::new().with_cpu_path(path.clone());
    let cpu0 = self_cpu_us();
    let here0 = auto::thread_cpu_ns();
    let t0 = Instant::now();
    let r = check_counting(&test, model, &opts, &ctl, Some(work));
    let ms = t0.elapsed().as_secs_f64() * 1000.0;
    // An outrun member marks its end at its next unit of work, maybe after the answer.
    let waited = Instant::now();
    while !path.settled() && waited.elapsed() < Duration::from_secs(10) {
        std::thread::sleep(Duration::from_micros(200));
    }
    // This thread's own CPU time in the check (a single engine's whole path: it runs here),
    // or the portfolio's critical path if it ends later.
    path.reach(auto::thread_cpu_ns());
    let path_ms = path.ns().saturating_sub(here0) as f64 / 1e6;
    // The check's whole CPU time, every thread's: once the portfolio's members (detached
    // threads, an outrun one freeing what it built) have ended, this process's own count.
    // Measured here rather than from the child's exit: the exit's own cost (about 0.35 ms,
    // unmapping the process) is the same for every engine and made most of the noise
    // between two runs of a small program (a standard deviation of 0.05-0.07 ms against
    // 0.015 ms here).
    let waited = Instant::now();
    while own_threads() > 1 && waited.elapsed() < Duration::from_secs(10) {
        std::thread::sleep(Duration::from_micros(200));
    }
    let cpu1 = self_cpu_us();
    println!(
        "{} {} {} {} {} {} {ms} {} {} {} {cpu0} {plan} {lean} {path_ms} {}",
        r.stats.executions,
        r.stats.blocked,
        r.states.len(),
        r.violations.len(),
        r.complete as u8,
        r.stopped.is_some() as u8,
        peak_rss_kb(),
        units.load(Ordering::Relaxed),
        r.stats.engine.map_or("none", |e| e.key()),
        cpu1,
    );
}

pub fn measure(
    src: &str,
    engine: EngineChoice,
    model: Model,
    loop_bound: u32,
    timeout: f64,
    first: bool,
) -> Run {
    let exe = std::env::current_exe().expect("own path");
    let mut c = Command::new(exe)
        .args([
            "--child",
            engine.key(),
            model.key(),
            &loop_bound.to_string(),
            &timeout.to_string(),
            if first { "1" } else { "0" },
        ])
        .stdin(Stdio::piped())
        .stdout(Stdio::piped())
        .spawn()
        .expect("child runs");
    c.stdin
        .take()
        .expect("stdin")
        .write_all(src.as_bytes())
        .expect("source written");
    let mut out = vec![];
    c.stdout
        .take()
        .expect("stdout")
        .read_to_end(&mut out)
        .expect("child's output");
    c.wait().expect("child ends");
    let s = String::from_utf8_lossy(&out);
    let f: Vec<&str> = s.split_whitespace().collect();
    assert_eq!(f.len(), 15, "child output: {s}");
    let cpu0: u64 = f[10].parse().unwrap();
    let cpu1: u64 = f[14].parse().unwrap();
    let cpu_ms = cpu1.saturating_sub(cpu0) as f64 / 1000.0;
    let path_ms: f64 = f[13].parse().unwrap();
    Run {
        executions: f[0].parse().unwrap(),
        blocked: f[1].parse().unwrap(),
        states: f[2].parse().unwrap(),
        violations: f[3].parse().unwrap(),
        complete: f[4] == "1",
        stopped: f[5] == "1",
        ms: f[6].parse().unwrap(),
        rss_kb: f[7].parse().unwrap(),
        polls: f[8].parse().unwrap(),
        engine: f[9].to_string(),
        cpu_ms,
        plan: f[11].to_string(),
        lean: f[12].parse().unwrap_or(f64::NAN),
        path_ms,
    }
}

/// How many threads this process has, 1 where it cannot tell.
fn own_threads() -> u64 {
    status_field("Threads:").unwrap_or(1)
}

fn micros(t: libc::timeval) -> u64 {
    t.tv_sec as u64 * 1_000_000 + t.tv_usec as u64
}

/// This process's CPU time so far (user + system, every thread, live or ended), in µs.
fn self_cpu_us() -> u64 {
    // SAFETY: `getrusage` fills the zeroed struct it is given.
    let mut ru: libc::rusage = unsafe { std::mem::zeroed() };
    unsafe { libc::getrusage(libc::RUSAGE_SELF, &mut ru) };
    micros(ru.ru_utime) + micros(ru.ru_stime)
}
