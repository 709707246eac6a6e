//! x86-TSO (Owens, Sarkar, Sewell): one FIFO store buffer per thread.

use super::MemoryModel;

/// Total store order: each thread's stores reach memory in issue order, later than its own
/// later loads may run.
pub struct Tso;

impl MemoryModel for Tso {
    fn buffers(&self, _cells: usize) -> usize {
        1
    }
    fn buffer_of(&self, _cell: u32) -> Option<usize> {
        Some(0)
    }
    /// A thread's one buffer is named by the thread alone.
    fn flush_cell(&self, _cell: u32) -> Option<u32> {
        None
    }
    fn flush_buffer(&self, cell: Option<u32>) -> Option<usize> {
        match cell {
            None => Some(0),
            Some(_) => None,
        }
    }
}
