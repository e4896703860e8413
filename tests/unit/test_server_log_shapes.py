"""The log shapes of the servers users run (issue 23, class 5): tornado and Jupyter, uvicorn, gunicorn, Triton,
vLLM (its V0 and V1 engines), Ray. Their prefixes are read for the level, and the root error is preferred over a
last line that only says the server gave up or points to the stack trace. Real wording throughout."""

from __future__ import annotations

import pytest

from core.diagnosis.log_lines import read_line
from core.diagnosis.log_scan import explaining_line


def lines(text: str) -> list[str]:
    return text.strip("\n").split("\n")


@pytest.mark.parametrize(
    ("line", "level", "body"),
    [
        ("[C 2026-11-30 11:57:28.871 ServerApp] Bad config encountered during initialization: x", "critical",
         "Bad config encountered during initialization: x"),
        ("[E 241130 11:57:28 web:2243] 500 GET /api (10.0.0.1) 3.21ms", "error", "500 GET /api (10.0.0.1) 3.21ms"),
        ("[W 11:57:28.871 NotebookApp] Notebook app is deprecated", "warning", "Notebook app is deprecated"),
        ("ERROR:    Exception in ASGI application", "error", "Exception in ASGI application"),
        ("INFO:     Waiting for application startup.", "info", "Waiting for application startup."),
        ("[2026-11-30 11:32:01 +0000] [7] [ERROR] Exception in worker process", "error",
         "Exception in worker process"),
        ("2026-11-30 11:32:02,412\tERROR tune_controller.py:1331 -- Trial task failed", "error",
         "Trial task failed"),
        ("(TrainWorker pid=4121, ip=10.233.64.17) ValueError: bad", None, "ValueError: bad"),
        ("E1130 11:31:41.502119 1 model_lifecycle.cc:638] failed to load 'm' version 1", "error",
         "failed to load 'm' version 1"),
        ("ERROR 11-30 11:40:09 [core.py:515] EngineCore failed to start.", "error", "EngineCore failed to start."),
        ("ERROR 404: Not Found.", None, "ERROR 404: Not Found."),
    ],
)
def test_server_prefixes_are_read_for_their_level(line: str, level: str | None, body: str) -> None:
    _, got_level, got_body = read_line(line)
    assert (got_level, got_body) == (level, body)


JUPYTER_OLD = lines("""
[I 11:57:27.100 NotebookApp] Serving notebooks from local directory: /home/jovyan
[E 11:57:28.871 NotebookApp] Exception while loading config file /home/jovyan/.jupyter/jupyter_notebook_config.py
[C 11:57:28.872 NotebookApp] Running as root is not recommended. Use --allow-root to bypass.
""")
UVICORN_IMPORT = lines("""
ERROR:    Error loading ASGI app. Could not import module "service.main".
""")
VLLM_V1 = lines("""
INFO 11-30 11:40:02 [core.py:58] Initializing a V1 LLM engine (v0.9.1) with config: model='mistralai/Mistral-7B'
ERROR 11-30 11:40:09 [core.py:515] EngineCore failed to start.
ERROR 11-30 11:40:09 [core.py:515] Traceback (most recent call last):
ERROR 11-30 11:40:09 [core.py:515]   File "/usr/local/lib/python3.12/dist-packages/vllm/v1/engine/core.py", line 506
ERROR 11-30 11:40:09 [core.py:515]     engine_core = EngineCoreProc(*args, **kwargs)
ERROR 11-30 11:40:09 [core.py:515] ValueError: To serve at least one request with the models's max seq len (32768), \
(16.00 GiB KV cache is needed, which is larger than the available KV cache memory (9.62 GiB).
Traceback (most recent call last):
  File "/usr/local/bin/vllm", line 10, in <module>
    sys.exit(main())
RuntimeError: Engine core initialization failed. See root cause above. Failed core proc(s): {}
""")
RAY_ACTOR = lines("""
Traceback (most recent call last):
  File "/app/serve.py", line 40, in <module>
    ray.get(handle.ready.remote())
ray.exceptions.RayTaskError(FileNotFoundError): ray::ModelActor.__init__() (pid=981, ip=10.0.3.7)
  File "/app/model.py", line 12, in __init__
    self.tok = AutoTokenizer.from_pretrained(path)
FileNotFoundError: [Errno 2] No such file or directory: '/models/tokenizer.json'
""")
GUNICORN_ONLY_SUMMARY = lines("""
[2026-11-30 11:32:01 +0000] [1] [INFO] Starting gunicorn 22.0.0
[2026-11-30 11:32:03 +0000] [1] [ERROR] Worker (pid:7) exited with code 3
[2026-11-30 11:32:03 +0000] [1] [ERROR] Reason: Worker failed to boot.
""")


@pytest.mark.parametrize(
    ("log", "fragment"),
    [
        (JUPYTER_OLD, "Running as root is not recommended"),
        (UVICORN_IMPORT, 'Could not import module "service.main"'),
        (VLLM_V1, "ValueError: To serve at least one request"),
        (RAY_ACTOR, "FileNotFoundError: [Errno 2] No such file or directory: '/models/tokenizer.json'"),
        # With nothing but the server's last words, they are what there is.
        (GUNICORN_ONLY_SUMMARY, "Reason: Worker failed to boot."),
    ],
)
def test_the_root_error_is_chosen_over_a_line_that_gave_up(log: list[str], fragment: str) -> None:
    found = explaining_line(log)
    assert found is not None and fragment in found.text, found
