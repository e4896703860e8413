"""clean()/clean_log(): the single entry point redacts through invisible characters and leaves nothing raw."""

from __future__ import annotations

import time
import unicodedata

import pytest

from core.safety.sanitize import is_clean
from core.safety.untrusted import clean, clean_log

GITHUB = "ghp_" + "aB3dE5gH7jK9mN1pQ3sT5vW7yZ9bC1dE3fG5"
AWS = "AKIA" + "IOSFODNN7EXAMPLE"

HOSTILE = [
    "\x1b[2J\x1b[H",  # clear screen, home
    "\x1b]52;c;ZXZpbA==\x07",  # OSC 52: write the clipboard
    "\x1b]8;;https://evil.example/\x1b\\innocent\x1b]8;;\x1b\\",  # OSC 8 hyperlink
    "\x9b31m\x9b2J",  # C1 CSI
    "txt\u202egnp.exe",  # bidi override
    "ring\x07ring",  # BEL
    "nul\x00nul",  # NUL
    "lone \ud83d surrogate \udc00",
    "\u2028\u2029\ufeff\u200b\u2066\u2069\U000e0041",
    "\x1bP+q544e\x1b\\\x1b_apc\x1b\\",
    "\x1b[" * 50,
    "[@click=app.quit]x[/bold] [link=https://x]y[/link]",  # markup stays plain text, harmless here
]


def assert_terminal_safe(text: str, *, newlines: bool = True) -> None:
    bad = [
        c
        for c in text
        if (ord(c) < 0x20 and c not in "\n\t")
        or 0x7F <= ord(c) <= 0x9F
        or unicodedata.category(c) in ("Cf", "Cs", "Zl", "Zp")
    ]
    assert bad == [], f"unsafe characters left: {bad!r}"
    assert newlines or "\n" not in text
    text.encode("utf-8")


@pytest.mark.parametrize("text", HOSTILE)
def test_hostile_text_comes_out_safe_and_stable(text: str) -> None:
    once = clean(text)
    assert_terminal_safe(once)
    twice = clean(once)
    assert_terminal_safe(twice)
    assert twice == once  # cleaning again neither grows nor changes it
    assert_terminal_safe(clean(text, one_line=True), newlines=False)


def test_tampering_stays_visible_when_nothing_is_redacted() -> None:
    assert clean("abc\u202etxt.exe") == "abc\\u202etxt.exe"
    assert clean("a\u200bb") == "a\\u200bb"


@pytest.mark.parametrize(
    "text",
    [
        "gh\u200bp_" + GITHUB[4:],
        GITHUB[:10] + "\u200d" + GITHUB[10:],
        GITHUB[:10] + "\u202e" + GITHUB[10:],
        "AKIA\u00ad" + AWS[4:],
        AWS[:6] + "\ufeff" + AWS[6:],
        "API_K\u200bEY=hunter2value",
        "Bearer \u200b" + GITHUB.replace("ghp_", "Zq"),
        "postgres://admin:\u200bs3cr3tpass@db",
    ],
)
def test_invisible_characters_cannot_split_a_secret(text: str) -> None:
    out = clean(text)
    assert "<redacted" in out
    for leak in ("hunter2", "s3cr3t", GITHUB[12:24], AWS[8:], "E5gH7jK9"):
        assert leak not in out
    assert_terminal_safe(out)


def test_secret_next_to_tampering_is_still_redacted() -> None:
    out = clean(f"\x1b]52;c;x\x07 token {GITHUB}\n\u202eend")
    assert GITHUB not in out and "<redacted>" in out
    assert out.startswith("\\x1b]52;c;x\\x07")
    assert_terminal_safe(out)


def test_redaction_happens_before_sanitising() -> None:
    # The key name is only recognisable without the zero-width space; the value goes, and the zero-width
    # space (in the name, not the secret) and the ESC are put back and shown.
    assert clean("PASS\u200bWORD=x \x1b[2J") == "PASS\\u200bWORD=<redacted: 1 chars> \\x1b[2J"


def test_non_string_inputs() -> None:
    assert clean(None) == ""
    assert clean(137) == "137"
    assert clean(b"bytes \xff") == "bytes \ufffd"
    assert clean(["a\x1b"]) == "['a\\x1b']"  # the list repr already escapes ESC

    class Broken:
        def __str__(self) -> str:
            raise RuntimeError("boom")

    assert clean(Broken()) == "<unprintable Broken>"


