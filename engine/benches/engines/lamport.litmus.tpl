litmus LamportN "Lamport's fast mutex, after Nidhugg's TACAS'15 benchmark (TSO fences at the T marks, PSO fences at the P marks)"
shared b1 = 0, b2 = 0, x = 0, y = 0, cnt = 0;
thread P1 {
  b1 = 1;
  {P}
  x = 1;
  {T}
  r = y;
  assume(r == 0);
  y = 1;
  {T}
  r = x;
  if (r != 1) {
    b1 = 0;
    {T}
    await(b2 == 0);
    r = y;
    assume(r == 1);
  }
  c = cnt;
  cnt = c + 1;
  {P}
  y = 0;
  {P}
  b1 = 0;
}
thread P2 {
  b2 = 1;
  {P}
  x = 2;
  {T}
  r = y;
  assume(r == 0);
  y = 2;
  {T}
  r = x;
  if (r != 2) {
    b2 = 0;
    {T}
    await(b1 == 0);
    r = y;
    assume(r == 2);
  }
  c = cnt;
  cnt = c + 1;
  {P}
  y = 0;
  {P}
  b2 = 0;
}
forall (cnt == 2)
