//! SPARC PSO: one FIFO store buffer per thread and cell, so stores to different cells may reach
//! memory out of issue order.

use super::MemoryModel;

/// Partial store order: per thread, one buffer per cell.
pub struct Pso;

impl MemoryModel for Pso {
    fn buffers(&self, cells: usize) -> usize {
        cells
    }
    fn buffer_of(&self, cell: u32) -> Option<usize> {
        Some(cell as usize)
    }
    /// A flush names the cell whose buffer it empties.
    fn flush_cell(&self, cell: u32) -> Option<u32> {
        Some(cell)
    }
    fn flush_buffer(&self, cell: Option<u32>) -> Option<usize> {
        cell.map(|c| c as usize)
    }
}
