#!/usr/bin/env python3
"""A randomized soak of the engine protocol under load: several `solve engine` processes at
once (more than the cores, so that each is slow to be scheduled), each fed a random stream of
commands: `go` in every mode (depth, nodes, movetime, exact, infinite, none), `stop` at random
moments, position changes (moves played, positions typed, the start), `isready`, rule
options, garbage. Checks that no answer is `bestmove none` while the position has moves, that
every `bestmove` is legal, that no process crashes, and measures the time from `stop` to
`bestmove`.

    python3 benches/scripts/protocol_soak.py [SOLVE] [--engines N] [--commands N] [--seed S]

SOLVE defaults to target/release/solve. Prints the counts, the violations (none expected),
and the stop latencies' median, 99th percentile and worst, in ms.
"""
import argparse
import queue
import random
import statistics
import subprocess
import sys
import threading
import time

POSITIONS = [
    "4,0,1,0,0,1/0,0,0,0,1,1 S",
    "2,3,4,0,4,1/3,3,3,1,1,3 S 12-0",
    "1,0,2,0,1,0/0,0,0,1,0,2 S 20-21",
    "0,0,0,3,0,1/1,1,3,2,0,1 N",
    "6,1,0,5,2,3/0,4,1,2,2,0 N 8-12",
]
GARBAGE = ["", "go depth", "go depth -3", "position pos 1,2,3", "play 99", "setoption name",
           "setoption name Holes value 40", "\x00\xff", "undo", "moves", "board", "xyzzy"]


def made_up(line):
    """An `info` line at depth 0 with a plain score: nothing searched to a depth, and no
    bound proven (`lowerbound`, `upperbound`) or value (`exact`) to give."""
    words = line.split()
    return (line.startswith("info depth 0 score")
            and not {"lowerbound", "upperbound", "exact"} & set(words))


class Engine:
    """One `solve engine` process, its output read line by line on a thread."""

    def __init__(self, solve):
        self.p = subprocess.Popen([solve, "engine"], stdin=subprocess.PIPE,
                                  stdout=subprocess.PIPE, stderr=subprocess.DEVNULL,
                                  text=True, bufsize=1, errors="replace")
        self.lines = queue.Queue()
        threading.Thread(target=self._read, daemon=True).start()

    def _read(self):
        for line in self.p.stdout:
            self.lines.put((time.monotonic(), line.rstrip("\n")))
        self.lines.put((time.monotonic(), None))

    def send(self, line):
        self.p.stdin.write(line + "\n")
        self.p.stdin.flush()

    def until(self, pred, timeout=120.0):
        """Lines up to the first for which `pred` holds; (its time, the lines)."""
        out, end = [], time.monotonic() + timeout
        while True:
            t, line = self.lines.get(timeout=max(0.0, end - time.monotonic()))
            if line is None:
                raise RuntimeError(f"the engine ended: {out[-5:]}")
            out.append(line)
            if pred(line):
                return t, out

    def legal(self):
        """The legal moves of the engine's position: the last `moves` line before the
        `readyok` that follows (a `moves` among the garbage may have left an older one)."""
        self.send("moves")
        self.send("isready")
        _, lines = self.until(lambda l: l == "readyok")
        words = [l for l in lines if l.startswith("moves ")][-1].split()[1:]
        return [] if words == ["none"] else words


def soak(solve, commands, seed, results):
    rng = random.Random(seed)
    e = Engine(solve)
    stats = {"go": 0, "stops": 0, "violations": [], "latencies": []}
    try:
        e.send("isready")
        e.until(lambda l: l == "readyok")
        for _ in range(commands):
            r = rng.random()
            if r < 0.3:
                go = rng.choice(["depth 6", "nodes 20000", "movetime 50", "movetime 300",
                                 "exact", "infinite", ""])
                legal = e.legal()
                e.send(f"go {go}".strip())
                stats["go"] += 1
                if go in ("exact", "infinite", "") or rng.random() < 0.5:
                    time.sleep(rng.choice([0.0, 0.005, 0.05, 0.3]))
                    sent = time.monotonic()
                    e.send("stop")
                    stats["stops"] += 1
                    t, lines = e.until(lambda l: l.startswith("bestmove"))
                    stats["latencies"].append((t - sent) * 1000.0)
                else:
                    _, lines = e.until(lambda l: l.startswith("bestmove"))
                answer = lines[-1].split()[1]
                if answer == "none" and legal:
                    stats["violations"].append(f"bestmove none with moves {legal}: {lines[-4:]}")
                elif answer != "none" and answer not in legal:
                    stats["violations"].append(f"illegal {answer} of {legal}: {lines[-4:]}")
                if any(made_up(l) for l in lines):
                    stats["violations"].append(f"a score at depth 0: {lines[-4:]}")
            elif r < 0.55:
                e.send(rng.choice(["position startpos",
                                   f"position pos {rng.choice(POSITIONS)}"]))
                moves = e.legal()
                if moves and rng.random() < 0.7:
                    e.send(f"play {rng.choice(moves)}")
            elif r < 0.7:
                e.send("isready")
                e.until(lambda l: l == "readyok")
            elif r < 0.8:
                e.send(f"setoption name Threads value {rng.choice([1, 2])}")
            else:
                e.send(rng.choice(GARBAGE))
        e.send("quit")
        e.p.wait(timeout=60)
        if e.p.returncode != 0:
            stats["violations"].append(f"exit status {e.p.returncode}")
    except Exception as err:  # a crash or a hang is a violation too
        stats["violations"].append(f"{type(err).__name__}: {err}")
        e.p.kill()
    results.append(stats)


def main():
    a = argparse.ArgumentParser()
    a.add_argument("solve", nargs="?", default="target/release/solve")
    a.add_argument("--engines", type=int, default=6)
    a.add_argument("--commands", type=int, default=300)
    a.add_argument("--seed", type=int, default=1)
    args = a.parse_args()
    results = []
    start = time.time()
    threads = [threading.Thread(target=soak, args=(args.solve, args.commands, args.seed + k,
                                                    results))
               for k in range(args.engines)]
    for t in threads:
        t.start()
    for t in threads:
        t.join()
    lat = sorted(x for r in results for x in r["latencies"])
    violations = [v for r in results for v in r["violations"]]
    print(f"{args.engines} engines, {args.commands} commands each, {time.time() - start:.0f} s: "
          f"{sum(r['go'] for r in results)} go, {sum(r['stops'] for r in results)} stop")
    if lat:
        p99 = lat[min(len(lat) - 1, int(len(lat) * 0.99))]
        print(f"stop to bestmove: median {statistics.median(lat):.1f} ms, "
              f"99th percentile {p99:.1f} ms, worst {lat[-1]:.1f} ms ({len(lat)} stops)")
    print(f"violations: {len(violations)}")
    for v in violations[:20]:
        print("  " + v)
    sys.exit(1 if violations else 0)


if __name__ == "__main__":
    main()
