"""Hoyito II and III, the Dominican mancala games: the rules, an exact solver, endgame
tables, proof certificates and an environment for learning agents, over the Rust library
``hoyito`` (one engine behind every door: the ``solve`` command, the web board, this package).

>>> import hoyito
>>> p = hoyito.Position.start()
>>> str(p)
'4,4,4,4,4,4/4,4,4,4,4,4 S 0-0'
>>> p.moves()
[1, 2, 3, 4, 5, 6]
>>> a = hoyito.best(p)            # the standard start, from the opening book
>>> (a.move, a.value, a.exact)
(1, -28, True)

See docs/python.md of the source repository for a tour.
"""

from ._hoyito import (
    Analysis,
    BadOption,
    BadPosition,
    BadRecord,
    BadRules,
    Batch,
    Game,
    HoyitoError,
    IllegalMove,
    Opponent,
    Playouts,
    Position,
    Proof,
    Rules,
    Tables,
    TablesError,
    __version__,
    best,
    check_proof,
    perft,
    prove,
    random_playouts,
    read_records,
)

__all__ = [
    "Analysis",
    "BadOption",
    "BadPosition",
    "BadRecord",
    "BadRules",
    "Batch",
    "Game",
    "HoyitoError",
    "IllegalMove",
    "Opponent",
    "Playouts",
    "Position",
    "Proof",
    "Rules",
    "Tables",
    "TablesError",
    "__version__",
    "best",
    "check_proof",
    "perft",
    "prove",
    "random_playouts",
    "read_records",
]
