#!/usr/bin/env python3
"""`solve best --exact` on the positions of real games (data/exact/real-games.jsonl, made by
`cargo run --release -p hoyito --example real_games`), each under a time cap: the share
proven within 1 s, 10 s and the cap, the median time of the proven ones, and the seeds on
the board of those left unproven.

    python3 benches/scripts/real_games.py SUITE SOLVE TABLES_DIR [CAP_SECONDS] [LIMIT]
"""
import json
import statistics
import subprocess
import sys
import time

suite, solve, tables = sys.argv[1:4]
cap = float(sys.argv[4]) if len(sys.argv) > 4 else 60.0
limit = int(sys.argv[5]) if len(sys.argv) > 5 else None

rows = [json.loads(line) for line in open(suite)][:limit]
proven = []
unproven = []
for d in rows:
    cmd = [solve, "--json", "--variant", d["rules"], "best", d["position"], "--exact",
           "--tables", tables, "--time-ms", str(int(cap * 1000))]
    start = time.time()
    out = subprocess.run(cmd, capture_output=True, text=True)
    seconds = time.time() - start
    if out.returncode:
        print("failed:", " ".join(cmd), out.stderr.strip(), flush=True)
        unproven.append(d)
        continue
    r = json.loads(out.stdout)
    (proven if r["exact"] else unproven).append({**d, "seconds": seconds})
    print(f"{seconds:7.2f} s {'proven ' if r['exact'] else 'open   '} {r['score']:4} "
          f"[{r['bounds'][0]}, {r['bounds'][1]}] {d['seeds_on_board']:2} seeds, ply "
          f"{d['ply']:2} {d['rules']} {d['position']}", flush=True)

n = len(rows)
times = sorted(p["seconds"] for p in proven)
for within in (1.0, 10.0, cap):
    k = sum(1 for t in times if t <= within)
    print(f"proven within {within:g} s: {k}/{n} ({100.0 * k / n:.1f}%)")
if times:
    print(f"median of the proven: {statistics.median(times):.2f} s")
all_times = sorted([p["seconds"] for p in proven] + [cap] * len(unproven))
print(f"median of all (unproven counted at the cap): {statistics.median(all_times):.2f} s")
if unproven:
    seeds = sorted(d["seeds_on_board"] for d in unproven)
    plies = sorted(d["ply"] for d in unproven)
    print(f"unproven: {len(unproven)}, seeds on the board {seeds[0]}..{seeds[-1]} "
          f"(median {statistics.median(seeds)}), plies {plies[0]}..{plies[-1]}")
