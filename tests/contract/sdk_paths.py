"""The query parameters each read endpoint takes, read from Run:ai's SDK (`runai/api/*.py`): every API method
names its `resource_path` and the `query_params` it may send. Parsed, not imported: the methods need a client."""

from __future__ import annotations

import ast
import re
from functools import cache
from pathlib import Path

import runai.api

_PLACEHOLDER = re.compile(r"\{[^}]*\}")


def shape(template: str) -> str:
    """A path template with every placeholder the same (`{id}`, `{workload_id}` and `{workloadId}` alike)."""
    return _PLACEHOLDER.sub("{}", template.rstrip("/"))


@cache
def sdk_query_parameters() -> dict[str, frozenset[str]]:
    """Path shape of every GET the SDK makes -> the query parameter names it may send there."""
    found: dict[str, frozenset[str]] = {}
    folder = Path(runai.api.__file__).parent
    for source in sorted(folder.glob("*_api.py")):
        tree = ast.parse(source.read_text(encoding="utf-8"))
        for method in ast.walk(tree):
            if isinstance(method, ast.FunctionDef):
                path, verb, names = _read_method(method)
                if path is not None and verb == "GET":
                    # The generator writes `.replace("_", "-")` after the f-string; placeholders keep theirs.
                    found[shape(path.replace("_", "-"))] = frozenset(names)
    return found


def _read_method(method: ast.FunctionDef) -> tuple[str | None, str | None, list[str]]:
    path: str | None = None
    verb: str | None = None
    names: list[str] = []
    for node in ast.walk(method):
        if not isinstance(node, ast.Assign) or len(node.targets) != 1 or not isinstance(node.targets[0], ast.Name):
            continue
        target = node.targets[0].id
        if target == "resource_path":
            joined = next((n for n in ast.walk(node.value) if isinstance(n, ast.JoinedStr)), None)
            if joined is not None:
                path = "".join(
                    part.value if isinstance(part, ast.Constant) else "{x}" for part in joined.values
                )
        elif target == "method" and isinstance(node.value, ast.Constant):
            verb = str(node.value.value)
        elif target == "query_params" and isinstance(node.value, ast.List):
            names = [
                str(item.elts[0].value)
                for item in node.value.elts
                if isinstance(item, ast.Tuple) and item.elts and isinstance(item.elts[0], ast.Constant)
            ]
    return path, verb, names
