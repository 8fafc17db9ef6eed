#!/usr/bin/env python3
"""`solve best --exact` (no table files: the tables up to 12 seeds are built in memory) on
every position of a values file such as data/exact/values16.jsonl, checked against the
values there; prints each time and the median and the longest.

    python3 benches/scripts/exact16.py data/exact/values16.jsonl [SOLVE] [-- EXTRA FLAGS]
"""
import json
import subprocess
import sys
import time

args = sys.argv[1:]
extra = []
if "--" in args:
    extra = args[args.index("--") + 1:]
    args = args[:args.index("--")]
values = args[0]
solve = args[1] if len(args) > 1 else "target/release/solve"

times = []
for line in open(values):
    d = json.loads(line)
    cmd = [solve, "--json"]
    if d["rules"] == "hoyito3":
        cmd += ["--variant", "hoyito3"]
    for key in ("last_four", "capture_side"):
        if key in d:
            cmd += ["--" + key.replace("_", "-"), str(d[key])]
    cmd += ["best", d["position"], "--exact", *extra]
    start = time.time()
    out = subprocess.run(cmd, capture_output=True, text=True)
    seconds = time.time() - start
    if out.returncode:
        print("failed:", " ".join(cmd), out.stderr.strip())
        continue
    r = json.loads(out.stdout)
    right = r["exact"] and r["score"] == d["value"]
    times.append(seconds)
    print(f"{seconds:7.3f} s {'right' if right else 'WRONG'} {r['score']:4} "
          f"(tables built in {r.get('tables_built_ms')} ms, {r['nodes']} nodes) "
          f"{d['rules']} {d['position']}", flush=True)
times.sort()
print(f"median {times[len(times) // 2]:.3f} s, longest {times[-1]:.3f} s, {len(times)} positions")
