"""Fault kinds beyond a status code: the hostile bodies and broken HTTP a real server or proxy can send.

A bundle's fault item may carry ``"kind"`` (keys added to ``case@1``, see docs/case-format.md); its numeric
parameters are optional. Each kind is described here as a ``Shape``: how the normal answer of the route is
changed (``transform``) or replaced, and how it is put on the wire (``chunks`` streamed with chunked
encoding, ``raw`` bytes instead of a response, pauses between writes). The transports carry it out.

- ``trickle``: the normal answer, its body ``bytes`` (1) at a time, ``intervalMs`` (500) apart;
- ``trickle-head``: the same from the first byte of the status line;
- ``gzip-bomb``: 200, ``Content-Encoding: gzip``, a small body inflating to ``size`` (1 GiB) zero bytes;
- ``oversized``: 200, a valid JSON body of ``size`` (64 MiB) bytes, streamed;
- ``endless``: 200, a chunked JSON body that never ends;
- ``garbage-status``: a status line that is not HTTP, then the connection closes;
- ``truncated``: 200 whose Content-Length promises the whole body, then half of it and a close;
- ``deep-json``: the normal answer with a value nested ``depth`` (1000) levels at key ``field`` of every
  object (the top one and those in its top-level lists);
- ``html``: 200 with an HTML login page, as a proxy or a UI in front of the API sends;
- ``wrong-shape``: 200 whose JSON has the wrong shape (a list for an object, an object for a list);
- ``huge-page``: the normal page with its list repeated to ``items`` (2000) entries, whatever ``limit`` asked.
"""

from __future__ import annotations

import functools
import json
import struct
import zlib
from collections.abc import Callable, Iterator
from dataclasses import dataclass
from typing import Any

KINDS: frozenset[str] = frozenset(
    {
        "trickle",
        "trickle-head",
        "gzip-bomb",
        "oversized",
        "endless",
        "garbage-status",
        "truncated",
        "deep-json",
        "html",
        "wrong-shape",
        "huge-page",
    }
)
# Kinds whose answer is made from the route's normal answer.
FROM_ROUTE: frozenset[str] = frozenset(
    {"trickle", "trickle-head", "truncated", "deep-json", "wrong-shape", "huge-page"}
)
PARAMS: dict[str, int] = {"intervalMs": 500, "bytes": 1, "size": 1 << 30, "depth": 1000, "items": 2000}
_DEFAULT_SIZE = {"oversized": 64 << 20, "gzip-bomb": 1 << 30}
_HTML = (
    b"<!doctype html><html><head><title>Sign in</title></head><body><form action=/login method=post>"
    b"<input name=user><input name=password type=password></form></body></html>"
)


def check_fault_kind(item: dict[str, Any]) -> str | None:
    """What is wrong with a fault item's ``kind`` and its parameters, or None (used by the bundle loader)."""
    kind = item.get("kind")
    if kind is None:
        return None
    if kind not in KINDS:
        return f"unknown fault kind {kind!r}; use one of {', '.join(sorted(KINDS))}"
    for key in PARAMS:
        value = item.get(key)
        if value is not None and (isinstance(value, bool) or not isinstance(value, int) or value < 0):
            return f"{key} must be a non-negative integer"
    field = item.get("field")
    if field is not None and not isinstance(field, str):
        return "field must be a string"
    return None


@dataclass(frozen=True)
class Shape:
    """How a fault of some kind shapes the answer (see the table above)."""

    status: int = 200
    headers: tuple[tuple[str, str], ...] = (("Content-Type", "application/json"),)
    body: bytes | None = None
    # A function of the route's normal (status, body), for kinds made from it.
    transform: Callable[[int, bytes], tuple[int, bytes]] | None = None
    chunks: Callable[[], Iterator[bytes]] | None = None
    raw: bytes | None = None
    # Pause between pieces; ``piece`` bytes at a time; ``head_too`` trickles the status line and headers too.
    interval_s: float = 0.0
    piece: int = 0
    head_too: bool = False
    # Send half the body while promising all of it, then close (truncated).
    truncate: bool = False


