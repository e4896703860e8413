"""Did our reader read a body faithfully? Each field our model has and the body holds must be read as written;
each field the body leaves out (or sends as null) must be None in ours: a reader that fills one in invented it.
"""

from __future__ import annotations

from datetime import UTC, datetime
from typing import Any

from pydantic import BaseModel


def unfaithful(ours: Any, body: Any, path: str = "") -> list[str]:
    """Where `ours` (one of our models, or a value inside one) differs from `body` (the JSON it was read from)."""
    if isinstance(ours, BaseModel):
        if not isinstance(body, dict):
            return [f"{path or '(body)'}: read a {type(ours).__name__} from {type(body).__name__}"]
        out: list[str] = []
        for name, info in type(ours).model_fields.items():
            key = info.alias or name
            value = getattr(ours, name)
            where = f"{path}.{key}" if path else key
            if body.get(key) is None:
                if value is not None and value != info.default:
                    out.append(f"{where}: absent in the body, read as {value!r}")
                continue
            out += unfaithful(value, body[key], where)
        return out
    if isinstance(ours, list | tuple):
        if isinstance(body, list) and None not in ours:
            body = [item for item in body if item is not None]  # a null item the API allows: nothing to read
        if not isinstance(body, list) or len(body) != len(ours):
            return [f"{path}: {len(ours)} items read, the body has {len(body) if isinstance(body, list) else body!r}"]
        return [x for i, (o, b) in enumerate(zip(ours, body, strict=True)) for x in unfaithful(o, b, f"{path}.{i}")]
    if ours is None:
        return [] if body is None else [f"{path}: {body!r} in the body, read as nothing"]
    if isinstance(ours, datetime):
        written = datetime.fromisoformat(str(body).replace("Z", "+00:00"))
        return [] if ours == written.astimezone(UTC) else [f"{path}: {body!r} read as {ours.isoformat()}"]
    if isinstance(ours, bool) or isinstance(body, bool):
        return [] if ours is body else [f"{path}: {body!r} read as {ours!r}"]
    if isinstance(ours, int | float) and isinstance(body, int | float):
        return [] if float(ours) == float(body) else [f"{path}: {body!r} read as {ours!r}"]
    if ours == body or (isinstance(ours, str) and not isinstance(body, dict | list) and ours == str(body)):
        return []
    return [f"{path}: {body!r} read as {ours!r}"]
