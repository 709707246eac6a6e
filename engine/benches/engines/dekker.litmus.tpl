litmus DekkerN "Dekker, after Nidhugg's TACAS'15 benchmark (TSO fences at the T marks, PSO fences at the P marks)"
shared flag0 = 0, flag1 = 0, turn = 0, cnt = 0;
thread P0 {
  flag0 = 1;
  {T}
  while (flag1 == 1) {
    if (turn != 0) {
      flag0 = 0;
      await(turn == 0);
      flag0 = 1;
      {T}
    }
  }
  c = cnt;
  cnt = c + 1;
  {P}
  turn = 1;
  flag0 = 0;
}
thread P1 {
  flag1 = 1;
  {T}
  while (flag0 == 1) {
    if (turn != 1) {
      flag1 = 0;
      await(turn == 1);
      flag1 = 1;
      {T}
    }
  }
  c = cnt;
  cnt = c + 1;
  {P}
  turn = 0;
  flag1 = 0;
}
forall (cnt == 2)
