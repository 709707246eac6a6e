litmus PetersonRegisters "Peterson, translated from Nidhugg's TACAS'15 benchmarks/peterson.c with register-carried loop conditions: the wait (__VERIFIER_assume) a loop on a register set before it and again at the end of its body from the flag and turn (`c = flag2 == 1 && turn == 1;`, short-circuited as the C condition is); mfence is fence (TSO_FENCE at the T marks, PSO_FENCE, which implies TSO_FENCE, at the P marks)"
shared flag1 = 0, flag2 = 0, turn = 0, x = 0;
thread thr1 {
  flag1 = 1;
  {P}
  turn = 1;
  {T}
  c = flag2 == 1 && turn == 1;
  while (c == 1) {
    c = flag2 == 1 && turn == 1;
  }
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
  c = flag1 == 1 && turn == 0;
  while (c == 1) {
    c = flag1 == 1 && turn == 0;
  }
  x = 1;
  assert(x >= 1);
  {P}
  flag2 = 0;
}
