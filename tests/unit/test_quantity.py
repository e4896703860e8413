"""Exact Kubernetes quantity parsing, byte rounding and report formatting."""

from __future__ import annotations

import time
from decimal import Decimal

import pytest

from core.models.quantity import QuantityError, format_bytes, parse_quantity, quantity_to_bytes

GI = 1024**3

VALID = [
    ("32Gi", Decimal(32 * GI)),
    ("32G", Decimal(32_000_000_000)),
    ("34359738368", Decimal(34359738368)),
    ("1.5Gi", Decimal(1610612736)),
    ("512Mi", Decimal(536870912)),
    ("1e9", Decimal(1_000_000_000)),
    ("1E3", Decimal(1000)),
    ("2.5e-3", Decimal("0.0025")),
    ("100k", Decimal(100_000)),
    ("0", Decimal(0)),
    ("100m", Decimal("0.1")),
    ("1Ki", Decimal(1024)),
    ("7.5E3", Decimal(7500)),
    ("24Gi", Decimal(25769803776)),
    ("2113683332Ki", Decimal(2113683332 * 1024)),
    ("1Ti", Decimal(1024**4)),
    ("1Pi", Decimal(1024**5)),
    ("1Ei", Decimal(1024**6)),
    ("1M", Decimal(10**6)),
    ("1T", Decimal(10**12)),
    ("1P", Decimal(10**15)),
    ("1E", Decimal(10**18)),  # exa, not an exponent without digits
    ("1n", Decimal("1e-9")),
    ("250u", Decimal("0.00025")),
    ("+5", Decimal(5)),
    ("-5Mi", Decimal(-5 * 1024**2)),
    ("5.", Decimal(5)),
    (".5Gi", Decimal(GI // 2)),
    ("0.1Ki", Decimal("102.4")),
    ("1e+3", Decimal(1000)),
    ("0e999999", Decimal(0)),
    ("12345678901234567890123456789012345", Decimal("12345678901234567890123456789012345")),
    (34359738368, Decimal(34359738368)),
    (1.5, Decimal("1.5")),
    (0.1, Decimal("0.1")),  # the JSON text, not the float's binary expansion
    (1e20, Decimal(10**20)),
]


@pytest.mark.parametrize(("text", "expected"), VALID)
def test_parse_quantity_exact(text: str | int | float, expected: Decimal) -> None:
    assert parse_quantity(text) == expected


def test_one_and_a_half_gi_is_exact_integer() -> None:
    value = parse_quantity("1.5Gi")
    assert value == 1610612736
    assert value == value.to_integral_value()


MALFORMED = [
    ("", "empty"),
    ("Gi", "expected a number"),
    ("12Gx", "unknown suffix 'Gx'"),
    ("1.2.3", "unknown suffix"),
    ("--1", "expected a number"),
    ("1 Gi", "whitespace"),
    (" 1Gi", "whitespace"),
    ("1Gi\n", "whitespace"),
    ("abc", "expected a number"),
    ("1gi", "unknown suffix 'gi'"),
    ("1KiB", "unknown suffix 'KiB'"),
    ("1e", "unknown suffix 'e'"),
    ("1e1.5", "unknown suffix"),
    ("1K", "unknown suffix 'K'"),
    (".", "expected a number"),
    ("0x10", "unknown suffix 'x10'"),
    ("١٢", "expected a number"),  # non-ASCII digits
    ("1e999999", "out of range"),
    ("1e-999999", "out of range"),
    ("9" * 100_000, "too long"),
    ("1" + "0" * 100_000 + "Gi", "too long"),
]


@pytest.mark.parametrize(("text", "reason"), MALFORMED)
def test_malformed_quantity_raises_with_clear_message(text: str, reason: str) -> None:
    started = time.perf_counter()
    with pytest.raises(QuantityError) as caught:
        parse_quantity(text)
    assert time.perf_counter() - started < 0.5
    message = str(caught.value)
    assert "is not a Kubernetes quantity" in message
    assert reason in message
    assert len(message) < 400  # a 100k-char input is not echoed back whole


def test_message_quotes_offending_text() -> None:
    with pytest.raises(QuantityError, match=r"^'12Gx' is not a Kubernetes quantity: "):
        parse_quantity("12Gx")


def test_control_characters_are_escaped_in_message() -> None:
    with pytest.raises(QuantityError) as caught:
        parse_quantity("1\x1b[31mGi")
    assert "\x1b" not in str(caught.value)
    assert "\\x1b" in str(caught.value)


@pytest.mark.parametrize("value", [None, True, [], {}, float("nan"), float("inf"), b"1Gi"])
def test_non_quantity_types_raise(value: object) -> None:
    with pytest.raises(QuantityError, match="is not a Kubernetes quantity"):
        parse_quantity(value)  # type: ignore[arg-type]


def test_quantity_error_is_a_value_error() -> None:
    assert issubclass(QuantityError, ValueError)


BYTES = [
    ("24Gi", 25769803776),
    ("1.5Gi", 1610612736),
    ("100m", 1),  # rounded up like Quantity.Value()
    ("1n", 1),
    ("0", 0),
    ("1e9", 1_000_000_000),
    ("0.1Ki", 103),
    ("512Mi", 536870912),
    ("-1.5", -2),  # away from zero
    (25446700000, 25446700000),
]


@pytest.mark.parametrize(("text", "expected"), BYTES)
def test_quantity_to_bytes_rounds_up(text: str | int, expected: int) -> None:
    result = quantity_to_bytes(text)
    assert isinstance(result, int)
    assert result == expected


def test_quantity_to_bytes_rejects_malformed() -> None:
    with pytest.raises(QuantityError, match="'24Gx'"):
        quantity_to_bytes("24Gx")


FORMATTED = [
    (25769803776, "24 GiB"),
    (25446700000, "23.7 GiB"),
    (512, "512 B"),
    (0, "0 B"),
    (1023, "1023 B"),
    (1024, "1 KiB"),
    (1536, "1.5 KiB"),
    (1048575, "1 MiB"),  # 1023.999 KiB rounds into the next unit, not "1024 KiB"
    (536870912, "512 MiB"),
    (1610612736, "1.5 GiB"),
    (1024**4, "1 TiB"),
    (1024**6, "1 EiB"),
    (1024**7, "1024 EiB"),
    (-2048, "-2 KiB"),
]


@pytest.mark.parametrize(("n", "text"), FORMATTED)
def test_format_bytes(n: int, text: str) -> None:
    assert format_bytes(n) == text
