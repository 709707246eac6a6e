#!/usr/bin/env python3
"""What each engine reports when stopped at 1, 3 and 10 s, against its complete answer.

Issue 52's table (docs/bench-limits.md, "Stopped checks"): for the programs of
engine/tests/stopped.rs (lost-update counters, an early failed assertion, the slow counter of the
editor's browser test) and every file of examples/ under SC, TSO and PSO, each engine (auto,
exhaustive, mcr, dpor) is run once to the end (at most --cap seconds) and then with --timeout
1, 3 and 10. A stopped run is compared with the complete one: the violations it keeps (by kind
and position) and its condition verdict, which must be the complete one's or "not decided".

    python3 scripts/bench-stopped.py [--bin target/release/litmus] [--cap 60]

A run that the complete check finishes in less than the timeout is the complete run (the
reports of complete checks are deterministic), so it is not run again.
"""

import argparse
import json
import os
import subprocess
import sys
import tempfile
import time

ENGINES = ["auto", "exhaustive", "mcr", "dpor"]
TIMEOUTS = [1, 3, 10]


def counter(n, k):
    threads = "".join(
        f"thread P{t} {{ r0 = 0; while (r0 < {k}) {{ r1 = x; x = r1 + 1; r0 = r0 + 1; }} }}\n"
        for t in range(n)
    )
    return f"litmus Counter{n}x{k}\nshared x = 0;\n{threads}forall (x == {n * k})\n"


def early_assert(busy):
    others = "".join(f"thread B{t} {{ y{t} = 1; y{t} = 2; r0 = x; }}\n" for t in range(busy))
    decl = "".join(f", y{t} = 0" for t in range(busy))
    return (
        f"litmus Early\nshared x = 0{decl};\nthread P0 {{ r0 = x; assert(r0 == 0); }}\n"
        f"thread P1 {{ x = 1; }}\n{others}exists (x == 1)\n"
    )


def run(binary, path, engine, model, timeout):
    args = [binary, "check", "--json", "--engine", engine, "--model", model, "--timeout", str(timeout), path]
    t = time.monotonic()
    out = subprocess.run(args, capture_output=True, text=True)
    took = time.monotonic() - t
    try:
        doc = json.loads(out.stdout)
    except json.JSONDecodeError:
        return None, took
    f = doc["files"][0]
    return f["results"].get(model), took


def summary(r):
    """(violations as a set of (kind, line, col), condition word, complete)."""
    vs = {(v["kind"], v["line"], v["col"]) for v in r["violations"]}
    c = r["condition"]
    if c is None:
        word = "-"
    elif c.get("decided", True) is False:
        word = "not decided"
    else:
        word = "holds" if c["holds"] else "does not hold"
    return vs, word, r["complete"]


def describe(stopped, full):
    vs, word, complete = summary(stopped)
    fvs, fword, fcomplete = summary(full)
    if complete:
        return "complete"
    kept = f"{len(vs & fvs)}/{len(fvs)} violations" if fvs else "no violation"
    extra = vs - fvs
    bad = ""
    if extra:
        bad = f" **{len(extra)} not in the complete report**"
    if word != "-" and word != "not decided" and word != fword:
        bad += f" **condition {word}, complete says {fword}**"
    cond = "" if word == "-" else f", {word}"
    return f"{kept}{cond}{bad}"


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--bin", default="target/release/litmus")
    ap.add_argument("--cap", type=float, default=60)
    a = ap.parse_args()
    tmp = tempfile.mkdtemp(prefix="litmus-stopped-")
    programs = []
    for name, text in [
        ("counter 3x2", counter(3, 2)),
        ("counter 2x3", counter(2, 3)),
        ("early assert, 3 busy", early_assert(3)),
        ("slow counter 4x3", counter(4, 3)),
    ]:
        p = os.path.join(tmp, name.replace(" ", "_").replace(",", "") + ".litmus")
        with open(p, "w") as fh:
            fh.write(text)
        programs.append((name, p))
    ex = sorted(f for f in os.listdir("examples") if f.endswith(".litmus"))
    programs += [(f"examples/{f}", os.path.join("examples", f)) for f in ex]
    print("| program | model | engine | complete answer (time) | 1 s | 3 s | 10 s |")
    print("|---|---|---|---|---|---|---|")
    for name, path in programs:
        for model in ["sc", "tso", "pso"]:
            for engine in ENGINES:
                full, took = run(a.bin, path, engine, model, a.cap)
                if full is None:
                    print(f"| {name} | {model} | {engine} | (not checked) | | | |")
                    continue
                fvs, fword, fcomplete = summary(full)
                head = f"{len(fvs)} violations" if fvs else "no violation"
                if fword != "-":
                    head += f", {fword}"
                head += f" ({took:.1f} s)" if fcomplete else f" (incomplete at {a.cap:.0f} s)"
                cells = []
                for t in TIMEOUTS:
                    if fcomplete and took < t:
                        cells.append("= complete")
                        continue
                    r, _ = run(a.bin, path, engine, model, t)
                    cells.append("(no report)" if r is None else describe(r, full))
                print(f"| {name} | {model} | {engine} | {head} | " + " | ".join(cells) + " |")
                sys.stdout.flush()


if __name__ == "__main__":
    main()
