"""sanitize(): every character that could drive a terminal comes out visible, in linear time."""

from __future__ import annotations

import random
import re
import sys
import time
import unicodedata

import pytest

from core.safety.sanitize import (
    FORMAT_CHAR_RANGES,
    decode_bytes,
    is_clean,
    sanitize,
    sanitize_log_lines,
    strip_sgr,
)

# Independent of the module's own tables: what must never reach a terminal raw.
FORBIDDEN = re.compile("[\x00-\x08\x0b-\x1f\x7f-\x9f\u2028\u2029\ud800-\udfff]")


def assert_terminal_safe(text: str, *, newlines: bool = True) -> None:
    bad = [c for c in text if FORBIDDEN.match(c) or unicodedata.category(c) == "Cf"]
    assert bad == [], f"unsafe characters left: {bad!r}"
    if not newlines:
        assert "\n" not in text
    text.encode("utf-8")  # must be printable by any UTF-8 terminal writer


@pytest.mark.parametrize(
    ("raw", "shown"),
    [
        ("\x1b[2J", "\\x1b[2J"),  # clear screen
        ("\x1b[31;1mred", "\\x1b[31;1mred"),  # SGR outside logs is shown, not stripped
        ("\x1b]52;c;aGVsbG8=\x07", "\\x1b]52;c;aGVsbG8=\\x07"),  # OSC 52 clipboard write
        (
            "\x1b]8;;https://evil.example\x1b\\click\x1b]8;;\x1b\\",
            "\\x1b]8;;https://evil.example\\x1b\\click\\x1b]8;;\\x1b\\",
        ),  # OSC 8 hyperlink
        ("\x1bP1$r0m\x1b\\", "\\x1bP1$r0m\\x1b\\"),  # DCS
        ("\x1b_payload\x1b\\", "\\x1b_payload\\x1b\\"),  # APC
        ("\x1b^pm\x1b\\", "\\x1b^pm\\x1b\\"),  # PM
        ("\x1bXsos\x1b\\", "\\x1bXsos\\x1b\\"),  # SOS
        ("\x9b2J", "\\x9b2J"),  # one-byte C1 CSI
        ("\x9d0;title\x9c", "\\x9d0;title\\x9c"),  # one-byte OSC and ST
        ("\x1bc", "\\x1bc"),  # full reset
        ("ring\x07", "ring\\x07"),
        ("nul\x00byte", "nul\\x00byte"),
        ("back\x08space", "back\\x08space"),
        ("del\x7f", "del\\x7f"),
        ("abc\u202etxt.exe", "abc\\u202etxt.exe"),
        ("iso\u2066late\u2069", "iso\\u2066late\\u2069"),
        ("zero\u200bwidth\u200d\u2060", "zero\\u200bwidth\\u200d\\u2060"),
        ("\ufeffbom", "\\ufeffbom"),
        ("soft\u00adhyphen", "soft\\xadhyphen"),
        ("line\u2028sep\u2029", "line\\u2028sep\\u2029"),
        ("tag\U000e0041", "tag\\U000e0041"),
        ("lone\ud800surrogate", "lone\\ud800surrogate"),
    ],
)
def test_hostile_sequences_are_shown_literally(raw: str, shown: str) -> None:
    out = sanitize(raw)
    assert out == shown
    assert_terminal_safe(out)


def test_plain_text_tab_newline_and_unicode_are_untouched() -> None:
    text = "GPU 0: NVIDIA A100\tECC ok\nschön — 日本語 🚀 [bold]not markup[/bold]"
    assert sanitize(text) == text


def test_carriage_returns() -> None:
    assert sanitize("a\r\nb") == "a\nb"
    assert sanitize("progress 10%\rprogress 20%") == "progress 10%\\rprogress 20%"
    assert sanitize("a\r\nb", keep_newlines=False) == "a\\nb"


def test_one_line_fields_show_newlines() -> None:
    out = sanitize("name\ninjected: line", keep_newlines=False)
    assert out == "name\\ninjected: line"
    assert_terminal_safe(out, newlines=False)


def test_every_control_character_is_escaped() -> None:
    controls = [chr(c) for c in [*range(0x20), *range(0x7F, 0xA0)] if chr(c) not in "\t\n"]
    out = sanitize("".join(controls))
    assert_terminal_safe(out)
    assert out.count("\\") == len(controls)


def test_format_table_covers_every_cf_code_point() -> None:
    covered = {c for first, last in FORMAT_CHAR_RANGES for c in range(first, last + 1)}
    cf = {c for c in range(sys.maxunicode + 1) if unicodedata.category(chr(c)) == "Cf"}
    assert cf - covered == set()
    out = sanitize("".join(chr(c) for c in sorted(cf)))
    assert_terminal_safe(out)


def test_max_len_cuts_with_marker_counting_hidden_input() -> None:
    out = sanitize("x" * 100, max_len=30)
    assert len(out) <= 30
    body, marker = out.split("…")
    assert marker == f" [+{100 - len(body)} chars]"
    assert sanitize("short", max_len=30) == "short"


