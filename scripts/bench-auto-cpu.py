#!/usr/bin/env python3
"""CPU time of `auto` against each engine alone (issue 42), for a loaded machine where wall
time is noise: each run is a child of the engine benchmark's binary (`--child ENGINE MODEL
LOOP_BOUND TIMEOUT FIRST`, source on stdin), its CPU time (user + system) read from
`getrusage(RUSAGE_CHILDREN)` around it, less what the child used before its check (it prints
that). The engine benchmark's `auto` section measures the same way (without `--first`);
this script adds `--first`. Ratios are (auto + 1 ms) / (fastest + 1 ms).

Usage: T=SECS scripts/bench-auto-cpu.py BENCH_BINARY OUT.md FILE.litmus...
(BENCH_BINARY: target/release/deps/engines-* after
`cargo bench -p litmus-engine --bench engines --no-run`.)
"""
import subprocess, sys, resource, os, math, glob
exe = sys.argv[1]; out = sys.argv[2]
timeout = os.environ.get("T", "5")
files = sys.argv[3:]
rows = []
def run(engine, model, first, src):
    r0 = resource.getrusage(resource.RUSAGE_CHILDREN)
    p = subprocess.run([exe, "--child", engine, model, "8", timeout, first], input=src, capture_output=True, text=True)
    r1 = resource.getrusage(resource.RUSAGE_CHILDREN)
    cpu = (r1.ru_utime - r0.ru_utime + r1.ru_stime - r0.ru_stime) * 1000
    f = p.stdout.split()
    if len(f) < 10: return None
    if len(f) >= 13: cpu -= int(f[10]) / 1000  # the child's CPU before its check (start-up, parsing)
    ex, bl, st, vi, comp, stop, ms, rss, polls, eng = f[:10]
    done = comp == "1" or stop == "1"
    return dict(ex=int(ex), ms=float(ms), cpu=cpu, polls=int(polls), eng=eng, done=done)
with open(out, "w") as o:
    o.write("| row | model | first | exhaustive | DPOR | auto | engine | wall ratio | CPU ratio |\n|---|---|---|---|---|---|---|---:|---:|\n")
    wr, cr = [], []
    for fn in files:
        src = open(fn).read()
        name = os.path.basename(fn)[:-7]
        for model in ["sc", "tso", "pso"]:
            for first in ["0", "1"]:
                rs = {e: run(e, model, first, src) for e in ["exhaustive", "dpor", "auto"]}
                cell = lambda r: "-" if not r or not r["done"] else f'{r["ex"]} / {r["ms"]:.0f} ms / {r["cpu"]:.0f} cpu'
                singles = [rs[e] for e in ["exhaustive", "dpor"] if rs[e] and rs[e]["done"]]
                a = rs["auto"]
                if singles and a and a["done"]:
                    bw = min(r["ms"] for r in singles); bc = min(r["cpu"] for r in singles)
                    w = (a["ms"] + 1) / (bw + 1); c = (a["cpu"] + 1) / (bc + 1)
                    wr.append(w); cr.append(c); ws, cs = f"{w:.2f}", f"{c:.2f}"
                elif singles:
                    ws = cs = "**unfinished**"
                else:
                    ws = cs = "n/a"
                o.write(f'| {name} | {model} | {"yes" if first=="1" else ""} | {cell(rs["exhaustive"])} | {cell(rs["dpor"])} | {cell(a)} | {a["eng"] if a else "?"} | {ws} | {cs} |\n')
                o.flush()
    g = lambda v: math.exp(sum(map(math.log, v)) / len(v)) if v else float("nan")
    o.write(f"\nGeometric mean: wall {g(wr):.3f}, CPU {g(cr):.3f} over {len(wr)} rows; max wall {max(wr):.2f}, max CPU {max(cr):.2f}.\n")
