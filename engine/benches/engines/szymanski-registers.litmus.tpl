litmus SzymanskiRegisters "Szymanski, translated from Nidhugg's TACAS'15 benchmarks/szymanski.c with register-carried loop conditions: each wait (__VERIFIER_assume) a loop on a register read before it and again at the end of its body; mfence is fence (TSO_FENCE at the T marks, PSO_FENCE, which implies TSO_FENCE, at the P marks)"
shared flag1 = 0, flag2 = 0, x = 0;
thread thr1 {
  flag1 = 1;
  {T}
  f = flag2;
  while (f >= 3) {
    f = flag2;
  }
  flag1 = 3;
  {T}
  if (flag2 == 1) {
    flag1 = 2;
    {T}
    f = flag2;
    while (f != 4) {
      f = flag2;
    }
  }
  flag1 = 4;
  {T}
  f = flag2;
  while (f >= 2) {
    f = flag2;
  }
  x = 0;
  assert(x <= 0);
  {P}
  f = flag2;
  while (2 <= f && f <= 3) {
    f = flag2;
  }
  flag1 = 0;
}
thread thr2 {
  flag2 = 1;
  {T}
  f = flag1;
  while (f >= 3) {
    f = flag1;
  }
  flag2 = 3;
  {T}
  if (flag1 == 1) {
    flag2 = 2;
    {T}
    f = flag1;
    while (f != 4) {
      f = flag1;
    }
  }
  flag2 = 4;
  {T}
  f = flag1;
  while (f >= 2) {
    f = flag1;
  }
  x = 1;
  assert(x >= 1);
  {P}
  f = flag1;
  while (2 <= f && f <= 3) {
    f = flag1;
  }
  flag2 = 0;
}
