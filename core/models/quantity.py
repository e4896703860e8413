"""Exact parsing of Kubernetes resource quantities (``resource.Quantity``) and byte formatting for reports.

Everything is Decimal: a quantity such as ``1.5Gi`` must compare equal to the byte count a metric reports,
and float arithmetic would make ``1.5Gi`` and 1610612736 differ in the last digit for larger values.
"""

from __future__ import annotations

import decimal
import re
from decimal import Decimal

from core.models.base import preview


class QuantityError(ValueError):
    """A value that is not a Kubernetes quantity; the message quotes the offending text."""


_BINARY = {"Ki": 1, "Mi": 2, "Gi": 3, "Ti": 4, "Pi": 5, "Ei": 6}  # powers of 1024
_DECIMAL = {"n": -9, "u": -6, "m": -3, "k": 3, "M": 6, "G": 9, "T": 12, "P": 15, "E": 18}  # powers of 10

# The Kubernetes grammar: signed number (digits, digits., .digits, digits.digits), then a binary SI suffix,
# a decimal SI suffix, or an e/E exponent. ASCII digits only (\d would accept other scripts' digits).
_QUANTITY_RE = re.compile(
    r"(?P<sign>[+-]?)(?P<number>[0-9]+(?:\.[0-9]*)?|\.[0-9]+)"
    r"(?:(?P<binary>Ki|Mi|Gi|Ti|Pi|Ei)|[eE](?P<exp>[+-]?[0-9]+)|(?P<decimal>[numkMGTPE]))?"
)

# Longer than any real quantity; refusing early keeps hostile input from costing time or memory.
MAX_QUANTITY_CHARS = 64
# Values beyond 10**±40 are not resources anyone requests; refusing them bounds the exact arithmetic.
_MAX_ADJUSTED_EXPONENT = 40
# Enough digits for a 64-char mantissa times 1024**6 without any rounding.
_CONTEXT = decimal.Context(prec=200, Emax=10_000, Emin=-10_000, traps=[decimal.Inexact, decimal.Overflow])


def _fail(value: object, reason: str) -> QuantityError:
    return QuantityError(f"{_quote(value)} is not a Kubernetes quantity: {reason}")


def _quote(value: object) -> str:
    # Plain short text is quoted as is; control characters or hostile length go through repr.
    if isinstance(value, str) and value.isprintable() and len(value) <= MAX_QUANTITY_CHARS:
        return f"'{value}'"
    return preview(value)


def parse_quantity(value: str | int | float) -> Decimal:
    """The exact value of a Kubernetes quantity (``"1.5Gi"`` -> 1610612736). Raises QuantityError."""
    if isinstance(value, bool):
        raise _fail(value, "expected a string or a number, got a boolean")
    if isinstance(value, int):
        return Decimal(value)
    if isinstance(value, float):
        if value != value or value in (float("inf"), float("-inf")):
            raise _fail(value, "not a finite number")
        # str() gives the shortest text that round-trips, i.e. what the JSON said, not the binary expansion.
        return parse_quantity(str(value).replace("e+", "e"))
    if not isinstance(value, str):
        raise _fail(value, f"expected a string or a number, got {type(value).__name__}")
    if value == "":
        raise _fail(value, "empty string")
    if len(value) > MAX_QUANTITY_CHARS:
        raise _fail(value, f"too long ({len(value)} characters, at most {MAX_QUANTITY_CHARS})")
    match = _QUANTITY_RE.fullmatch(value)
    if match is None:
        raise _fail(value, _explain(value))
    number = Decimal(match["number"])
    if match["sign"] == "-":
        number = -number
    if match["binary"]:
        return _CONTEXT.multiply(number, Decimal(1024 ** _BINARY[match["binary"]]))
    exponent = int(match["exp"]) if match["exp"] is not None else _DECIMAL.get(match["decimal"] or "", 0)
    if number != 0 and abs(number.adjusted() + exponent) > _MAX_ADJUSTED_EXPONENT:
        raise _fail(value, f"magnitude out of range (beyond 1e{_MAX_ADJUSTED_EXPONENT})")
    if number == 0:
        return Decimal(0)
    return number.scaleb(exponent, _CONTEXT)


def _explain(value: str) -> str:
    # A specific reason helps whoever typed the value fix it.
    if any(ch.isspace() for ch in value):
        return "whitespace is not allowed"
    head = re.match(r"[+-]?(?:[0-9]+(?:\.[0-9]*)?|\.[0-9]+)", value)
    if head is None:
        return "expected a number, optionally signed, at the start"
    rest = value[head.end() :]
    expected = "Ki Mi Gi Ti Pi Ei, n u m k M G T P E, or an exponent like e9"
    return f"unknown suffix {_quote(rest)} (expected {expected})"


def quantity_to_bytes(value: str | int | float) -> int:
    """A memory quantity as whole bytes, rounded up (away from zero) like Kubernetes' ``Quantity.Value()``."""
    exact = parse_quantity(value)
    return int(exact.to_integral_value(rounding=decimal.ROUND_UP))


_UNITS = ("B", "KiB", "MiB", "GiB", "TiB", "PiB", "EiB")


def format_bytes(n: int) -> str:
    """Human text in binary units with at most one decimal: 25769803776 -> "24 GiB", 512 -> "512 B"."""
    if n < 0:
        return f"-{format_bytes(-n)}"
    index = 0
    while index < len(_UNITS) - 1 and n >= 1024 ** (index + 1):
        index += 1
    if index == 0:
        return f"{n} B"
    shown = (Decimal(n) / Decimal(1024**index)).quantize(Decimal("0.1"), rounding=decimal.ROUND_HALF_UP)
    # 1048575 B is 1023.99.. KiB, which rounds to 1024.0: show it as the next unit instead.
    if shown >= 1024 and index < len(_UNITS) - 1:
        index += 1
        shown = (Decimal(n) / Decimal(1024**index)).quantize(Decimal("0.1"), rounding=decimal.ROUND_HALF_UP)
    text = f"{shown:f}"
    if text.endswith(".0"):
        text = text[:-2]
    return f"{text} {_UNITS[index]}"
