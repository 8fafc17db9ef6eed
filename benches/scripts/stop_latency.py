#!/usr/bin/env python3
"""How long `solve engine` takes to answer `stop` with `bestmove` during `go exact`: on three
positions (two of 16 seeds with long capture-free fights, and the 2x6 start), stopped after
0.5, 1.5 and 3 s of search.

    python3 benches/scripts/stop_latency.py [SOLVE]     # from the repository root
"""
import subprocess
import sys
import time

SOLVE = sys.argv[1] if len(sys.argv) > 1 else "target/release/solve"


def latency(position, wait):
    p = subprocess.Popen([SOLVE, "engine"], stdin=subprocess.PIPE, stdout=subprocess.PIPE,
                         text=True, bufsize=1)

    def send(line):
        p.stdin.write(line + "\n")
        p.stdin.flush()

    send("isready")
    while not p.stdout.readline().startswith("readyok"):
        pass
    send(f"position pos {position}")
    send("go exact")
    time.sleep(wait)
    start = time.time()
    send("stop")
    while True:
        line = p.stdout.readline()
        if not line or line.startswith("bestmove"):
            break
    ms = (time.time() - start) * 1000
    send("quit")
    p.wait()
    return ms


all_ms = []
for position in ["0,2,1,2,1,0/0,4,3,1,1,1 S", "2,2,2,1,1,2/2,1,2,0,0,1 N",
                 "4,4,4,4,4,4/4,4,4,4,4,4 S"]:
    for wait in [0.5, 1.5, 3.0]:
        ms = latency(position, wait)
        all_ms.append(ms)
        print(f"{position}, stop after {wait} s: bestmove in {ms:.1f} ms", flush=True)
all_ms.sort()
print(f"median {all_ms[len(all_ms) // 2]:.1f} ms, worst {all_ms[-1]:.1f} ms")