def test_max_len_and_one_line() -> None:
    out = clean("name\n" + "x" * 10_000, max_len=100, one_line=True)
    assert len(out) <= 100
    assert out.startswith("name\\nxxx")
    assert out.endswith(f"[+{10_005 - len(out.split('…')[0]) + 1} chars]")
    assert clean("x" * 50, max_len=None) == "x" * 50


def test_huge_field_is_cut_before_redaction_with_exact_count() -> None:
    text = "y" * 5_000_000
    out = clean(text)
    assert len(out) <= 4096
    shown = len(out.split("…")[0])
    assert out.endswith(f"[+{5_000_000 - shown} chars]")


def test_clean_log_bytes() -> None:
    data = (
        b"\x1b[32mINFO\x1b[0m loading model\r\n"
        b"HF_TOKEN=\x1b[1mhf_AbCdEfGhIjKlMnOpQrStUvWxYz01234567\x1b[0m\n"
        b"bad utf8 \xff\xfe and \xc2\x9b2J\n"
        b"-----BEGIN EC PRIVATE KEY-----\nMHcCAQEEIBm\n-----END EC PRIVATE KEY-----\n"
        b"epoch 1 10%\repoch 1 20%\n"
    )
    lines = clean_log(data)
    assert lines == [
        "INFO loading model",
        "HF_TOKEN=<redacted: 37 chars>",
        "bad utf8 \ufffd\ufffd and \\x9b2J",
        "<redacted: PEM private key>",
        "epoch 1 10%",
        "epoch 1 20%",
    ]
    for line in lines:
        assert_terminal_safe(line, newlines=False)


def test_clean_log_colour_inside_token_does_not_hide_it() -> None:
    (line,) = clean_log(f"using {GITHUB[:10]}\x1b[0m{GITHUB[10:]}")
    assert line == "using <redacted>"


def test_clean_log_long_lines_are_cut() -> None:
    lines = clean_log("a" * 3000 + "\nshort", max_line=500)
    assert len(lines[0]) <= 500 and lines[0].endswith(" chars]")
    assert lines[1] == "short"


def _corpus(size: int) -> str:
    plain = "2024-05-01T10:00:00Z step=12 loss=0.42 \x1b[31mwarn\x1b[0m \x1b]0;t\x07 lr=0.001 \x1b[\n"
    secret = f"2024-05-01T10:00:00Z \u202e API_KEY=abc {GITHUB} url=https://u:pw@h/x\n"
    unit = plain * 19 + secret
    return unit * (size // len(unit))


def _seconds(func: object, arg: str) -> float:
    # This process's CPU time: other processes on a busy machine do not count.
    start = time.process_time()
    func(arg)  # type: ignore[operator]
    return time.process_time() - start


def test_processing_time_is_linear() -> None:
    small, large = _corpus(1_000_000), _corpus(10_000_000)
    ratio = _seconds(clean_log, large) / max(_seconds(clean_log, small), 1e-3)
    assert ratio < 20, f"10x the input took {ratio:.1f}x the time"
    out = clean(small, max_len=None)
    assert is_clean(out) and GITHUB not in out and "<redacted" in out


def test_a_megabyte_of_splitting_characters_stays_small_in_memory() -> None:
    """A log of NUL bytes (a gzip bomb of zeros cut at the log cap) is one run of splitting characters; it must
    not cost a regex frame per character (it once peaked at 146 MiB for 1 MiB)."""
    import tracemalloc

    from core.safety.untrusted import clean_log

    tracemalloc.start()
    try:
        lines = clean_log(b"\0" * (1 << 20) + b"\nghp_" + b"a1B2" * 9 + b"\n", max_line=4000)
        peak = tracemalloc.get_traced_memory()[1]
    finally:
        tracemalloc.stop()
    assert peak < 32 << 20, f"peak {peak / 2**20:.1f} MiB"
    assert lines[0].startswith("\\x00\\x00") and "ghp_a1B2" not in "\n".join(lines)


@pytest.mark.parametrize("before", [50, 60, 70, 76])
def test_a_raw_value_preview_is_redacted_before_it_is_cut(before: int) -> None:
    """A parse problem quotes the bad value shortened; a token cut in two would match no rule."""
    from core.models.base import preview

    token = "ghp_" + "A1b2" * 9
    shown = preview("x" * before + " " + token + " and more text after it" * 5)
    assert "A1b2A1" not in shown and "ghp_A" not in shown
    assert shown.endswith("chars)")
