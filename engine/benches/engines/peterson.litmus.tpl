litmus PetersonN "Peterson, after Nidhugg's TACAS'15 benchmark (TSO fences at the T marks, PSO fences at the P marks)"
shared flag0 = 0, flag1 = 0, turn = 0, cnt = 0;
thread P0 {
  flag0 = 1;
  {P}
  turn = 1;
  {T}
  await(flag1 == 0 || turn == 0);
  c = cnt;
  cnt = c + 1;
  {P}
  flag0 = 0;
}
thread P1 {
  flag1 = 1;
  {P}
  turn = 0;
  {T}
  await(flag0 == 0 || turn == 1);
  c = cnt;
  cnt = c + 1;
  {P}
  flag1 = 0;
}
forall (cnt == 2)
