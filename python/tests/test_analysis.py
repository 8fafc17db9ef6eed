"""Values through Python: the solved values of data/conformance/values.jsonl, the same
answers as the `solve` command, proofs with certificates the checker accepts, tables, and
Ctrl-C during a long search."""

import json
import os
import signal
import subprocess
import threading
from collections import defaultdict

import pytest

import hoyito
from conftest import DATA, rules_of, vectors


@pytest.fixture(scope="module")
def tables_dir(tmp_path_factory):
    """Endgame tables up to 12 seeds of every rule set of values.jsonl, built from Python."""
    return tmp_path_factory.mktemp("tables")


def _tables_for(cache, folder, rules):
    if rules not in cache:
        cache[rules] = hoyito.Tables.build(folder, 12, rules)
    return cache[rules]


def test_values_vectors(tables_dir):
    by_rules = defaultdict(list)
    for v in vectors("values.jsonl"):
        by_rules[rules_of(v)].append(v)
    cache = {}
    checked = 0
    for rules, cases in by_rules.items():
        tables = _tables_for(cache, tables_dir, rules)
        assert tables.max_seeds == 12
        for v in cases:
            p = hoyito.Position.parse(v["position"], rules)
            assert tables.probe(p) == v["value"], v
            assert p in tables
            checked += 1
        # best() over the tables, on a few of each rule set.
        for v in cases[:3]:
            p = hoyito.Position.parse(v["position"], rules)
            a = hoyito.best(p, tables=tables)
            assert (a.value, a.exact) == (v["value"], True), v
            assert a.source == "tables"
            if a.move is not None:
                assert dict(tables.move_values(p))[a.move] == v["value"]
    assert checked == 420


def test_tables_reject_what_they_do_not_hold(tables_dir):
    tables = hoyito.Tables.build(tables_dir, 12)
    start = hoyito.Position.start()
    assert tables.get(start) is None
    assert start not in tables
    with pytest.raises(ValueError, match="tables hold up to 12"):
        tables.probe(start)
    with pytest.raises(ValueError):
        tables.probe(hoyito.Position.start(hoyito.Rules("hoyito3")))
    assert hoyito.Tables(tables_dir).max_seeds == 12
    assert hoyito.Tables(tables_dir, max_seeds=8).max_seeds == 8


def test_best_answers_the_start_from_the_book():
    a = hoyito.best(hoyito.Position.start())
    assert (a.move, a.value, a.exact, a.source) == (1, -28, True, "book")
    assert a.pv == [1]
    assert a.to_dict()["move"] == 1
    h3 = hoyito.best(hoyito.Position.start(hoyito.Rules("hoyito3")))
    assert (h3.move, h3.value) == (4, -36)


def test_best_small_position_is_proven():
    p = hoyito.Position.parse("4,0,1,0,0,1/0,0,0,0,1,1 S")
    a = hoyito.best(p, no_tables=True)
    assert (a.move, a.value, a.exact, a.source) == (1, 8, True, "proof")
    assert a.bounds == (8, 8)
    every = hoyito.best(p, no_tables=True, all_moves=True, exact=True)
    assert max(v for _, v, _ in every.moves) == 8


def _cli_best(solve, position, rules, *flags):
    args = [
        solve,
        "--json",
        "--variant", rules.variant,
        "--holes", str(rules.holes),
        "--last-four", rules.last_four,
        "--capture-side", rules.capture_side,
        "best", str(position), *flags,
    ]
    out = subprocess.run(args, check=True, capture_output=True, text=True, cwd=DATA.parent)
    return json.loads(out.stdout)


