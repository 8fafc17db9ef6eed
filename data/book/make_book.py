#!/usr/bin/env python3
"""Assembles data/book/book.jsonl, the opening book that `solve best` answers from.

    python3 data/book/make_book.py SOLVE RUNS [RUNS ...]

SOLVE is the `solve` program; each RUNS a folder holding, for positions after two plies, the
output of `solve [--variant V] prove POSITION --tables DIR --certificate RUNS/V-M1-M2.cert
--json` as RUNS/V-M1-M2.json (see README.md here). Where several folders hold a position,
the last one that proved it counts (later runs retry the open positions with more tables). Plies 0 and 1 come from
data/exact/starts.jsonl and data/proofs/first-moves.jsonl. Proven certificates of ply 2 are
copied into data/book/.
"""

import hashlib
import json
import os
import shutil
import subprocess
import sys

HERE = os.path.dirname(os.path.abspath(__file__))
REPO = os.path.dirname(os.path.dirname(HERE))
RULES = {
    "hoyito2": "rules holes=6 variant=hoyito2 last_four=capturer capture_side=any",
    "hoyito3": "rules holes=6 variant=hoyito3 last_four=capturer capture_side=any",
}


def board(position):
    """Board and side to move, without the captured seeds."""
    return " ".join(position.split(" ")[:2])


def solve(prog, variant, *args):
    out = subprocess.run([prog, "--variant", variant, *args, "--json"],
                         capture_output=True, text=True, check=True).stdout
    return json.loads(out)


def cert_move(path, position, kind):
    """The move a certificate's entry gives at `position` for a claim of `kind` (0: ge,
    1: le), or None."""
    data = open(path, "rb").read()
    body = data[data.index(b"\nend\n") + 5:]
    seeds = [int(x) for x in position.split(" ")[0].replace("/", ",").split(",")]
    side = 0 if position.split(" ")[1] == "S" else 1
    size = 24
    for i in range(0, len(body), size):
        e = body[i:i + size]
        if list(e[:12]) == seeds and e[12] == side and e[13] == kind:
            return e[15] or None
    return None


def cert_info(path):
    data = open(os.path.join(REPO, path), "rb").read()
    header = data[:data.index(b"\nend\n")].decode()
    entries = int([l for l in header.splitlines() if l.startswith("entries ")][0].split()[1])
    return {"file": path, "entries": entries, "bytes": len(data),
            "sha256": hashlib.sha256(data).hexdigest()}


def main():
    prog, folders = sys.argv[1], sys.argv[2:]
    runs = {}
    for folder in folders:
        for name in sorted(os.listdir(folder)):
            if not name.endswith(".json") or name.count("-") != 2:
                continue
            try:
                r = json.load(open(os.path.join(folder, name)))
            except (ValueError, OSError):
                continue
            if name not in runs or r["complete"]:
                runs[name] = r
    out = []
    for line in open(os.path.join(REPO, "data/exact/starts.jsonl")):
        s = json.loads(line)
        out.append({"rules": RULES[s["rules"]], "plies": 0, "line": [],
                    "board": board(s["position"]), "value": s["value"],
                    "best": s["best_move"], "certificate": cert_info(s["certificate"]["file"])})
    for line in open(os.path.join(REPO, "data/proofs/first-moves.jsonl")):
        f = json.loads(line)
        v = f["rules"]
        after = solve(prog, v, "apply", "start", str(f["move"]))["position"]
        mover_is_south = after.split(" ")[1] == "S"
        row = {"rules": RULES[v], "plies": 1, "line": [f["move"]], "board": board(after)}
        if f.get("value") is None:
            row.update({"value": None, "best": None, "certificate": None,
                        "note": f.get("note")})
        elif "certificate" in f:
            cert = f["certificate"]["file"]
            kind = 0 if mover_is_south else 1
            row.update({"value": f["value"] if mover_is_south else -f["value"],
                        "best": cert_move(os.path.join(REPO, cert), after, kind),
                        "certificate": cert_info(cert)})
        else:
            # The start's best move: the start's certificate holds both claims of the
            # position after it, and the move that proves the one of its side to move.
            start = [json.loads(l) for l in open(os.path.join(REPO, "data/exact/starts.jsonl"))
                     if json.loads(l)["rules"] == v][0]
            cert = start["certificate"]["file"]
            kind = 0 if mover_is_south else 1
            row.update({"value": f["value"] if mover_is_south else -f["value"],
                        "best": cert_move(os.path.join(REPO, cert), after, kind),
                        "certificate": cert_info(cert),
                        "note": "proven by the start's certificate"})
        out.append(row)
    for name, r in sorted(runs.items()):
        v, m1, m2 = name[:-5].split("-")
        row = {"rules": RULES[v], "plies": 2, "line": [int(m1), int(m2)],
               "board": board(r["position"]), "explored": r["explored"],
               "seconds": round(r["seconds"], 1), "tables_max_seeds": r["tables_max_seeds"]}
        if r.get("claims_resumed"):
            # A run resumed from the record of an earlier one: its figures are its own.
            row["resumed_claims"] = r["claims_resumed"]
        if r["complete"]:
            dest = f"data/book/{v}-{m1}-{m2}.cert"
            shutil.copyfile(r["certificate"]["path"], os.path.join(REPO, dest))
            row.update({"value": r["value"], "best": r["best"], "certificate": cert_info(dest)})
        else:
            row.update({"value": None, "best": None, "bounds": r["bounds"],
                        "certificate": None})
        out.append(row)
    with open(os.path.join(HERE, "book.jsonl"), "w") as f:
        for row in out:
            f.write(json.dumps(row) + "\n")


if __name__ == "__main__":
    main()
