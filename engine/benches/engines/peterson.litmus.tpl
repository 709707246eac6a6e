litmus Peterson "Peterson, translated from Nidhugg's TACAS'15 benchmarks/peterson.c: __VERIFIER_assume is assume, mfence is fence (TSO_FENCE at the T marks, PSO_FENCE, which implies TSO_FENCE, at the P marks)"
shared flag1 = 0, flag2 = 0, turn = 0, x = 0;
thread thr1 {
  flag1 = 1;
  {P}
  turn = 1;
  {T}
  assume(flag2 != 1 || turn != 1);
  x = 0;
  assert(x <= 0);
  {P}
  flag1 = 0;
}
thread thr2 {
  flag2 = 1;
  {P}
  turn = 0;
  {T}
  assume(flag1 != 1 || turn != 0);
  x = 1;
  assert(x >= 1);
  {P}
  flag2 = 0;
}
