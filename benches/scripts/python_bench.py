#!/usr/bin/env python3
"""The Python package's figures (docs/python.md): moves played from Python a second
(`position.play` in a loop, with and without `moves()` before each), moves a second in
`random_playouts` (Rust, all cores), and `best` from Python against the `solve` command on
the same search (one thread, a fixed depth, no book and no tables: the same nodes), both
built in the same cargo profile.

    python benches/scripts/python_bench.py [SOLVE]     # from the repository root, in the
                                                       # environment where hoyito is installed

SOLVE is the `solve` binary built in the profile the package was built in (default
target/python/solve: `cargo build --profile python --bin solve`). MancalaGames (pure Python,
about 49 us a move as the project's issue cites it) is not on PyPI: with MANCALAGAMES set to
a checkout of it (its `src/` and `GameProps/`), its Hoyito II is measured in the same run,
random games through its `Mancala.move` with its game log off.
"""

import json
import os
import random
import statistics
import subprocess
import sys
import time

import hoyito

TARGET = os.environ.get("CARGO_TARGET_DIR", "target")
SOLVE = sys.argv[1] if len(sys.argv) > 1 else os.path.join(TARGET, "python", "solve")


def random_games(count, seed):
    """Random games played with Position.play, each move chosen among moves()."""
    rng = random.Random(seed)
    games = []
    for _ in range(count):
        p = hoyito.Position.start()
        line = []
        while not p.is_over() and len(line) < 400:
            m = rng.choice(p.moves())
            line.append(m)
            p = p.play(m)
        games.append(line)
    return games


def play_only(games, rounds):
    """Seconds and moves of replaying the games with Position.play alone."""
    start = hoyito.Position.start()
    moves = 0
    t0 = time.perf_counter()
    for _ in range(rounds):
        for line in games:
            p = start
            for m in line:
                p = p.play(m)
            moves += len(line)
    return time.perf_counter() - t0, moves


def moves_and_play(games_count, seed):
    """Seconds and moves of random games: moves(), a choice, play(), is_over() each move."""
    rng = random.Random(seed)
    moves = 0
    t0 = time.perf_counter()
    for _ in range(games_count):
        p = hoyito.Position.start()
        while not p.is_over():
            p = p.play(rng.choice(p.moves()))
            moves += 1
    return time.perf_counter() - t0, moves


def mancalagames(folder, seconds=5.0, seed=1):
    """Microseconds a move of MancalaGames' Hoyito II (random games, the log off), or None."""
    sys.path.insert(0, os.path.join(folder, "src"))
    try:
        import man_config  # type: ignore
        from game_logger import game_log  # type: ignore
    except ImportError:
        return None
    game_log.active = False
    game, _ = man_config.make_game(os.path.join(folder, "GameProps", "Hoyito_II.txt"))
    rng = random.Random(seed)
    moves = 0
    t0 = time.perf_counter()
    while time.perf_counter() - t0 < seconds:
        game.new_game()
        for _ in range(2000):
            game.test_pass()
            legal = [i for i, a in enumerate(game.get_allowable_holes()) if a]
            if not legal:
                break
            cond = game.move(rng.choice(legal))
            moves += 1
            if cond is not None and cond.is_ended():
                break
    return (time.perf_counter() - t0) / moves * 1e6


def best_times(position, depth, runs):
    """Median seconds of best() from Python and of `solve best` (the whole process), on the
    same search, with their node counts."""
    p = hoyito.Position.parse(position)
    py, cli, py_search, cli_search = [], [], [], []
    py_nodes = cli_nodes = None
    for _ in range(runs):
        t0 = time.perf_counter()
        a = hoyito.best(p, depth=depth, threads=1, book=False, no_tables=True)
        py.append(time.perf_counter() - t0)
        py_search.append(a.seconds)
        py_nodes = a.nodes
        t0 = time.perf_counter()
        out = subprocess.run(
            [SOLVE, "--json", "best", position, "--depth", str(depth), "--threads", "1",
             "--no-book", "--no-tables"],
            check=True, capture_output=True, text=True,
        )
        cli.append(time.perf_counter() - t0)
        report = json.loads(out.stdout)
        cli_search.append(report["seconds"])
        cli_nodes = report["nodes"]
    med = statistics.median
    return med(py), med(cli), med(py_search), med(cli_search), py_nodes, cli_nodes


def main():
    print(f"hoyito {hoyito.__version__}, Python {sys.version.split()[0]}, {os.cpu_count()} cores, "
          f"load average {os.getloadavg()[0]:.1f}")
    games = random_games(200, 1)
    seconds, moves = play_only(games, 5)
    print(f"position.play alone:          {moves / seconds / 1e6:6.2f} M moves/s "
          f"({seconds / moves * 1e6:.2f} us a move, {moves} moves)")
    seconds, moves = moves_and_play(1000, 2)
    print(f"moves() + choice + play():    {moves / seconds / 1e6:6.2f} M moves/s "
          f"({seconds / moves * 1e6:.2f} us a move, {moves} moves)")
    hoyito.random_playouts(1000, 0)  # warm the threads
    batch = hoyito.random_playouts(100_000, 3)
    print(f"random_playouts (Rust):       {batch.moves / batch.seconds / 1e6:6.2f} M moves/s "
          f"({batch.seconds / batch.moves * 1e9:.0f} ns a move, {len(batch)} games, "
          f"{batch.moves} moves, {batch.seconds:.2f} s)")
    folder = os.environ.get("MANCALAGAMES")
    us = mancalagames(folder) if folder else None
    if us is None:
        print("MancalaGames (pure Python):    49 us a move (cited; set MANCALAGAMES to measure)")
    else:
        print(f"MancalaGames (pure Python):    {us:.1f} us a move (its Hoyito II, random games, "
              f"measured in this run; the issue cites 49 us)")
    if not os.path.exists(SOLVE):
        print(f"no {SOLVE}: build it with `cargo build --profile python --bin solve`")
        return
    for position, depth in [("4,4,4,4,4,4/4,4,4,4,4,4 S 0-0", 21),
                            ("2,7,1,6,1,6/6,6,0,1,6,6 N 0-0", 21)]:
        py, cli, py_search, cli_search, py_nodes, cli_nodes = best_times(position, depth, 5)
        same = "same nodes" if py_nodes == cli_nodes else f"NODES DIFFER {py_nodes} {cli_nodes}"
        print(f"best {position} depth {depth}, 1 thread, median of 5 ({same}, {py_nodes} nodes):")
        print(f"    the call: Python {py:.3f} s, CLI {cli:.3f} s (its process included): "
              f"{100 * (py / cli - 1):+.1f}%")
        print(f"    the analysis as it reports itself: Python {py_search:.3f} s, "
              f"CLI {cli_search:.3f} s: {100 * (py_search / cli_search - 1):+.1f}%")


if __name__ == "__main__":
    main()
