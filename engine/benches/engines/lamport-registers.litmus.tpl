litmus LamportRegisters "Lamport's fast mutex, translated from Nidhugg's TACAS'15 benchmarks/lamport.c with register-carried loop conditions: each wait (__VERIFIER_assume) a loop on a register read before it and again at the end of its body; mfence is fence (TSO_FENCE at the T marks, PSO_FENCE, which implies TSO_FENCE, at the P marks); `while (1)` with `continue` and `goto breaklbl` is a loop on the register done"
shared x = 0, y = 0, b1 = 0, b2 = 0, X = 0;
thread thr1 {
  done = 0;
  while (done == 0) {
    b1 = 1;
    x = 1;
    {T}
    if (y != 0) {
      b1 = 0;
      w = y;
      while (w != 0) {
        w = y;
      }
    } else {
      y = 1;
      {T}
      if (x != 1) {
        b1 = 0;
        w = b2;
        while (w >= 1) {
          w = b2;
        }
        if (y != 1) {
          w = y;
          while (w != 0) {
            w = y;
          }
        } else {
          done = 1;
        }
      } else {
        done = 1;
      }
    }
  }
  X = 0;
  assert(X <= 0);
  {P}
  y = 0;
  b1 = 0;
}
thread thr2 {
  done = 0;
  while (done == 0) {
    b2 = 1;
    x = 2;
    {T}
    if (y != 0) {
      b2 = 0;
      w = y;
      while (w != 0) {
        w = y;
      }
    } else {
      y = 2;
      {T}
      if (x != 2) {
        b2 = 0;
        w = b1;
        while (w >= 1) {
          w = b1;
        }
        if (y != 2) {
          w = y;
          while (w != 0) {
            w = y;
          }
        } else {
          done = 1;
        }
      } else {
        done = 1;
      }
    }
  }
  X = 1;
  assert(X >= 1);
  {P}
  y = 0;
  b2 = 0;
}