def shape_for(kind: str, params: dict[str, Any]) -> Shape:
    """The Shape of one fault kind with its parameters (missing ones take the defaults of the table)."""

    def number(key: str) -> int:
        value = params.get(key)
        if value is None:
            return _DEFAULT_SIZE.get(kind, PARAMS[key]) if key == "size" else PARAMS[key]
        return int(value)

    if kind in ("trickle", "trickle-head"):
        return Shape(
            transform=_same,
            interval_s=number("intervalMs") / 1000.0,
            piece=max(number("bytes"), 1),
            head_too=kind == "trickle-head",
        )
    if kind == "gzip-bomb":
        return Shape(headers=(("Content-Type", "application/json"), ("Content-Encoding", "gzip")),
                     body=gzip_bomb(number("size")))
    if kind == "oversized":
        size = number("size")
        return Shape(chunks=lambda: _padded_json(size))
    if kind == "endless":
        return Shape(chunks=_endless_json)
    if kind == "garbage-status":
        return Shape(raw=b"HTTP/1.1 2OO 0K\r\nthis is not http at all\r\n\r\n{}")
    if kind == "truncated":
        return Shape(transform=_same, truncate=True)
    if kind == "deep-json":
        depth, field = number("depth"), str(params.get("field") or "deepValue")
        return Shape(transform=lambda status, body: (status, _plant_deep(body, depth, field)))
    if kind == "html":
        return Shape(headers=(("Content-Type", "text/html; charset=utf-8"),), body=_HTML)
    if kind == "wrong-shape":
        return Shape(transform=lambda status, body: (200, _wrong_shape(body)))
    if kind == "huge-page":
        items = number("items")
        return Shape(transform=lambda status, body: (status, _huge_page(body, items)))
    raise ValueError(f"unknown fault kind {kind!r}")


def _same(status: int, body: bytes) -> tuple[int, bytes]:
    return status, body


@functools.lru_cache(maxsize=4)
def gzip_bomb(inflated: int) -> bytes:
    """A gzip member that inflates to ``inflated`` zero bytes, built without compressing them all.

    After a full flush a deflate stream restarts with an empty window, so compressing another MiB of zeros gives
    the same bytes again: one block is made once and repeated, and the trailer's CRC is computed block by block.
    """
    block = 1 << 20
    zeros = bytes(block)
    whole, rest = divmod(inflated, block)
    deflate = zlib.compressobj(9, zlib.DEFLATED, -zlib.MAX_WBITS)
    one = deflate.compress(zeros) + deflate.flush(zlib.Z_FULL_FLUSH)
    tail = deflate.compress(bytes(rest)) + deflate.flush(zlib.Z_FINISH)
    crc = 0
    for _ in range(whole):
        crc = zlib.crc32(zeros, crc)
    crc = zlib.crc32(bytes(rest), crc)
    header = b"\x1f\x8b\x08\x00\x00\x00\x00\x00\x02\xff"
    trailer = struct.pack("<II", crc & 0xFFFFFFFF, inflated & 0xFFFFFFFF)
    return header + one * whole + tail + trailer


def _padded_json(size: int) -> Iterator[bytes]:
    piece = b"x" * 65536
    yield b'{"padding": "'
    left = max(size - 16, 0)
    while left > 0:
        chunk = piece[: min(left, len(piece))]
        left -= len(chunk)
        yield chunk
    yield b'"}'


def _endless_json() -> Iterator[bytes]:
    yield b'{"items": ['
    item = b'{"name": "again", "message": "' + b"y" * 4000 + b'"},'
    while True:
        yield item * 16


def _deep(depth: int) -> str:
    return "[" * depth + '"bottom"' + "]" * depth


def _plant_deep(body: bytes, depth: int, field: str) -> bytes:
    """The body with ``field`` set to a value nested ``depth`` levels, in the top object and in every object of
    its top-level lists. Built as text so the simulator never holds a deeply nested Python value itself."""
    try:
        data = json.loads(body)
    except ValueError:
        return body
    marker = "\u0000deep\u0000"
    targets = [data] if isinstance(data, dict) else []
    source = data if isinstance(data, dict) else {"": data}
    for value in source.values():
        if isinstance(value, list):
            targets.extend(item for item in value if isinstance(item, dict))
    for target in targets:
        target[field] = marker
    return json.dumps(data).replace(json.dumps(marker), _deep(depth)).encode()


def _wrong_shape(body: bytes) -> bytes:
    try:
        data = json.loads(body)
    except ValueError:
        return b"[]"
    if isinstance(data, dict):
        lists = [key for key, value in data.items() if isinstance(value, list)]
        # A page ({"items": [...], "next"?}) gets an object where its list belongs; an object becomes a list.
        if lists and set(data) <= {lists[0], "next"}:
            return json.dumps({**data, lists[0]: {"unexpected": "an object where a list belongs"}}).encode()
        return json.dumps([data]).encode()
    return json.dumps({"unexpected": data}).encode()


def _huge_page(body: bytes, items: int) -> bytes:
    try:
        data = json.loads(body)
    except ValueError:
        return body
    if isinstance(data, list):
        seed = data or [{}]
        return json.dumps([seed[i % len(seed)] for i in range(items)]).encode()
    if not isinstance(data, dict):
        return body
    for key, value in data.items():
        if isinstance(value, list):
            seed = value or [{}]
            data[key] = [seed[i % len(seed)] for i in range(items)]
            break
    return json.dumps(data).encode()
