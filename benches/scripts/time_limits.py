#!/usr/bin/env python3
"""How far past its time limit `solve best --time-ms T` exits: wall time from start to exit,
minus T, on the bench suites, the positions with endless sowings and the slowest sowing
known, in four modes (plain, --all-moves, --exact, --exact --all-moves), T = 200 and 1000.

    python3 benches/scripts/time_limits.py [SOLVE]     # from the repository root

SOLVE defaults to target/release/solve. Prints, per T and mode, the median and the worst
overshoot (negative: the command ended before T)."""
import json
import subprocess
import sys
import time

SOLVE = sys.argv[1] if len(sys.argv) > 1 else "target/release/solve"

cases = []
for suite, holes in [("data/bench/suite6.txt", 6), ("data/bench/suite12.txt", 12)]:
    for line in open(suite):
        line = line.strip()
        if line and not line.startswith("#"):
            cases.append((["--holes", str(holes)], line))
for line in open("data/conformance/endless.jsonl"):
    r = json.loads(line)
    flags = ["--variant", r["rules"], "--holes", str(r.get("holes", 6))]
    for key, flag in [("capture_side", "--capture-side"), ("last_four", "--last-four"),
                      ("seeds", "--seeds")]:
        if key in r:
            flags += [flag, str(r[key])]
    cases.append((flags, r["position"]))
# Move 3 walks 165 million laps before its board repeats (docs/robustness.md).
cases.append((["--variant", "hoyito3", "--seeds", "8", "--last-four", "S", "--capture-side",
               "opponent"], "1,0,1,0,2,1/52,7,21,1,3,4 N"))

for t in [200, 1000]:
    for mode in [[], ["--all-moves"], ["--exact"], ["--exact", "--all-moves"]]:
        over = []
        for flags, position in cases:
            args = [SOLVE, *flags, "best", position, "--time-ms", str(t), "--json", *mode]
            start = time.time()
            out = subprocess.run(args, capture_output=True, text=True)
            ms = (time.time() - start) * 1000
            if out.returncode != 0:
                print("failed:", " ".join(args), out.stderr.strip(), flush=True)
                continue
            over.append((ms - t, position))
        over.sort()
        print(f"T = {t}, {' '.join(mode) or 'plain'}: {len(over)} runs, median "
              f"{over[len(over) // 2][0]:+.0f} ms, worst {over[-1][0]:+.0f} ms ({over[-1][1]})",
              flush=True)
