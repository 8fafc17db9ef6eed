#!/usr/bin/env python3
"""Re-checks every published result from nothing: builds the endgame tables, verifies them
with the independent checker, checks every certificate over them, and compares each proven
value with the value the results publish.

    python3 benches/scripts/recheck.py [--solve target/release/solve] [--work DIR]
        [--max-seeds 24 | --max-seeds hoyito2=28,hoyito3=24] [--json OUT] [--markdown OUT]

What it does, for Hoyito II then Hoyito III (2x6, default options):

1. `solve tables build --max-seeds N --dir WORK/tables` (resumable: layers already built
   are kept, so a stopped run goes on);
2. `solve check-tables WORK/tables --max-seeds N --state WORK/check-state`: the checker's
   own verification of every layer (resumable through its state folder);
3. for every result of `data/exact/starts.jsonl`, `data/proofs/first-moves.jsonl`,
   `data/proofs/seed-counts.jsonl`, `data/proofs/bounds/bounds.jsonl` and
   `data/book/book.jsonl`: the certificate's SHA-256 against the one published,
   `solve check-proof CERT --tables WORK/tables`, and the value (or bound) the certificate
   proves against the published one. A certificate on tables larger than N is listed as
   not checked, naming the tables it needs.

It prints one line a result and the time of each step, and exits non-zero when anything is
rejected or differs. Layers up to 24 seeds of both variants take about half an hour to
build and verify on a 2-core machine; the 28-seed layers need about 2 GB of memory, 20 GB
of scratch disk and hours; the 32-seed layers 8 GB and 40 GB.
"""

import argparse
import hashlib
import json
import os
import subprocess
import sys
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]
SOURCES = [
    "data/exact/starts.jsonl",
    "data/proofs/first-moves.jsonl",
    "data/proofs/seed-counts.jsonl",
    "data/proofs/bounds/bounds.jsonl",
    "data/book/book.jsonl",
]
VARIANTS = ["hoyito2", "hoyito3"]


def run(cmd, log):
    """Runs `cmd`, returns (ok, stdout, seconds); stderr goes to the log file."""
    started = time.monotonic()
    with open(log, "a") as err:
        err.write("$ " + " ".join(cmd) + "\n")
        err.flush()
        p = subprocess.run(cmd, stdout=subprocess.PIPE, stderr=err, text=True)
    return p.returncode == 0, p.stdout, time.monotonic() - started


def variant_of(record):
    rules = record.get("rules", "")
    return "hoyito3" if "hoyito3" in rules else "hoyito2"


def header(cert):
    """The certificate's variant and tables (None: it needs none)."""
    variant, tables = None, None
    with open(cert, "rb") as f:
        for raw in f:
            line = raw.decode("utf-8", "replace").strip()
            if line.startswith("rules "):
                variant = "hoyito3" if "variant=hoyito3" in line else "hoyito2"
            elif line.startswith("tables max_seeds="):
                tables = int(line.split("=", 1)[1])
            elif line.startswith("root ") or line.startswith("entries"):
                break
    return variant, tables


def board_side(position):
    """'b/b S 4-0' -> ('b/b S', south - north captured so far)."""
    words = position.split()
    score = 0
    if len(words) > 2 and "-" in words[2]:
        s, n = words[2].split("-", 1)
        score = int(s) - int(n)
    return " ".join(words[:2]), score


def published(record, source):
    """What a record publishes: (label, position, claim) where claim is ('value', v) or
    ('bound', 'ge 60'); position None when the record names none."""
    v = variant_of(record)
    if source.endswith("book.jsonl"):
        line = " ".join(str(m) for m in record.get("line", []))
        label = f"{v} book, after {line}" if line else f"{v} book, the start"
        # The book gives the value for the side to move; the certificates South's.
        value = record["value"]
        if value is not None and record["board"].split()[1] == "N":
            value = -value
        return label, record["board"], ("value", value)
    if source.endswith("first-moves.jsonl"):
        return (
            f"{v} first move {record['move']}",
            record.get("position_after"),
            ("value", record["value"]),
        )
    if source.endswith("bounds.jsonl"):
        n = record["seeds"]
        start = ",".join([str(n)] * 6) + "/" + ",".join([str(n)] * 6) + " S"
        return f"{v} {n} a hole, {record['claim']}", start, ("bound", record["claim"])
    n = record["seeds"]
    start = ",".join([str(n)] * 6) + "/" + ",".join([str(n)] * 6) + " S"
    kind = "start" if source.endswith("starts.jsonl") else f"{n} a hole"
    return f"{v} {kind}", start, ("value", record.get("value"))


def proven_matches(report, position, claim):
    """How the checked certificate proves the published claim for `position`: "value"
    (both bounds as roots), "bound" (one bound as a root, and the start the certificate
    also proves has the same value: the best first move, which captures nothing), or None."""
    board, score = board_side(position)
    if claim[0] == "bound":
        ok = any(r["position"] == board and r["claim"] == claim[1] for r in report["roots"])
        return "value" if ok else None
    want = claim[1] - score
    values = {p: v for p, v in report.get("values", [])}
    if values.get(board) == want:
        return "value"
    one = [r for r in report["roots"] if r["position"] == board]
    starts = [v for p, v in values.items() if len(set(p.split()[0].replace("/", ",").split(","))) == 1]
    if len(one) == 1 and one[0]["claim"].split()[1] == str(want) and want in starts:
        return "bound"
    return None


