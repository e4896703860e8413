"""Redaction throughput on a 5 MB training log, against plain `str.split` over the same text.

Run: `.venv/bin/python -m tests.benchmarks.bench_redact [--mb 5] [--runs 5] [--compare /work/main]`

Three logs of the same size: a typical one (step/loss lines, warnings, a credential every few hundred lines),
a dense one (every line carries a word such as `token`, `key` or `auth`, so every name rule runs on it) and
one made of long random-looking values (the worst case for the entropy check). Each is timed through
`redact()` and through `clean_log()` (colour codes stripped, redacted, sanitised, split into lines), and the
best of N runs is printed as MB/s and as a ratio to `str.split("\\n")` of the same text, timed in this run.
`--compare DIR` also times the redactor of another checkout (the code before a change) in the same run.
Prints only; asserts nothing about time.
"""

from __future__ import annotations

import argparse
import random
import sys
import time
from collections.abc import Callable
from pathlib import Path

from core.safety.redact import redact
from core.safety.untrusted import clean_log

# Synthetic credentials in real formats (never real secrets).
_SECRETS = (
    "HF_TOKEN=hf_" + "FAKEbenchToken00000000000000000000",
    "Authorization: Bearer " + "FAKEbenchBearer0123456789abcdef",
    "aws_secret_access_key = " + "FAKEbenchAwsSecretKey0123456789abcdefABC",
    "pushing to https://oauth2:" + "FAKEbenchPass01" + "@git.example.invalid/repo.git",
)


def _typical_line(rng: random.Random, n: int) -> str:
    pick = rng.random()
    if pick < 0.6:
        return f"2026-11-30T11:{n % 60:02d}:{n % 59:02d}Z step={n} loss={rng.random():.4f} lr=0.0003 gpu_mem=71.3GiB"
    if pick < 0.8:
        return f"\x1b[32mINFO\x1b[0m [rank{n % 8}] epoch {n // 1000} {rng.randint(0, 100)}%|####      | {n}/20000"
    if pick < 0.95:
        return f"WARNING torch.distributed: NCCL_DEBUG=INFO sha256:{rng.getrandbits(256):064x} ready"
    if pick < 0.998:
        return f'Traceback (most recent call last): File "/workspace/train.py", line {n % 900}, in <module>'
    return f"2026-11-30T11:00:00Z {_SECRETS[n % len(_SECRETS)]}"


def _dense_line(rng: random.Random, n: int) -> str:
    words = ("tokenizer loaded", "max_tokens=512", "auth ok", "key=value pairs", "session 7 started")
    return f"2026-11-30T11:00:00Z step={n} {rng.choice(words)} {_SECRETS[n % 4] if n % 50 == 0 else ''}"


_B64 = "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789+/"


def _random_value_line(rng: random.Random, n: int) -> str:
    blob = "".join(rng.choice(_B64) for _ in range(48))
    return f"checkpoint id={blob} shard={n} digest sha256:{rng.getrandbits(256):064x}"


def make_log(kind: str, size: int, seed: int = 7) -> str:
    rng = random.Random(seed)
    line = {"typical": _typical_line, "dense": _dense_line, "random-values": _random_value_line}[kind]
    parts: list[str] = []
    total = 0
    n = 0
    while total < size:
        text = line(rng, n) + "\n"
        parts.append(text)
        total += len(text)
        n += 1
    return "".join(parts)


def best_of(runs: int, func: Callable[[str], object], text: str) -> float:
    best = float("inf")
    for _ in range(runs):
        start = time.perf_counter()
        func(text)
        best = min(best, time.perf_counter() - start)
    return best


def _load(root: Path) -> tuple[Callable[[str], object], Callable[[str], object]]:
    """redact() and clean_log() from another checkout (e.g. main), to compare before and after in one run."""
    code = (
        f"import sys; sys.path.insert(0, {str(root)!r}); from core.safety.redact import redact; "
        "from core.safety.untrusted import clean_log"
    )
    scope: dict[str, object] = {}
    saved = {name: mod for name, mod in sys.modules.items() if name == "core" or name.startswith("core.")}
    for name in saved:
        del sys.modules[name]
    try:
        exec(code, scope)
    finally:
        sys.path.remove(str(root))
        for name in [n for n in sys.modules if n == "core" or n.startswith("core.")]:
            del sys.modules[name]
        sys.modules.update(saved)
    return scope["redact"], scope["clean_log"]  # type: ignore[return-value]


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--mb", type=float, default=5.0)
    parser.add_argument("--runs", type=int, default=5)
    parser.add_argument("--compare", type=Path, help="another checkout (e.g. /work/main) to time alongside")
    args = parser.parse_args()
    size = int(args.mb * 1024 * 1024)
    candidates: list[tuple[str, Callable[[str], object]]] = [("redact", redact), ("clean_log", clean_log)]
    if args.compare is not None:
        old_redact, old_clean_log = _load(args.compare.resolve())
        candidates += [("redact (compare)", old_redact), ("clean_log (compare)", old_clean_log)]
    print(f"{'log':<14} {'what':<20} {'seconds':>9} {'MB/s':>8} {'x str.split':>12}")
    for kind in ("typical", "dense", "random-values"):
        text = make_log(kind, size)
        baseline = best_of(args.runs, lambda t: t.split("\n"), text)
        print(f"{kind:<14} {'str.split':<20} {baseline:>9.4f} {len(text) / 1024 / 1024 / baseline:>8.1f} {1.0:>12.1f}")
        for label, func in candidates:
            seconds = best_of(args.runs, func, text)
            mbs = len(text) / 1024 / 1024 / seconds
            print(f"{kind:<14} {label:<20} {seconds:>9.4f} {mbs:>8.1f} {seconds / baseline:>12.1f}")


if __name__ == "__main__":
    main()
