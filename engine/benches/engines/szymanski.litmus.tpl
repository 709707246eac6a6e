litmus SzymanskiN "Szymanski, after Nidhugg's TACAS'15 benchmark (TSO fences at the T marks, PSO fences at the P marks)"
shared f0 = 0, f1 = 0, cnt = 0;
thread P0 {
  f0 = 1;
  {T}
  await(f1 < 3);
  f0 = 3;
  {T}
  r = f1;
  if (r == 1) {
    f0 = 2;
    {T}
    await(f1 == 4);
  }
  f0 = 4;
  {T}
  c = cnt;
  cnt = c + 1;
  {P}
  await(f1 < 2 || f1 > 3);
  f0 = 0;
}
thread P1 {
  f1 = 1;
  {T}
  await(f0 < 3);
  f1 = 3;
  {T}
  r = f0;
  if (r == 1) {
    f1 = 2;
    {T}
    await(f0 == 4);
  }
  f1 = 4;
  {T}
  await(f0 < 2);
  c = cnt;
  cnt = c + 1;
  {P}
  f1 = 0;
}
forall (cnt == 2)
