"""The lookback window (`--lookback`, `--since`, the app's `l`): what is accepted, and what each refusal says."""

from __future__ import annotations

from datetime import timedelta

import pytest

from core.diagnosis.request import UsageError, parse_lookback


@pytest.mark.parametrize(
    ("text", "window"),
    [("90m", timedelta(minutes=90)), ("24h", timedelta(hours=24)), (" 7d ", timedelta(days=7)),
     ("52w", timedelta(weeks=52)), ("366d", timedelta(days=366))],
)
def test_accepted_windows(text: str, window: timedelta) -> None:
    assert parse_lookback(text) == window


@pytest.mark.parametrize(
    ("text", "said"),
    [
        ("53w", "longer than a year"),
        ("367d", "longer than a year"),
        ("99999999w", "longer than a year"),  # a long number is a long window, not a malformed one
        ("9" * 64 + "d", "longer than a year"),  # and never overflows the arithmetic
        ("0h", "longer than zero"),
        ("2y", "not understood"),
        ("-5h", "not understood"),
        ("", "not understood"),
    ],
)
def test_refused_windows_say_why(text: str, said: str) -> None:
    with pytest.raises(UsageError, match=said):
        parse_lookback(text)


@pytest.mark.parametrize("option", ["lookback", "since"])
def test_a_refusal_names_the_window_as_each_front_end_does(option: str) -> None:
    """The engine names the option as data; the command line says its flag, an MCP tool its argument, the app
    (and `str`) plain words."""
    from tui.commands.headless import flag

    with pytest.raises(UsageError) as refused:
        parse_lookback("2y", option)
    assert str(refused.value) == f"{option} '2y' is not understood: use a whole number and a unit m, h, d or w " \
        "(90m, 24h, 7d, 2w)"
    assert refused.value.worded(flag) == f"--{option} {str(refused.value).removeprefix(option + ' ')}"
    assert refused.value.worded(str.upper).startswith(f"{option.upper()} '2y'")


def test_an_option_with_words_is_named_after_them() -> None:
    from core.usage import Opt, sentence

    said = sentence("missing ", Opt("cluster_id", "a cluster id"), "; give ", Opt("max_workloads"), ".")
    assert str(said) == "missing a cluster id; give max workloads."
    assert said.worded(lambda o: "--" + o.replace("_", "-")) == "missing a cluster id (--cluster-id); give " \
        "--max-workloads."
    assert str(UsageError("plain text, no option")) == "plain text, no option"
