//! Sequential consistency: no store buffers; a store writes memory at once.

use super::MemoryModel;

/// Sequential consistency (Lamport): one memory, every step acts on it at once.
pub struct Sc;

impl MemoryModel for Sc {
    fn buffers(&self, _cells: usize) -> usize {
        0
    }
    fn buffer_of(&self, _cell: u32) -> Option<usize> {
        None
    }
    fn flush_cell(&self, _cell: u32) -> Option<u32> {
        None
    }
    fn flush_buffer(&self, _cell: Option<u32>) -> Option<usize> {
        None
    }
}
