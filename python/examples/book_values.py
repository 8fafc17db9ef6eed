"""The proven values of the opening book's positions, from Python.

Reads data/book/book.jsonl (the positions after the first plies of the 2x6 starts, each
proven with a certificate) and asks hoyito.best for each: the book answers at once, with
the proven value for the side to move and a move that keeps it.

    python python/examples/book_values.py [PATH TO book.jsonl]
"""

import json
import sys
from pathlib import Path

import hoyito

BOOK = Path(__file__).resolve().parents[2] / "data" / "book" / "book.jsonl"


def rules_of(line: str) -> hoyito.Rules:
    """The rules of a book line (as a certificate header writes them)."""
    fields = dict(word.split("=", 1) for word in line.split()[1:])
    return hoyito.Rules(
        variant=fields["variant"],
        holes=int(fields["holes"]),
        last_four=fields["last_four"],
        capture_side=fields["capture_side"],
    )


def main() -> None:
    path = Path(sys.argv[1]) if len(sys.argv) > 1 else BOOK
    print(f"{'rules':8} {'plies':>5}  {'line':12} {'position':28} {'value':>5} {'move':>4}")
    count = 0
    for text in path.read_text().splitlines():
        entry = json.loads(text)
        if entry.get("value") is None:
            continue  # not proven
        rules = rules_of(entry["rules"])
        position = hoyito.Position.parse(entry["board"], rules)
        a = hoyito.best(position)
        assert a.source == "book" and a.exact and a.value == entry["value"], entry
        line = " ".join(str(m) for m in entry["line"]) or "start"
        move = "-" if a.move is None else a.move
        print(f"{rules.variant:8} {entry['plies']:>5}  {line:12} {entry['board']:28} {a.value:>5} {move:>4}")
        count += 1
    print(f"{count} proven positions, every value from hoyito.best equal to the book's")


if __name__ == "__main__":
    main()