def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--solve", default=str(ROOT / "target/release/solve"))
    ap.add_argument("--work", default=str(ROOT / "target/recheck"))
    ap.add_argument(
        "--max-seeds",
        default="24",
        help="the largest layer: N for both variants, or hoyito2=N,hoyito3=M",
    )
    ap.add_argument("--tables", help="the tables folder [default: WORK/tables]")
    ap.add_argument("--json", help="write the whole report here")
    ap.add_argument("--markdown", help="write the table of results here")
    ap.add_argument(
        "--no-build",
        action="store_true",
        help="use the tables in WORK/tables as they are (still verified)",
    )
    a = ap.parse_args()
    solve = a.solve
    work = Path(a.work)
    tables = Path(a.tables) if a.tables else work / "tables"
    work.mkdir(parents=True, exist_ok=True)
    log = work / "recheck.log"
    started = time.monotonic()
    if "=" in a.max_seeds:
        tops = {k: int(v) for k, v in (w.split("=") for w in a.max_seeds.split(","))}
    else:
        tops = {v: int(a.max_seeds) for v in VARIANTS}
    report = {"max_seeds": tops, "steps": [], "layers": [], "results": []}
    failed = False

    for v in VARIANTS:
        flags = ["--variant", v]
        top = tops.get(v, 0)
        if top < 8:
            continue
        if not a.no_build:
            ok, _, secs = run(
                [solve, *flags, "tables", "build", "--max-seeds", str(top),
                 "--dir", str(tables)],
                log,
            )
            print(f"{v}: tables built up to {top} seeds: {secs:.1f} s", flush=True)
            report["steps"].append({"variant": v, "step": "build", "seconds": secs, "ok": ok})
            if not ok:
                sys.exit(f"the build failed: see {log}")
        ok, out, secs = run(
            [solve, *flags, "check-tables", str(tables), "--max-seeds", str(top),
             "--state", str(work / "check-state"), "--json"],
            log,
        )
        report["steps"].append({"variant": v, "step": "check-tables", "seconds": secs, "ok": ok})
        if not ok:
            print(f"{v}: the tables are NOT verified: see {log}", flush=True)
            failed = True
            continue
        for layer in json.loads(out)["layers"]:
            layer["variant"] = v
            report["layers"].append(layer)
        print(f"{v}: tables verified by the checker: {secs:.1f} s", flush=True)

    verified = {(l["variant"], l["seeds"]) for l in report["layers"]}
    checked = {}
    for source in SOURCES:
        for raw in open(ROOT / source):
            record = json.loads(raw)
            cert = record.get("certificate")
            if not cert:
                continue
            label, position, claim = published(record, source)
            path = ROOT / cert["file"]
            row = {"result": label, "source": source, "certificate": cert["file"],
                   "claim": claim[1] if claim[0] == "bound" else claim[1]}
            digest = hashlib.sha256(path.read_bytes()).hexdigest()
            row["sha256"] = digest
            if cert.get("sha256") and cert["sha256"] != digest:
                row["status"] = "certificate differs from the one published"
                failed = True
            variant, need = header(path)
            row["tables_max_seeds"] = need
            chain = [] if need is None else list(range(need, 4, -4))
            if need is not None and need > tops.get(variant, 0):
                row["status"] = f"not checked: needs the tables up to {need} seeds"
            elif need is not None and not all((variant, n) in verified for n in chain):
                row["status"] = "not checked: its tables are not verified"
                failed = True
            elif "status" not in row:
                key = str(path)
                if key not in checked:
                    ok, out, secs = run(
                        [solve, "check-proof", key, "--tables", str(tables), "--json"], log
                    )
                    checked[key] = (ok, json.loads(out) if ok else None, secs)
                ok, out, secs = checked[key]
                row["check_seconds"] = round(secs, 2)
                if not ok:
                    row["status"] = "REJECTED by the checker"
                    failed = True
                elif position is None or claim[1] is None:
                    row["status"] = "accepted"
                elif (how := proven_matches(out, position, claim)) == "value":
                    row["status"] = "accepted, proves the published value"
                elif how == "bound":
                    row["status"] = (
                        "accepted, proves one bound of the published value; the other is "
                        "the start's, which it proves too"
                    )
                else:
                    row["status"] = "accepted, but proves another value than the published one"
                    failed = True
            report["results"].append(row)
            print(f"{label}: {row['status']}", flush=True)

    report["seconds"] = time.monotonic() - started
    counts = {}
    for r in report["results"]:
        counts[r["status"]] = counts.get(r["status"], 0) + 1
    print(f"{len(report['results'])} results in {report['seconds']:.0f} s:")
    for status, n in sorted(counts.items()):
        print(f"  {n:3d} {status}")
    if a.json:
        Path(a.json).write_text(json.dumps(report, indent=1) + "\n")
    if a.markdown:
        lines = ["| result | South's value | certificate | SHA-256 | tables | re-checked |",
                 "| --- | --- | --- | --- | --- | --- |"]
        for r in report["results"]:
            t = "none" if r["tables_max_seeds"] is None else f"up to {r['tables_max_seeds']}"
            lines.append(
                f"| {r['result']} | {r['claim']} | [{Path(r['certificate']).name}]"
                f"(../{r['certificate']}) | `{r['sha256'][:16]}` | {t} | {r['status']} |"
            )
        Path(a.markdown).write_text("\n".join(lines) + "\n")
    sys.exit(1 if failed else 0)


if __name__ == "__main__":
    main()
