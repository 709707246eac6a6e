//! The names of the server's commands, at the bottom of the layers (`docs/design/lsp.md#layers`):
//! the capabilities (`to_proto.rs`) advertise them and the views that make lenses name them,
//! neither importing the other.

/// `litmus.verifyUnbounded [uri]`: the check for every iteration (`unbounded.rs`).
pub const VERIFY_UNBOUNDED: &str = "litmus.verifyUnbounded";
