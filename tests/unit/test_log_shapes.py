"""The decisive log line: logger prefixes off, frames and shutdown notices skipped, the root exception over its
wrappers, the generic error shapes of runtimes and command line tools, and infrastructure lines over the CUDA or
NCCL error they cause. Real wording throughout (PyTorch, vLLM, torchrun, Go, Java, Node.js, the AWS CLI, gsutil,
curl, wget, git, pip, shells)."""

from __future__ import annotations

import pytest

from core.diagnosis.log_lines import read_line
from core.diagnosis.log_scan import LogKind, explaining_line, log_signals, scanned
from core.diagnosis.signals import SignalKind


def lines(text: str) -> list[str]:
    return text.strip("\n").split("\n")


FRAME_DUMP = lines("""
step 9300 loss 1.102
RuntimeError: CUDA error: an illegal instruction was encountered
CUDA kernel errors might be asynchronously reported at some other API call, so the stacktrace below might be incorrect.
Exception raised from c10_cuda_check_implementation at ../c10/cuda/CUDAException.cpp:43 (most recent call first):
frame #0: c10::Error::Error(c10::SourceLocation, std::string) + 0x57 (0x7f3f0c4b0897 in /usr/lib/libc10.so)
frame #1: c10::cuda::c10_cuda_check_implementation(int, char const*, char const*, int, bool) + 0x118 (0x7f in x.so)
""")

VLLM = lines("""
INFO 02-07 11:28:20 llm_engine.py:232] Initializing an LLM engine (v0.6.4) with config: model='meta-llama/Llama-3'
ERROR 02-07 11:28:26 engine.py:389] ValueError: The model's max seq len (131072) is larger than the maximum number \
of tokens that can be stored in KV cache (45856).
ERROR 02-07 11:28:30 multiproc_worker_utils.py:116] Worker VllmWorkerProcess pid 456 died, exit code: -15
INFO 02-07 11:28:30 multiproc_worker_utils.py:120] Killing local vLLM worker processes
""")

TORCHRUN = lines("""
[rank3]: Traceback (most recent call last):
[rank3]:   File "/app/train.py", line 88, in <module>
[rank3]:     main()
[rank3]: AssertionError: gradient norm is nan at step 1200
W1130 11:47:36.402000 140234 torch/distributed/elastic/multiprocessing/api.py:897] Sending process 412 closing \
signal SIGTERM
E1130 11:47:36.902000 140234 torch/distributed/elastic/multiprocessing/api.py:869] failed (exitcode: 1) local_rank: 3 \
(pid: 415) of binary: /usr/bin/python
Traceback (most recent call last):
  File "/usr/local/bin/torchrun", line 8, in <module>
    sys.exit(main())
torch.distributed.elastic.multiprocessing.errors.ChildFailedError:
""")


@pytest.mark.parametrize(
    ("log", "kind", "fragment"),
    [
        (FRAME_DUMP, LogKind.ERROR_LINE, "RuntimeError: CUDA error: an illegal instruction"),
        (VLLM, LogKind.ERROR_LINE, "ValueError: The model's max seq len"),
        (TORCHRUN, LogKind.PYTHON_EXCEPTION, "AssertionError: gradient norm is nan"),
        (["E1130 11:47:36.402000 140234 server.cc:88] could not bind port 8080: address already in use"],
         LogKind.ERROR_LINE, "could not bind port"),
    ],
    ids=["frame-dump", "vllm-prefix-and-shutdown", "torchrun-wrapper", "glog"],
)
def test_decisive_line_not_the_last_line_with_error(log: list[str], kind: LogKind, fragment: str) -> None:
    finding = explaining_line(log)
    assert finding is not None and finding.kind is kind, finding
    assert fragment in finding.text


