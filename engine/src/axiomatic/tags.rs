//! The sets an event of a path belongs to besides R/W/F: its ordering annotations and, for a
//! barrier, its kind (the names the cat models use).

use super::Event;
use crate::asm::{Arch, Barrier, DmbKind, PowerFence};

pub(super) fn tag_ord(e: &mut Event, arch: Arch, ord: crate::asm::Ordering, exclusive: bool) {
    let (acq, rel) = match arch {
        Arch::AArch64 => ("A", "L"),
        Arch::RiscV | Arch::Ppc | Arch::Arm => ("AQ", "RL"),
    };
    if ord.acquire {
        e.tags.push(acq);
    }
    if ord.acquire_pc {
        e.tags.push("Q");
    }
    if ord.release {
        e.tags.push(rel);
    }
    if exclusive {
        e.tags.push("X");
    }
}

pub(super) fn barrier_tag(b: Barrier) -> &'static str {
    match b {
        Barrier::Dmb { dsb, kind } => match (dsb, kind) {
            (false, DmbKind::Full) => "DMB.SY",
            (false, DmbKind::Ld) => "DMB.LD",
            (false, DmbKind::St) => "DMB.ST",
            (true, DmbKind::Full) => "DSB.SY",
            (true, DmbKind::Ld) => "DSB.LD",
            (true, DmbKind::St) => "DSB.ST",
        },
        Barrier::Isb => "ISB",
        Barrier::Power(f) => match f {
            PowerFence::Sync => "SYNC",
            PowerFence::Lwsync => "LWSYNC",
            PowerFence::Eieio => "EIEIO",
            PowerFence::Isync => "ISYNC",
        },
        Barrier::FenceTso => "Fence.tso",
        Barrier::FenceI => "Fence.i",
        Barrier::Fence { pred, succ } => {
            const NAMES: [[&str; 4]; 4] = [
                ["Fence.0.0", "Fence.0.r", "Fence.0.w", "Fence.0.rw"],
                ["Fence.r.0", "Fence.r.r", "Fence.r.w", "Fence.r.rw"],
                ["Fence.w.0", "Fence.w.r", "Fence.w.w", "Fence.w.rw"],
                ["Fence.rw.0", "Fence.rw.r", "Fence.rw.w", "Fence.rw.rw"],
            ];
            let ix = |a: crate::asm::Accesses| a.r as usize + 2 * a.w as usize;
            NAMES[ix(pred)][ix(succ)]
        }
    }
}
