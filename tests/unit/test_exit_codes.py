"""Exit-code meanings: fixed codes, 128+N signals by Linux number, and the system-signal rule."""

from __future__ import annotations

import pytest

from core.diagnosis.exit_codes import exit_code_meaning

SIGNAL_ROWS = [
    (129, 1, "SIGHUP"),
    (130, 2, "SIGINT"),
    (131, 3, "SIGQUIT"),
    (132, 4, "SIGILL"),
    (133, 5, "SIGTRAP"),
    (134, 6, "SIGABRT"),
    (135, 7, "SIGBUS"),
    (136, 8, "SIGFPE"),
    (137, 9, "SIGKILL"),
    (138, 10, "SIGUSR1"),
    (139, 11, "SIGSEGV"),
    (140, 12, "SIGUSR2"),
    (141, 13, "SIGPIPE"),
    (142, 14, "SIGALRM"),
    (143, 15, "SIGTERM"),
]


@pytest.mark.parametrize(("code", "number", "name"), SIGNAL_ROWS)
def test_signal_exit_codes_name_the_linux_signal(code: int, number: int, name: str) -> None:
    meaning = exit_code_meaning(code)
    assert meaning.code == code
    assert meaning.signal == number
    assert meaning.signal_name == name
    assert meaning.meaning


@pytest.mark.parametrize(
    ("code", "system"),
    [
        (137, True),
        (143, True),
        (139, False),
        (134, False),
        (135, False),
        (136, False),
        (132, False),
        (130, False),
        (129, False),
        (141, False),
        (1, False),
        (0, False),
    ],
)
def test_only_sigkill_and_sigterm_are_system_signals(code: int, system: bool) -> None:
    assert exit_code_meaning(code).is_system_signal is system


@pytest.mark.parametrize("code", [134, 135, 136, 139, 132])
def test_crash_signals_count_as_application_failure(code: int) -> None:
    meaning = exit_code_meaning(code)
    assert meaning.is_crash_signal
    assert meaning.is_app_failure


def test_sigint_is_neither_system_nor_crash_but_an_app_failure() -> None:
    meaning = exit_code_meaning(130)
    assert not meaning.is_system_signal
    assert not meaning.is_crash_signal
    assert meaning.is_app_failure


@pytest.mark.parametrize(
    ("code", "phrase"),
    [
        (0, "success"),
        (1, "generic application error"),
        (2, "usage"),
        (126, "not executable"),
        (127, "not found"),
        (128, "start error"),
        (255, "out of range"),
        (42, "application-specific"),
    ],
)
def test_fixed_codes(code: int, phrase: str) -> None:
    meaning = exit_code_meaning(code)
    assert phrase in meaning.meaning
    assert meaning.signal is None
    assert meaning.signal_name is None
    assert not meaning.is_system_signal


def test_success_is_not_a_failure() -> None:
    meaning = exit_code_meaning(0)
    assert meaning.is_success
    assert not meaning.is_app_failure


@pytest.mark.parametrize("code", [1, 7, 9, 15, 137, 143, 135])
def test_meanings_guess_no_cause_that_was_not_read(code: int) -> None:
    # An exit code says what happened, never why: no out-of-memory, probe or eviction is read from a number.
    meaning = exit_code_meaning(code).meaning.lower()
    for guess in ("out-of-memory", "oom", "liveness", "evict", "preempt", "/dev/shm", "usually", "often"):
        assert guess not in meaning, (code, meaning)


@pytest.mark.parametrize("code", [-1, -9, -2147483648])
def test_negative_codes_are_not_signals(code: int) -> None:
    meaning = exit_code_meaning(code)
    assert meaning.signal is None
    assert "negative" in meaning.meaning
    assert meaning.is_app_failure


@pytest.mark.parametrize("code", [256, 1000, 2**31])
def test_codes_above_255_are_reported_as_out_of_range(code: int) -> None:
    meaning = exit_code_meaning(code)
    assert meaning.signal is None
    assert "above 255" in meaning.meaning


def test_real_time_signal_has_number_but_no_name() -> None:
    meaning = exit_code_meaning(128 + 40)
    assert meaning.signal == 40
    assert meaning.signal_name is None
    assert "real-time" in meaning.meaning


def test_codes_above_signal_range_are_application_codes() -> None:
    meaning = exit_code_meaning(200)
    assert meaning.signal is None
    assert "application-specific" in meaning.meaning


def test_non_integer_input_gets_a_clear_meaning_not_a_crash() -> None:
    meaning = exit_code_meaning("137")  # type: ignore[arg-type]
    assert meaning.signal is None
    assert "not an exit code" in meaning.meaning