@pytest.mark.parametrize(
    ("line", "level", "body"),
    [
        ("ERROR 02-07 11:28:26 engine.py:389] ValueError: bad", "error", "ValueError: bad"),
        ("E1130 11:47:36.402000 140234 torch/x.py:869] failed", "error", "failed"),
        ("[rank3]:[E1130 11:25:00.412 ProcessGroupNCCL.cpp:616] [Rank 3] Watchdog", "error", "[Rank 3] Watchdog"),
        ("WARNING:torch.distributed.elastic.multiprocessing.api:Sending process 1 closing signal SIGTERM", "warning",
         "Sending process 1 closing signal SIGTERM"),
        ("2026-11-30 11:24:49,517 - trainer - ERROR - loss diverged", "error", "loss diverged"),
        ("[2026-11-30 11:24:49,517][trainer][ERROR] - loss diverged", "error", "loss diverged"),
        ("2026-11-30T11:24:49.517Z stdout F [rank0]: KeyError: 'x'", None, "KeyError: 'x'"),
        ("ERROR 404: Not Found.", None, "ERROR 404: Not Found."),
    ],
)
def test_prefixes_come_off(line: str, level: str | None, body: str) -> None:
    _, got_level, got_body = read_line(line)
    assert (got_level, got_body) == (level, body)


@pytest.mark.parametrize(
    ("log", "kind", "fragment"),
    [
        (["panic: runtime error: invalid memory address or nil pointer dereference",
          "[signal SIGSEGV: segmentation violation code=0x1 addr=0x0 pc=0x4a1b2c]", "", "goroutine 1 [running]:",
          "main.main()", "\t/app/main.go:12 +0x1d"], LogKind.GO_PANIC, "panic: runtime error"),
        (['Exception in thread "main" java.lang.IllegalStateException: job failed',
          "\tat com.acme.Job.run(Job.java:42)",
          "Caused by: java.io.FileNotFoundException: /data/train.csv (No such file or directory)",
          "\tat java.base/java.io.FileInputStream.open0(Native Method)", "\t... 3 more"],
         LogKind.JAVA_EXCEPTION, "Caused by: java.io.FileNotFoundException"),
        (["node:internal/modules/cjs/loader:1228", "  throw err;", "  ^", "",
          "Error: Cannot find module 'express'", "Require stack:", "- /app/server.js"],
         LogKind.ERROR_LINE, "Cannot find module 'express'"),
        (["TypeError: Cannot read properties of undefined (reading 'shape')",
          "    at Object.<anonymous> (/app/index.js:3:5)", "    at Module._compile (node:internal:1256:14)"],
         LogKind.NODE_ERROR, "TypeError: Cannot read properties"),
        (["download failed: s3://acme-data/shard-0.parquet to ./shard-0.parquet An error occurred (NoSuchBucket) "
          "when calling the GetObject operation: The specified bucket does not exist"],
         LogKind.CLI_ERROR, "NoSuchBucket"),
        (["fatal error: An error occurred (403) when calling the HeadObject operation: Forbidden"],
         LogKind.CLI_ERROR, "(403)"),
        (["Copying gs://acme-data/shard-0.parquet...", "CommandException: No URLs matched: gs://acme-data/shard-0*"],
         LogKind.CLI_ERROR, "No URLs matched"),
        (["curl: (6) Could not resolve host: data.acme.internal"], LogKind.CLI_ERROR, "Could not resolve host"),
        (["--2026-11-30 11:20:01--  https://data.acme.io/x.tar",
          "HTTP request sent, awaiting response... 404 Not Found", "2026-11-30 11:20:01 ERROR 404: Not Found."],
         LogKind.CLI_ERROR, "ERROR 404"),
        (["Cloning into '/src'...", "fatal: repository 'https://github.com/acme/missing.git/' not found"],
         LogKind.CLI_ERROR, "repository"),
        (["ERROR: Could not find a version that satisfies the requirement torch==9.9 (from versions: 2.3.0)",
          "ERROR: No matching distribution found for torch==9.9"], LogKind.CLI_ERROR, "No matching distribution"),
        (["/bin/sh: 1: pyhton: not found"], LogKind.COMMAND_NOT_FOUND, "pyhton"),
    ],
    ids=["go", "java", "node-module", "node-stack", "aws", "aws-fatal", "gsutil", "curl", "wget", "git", "pip", "sh"],
)
def test_runtime_and_cli_error_shapes(log: list[str], kind: LogKind, fragment: str) -> None:
    finding = explaining_line(log)
    assert finding is not None and finding.kind is kind, finding
    assert fragment in finding.text


