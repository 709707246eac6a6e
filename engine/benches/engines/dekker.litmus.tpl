litmus Dekker "Dekker, translated from Nidhugg's TACAS'15 benchmarks/dekker.c: __VERIFIER_assume is assume, mfence is fence (TSO_FENCE at the T marks, PSO_FENCE, which implies TSO_FENCE, at the P marks)"
shared flag1 = 0, flag2 = 0, turn = 0, x = 0;
thread thr1 {
  flag1 = 1;
  {T}
  while (flag2 >= 1) {
    if (turn != 0) {
      flag1 = 0;
      assume(turn == 0);
      flag1 = 1;
      {T}
    }
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
  while (flag1 >= 1) {
    if (turn != 1) {
      flag2 = 0;
      assume(turn == 1);
      flag2 = 1;
      {T}
    }
  }
  x = 1;
  assert(x >= 1);
  {P}
  turn = 0;
  flag2 = 0;
}
