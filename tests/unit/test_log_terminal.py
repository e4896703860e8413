"""Log lines as a terminal writes them (issue 37.2): carriage returns leave what is visible, and a tool's error
prefix written straight after a progress meter is read wherever it stands. Real meters: curl's, wget's dots, pip's
and tqdm's bars, git's `Receiving objects`."""

from __future__ import annotations

import pytest

from core.diagnosis.log_lines import read_line
from core.diagnosis.log_scan import LogKind, explaining_line
from core.safety.sanitize import terminal_line
from core.safety.untrusted import clean_log
from tests.engine.ff_terminal_cases import CURL_HEAD, GIT_FETCH, curl_meter

CURL_6 = curl_meter(3, "curl: (6) Could not resolve host: models.internal.example")
CURL_22 = curl_meter(1, "curl: (22) The requested URL returned error: 404")


def test_terminal_line_keeps_what_is_left_visible() -> None:
    assert terminal_line(["epoch 1  10%", "epoch 1  20%", "done"]) == "doneh 1  20%"
    assert terminal_line(["", "  0 0", "  0 0 0curl: (6) x"]) == "  0 0 0curl: (6) x"
    assert terminal_line(["50%", ""]) == "50%"
    assert terminal_line([]) == ""
    # A hostile line of a million redraws under a long one costs what it writes, and shows what a terminal would.
    assert terminal_line(["x" * 2000, *(["ab", ""] * 500_000)]) == "ab" + "x" * 1998


def test_clean_log_counts_lines_by_newline_and_shows_each_as_a_terminal_would() -> None:
    shown = clean_log(CURL_6.encode())
    assert len(shown) == 3  # the meter's header (2 lines) and one line where the meter was redrawn
    assert shown[:2] == CURL_HEAD.rstrip("\n").split("\n")
    assert shown[2].endswith("     0curl: (6) Could not resolve host: models.internal.example")
    assert clean_log(b"a\r\nb\r\n") == ["a", "b"]
    assert clean_log(b"progress 50%\r") == ["progress 50%"]
    assert clean_log(b"\r\r\n") == [""]


def test_a_redraw_never_joins_or_shows_a_secret() -> None:
    # Each part is redacted before the redraws are laid over each other: the token's tail cannot show.
    token = "ghp_" + "A1b2C3d4E5f6G7h8I9j0K1l2M3n4O5p6Q7r8"
    (line,) = clean_log(f"using {token} to clone\rxx".encode())
    assert token[8:] not in line and "redacted" in line
    # Redaction that merges lines (a private key) keeps one line per part.
    pem = b"-----BEGIN EC PRIVATE KEY-----\nMHcCAQEEIBm\n-----END EC PRIVATE KEY-----\nstep 1\rstep 2\n"
    assert clean_log(pem) == ["<redacted: PEM private key>", "step 1", "step 2"]


@pytest.mark.parametrize(
    ("log", "kind", "words"),
    [
        (CURL_6, LogKind.CLI_ERROR, "curl: (6) Could not resolve host"),
        (CURL_22, LogKind.CLI_ERROR, "curl: (22) The requested URL returned error: 404"),
        (GIT_FETCH, LogKind.CLI_ERROR, "fatal: fetch-pack: invalid index-pack output"),
        (
            "Connecting to artifacts.internal.example (10.0.4.12:80)\n"
            "saving to '/data/shard-0003.tar'\n"
            "shard-0003.tar        41% |*************                   |  402M  0:00:12 ETA"
            "wget: short read: Connection reset by peer\n",
            LogKind.CLI_ERROR,
            "wget: short read",
        ),
        (
            "Collecting torch==2.3.1\n"
            "  Downloading torch-2.3.1-cp311-cp311-manylinux1_x86_64.whl (779.1 MB)\n"
            "     \u2501\u2501\u2501\u2501\u2501\u2501\u2501\u2578\u2501\u2501 512.0/779.1 MB 48.2 MB/s eta 0:00:06"
            "error: [Errno 28] No space left on device\n",
            LogKind.ERROR_LINE,
            "No space left on device",
        ),
    ],
    ids=["curl-dns", "curl-404", "git", "busybox-wget", "pip"],
)
def test_a_tool_error_after_a_meter_explains(log: str, kind: LogKind, words: str) -> None:
    shown = clean_log(log.encode())
    finding = explaining_line(shown)
    assert finding is not None and words in finding.text and finding.kind is kind, finding
    # The same log handed over raw, one string per `\n` line with its `\r` inside, reads the same.
    raw = explaining_line(log.rstrip("\n").split("\n"))
    assert raw is not None and (raw.line_no, raw.kind) == (finding.line_no, finding.kind)
    assert "\r" not in raw.text and words in raw.text


@pytest.mark.parametrize(
    ("line", "body"),
    [
        ("  0     0    0     0 --:--:--  0:00:02 --:--:--     0curl: (7) Failed to connect", "curl: (7) Failed to "
         "connect"),
        ("Receiving objects:  37% (17839/48213), 61.02 MiB | 10.11 MiB/serror: RPC failed; curl 92",
         "error: RPC failed; curl 92"),
        ("model.safetensors:  45%|\u2588\u2588\u2588\u2588\u258c     | 2.1G/4.6G [00:10<00:12, 210MB/s]fatal: "
         "destination path exists", "fatal: destination path exists"),
        # Prose before the word is no meter: the line is left as it is.
        ("retrying after connection error: reset by peer", "retrying after connection error: reset by peer"),
        ("INFO fetched 3 files, wget: not needed", "fetched 3 files, wget: not needed"),
    ],
)
def test_a_tool_prefix_is_read_from_where_it_stands_after_a_meter(line: str, body: str) -> None:
    assert read_line(line)[2] == body


def test_a_carriage_return_inside_a_raw_line_keeps_its_stamp() -> None:
    stamp, _, body = read_line("2026-11-30 11:00:01,000 step 1\rstep 2\rERROR: disk full at step 3")
    assert stamp is not None and body == "disk full at step 3"
