//! The packed words of the search's abstract machine states.

use super::NONE;

/// Where the fields of an abstract machine state (see the module doc) sit in its packed words:
/// one word per cell's memory value, then each thread's position and each queue's drain count
/// as 16-bit fields, each mutex's owner as an 8-bit field (`0xff`: free), and a last word with
/// the publish the target's cell holds (bits 0-31; `NONE`: its initial value), the unlock the
/// target's mutex last saw (bits 32-62) and whether the target ran (bit 63).
#[derive(Clone, Copy)]
pub(super) struct Layout {
    pub threads: usize,
    pub counters: usize,
    pub owners: usize,
    pub misc: usize,
    pub words: usize,
}

pub(super) const FREE: u64 = 0xff;
pub(super) const DONE: u64 = 1 << 63;

impl Layout {
    pub fn new(cells: usize, threads: usize, queues: usize, mutexes: usize) -> Layout {
        let counters = cells;
        let owners = counters + (threads + queues).div_ceil(4);
        let misc = owners + mutexes.div_ceil(8);
        Layout {
            threads,
            counters,
            owners,
            misc,
            words: misc + 1,
        }
    }
    pub fn counter(&self, n: &[u64], k: usize) -> u16 {
        (n[self.counters + k / 4] >> (16 * (k % 4))) as u16
    }
    pub fn bump(&self, n: &mut [u64], k: usize) {
        n[self.counters + k / 4] += 1 << (16 * (k % 4));
    }
    pub fn pos(&self, n: &[u64], t: usize) -> u16 {
        self.counter(n, t)
    }
    pub fn flushed(&self, n: &[u64], q: usize) -> u16 {
        self.counter(n, self.threads + q)
    }
    pub fn owner(&self, n: &[u64], m: usize) -> u64 {
        (n[self.owners + m / 8] >> (8 * (m % 8))) & 0xff
    }
    pub fn set_owner(&self, n: &mut [u64], m: usize, o: u64) {
        let w = &mut n[self.owners + m / 8];
        *w = (*w & !(0xff << (8 * (m % 8)))) | (o << (8 * (m % 8)));
    }
    pub fn src(&self, n: &[u64]) -> u32 {
        n[self.misc] as u32
    }
    pub fn set_src(&self, n: &mut [u64], i: u32) {
        n[self.misc] = (n[self.misc] & !0xffff_ffff) | i as u64;
    }
    pub fn unlock(&self, n: &[u64]) -> u32 {
        let u = (n[self.misc] >> 32) as u32 & 0x7fff_ffff;
        if u == 0x7fff_ffff {
            NONE
        } else {
            u
        }
    }
    pub fn set_unlock(&self, n: &mut [u64], i: u32) {
        n[self.misc] = (n[self.misc] & !(0x7fff_ffff << 32)) | ((i as u64 & 0x7fff_ffff) << 32);
    }
    pub fn done(&self, n: &[u64]) -> bool {
        n[self.misc] & DONE != 0
    }
}