def test_infrastructure_line_over_the_nccl_error_it_causes() -> None:
    log = [
        "gpu-2:41:99 [0] NCCL WARN NET/IB : Got completion from peer 10.0.0.7<44206> with status=12 opcode=0 len=0 "
        "vendor err 129 (Recv)",
        "Traceback (most recent call last):",
        '  File "/app/train.py", line 9, in <module>',
        "torch.distributed.DistBackendError: NCCL error in: NCCLUtils.hpp:275, remote process exited or there was a "
        "network error",
    ]
    finding = explaining_line(log)
    assert finding is not None and (finding.line_no, finding.kind) == (1, LogKind.NETWORK_FABRIC)


def test_a_cuda_oom_is_never_overridden_by_an_infrastructure_line() -> None:
    log = [
        "NCCL WARN socketProgress: Connection closed by remote peer gpu-3<55693>",
        "Traceback (most recent call last):",
        '  File "/app/train.py", line 9, in <module>',
        "torch.OutOfMemoryError: CUDA out of memory. Tried to allocate 2.00 GiB",
    ]
    finding = explaining_line(log)
    assert finding is not None and finding.kind is LogKind.PYTHON_EXCEPTION and finding.gpu_oom


def test_a_traceback_unrelated_to_the_gpu_keeps_its_exception() -> None:
    log = [
        "NVRM: Xid (PCI:0000:3b:00): 79, pid=1, GPU has fallen off the bus.",
        "Traceback (most recent call last):",
        '  File "/app/train.py", line 9, in <module>',
        "KeyError: 'labels'",
    ]
    finding = explaining_line(log)
    assert finding is not None and finding.kind is LogKind.PYTHON_EXCEPTION and "KeyError" in finding.text


def test_log_signals_report_each_kind_at_its_last_line() -> None:
    log = [
        "[rank0]: RuntimeError: CUDA error: uncorrectable ECC error encountered",
        "frame #0: c10::Error::Error(c10::SourceLocation, std::string) + 0x57 (0x7f in libc10.so)",
        "NCCL WARN NET/IB : Got completion from peer 10.0.0.7<4> with status=5 opcode=0 len=0 vendor err 249 (Recv)",
        "Failed to initialize NVML: Driver/library version mismatch",
        "RuntimeError: CUDA error: uncorrectable ECC error encountered",
        "Killed",
    ]
    found = {signal.kind: line_no for line_no, signal in log_signals(log)}
    assert found == {SignalKind.NETWORK_FABRIC: 3, SignalKind.GPU_DRIVER: 4, SignalKind.GPU_HARDWARE: 5}
    # A diagnosis reads the log once for both its explaining line and these: the same answers as each alone.
    once = scanned(log)
    assert once.signals == log_signals(log) and once.finding == explaining_line(log)
    assert once.finding is not None and once.finding.line_no == 5


@pytest.mark.parametrize(
    "log",
    [
        ["torch.OutOfMemoryError: CUDA out of memory. Tried to allocate 2.00 GiB"],
        ["/entrypoint.sh: line 3:    42 Killed                  python train.py"],
        ["[Rank 3] Watchdog caught collective operation timeout: WorkNCCL(SeqNum=1) ran for 600044 milliseconds"],
        ["NVRM: Xid (PCI:0000:3b:00): 13, pid=4242, name=python, Graphics SM Warp Exception"],
    ],
    ids=["cuda-oom", "killed", "watchdog", "xid-13"],
)
def test_traps_raise_no_infrastructure_signal(log: list[str]) -> None:
    assert log_signals(log) == []
