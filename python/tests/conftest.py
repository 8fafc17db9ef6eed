"""Helpers of the package's tests: the conformance vectors of data/conformance/ and the
`solve` command to compare with."""

import json
import os
import shutil
from pathlib import Path

import pytest

import hoyito

ROOT = Path(__file__).resolve().parents[2]
DATA = ROOT / "data"

# The small tables cache of the Rust tests (target/tmp/hoyito-cache, built by the first test
# that needs it), for the package and the `solve` commands the tests run: the tests neither
# depend on nor write to the user's own cache.
os.environ.setdefault(
    "HOYITO_CACHE",
    str(Path(os.environ.get("CARGO_TARGET_DIR", ROOT / "target")) / "tmp" / "hoyito-cache"),
)


def vectors(name):
    """The JSON objects of one data/conformance/*.jsonl file."""
    text = (DATA / "conformance" / name).read_text()
    return [json.loads(line) for line in text.splitlines() if line.strip()]


def rules_of(v):
    """The rules a vector names."""
    return hoyito.Rules(
        variant=v["rules"],
        holes=v.get("holes", 6),
        seeds=4,
        last_four=v.get("last_four", "capturer"),
        capture_side=v.get("capture_side", "any"),
    )


def solve_binary():
    """The `solve` command built by cargo: $HOYITO_SOLVE, else the build folders' (debug
    first, as CI builds it), else `solve` on the PATH; None when there is none."""
    given = os.environ.get("HOYITO_SOLVE")
    if given:
        return given
    target = Path(os.environ.get("CARGO_TARGET_DIR", ROOT / "target"))
    for profile in ("debug", "python", "release"):
        path = target / profile / "solve"
        if path.is_file():
            return str(path)
    return shutil.which("solve")


@pytest.fixture(scope="session")
def solve():
    path = solve_binary()
    if path is None:
        pytest.skip("no `solve` binary (cargo build --bin solve, or set HOYITO_SOLVE)")
    return path
