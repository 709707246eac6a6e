//! Programs and scratch files the server tests share.

/// Message passing with an assertion: fails under PSO only.
pub const MP: &str = "litmus MP \"message passing\"

shared data = 0, flag = 0;

thread P0 {
  data = 1;
  flag = 1;
}

thread P1 {
  r0 = flag;
  if (r0 == 1) {
    r1 = data;
    assert(r1 == 1);
  }
}
";

/// Store buffering with an `exists`: holds under TSO and PSO, not under SC.
pub const SB: &str = "litmus SB \"store buffering\"

shared x = 0, y = 0;

thread P0 {
  x = 1;
  r0 = y;
}

thread P1 {
  y = 1;
  r1 = x;
}

exists (P0:r0 == 0 && P1:r1 == 0)
";

/// A fresh scratch folder `name` under the test target's temporary directory.
pub fn dir(name: &str) -> std::path::PathBuf {
    let d = std::path::Path::new(env!("CARGO_TARGET_TMPDIR")).join(name);
    let _ = std::fs::remove_dir_all(&d);
    std::fs::create_dir_all(&d).unwrap();
    d
}

/// The `file://` URI of `p`.
pub fn uri(p: &std::path::Path) -> String {
    format!("file://{}", p.display())
}
