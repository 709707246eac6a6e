//! Turns: the members of one `auto` check that got no worker slot share the check's one slot.
//!
//! With a worker budget ([`crate::control::Workers`]) and no free slot, a member that joins
//! still starts on a thread of its own, but it and the first candidate (which runs on the
//! check's thread, in the check's slot) run by turns, so that no more of the portfolio's
//! threads run at once than the budget allows. One member holds the baton and runs; the others
//! are parked. The holder gives the baton, at one of its meter's counts, to the parked member
//! with the least work once its own work passes that one's by [`QUANTUM`], and a member that
//! ends (finished, outrun or stopped) gives it to the parked member with the least work. So
//! the members advance in counted work side by side, as they would on cores of their own, and
//! the same engine answers (the least work among those that finish decides, and no member is
//! stopped but by being outrun, the deadline, a cancellation or the memory budget).
//!
//! A parked member waits with a timeout ([`POLL`]) and checks its control, so the deadline, a
//! cancellation and the memory budget end it as they end a running one; one whose work as it
//! stands passed the bound (outrun while parked) cancels itself and ends. It never holds the
//! baton while it is outrun, so every member still able to answer gets its turn.

use std::sync::atomic::{AtomicU64, AtomicUsize, Ordering};
use std::sync::{Arc, Condvar, Mutex};
use std::time::Duration;

use crate::control::Control;

/// The work by which the baton's holder may run ahead of the parked member with the least
/// work before it hands over: 5 ms of CPU in the weights' unit (about ns). A turn costs a
/// wake-up and a context switch (some µs) and the caches' refill, well under 1% of 5 ms; and
/// the answer comes at most one quantum later (in work) than with cores of its own, which is
/// small beside the head start ([`super::EARLY`] = 2 ms is the earliest join, most members
/// join at [`super::UNSURE`] = 80 ms or later).
pub const QUANTUM: u64 = 5_000_000;

/// How long a parked member sleeps between checks of its control when nobody wakes it (a
/// member ending or handing over wakes it at once; the deadline, a cancellation and the memory
/// budget are seen within this).
const POLL: Duration = Duration::from_millis(2);

/// No member holds the baton.
const NONE: usize = usize::MAX;

/// The baton of one check's members without a slot of their own.
pub struct Turns {
    /// The member holding the baton (`NONE`: nobody).
    holder: AtomicUsize,
    /// The holder's work at which it must look at handing over (`u64::MAX`: nobody waits).
    switch_at: AtomicU64,
    /// Each member's work while parked (`None`: running, ended, or not taking turns).
    parked: Mutex<Vec<Option<u64>>>,
    cv: Condvar,
    /// The portfolio's bound: a parked member whose work passed it is outrun.
    bound: Arc<AtomicU64>,
}

impl Turns {
    /// Turns among `n` members, member 0 (the first candidate) holding the baton.
    pub fn new(n: usize, bound: Arc<AtomicU64>) -> Turns {
        Turns {
            holder: AtomicUsize::new(0),
            switch_at: AtomicU64::new(u64::MAX),
            parked: Mutex::new(vec![None; n]),
            cv: Condvar::new(),
            bound,
        }
    }

    /// The parked member with the least work not outrun, other than `but` (ties: the earlier).
    fn least(&self, parked: &[Option<u64>], but: usize) -> Option<(usize, u64)> {
        let bound = self.bound.load(Ordering::Relaxed);
        parked
            .iter()
            .enumerate()
            .filter_map(|(j, w)| w.map(|w| (j, w)))
            .filter(|&(j, w)| j != but && w <= bound)
            .min_by_key(|&(j, w)| (w, j))
    }

    /// Sets the holder's hand-over point from the parked members.
    fn reset_switch(&self, parked: &[Option<u64>]) {
        let h = self.holder.load(Ordering::Relaxed);
        let at = self
            .least(parked, h)
            .map_or(u64::MAX, |(_, w)| w.saturating_add(QUANTUM));
        self.switch_at.store(at, Ordering::Relaxed);
    }

    /// Hands the baton to the parked member with the least work (nobody if none is left).
    fn pass(&self, parked: &mut [Option<u64>], from: usize) {
        let next = self.least(parked, from).map_or(NONE, |(j, _)| j);
        if next != NONE {
            parked[next] = None;
        }
        self.holder.store(next, Ordering::Relaxed);
        self.reset_switch(parked);
        self.cv.notify_all();
    }

    /// Member `i`, which has no slot of its own, joins with work `work` (its start); it then
    /// waits for its turn ([`Turns::wait_turn`]). If nobody holds the baton it takes it.
    pub fn join(&self, i: usize, work: u64) {
        let mut parked = self.parked.lock().unwrap();
        if self.holder.load(Ordering::Relaxed) == NONE {
            self.holder.store(i, Ordering::Relaxed);
        } else {
            parked[i] = Some(work);
        }
        self.reset_switch(&parked);
    }

    /// Waits until member `i` (parked with `work`) holds the baton; returns early, false, once
    /// its control says stop or its work passed the bound (then it cancels `ctl`: outrun).
    pub fn wait_turn(&self, i: usize, work: u64, ctl: &Control) -> bool {
        let mut parked = self.parked.lock().unwrap();
        loop {
            if self.holder.load(Ordering::Relaxed) == i {
                return true;
            }
            if work > self.bound.load(Ordering::Relaxed) {
                ctl.cancel();
            }
            if ctl.should_stop() {
                return false;
            }
            parked = self.cv.wait_timeout(parked, POLL).unwrap().0;
        }
    }

    /// At member `i`'s count with work `work`: if it holds the baton and its work passed the
    /// least parked work by [`QUANTUM`], hands the baton over and waits for its next turn.
    #[inline]
    pub fn poll(&self, i: usize, work: u64, ctl: &Control) {
        if work > self.switch_at.load(Ordering::Relaxed) && self.holder.load(Ordering::Relaxed) == i
        {
            self.hand_over(i, work, ctl);
        }
    }

    #[cold]
    fn hand_over(&self, i: usize, work: u64, ctl: &Control) {
        {
            let mut parked = self.parked.lock().unwrap();
            match self.least(&parked, i) {
                Some((_, w)) if work > w.saturating_add(QUANTUM) => {
                    parked[i] = Some(work);
                    self.pass(&mut parked, i);
                }
                _ => {
                    self.reset_switch(&parked);
                    return;
                }
            }
        }
        self.wait_turn(i, work, ctl);
    }

    /// Member `i` ended (finished, outrun or stopped) or will not run: it leaves the turns,
    /// and hands the baton on if it held it.
    pub fn end(&self, i: usize) {
        let mut parked = self.parked.lock().unwrap();
        parked[i] = None;
        if self.holder.load(Ordering::Relaxed) == i {
            self.pass(&mut parked, i);
        } else {
            self.reset_switch(&parked);
        }
    }
}
