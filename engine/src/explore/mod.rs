//! The exhaustive reference explorer (`--engine exhaustive`), the oracle every other engine is
//! tested against. It feeds [`crate::collect::Collector`] like the other explorers.

pub mod exhaustive;

/// Frees `big` on a thread of its own, so that a stopped exploration returns at once: freeing
/// millions of states takes a tenth of a second or more, which would count against the time
/// from a deadline or a cancel to the end. The CLI may exit before the thread is done (the
/// process's memory goes back anyway); the server gets the memory back a moment later. If no
/// thread can be started, it is freed here.
pub(crate) fn drop_in_background<T: Send + 'static>(big: T) {
    // A failed spawn drops the closure, and `big` with it, here.
    let _ = std::thread::Builder::new()
        .name("litmus-free".into())
        .spawn(move || drop(big));
}
