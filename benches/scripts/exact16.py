#!/usr/bin/env python3
"""`solve best --exact` on every position of a values file such as
data/exact/values16.jsonl, checked against the values there; prints each time and the
median and the longest. With `--prove`, `solve prove` of each position instead (its value
checked the same way), and with `--both`, the two side by side with their ratio.

Without table files, both stand on the small tables of the user's cache (built by the first
call that needs them: run once before timing for a warm cache); `HOYITO_CACHE=off` turns it
off.

    python3 benches/scripts/exact16.py data/exact/values16.jsonl [SOLVE] [--prove|--both]
        [-- EXTRA FLAGS]
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
modes = ["best"]
if "--prove" in args:
    modes = ["prove"]
if "--both" in args:
    modes = ["best", "prove"]
args = [a for a in args if a not in ("--prove", "--both")]
values = args[0]
solve = args[1] if len(args) > 1 else "target/release/solve"


def run(mode, d):
    """Seconds and (value, exact) of one command on the position of `d` (for South's side
    to move as the file gives it)."""
    cmd = [solve, "--json"]
    if d["rules"] == "hoyito3":
        cmd += ["--variant", "hoyito3"]
    for key in ("last_four", "capture_side"):
        if key in d:
            cmd += ["--" + key.replace("_", "-"), str(d[key])]
    if mode == "best":
        cmd += ["best", d["position"], "--exact", *extra]
    else:
        cmd += ["prove", d["position"], *extra]
    start = time.time()
    out = subprocess.run(cmd, capture_output=True, text=True)
    seconds = time.time() - start
    if out.returncode:
        print("failed:", " ".join(cmd), out.stderr.strip())
        return None
    r = json.loads(out.stdout)
    if mode == "best":
        return seconds, r["score"], r["exact"]
    return seconds, r.get("value"), r.get("complete", r.get("value") is not None)


times = {m: [] for m in modes}
ratios = []
for line in open(values):
    d = json.loads(line)
    row = []
    for mode in modes:
        got = run(mode, d)
        if got is None:
            break
        seconds, value, exact = got
        right = exact and value == d["value"]
        times[mode].append(seconds)
        row.append(f"{mode} {seconds:7.3f} s {'right' if right else 'WRONG'} {value}")
    else:
        if len(modes) == 2:
            ratios.append(times["prove"][-1] / max(times["best"][-1], 1e-9))
        print("  ".join(row), d["rules"], d["position"], flush=True)
for mode in modes:
    t = sorted(times[mode])
    if t:
        print(f"{mode}: median {t[len(t) // 2]:.3f} s, longest {t[-1]:.3f} s, {len(t)} positions")
if ratios:
    ratios.sort()
    print(f"prove / best: median {ratios[len(ratios) // 2]:.2f}, largest {ratios[-1]:.2f}")
