litmus DekkerRegisters "Dekker, translated from Nidhugg's TACAS'15 benchmarks/dekker.c with register-carried loop conditions: each flag read into a register before the loop and again at the end of its body, and each wait (__VERIFIER_assume) a loop on a register reloaded at the end of its body; mfence is fence (TSO_FENCE at the T marks, PSO_FENCE, which implies TSO_FENCE, at the P marks)"
shared flag1 = 0, flag2 = 0, turn = 0, x = 0;
thread thr1 {
  flag1 = 1;
  {T}
  f = flag2;
  while (f >= 1) {
    if (turn != 0) {
      flag1 = 0;
      t = turn;
      while (t != 0) {
        t = turn;
      }
      flag1 = 1;
      {T}
    }
    f = flag2;
  }
  x = 0;
  assert(x <= 0);
  {P}
  turn = 1;
  flag1 = 0;
}
thread thr2 {
  flag2 = 1;
  {T}
  f = flag1;
  while (f >= 1) {
    if (turn != 1) {
      flag2 = 0;
      t = turn;
      while (t != 1) {
        t = turn;
      }
      flag2 = 1;
      {T}
    }
    f = flag1;
  }
  x = 1;
  assert(x >= 1);
  {P}
  turn = 0;
  flag2 = 0;
}
