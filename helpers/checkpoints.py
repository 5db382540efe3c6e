"""Time and peak memory of loading a checkpoint, each method in a fresh process (notebook 15).

Why a fresh process per method: a peak is a high-water mark of the whole process, and memory that one
load freed stays with the allocator, so a second load in the same process can reuse it and look free.

What is read (Linux, ``/proc/self/status``): ``VmHWM``, the peak resident set size of this process
image; ``VmRSS``, the resident set size now; ``RssAnon``, the resident private anonymous memory (what
``malloc`` hands out), as opposed to pages of a mapped file, which the page cache can share and evict.
Writing ``5`` to ``/proc/self/clear_refs`` (Linux >= 4.0) resets ``VmHWM`` to the current RSS, so the
peak is measured around one call, after the imports.

``resource.getrusage(RUSAGE_SELF).ru_maxrss`` cannot do this: usage is preserved across ``execve``
(getrusage(2)), and a child that ``subprocess`` starts runs in its parent's memory until then (CPython >= 3.10
uses vfork or posix_spawn), so its ``ru_maxrss`` starts at the parent's peak (after a plain fork: at the
parent's size at the fork). The child records it at start-up to show that.

The child process runs ``python -m helpers.checkpoints METHOD PATH`` and prints one JSON line.
Nothing here imports torch at module level: the child reads its start-up numbers first.
"""

from __future__ import annotations

import gc
import json
import os
import subprocess
import sys
import time
from pathlib import Path
from typing import TYPE_CHECKING, Any

if TYPE_CHECKING:
    import torch

__all__ = [
    "LOAD_METHODS",
    "memory_status",
    "reset_peak",
    "load_checkpoint",
    "read_every_tensor",
    "measure_load",
    "measure_in_fresh_processes",
]

#: The load calls compared in notebook 15, by the name the notebook shows.
LOAD_METHODS: tuple[str, ...] = ("torch.load", "torch.load(mmap=True)", "safetensors.load_file")

_STATUS_FIELDS = ("VmHWM", "VmRSS", "RssAnon")
_ROOT = Path(__file__).resolve().parent.parent


def memory_status() -> dict[str, int]:
    """``VmHWM``, ``VmRSS`` and ``RssAnon`` of this process, in bytes, from ``/proc/self/status``.

    Raises ``RuntimeError`` where that file or one of the fields is missing (not Linux, or Linux < 4.5).
    """
    try:
        with open("/proc/self/status", encoding="ascii") as f:
            lines = f.read().splitlines()
    except OSError as exc:
        raise RuntimeError(f"memory_status needs Linux's /proc/self/status ({exc})") from None
    out = {}
    for line in lines:
        key, _, value = line.partition(":")
        if key in _STATUS_FIELDS:
            number, unit = value.split()
            if unit != "kB":
                raise RuntimeError(f"unexpected unit {unit!r} for {key} in /proc/self/status")
            out[key] = int(number) * 1024
    missing = [k for k in _STATUS_FIELDS if k not in out]
    if missing:
        raise RuntimeError(f"/proc/self/status lacks {missing} (Linux >= 4.5 has them)")
    return out


def reset_peak() -> bool:
    """Reset this process's ``VmHWM`` to its current RSS; ``False`` where the kernel does not allow it.

    Without a reset a measured peak can only be too low (the baseline is then the earlier peak).
    """
    try:
        with open("/proc/self/clear_refs", "w", encoding="ascii") as f:
            f.write("5")
    except OSError:
        return False
    return True


def _check_method(method: str) -> None:
    if method not in LOAD_METHODS:
        raise ValueError(f"method must be one of {LOAD_METHODS}, got {method!r}")


def _check_file(path: str | os.PathLike) -> str:
    if not isinstance(path, (str, os.PathLike)) or not os.path.isfile(path):
        raise ValueError(f"path must name an existing checkpoint file, got {path!r}")
    return os.fspath(path)


def load_checkpoint(method: str, path: str | os.PathLike) -> dict[str, torch.Tensor]:
    """Load the state_dict in ``path`` with one of :data:`LOAD_METHODS`.

    ``torch.load`` reads every byte into memory of its own; ``torch.load(mmap=True)`` maps the file and
    reads a page when it is first used; ``safetensors.load_file`` (safetensors 0.8, default
    ``backend="mmap"``) maps it as well. All three load tensors only and run no code from the file: both
    ``torch.load`` calls pass ``weights_only=True``, the default only from torch 2.6 (and one that the
    environment variable ``TORCH_FORCE_NO_WEIGHTS_ONLY_LOAD=1`` turns off).
    """
    _check_method(method)
    file = _check_file(path)
    if method == "safetensors.load_file":
        from safetensors.torch import load_file

        return load_file(file)
    import torch

    return torch.load(file, mmap=method == "torch.load(mmap=True)", weights_only=True)


