//! Progress and cancellation for long checks.
//!
//! One [`Control`] for the whole run carries the cancel flag; Ctrl-C sets it (a second Ctrl-C
//! exits at once with status 130). Each check gets a clone of it with a progress callback that,
//! when stderr is a terminal and the check has run for more than a second, keeps one status
//! line up to date on stderr; [`ProgressLine::finish`] erases it.

use std::io::Write as _;
use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::{Arc, Mutex};
use std::time::{Duration, Instant};

use litmus_engine::Control;

/// Delay before the first progress line, and the minimum interval between updates.
const FIRST_AFTER: Duration = Duration::from_secs(1);
const EVERY: Duration = Duration::from_millis(100);

/// The run-wide control, with Ctrl-C wired to its cancel flag.
pub fn interruptible() -> Control {
    let ctl = Control::new();
    let flag = ctl.flag();
    // Fails only if a handler is already installed (never, we install it once per process).
    let _ = ctrlc::set_handler(move || {
        if flag.swap(true, Ordering::SeqCst) {
            std::process::exit(130);
        }
    });
    ctl
}

/// The progress line of one check.
pub struct ProgressLine {
    shown: Arc<AtomicBool>,
}

impl ProgressLine {
    /// A clone of `base` (sharing its cancel flag) that reports progress as `label` when
    /// `enabled` (stderr is a terminal).
    pub fn start(base: &Control, label: String, enabled: bool) -> (Control, ProgressLine) {
        let shown = Arc::new(AtomicBool::new(false));
        if !enabled {
            return (base.clone(), ProgressLine { shown });
        }
        let start = Instant::now();
        let last = Mutex::new(start);
        let shown2 = shown.clone();
        let ctl = base.clone().with_progress(move |p| {
            let now = Instant::now();
            if now.duration_since(start) < FIRST_AFTER {
                return;
            }
            let Ok(mut last) = last.lock() else { return };
            if shown2.load(Ordering::Relaxed) && now.duration_since(*last) < EVERY {
                return;
            }
            *last = now;
            shown2.store(true, Ordering::Relaxed);
            let mut err = std::io::stderr().lock();
            let _ = write!(
                err,
                "\r\x1b[K{label}: {} executions, {} states, {} violations, {:.1} s (Ctrl-C stops)",
                p.executions,
                p.states,
                p.violations,
                now.duration_since(start).as_secs_f64()
            );
            let _ = err.flush();
        });
        (ctl, ProgressLine { shown })
    }

    /// Erases the progress line if one was drawn.
    pub fn finish(self) {
        if self.shown.load(Ordering::Relaxed) {
            let mut err = std::io::stderr().lock();
            let _ = write!(err, "\r\x1b[K");
            let _ = err.flush();
        }
    }
}
