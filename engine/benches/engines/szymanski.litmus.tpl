litmus Szymanski "Szymanski, translated from Nidhugg's TACAS'15 benchmarks/szymanski.c: __VERIFIER_assume is assume, mfence is fence (TSO_FENCE at the T marks, PSO_FENCE, which implies TSO_FENCE, at the P marks)"
shared flag1 = 0, flag2 = 0, x = 0;
thread thr1 {
  flag1 = 1;
  {T}
  assume(flag2 < 3);
  flag1 = 3;
  {T}
  if (flag2 == 1) {
    flag1 = 2;
    {T}
    assume(flag2 == 4);
  }
  flag1 = 4;
  {T}
  assume(flag2 < 2);
  x = 0;
  assert(x <= 0);
  {P}
  assume(2 > flag2 || flag2 > 3);
  flag1 = 0;
}
thread thr2 {
  flag2 = 1;
  {T}
  assume(flag1 < 3);
  flag2 = 3;
  {T}
  if (flag1 == 1) {
    flag2 = 2;
    {T}
    assume(flag1 == 4);
  }
  flag2 = 4;
  {T}
  assume(flag1 < 2);
  x = 1;
  assert(x >= 1);
  {P}
  assume(2 > flag1 || flag1 > 3);
  flag2 = 0;
}