def read_every_tensor(tensors: dict[str, torch.Tensor]) -> float:
    """Sum of every element of every tensor: touches every byte, so a mapped file is read in full."""
    if not isinstance(tensors, dict) or not tensors:
        raise ValueError("tensors must be a non-empty dict of name -> tensor")
    return float(sum(t.sum().item() for t in tensors.values()))


def measure_load(method: str, path: str | os.PathLike) -> dict[str, Any]:
    """Load ``path`` with ``method`` in *this* process and report time and memory, in bytes and seconds.

    Keys: ``seconds`` (the load call), ``peak_reset`` (whether ``VmHWM`` could be reset), ``tensor_bytes``,
    ``load_peak`` and ``load_anon`` (peak RSS and private memory added by the load, over the baseline
    taken just before it), ``read_peak`` and ``read_anon`` (the same after reading every tensor).
    Meaningful once per process: call it in a fresh one (:func:`measure_in_fresh_processes`).
    """
    _check_method(method)
    file = _check_file(path)
    import safetensors.torch  # noqa: F401 - imported before the baseline, like torch
    import torch  # noqa: F401

    gc.collect()
    peak_reset = reset_peak()
    base = memory_status()
    t0 = time.perf_counter()
    tensors = load_checkpoint(method, file)
    seconds = time.perf_counter() - t0
    after_load = memory_status()
    read_every_tensor(tensors)
    after_read = memory_status()
    return {
        "method": method,
        "seconds": seconds,
        "peak_reset": peak_reset,
        "tensor_bytes": sum(t.numel() * t.element_size() for t in tensors.values()),
        "load_peak": after_load["VmHWM"] - base["VmHWM"],
        "load_anon": after_load["RssAnon"] - base["RssAnon"],
        "read_peak": after_read["VmHWM"] - base["VmHWM"],
        "read_anon": after_read["RssAnon"] - base["RssAnon"],
    }


def _child(argv: list[str]) -> None:
    """Entry point of the child process: start-up numbers first, then one :func:`measure_load`."""
    import resource  # POSIX only, like the rest of the measurement

    ru_maxrss_start = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss * 1024  # kB on Linux
    hwm_start = memory_status()["VmHWM"]
    if len(argv) != 2:
        raise SystemExit("usage: python -m helpers.checkpoints METHOD PATH")
    result = measure_load(argv[0], argv[1])
    result.update(ru_maxrss_start=ru_maxrss_start, hwm_start=hwm_start)
    print(json.dumps(result))


def measure_in_fresh_processes(
    jobs: list[tuple[str, str | os.PathLike]], *, timeout: float = 300.0
) -> list[dict[str, Any]]:
    """Run :func:`measure_load` for each ``(method, path)`` in its own new Python process; return the reports.

    The processes run at the same time (each measures only itself) and inherit the environment, with
    this project on ``PYTHONPATH``. Each report adds ``ru_maxrss_start`` and ``hwm_start``: the child's
    ``ru_maxrss`` and ``VmHWM`` before it imported anything. A child that fails raises ``RuntimeError``
    with the end of its stderr.
    """
    if not isinstance(jobs, list) or not jobs:
        raise ValueError("jobs must be a non-empty list of (method, path) pairs")
    for job in jobs:
        if not isinstance(job, tuple) or len(job) != 2:
            raise ValueError(f"each job must be a (method, path) pair, got {job!r}")
        _check_method(job[0])
        _check_file(job[1])
    if not isinstance(timeout, (int, float)) or not timeout > 0:
        raise ValueError(f"timeout must be a positive number of seconds, got {timeout!r}")
    memory_status()  # fail here, clearly, where /proc is missing
    env = dict(os.environ)
    env["PYTHONPATH"] = os.pathsep.join(p for p in (str(_ROOT), env.get("PYTHONPATH", "")) if p)
    procs = [
        subprocess.Popen(
            [sys.executable, "-m", "helpers.checkpoints", method, os.fspath(path)],
            stdout=subprocess.PIPE,
            stderr=subprocess.PIPE,
            text=True,
            env=env,
        )
        for method, path in jobs
    ]
    reports = []
    try:
        for (method, _), proc in zip(jobs, procs):
            out, err = proc.communicate(timeout=timeout)
            if proc.returncode != 0:
                raise RuntimeError(
                    f"measuring {method} failed (exit status {proc.returncode}): {err.strip()[-1500:]}"
                )
            reports.append(json.loads(out.strip().splitlines()[-1]))
    finally:
        for proc in procs:
            if proc.poll() is None:
                proc.kill()
                proc.wait()
    return reports


if __name__ == "__main__":
    _child(sys.argv[1:])
