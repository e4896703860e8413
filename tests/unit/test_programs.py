"""The program that ended a container, and what its exit code means (issue 37.3): a shell script's status is the
shell's, unless the script is one command or its log says which command failed; words a script only prints are
not programs."""

from __future__ import annotations

import pytest

from core.diagnosis.kube_evidence import LogInstance, log_line_text
from core.diagnosis.log_scan import explaining_line
from core.diagnosis.programs import exit_note, program_of
from core.sources.kube_types import LogExcerpt


@pytest.mark.parametrize(
    ("command", "args", "image", "program"),
    [
        # A script of several commands ends with the shell's status, whatever words it holds.
        (["sh", "-c", 'echo "Installing Java agent"; cp /agent/a.jar /shared/ || exit 1'], None, "busybox:1.36", "sh"),
        (["sh", "-c", "wget -q -O /w/app.jar http://x/app.jar; if [ -s /w/app.jar ] then echo ok; fi"], None,
         "busybox:1.36", "sh"),
        (["/bin/bash", "-c"], ["cd /workspace && python train.py"], None, "bash"),
        (["bash", "/scripts/run.sh"], None, None, "bash"),
        (["busybox", "sh", "-c", "echo Java; exit 3"], None, None, "sh"),
        ('bash -c "python train.py --lr $(cat lr.txt))"', None, None, "bash"),
        (["sh", "-c", "curl -fSL -o /d/w.bin https://x/w.bin && python finetune.py"], None, None, "sh"),
        # One command (set lines, assignments and exec aside) is that command's.
        (["sh", "-c", "set -e; aws s3 sync s3://acme/x /data"], None, None, "aws"),
        (["/bin/sh", "-ec", "exec python serve.py --port 8080"], None, None, "python"),
        ('sh -c "NCCL_DEBUG=INFO torchrun --nproc-per-node 8 train.py"', None, None, "python"),
        (["sh", "-c", "env HF_HOME=/cache python x.py"], None, None, "python"),
        (["sh", "-c", "bash -c 'python x.py'"], None, None, "python"),
        (["sh", "-c", "echo Java"], None, None, None),
        # Not a shell: the first known command word; a capitalised word is not a command.
        (["echo", "Java"], None, None, None),
        (None, None, "docker.io/curlimages/curl:8.8.0", "curl"),
    ],
)
def test_the_program_that_ends_the_container(command: object, args: object, image: str | None, program: str) -> None:
    assert program_of(command, args, image) == program  # type: ignore[arg-type]


def test_a_shell_explains_its_own_exit_codes() -> None:
    assert "syntax error" in exit_note(2, "sh") and exit_note(2, "sh").endswith("(sh exit status 2)")
    assert "not found" in exit_note(127, "bash")
    assert "passed on by the shell" in exit_note(6, "sh")
    assert exit_note(0, "sh") == "success"
    assert "SIGKILL" in exit_note(137, "sh")  # a signal is the signal, whoever ran
    assert "Java" not in exit_note(1, "sh")


def _cited(log: list[str], instance: LogInstance) -> str:
    finding = explaining_line(log)
    assert finding is not None
    return log_line_text(LogExcerpt("main", False, log, False), finding, instance)


def test_a_scripts_log_names_the_command_that_failed() -> None:
    log = ["  0     0    0     0 --:--:--  0:00:04 --:--:--     0curl: (6) Could not resolve host: models.internal"]
    text = _cited(log, LogInstance(exit_code=6, program="sh"))
    assert text.endswith("; exit 6: the host name could not be resolved (curl exit status 6)")
    # Only for a script: a container that runs curl itself already said so; an undocumented code adds nothing.
    assert "exit 6" not in _cited(log, LogInstance(exit_code=6, program="curl"))
    assert "exit 1" not in _cited(log, LogInstance(exit_code=1, program="sh"))


def test_a_syntax_error_in_a_script_run_by_another_shell_is_that_shells() -> None:
    log = ["bash: -c: line 1: syntax error near unexpected token `)'", "bash: -c: line 1: `python x.py)'"]
    finding = explaining_line(log)
    assert finding is not None and finding.line_no == 1 and finding.program == "bash"
    assert "(bash exit status 2)" in _cited(log, LogInstance(exit_code=2, program="sh"))