def test_values_equal_the_cli(solve):
    cases = [v for v in vectors("values.jsonl") if v["seeds"] == 8][:8]
    for v in cases:
        rules = rules_of(v)
        p = hoyito.Position.parse(v["position"], rules)
        cli = _cli_best(solve, p, rules, "--no-tables")
        a = hoyito.best(p, no_tables=True)
        assert (a.value, a.move, a.exact) == (cli["score"], cli["move"], cli["exact"]), v
        assert a.value == v["value"]
    # A depth-limited search on one thread repeats exactly: the same move, value and pv.
    for text in ["4,4,4,4,4,4/4,4,4,4,4,4 S 0-0", "2,7,1,6,1,6/6,6,0,1,6,6 N 0-0"]:
        p = hoyito.Position.parse(text)
        cli = _cli_best(solve, p, p.rules, "--depth", "7", "--threads", "1", "--no-tables")
        a = hoyito.best(p, depth=7, threads=1, no_tables=True)
        assert (a.value, a.move, a.pv, a.nodes) == (
            cli["score"], cli["move"], cli["pv"], cli["nodes"],
        )
    # The book, from both.
    p = hoyito.Position.start()
    cli = _cli_best(solve, p, p.rules)
    a = hoyito.best(p)
    assert (a.value, a.move, a.source) == (cli["score"], cli["move"], cli["source"])


def test_prove_writes_a_certificate_the_checker_accepts(tmp_path):
    p = hoyito.Position.parse("1,0,2,0,0,1/0,1,0,0,1,1 S")
    cert = tmp_path / "small.cert"
    proof = hoyito.prove(p, certificate=cert, no_tables=True)
    assert proof.complete
    assert proof.value == hoyito.best(p, no_tables=True).value
    assert proof.bounds == (proof.value, proof.value)
    assert proof.to_dict()["certificate"]["entries"] > 0
    report = hoyito.check_proof(cert)
    assert report["accepted"]
    assert report["roots"]
    # A damaged certificate is rejected with the checker's message.
    data = cert.read_bytes()
    damaged = tmp_path / "damaged.cert"
    damaged.write_bytes(data[: len(data) - 3])
    with pytest.raises(ValueError):
        hoyito.check_proof(damaged)


def test_a_proof_over_tables_checks_over_them(tables_dir, tmp_path):
    tables = hoyito.Tables.build(tables_dir, 12)
    p = hoyito.Position.parse("2,0,1,0,3,2/1,2,0,1,3,1 S")
    cert = tmp_path / "over-tables.cert"
    proof = hoyito.prove(p, tables=tables, certificate=cert)
    assert proof.complete
    assert proof.value == hoyito.best(p, exact=True, tables=tables).value
    report = hoyito.check_proof(cert, tables_dir)
    assert report["accepted"] and report["tables_max_seeds"] == 12


def test_ctrl_c_interrupts_a_long_search():
    # SIGINT a second into an exact search of the 2x6 start without the book or tables (far
    # longer than its time limit) raises KeyboardInterrupt. Python started with SIGINT
    # ignored (a background job of a non-interactive shell, as CI may run the tests) keeps
    # ignoring it: the signal would be lost and the search run on, so the test installs
    # Python's handler itself. The time limit bounds the search were the interrupt lost
    # anyway: the test then fails, as `best` returns without KeyboardInterrupt, rather than
    # waiting for the proof.
    previous = signal.signal(signal.SIGINT, signal.default_int_handler)
    timer = threading.Timer(1.0, os.kill, (os.getpid(), signal.SIGINT))
    timer.start()
    try:
        with pytest.raises(KeyboardInterrupt):
            hoyito.best(
                hoyito.Position.start(),
                exact=True,
                book=False,
                no_tables=True,
                threads=1,
                time_ms=120_000,
            )
    finally:
        timer.cancel()
        timer.join()
        signal.signal(signal.SIGINT, previous)


def test_every_move_is_valued_under_a_time_limit():
    # A search stopped by its own time limit leaves the moves' searches their share (the
    # stop flag of the call is not raised by a limit).
    p = hoyito.Position.parse("6,6,2,7,1,6/1,6,6,6,0,1 N 0-0")
    for exact in (False, True):
        a = hoyito.best(p, time_ms=600, all_moves=True, exact=exact, threads=1)
        assert [m for m, _, _ in a.moves] == p.moves(), a
