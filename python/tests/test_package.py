"""The package as a whole: the stubs name what the module has, and every public name
explains itself."""

import ast
import inspect
from pathlib import Path

import hoyito
from hoyito import _hoyito

STUB = Path(hoyito.__file__).with_name("_hoyito.pyi")


def _stub_names():
    tree = ast.parse(STUB.read_text())
    top, members = set(), {}
    for node in tree.body:
        if isinstance(node, ast.ClassDef):
            top.add(node.name)
            members[node.name] = {
                n.name for n in node.body if isinstance(n, ast.FunctionDef)
            } | {n.target.id for n in node.body if isinstance(n, ast.AnnAssign)}
        elif isinstance(node, ast.FunctionDef):
            top.add(node.name)
        elif isinstance(node, ast.AnnAssign) and not node.target.id.startswith("_"):
            top.add(node.target.id)
    return top, members


def test_the_stubs_match_the_module():
    top, members = _stub_names()
    public = {n for n in dir(_hoyito) if not n.startswith("_")}
    assert top - {"__version__"} == public
    for cls, names in members.items():
        obj = getattr(_hoyito, cls)
        # An exception class's members are those of its own, beyond BaseException's.
        inherited = set(dir(BaseException)) if issubclass(obj, BaseException) else set()
        have = {
            n for n in set(dir(obj)) - inherited if not n.startswith("_") or n == "__init__"
        }
        missing = {n for n in names if n != "__init__" and not n.startswith("__")} - have
        assert not missing, (cls, missing)
        extra = {n for n in have if not n.startswith("_")} - names
        assert not extra, (cls, extra)
    assert set(hoyito.__all__) == public | {"__version__"}


def test_every_public_name_has_a_docstring():
    for name in hoyito.__all__:
        obj = getattr(hoyito, name)
        if name == "__version__":
            continue
        assert inspect.getdoc(obj), name
        if inspect.isclass(obj):
            for attr, value in vars(obj).items():
                if not attr.startswith("_"):
                    assert inspect.getdoc(value), f"{name}.{attr}"
    doc = hoyito.best.__doc__
    assert "depth" in doc and "time_ms" in doc and "exact" in doc and "tables" in doc
    assert hoyito.best.__text_signature__.startswith("(position=None, depth=None")


def test_stubtest_and_mypy():
    """mypy's stubtest finds the stubs true to the module, and the Python sources type-check
    (where mypy is installed, as in CI)."""
    import os
    import subprocess
    import sys

    import pytest

    pytest.importorskip("mypy")
    root = Path(__file__).resolve().parents[1]
    env = dict(os.environ, MYPYPATH="")
    stubtest = subprocess.run(
        [sys.executable, "-m", "mypy.stubtest", "hoyito._hoyito"],
        capture_output=True, text=True, cwd=root / "tests", env=env,
    )
    assert stubtest.returncode == 0, stubtest.stdout + stubtest.stderr
    files = [str(root / "hoyito" / "env.py"), str(root / "hoyito" / "__init__.py")]
    files += [str(p) for p in sorted((root / "examples").glob("*.py"))]
    checked = subprocess.run(
        [sys.executable, "-m", "mypy", "--strict", "--no-incremental", *files],
        capture_output=True, text=True, cwd=root / "tests", env=env,
    )
    assert checked.returncode == 0, checked.stdout + checked.stderr
