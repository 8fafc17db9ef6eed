#!/usr/bin/env python3
"""The start from nothing: `solve prove` of each start (Hoyito II and III) with a certificate,
then `solve check-proof` of it, over the small tables cache, from an empty cache and then
from a warm one; and the curve of the tables the proof stands on (up to 12, 16, 20, 24
seeds) against the build time, the proof time and the positions explored, with the proofs
on one thread and on two.

    python3 benches/scripts/start_curve.py SOLVE [--tables DIR] [--max 24] [--build-max 20]
        [--runs 3] [--cap SECONDS] [--json]

The layers up to `--build-max` seeds (default 20) are built here, one after the other, and
timed (the curve gives the cumulative time); those above it are linked from DIR, tables
built before (`solve tables build --dir DIR`, both variants), with the build time their
headers record. A proof not done within `--cap` seconds (default 300) is reported with
its bounds. Times are wall-clock seconds of whole processes; give the machine to the script
alone.
"""
import argparse
import json
import os
import statistics
import subprocess
import sys
import tempfile
import time

VARIANTS = ["hoyito2", "hoyito3"]


def run(cmd, env=None):
    start = time.time()
    out = subprocess.run(cmd, capture_output=True, text=True, env=env)
    seconds = time.time() - start
    if out.returncode:
        sys.exit(f"failed ({out.returncode}): {' '.join(cmd)}\n{out.stderr.strip()}")
    return seconds, out.stdout


def prove(solve, variant, extra, cert, env=None, threads=None):
    cmd = [solve, "--json", "--variant", variant, "prove", "--certificate", cert] + extra
    if threads:
        cmd += ["--threads", str(threads)]
    seconds, out = run(cmd, env)
    r = json.loads(out)
    return seconds, r


def check(solve, cert, extra, env=None):
    seconds, out = run([solve, "--json", "check-proof", cert] + extra, env)
    r = json.loads(out)
    if not r.get("accepted"):
        sys.exit(f"rejected: {cert}")
    return seconds, r


def from_nothing(solve, runs, work):
    """An empty cache, then a warm one: prove and check each start."""
    rows = []
    for variant in VARIANTS:
        cache = os.path.join(work, f"cache-{variant}")
        env = dict(os.environ, HOYITO_CACHE=cache)
        cert = os.path.join(work, f"{variant}.cert")
        cold, r = prove(solve, variant, [], cert, env)
        checked_cold, c = check(solve, cert, [], env)
        warm, checks = [], []
        for _ in range(runs):
            s, w = prove(solve, variant, [], cert, env)
            warm.append(s)
            checks.append(check(solve, cert, [], env)[0])
        rows.append({
            "variant": variant,
            "value": r["value"],
            "cold_prove_s": round(cold, 2),
            "cold_check_s": round(checked_cold, 2),
            "warm_prove_s": [round(s, 2) for s in warm],
            "warm_prove_median_s": round(statistics.median(warm), 2),
            "warm_check_median_s": round(statistics.median(checks), 2),
            "explored": w["explored"],
            "tables_max_seeds": w["tables_max_seeds"],
            "certificate_entries": w["certificate"]["entries"],
        })
        print(json.dumps(rows[-1]), flush=True)
    return rows


def curve(solve, tables, top, build_max, cap, work):
    """The layers up to 12, 16 ... `top` seeds, built here (cumulative build time) up to
    `build_max`, linked from `tables` above it (build time from the layer's header); the
    start proven over each, on one thread and on two."""
    rows = []
    for variant in VARIANTS:
        sub = f"2x6-{variant}-capturer-any"
        base = os.path.join(work, f"tables-{variant}")
        os.makedirs(os.path.join(base, sub), exist_ok=True)
        built = 0.0
        for n in range(12, top + 1, 4):
            if n <= build_max:
                s, _ = run([solve, "--variant", variant, "tables", "--dir", base, "build",
                            "--max-seeds", str(n), "--quiet"])
                built += s
                how = "built here"
            else:
                if not tables:
                    sys.exit(f"--tables DIR is needed for the layer of {n} seeds")
                src = os.path.abspath(os.path.join(tables, sub, f"layer-{n:02}.hyt"))
                os.symlink(src, os.path.join(base, sub, f"layer-{n:02}.hyt"))
                _, info = run([solve, "--json", "--variant", variant, "tables", "--dir",
                               base, "info"])
                layer = [l for l in json.loads(info)["layers"] if l["seeds"] == n][0]
                built += float(layer["build_seconds"])
                how = "header of a layer built before"
            folder = os.path.join(work, f"t{n}-{variant}")
            os.makedirs(os.path.join(folder, sub), exist_ok=True)
            for m in range(8, n + 1, 4):
                src = os.path.abspath(os.path.join(base, sub, f"layer-{m:02}.hyt"))
                os.symlink(os.path.realpath(src), os.path.join(folder, sub, f"layer-{m:02}.hyt"))
            for threads in (1, 2):
                cert = os.path.join(work, f"c{n}-{variant}-{threads}.cert")
                extra = ["--tables", folder, "--time-limit", str(int(cap))]
                s, r = prove(solve, variant, extra, cert, None, threads)
                rows.append({
                    "variant": variant,
                    "tables": n,
                    "build_s": round(built, 1),
                    "build": how,
                    "threads": threads,
                    "prove_s": round(s, 2),
                    "value": r["value"],
                    "bounds": r["bounds"],
                    "explored": r["explored"],
                })
                print(json.dumps(rows[-1]), flush=True)
    return rows


def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("solve")
    ap.add_argument("--tables")
    ap.add_argument("--max", type=int, default=24)
    ap.add_argument("--build-max", type=int, default=20)
    ap.add_argument("--runs", type=int, default=3)
    ap.add_argument("--cap", type=float, default=300.0)
    ap.add_argument("--json", action="store_true")
    a = ap.parse_args()
    with tempfile.TemporaryDirectory() as work:
        result = {
            "from_nothing": from_nothing(a.solve, a.runs, work),
            "curve": curve(a.solve, a.tables, a.max, a.build_max, a.cap, work),
        }
    if a.json:
        print(json.dumps(result))


if __name__ == "__main__":
    main()