def test_max_len_never_splits_an_escape() -> None:
    out = sanitize("\x1b" * 50, max_len=25)
    assert len(out) <= 25
    body = out.split("…")[0]
    assert re.fullmatch(r"(\\x1b)+", body)
    assert out.endswith(f"[+{50 - body.count('x1b')} chars]")


def test_max_len_counts_expansion() -> None:
    # 20 input characters expand to 80 output characters: the result must still fit.
    out = sanitize("\x00" * 20, max_len=40)
    assert len(out) <= 40
    assert "[+" in out


def test_omitted_tail_is_reported_even_when_text_fits() -> None:
    assert sanitize("abc", max_len=100, omitted_tail=7) == "abc… [+7 chars]"


def test_decode_bytes_replaces_invalid_utf8() -> None:
    assert decode_bytes(b"ok \xff\xfe end") == "ok \ufffd\ufffd end"
    assert decode_bytes("naïve".encode()) == "naïve"
    # A C1 CSI encoded as valid UTF-8 decodes to U+009B; sanitize must still catch it.
    decoded = decode_bytes(b"\xc2\x9b2J")
    assert decoded == "\x9b2J"
    assert sanitize(decoded) == "\\x9b2J"
    # A raw 0x9b byte is not UTF-8 at all.
    assert decode_bytes(b"\x9b2J") == "\ufffd2J"
    assert decode_bytes(bytearray(b"a\xc3")) == "a\ufffd"


def test_log_lines_strip_colour_but_show_other_sequences() -> None:
    text = "\x1b[32mINFO\x1b[0m started\r\n\x1b[2Jcleared\nplain\n"
    assert sanitize_log_lines(text) == ["INFO started", "\\x1b[2Jcleared", "plain"]


def test_log_lines_split_progress_redraws() -> None:
    assert sanitize_log_lines("epoch 1  10%\repoch 1  20%\rdone\n") == ["epoch 1  10%", "epoch 1  20%", "done"]


def test_log_lines_keep_empty_lines_and_cut_long_ones() -> None:
    lines = sanitize_log_lines("a\n\nb" + "y" * 5000 + "\n", max_line=100)
    assert lines[:2] == ["a", ""]
    assert len(lines) == 3
    assert len(lines[2]) <= 100
    assert lines[2].startswith("by")
    kept = lines[2].split("…")[0]
    assert lines[2].endswith(f"[+{5001 - len(kept)} chars]")
    assert sanitize_log_lines("") == []


def test_log_lines_are_all_terminal_safe() -> None:
    lines = sanitize_log_lines("\x9b31m\x1b]0;t\x07\u202e\x00\x1b[1;31mx\x1b[m\n" * 3)
    assert len(lines) == 3
    for line in lines:
        assert_terminal_safe(line, newlines=False)
        assert "x" in line and "\\x1b[1;31m" not in line


def test_strip_sgr_only_removes_colour() -> None:
    assert strip_sgr("\x1b[1;38;5;196mred\x1b[0m\x1b[2J") == "red\x1b[2J"


def test_random_hostile_text_is_safe_and_stable() -> None:
    rng = random.Random(1234)
    alphabet = ["\x1b", "[", "]", "\x07", "\x9b", "\x9c", "\u202e", "\u200b", "\x00", "\r", "\n", "\t", "a",
                "\ud83d", "\U000e0020", "\u2028", "\x7f", "\\", "m", "2", ";"]
    for _ in range(300):
        text = "".join(rng.choice(alphabet) for _ in range(rng.randint(0, 60)))
        once = sanitize(text)
        assert_terminal_safe(once)
        assert is_clean(once)
        assert sanitize(once) == once
        for line in sanitize_log_lines(text):
            assert_terminal_safe(line, newlines=False)


def test_is_clean_detects_what_sanitize_escapes() -> None:
    assert is_clean("tab\tand\nnewline")
    assert not is_clean("\x1b[0m")
    assert not is_clean("a\u200bb")
    assert not is_clean("one\nline", allow_newlines=False)


def _seconds(func: object, arg: str, runs: int = 1) -> float:
    """The best of `runs` timings, in this process's CPU time (other processes on a busy machine do not count)."""
    best = float("inf")
    for _ in range(runs):
        start = time.process_time()
        func(arg)  # type: ignore[operator]
        best = min(best, time.process_time() - start)
    return best


def test_unterminated_sequences_are_linear() -> None:
    pathological = "\x1b[" * 100_000
    out = sanitize(pathological)
    assert out == "\\x1b[" * 100_000
    small, large = "\x1b[1" * 350_000, "\x1b[1" * 3_500_000  # ~1 MB and ~10 MB, no final byte anywhere
    # A quadratic scan would be ~100x for 10x the input; a linear one ~10x.
    ratio = _seconds(sanitize, large, 2) / max(_seconds(sanitize, small, 3), 1e-4)
    assert ratio < 20
    assert _seconds(sanitize_log_lines, large) < 10  # it finishes; the ratio above is the real check
