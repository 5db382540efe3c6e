"""Two ranks on one GPU: what NCCL answers, and the gloo fallback (notebook 13, C23).

NCCL allows one rank per GPU in a communicator; two processes that both use ``cuda:0`` (a forgotten
``torch.cuda.set_device(local_rank)``, more ranks than GPUs) get an error instead. :func:`run_same_gpu`
starts such a pair for each backend asked for and reports what every rank saw, as plain data.

Spawned workers import their target by module path, so the worker lives here, not in the notebook.
The process-management choices follow ``helpers.ddp`` (read, not imported, so each module stays small):

- ``file://`` rendezvous in a fresh temporary directory: no port to pick, nothing listens on the
  network for the rendezvous; ``GLOO_SOCKET_IFNAME=lo`` and ``NCCL_SOCKET_IFNAME=lo`` keep the
  backends' own sockets on the loopback interface.
- NCCL settings that would change the outcome are removed from each worker's environment before
  the group starts (:data:`DROPPED_ENV`): ``NCCL_MULTI_RANK_GPU_ENABLE`` (NCCL 2.30's opt-in for
  several ranks per GPU) and ``NCCL_HOSTID`` (it replaces the host identity that NCCL's same-GPU
  check compares, next to the GPU's bus id).
- Worker stdout/stderr go to /dev/null (NCCL and gloo log from C++); each rank's outcome travels back
  through a queue as a dict of plain values, and only the parent prints.
- Nothing can hang the caller: the process group gets a timeout, the whole run a deadline after which
  every worker still alive is killed, and a rank that did not report gets a ``"timeout"`` or ``"died"``
  entry instead of an exception.
"""

from __future__ import annotations

import datetime
import multiprocessing as mp
import os
import queue as queue_mod
import sys
import tempfile
import time
from collections.abc import MutableMapping, Sequence
from typing import Any

import torch
import torch.distributed as dist

__all__ = ["BACKENDS", "DROPPED_ENV", "run_same_gpu"]

#: The backends :func:`run_same_gpu` can start.
BACKENDS: tuple[str, ...] = ("nccl", "gloo")

#: Variables each worker removes from its environment before ``init_process_group``.
DROPPED_ENV: tuple[str, ...] = ("NCCL_HOSTID", "NCCL_MULTI_RANK_GPU_ENABLE")

#: Variables each worker sets: the backends' sockets on the loopback interface.
LOOPBACK_ENV: dict[str, str] = {"GLOO_SOCKET_IFNAME": "lo", "NCCL_SOCKET_IFNAME": "lo"}


def _prepare_environ(environ: MutableMapping[str, str]) -> None:
    """Set :data:`LOOPBACK_ENV` and remove :data:`DROPPED_ENV` in ``environ`` (a worker's os.environ)."""
    for name in DROPPED_ENV:
        environ.pop(name, None)
    environ.update(LOOPBACK_ENV)


def _worker(
    backend: str,
    rank: int,
    world_size: int,
    init_file: str,
    device: str,
    results: Any,
    group_timeout_s: float,
) -> None:
    """One rank: join a ``backend`` group, all-reduce ``rank + 1`` on ``device``, report, exit.

    The report is ``(backend, rank, payload)``; ``payload["stage"]`` names the call that was running
    when an exception was raised (``set_device``, ``init_process_group``, ``all_reduce``).
    """
    devnull = os.open(os.devnull, os.O_WRONLY)
    os.dup2(devnull, 1)
    os.dup2(devnull, 2)
    _prepare_environ(os.environ)  # before init_process_group: NCCL reads them when it starts
    torch.set_num_threads(1)
    stage = "set_device"
    payload: dict[str, Any]
    try:
        if torch.device(device).type == "cuda":
            torch.cuda.set_device(torch.device(device))
        stage = "init_process_group"
        dist.init_process_group(
            backend,
            init_method=f"file://{init_file}",
            rank=rank,
            world_size=world_size,
            timeout=datetime.timedelta(seconds=group_timeout_s),
        )
        stage = "all_reduce"
        value = torch.full((4,), float(rank + 1), device=device)
        dist.all_reduce(value)
        reduced = value.cpu().tolist()  # waits for the collective, on a GPU too
        payload = {"status": "ok", "value": reduced, "device": str(value.device)}
    except BaseException as exc:  # noqa: BLE001 - every outcome goes back to the parent
        payload = {
            "status": "error",
            "stage": stage,
            "type": type(exc).__name__,
            "is_runtime_error": isinstance(exc, RuntimeError),
            "message": str(exc),
            "device": device,
        }
    try:
        results.put((backend, rank, payload))
        results.close()
        results.join_thread()  # the report has left before _exit
        # After a success, leave the group properly (helpers.ddp: a plain exit aborted ~1 run in 40).
        # After an NCCL failure, skip it: the parent has the report and kills a worker that lingers.
        if payload["status"] == "ok" and dist.is_initialized():
            dist.destroy_process_group()
    except BaseException:  # noqa: BLE001 - nothing may keep the worker alive
        pass
    finally:
        sys.stdout.flush()
        sys.stderr.flush()
        os._exit(0)


def _check_args(
    backends: Sequence[str],
    device: str,
    world_size: int,
    group_timeout_s: float,
    join_timeout_s: float,
) -> None:
    if isinstance(backends, str) or not backends:
        raise ValueError(f"backends must be a non-empty sequence of names, got {backends!r}")
    unknown = [b for b in backends if b not in BACKENDS]
    if unknown or len(set(backends)) != len(backends):
        raise ValueError(f"backends must be distinct names from {BACKENDS}, got {list(backends)!r}")
    try:
        kind = torch.device(device).type
    except (RuntimeError, TypeError):
        kind = None
    if not isinstance(device, str) or kind not in ("cpu", "cuda"):
        raise ValueError(f"device must be a string such as 'cuda:0' or 'cpu', got {device!r}")
    if isinstance(world_size, bool) or not isinstance(world_size, int) or world_size < 2:
        raise ValueError(f"world_size must be an int >= 2, got {world_size!r}")
    for name, value in (("group_timeout_s", group_timeout_s), ("join_timeout_s", join_timeout_s)):
        if isinstance(value, bool) or not isinstance(value, (int, float)) or not 0 < value < 3600:
            raise ValueError(f"{name} must be a number of seconds in (0, 3600), got {value!r}")


def run_same_gpu(
    backends: Sequence[str] = BACKENDS,
    *,
    device: str = "cuda:0",
    world_size: int = 2,
    group_timeout_s: float = 30.0,
    join_timeout_s: float = 60.0,
) -> dict[str, list[dict[str, Any]]]:
    """Start ``world_size`` ranks per backend, all on ``device``, each all-reducing ``rank + 1``.

    The backends run at the same time, each in its own process group. Returns, per backend, one dict
    per rank (in rank order):

    - ``{"status": "ok", "value": [3.0, 3.0, 3.0, 3.0], "device": "cuda:0"}`` (two ranks: 1 + 2),
    - ``{"status": "error", "stage": ..., "type": ..., "is_runtime_error": ..., "message": ...,
      "device": ...}`` when the rank caught an exception,
    - ``{"status": "timeout"}`` when it had not reported within ``join_timeout_s`` (it is killed),
    - ``{"status": "died", "exitcode": ...}`` when it exited without reporting.

    ``group_timeout_s`` is the process group's timeout (``init_process_group(timeout=...)``).
    """
    _check_args(backends, device, world_size, group_timeout_s, join_timeout_s)
    ctx = mp.get_context("spawn")
    results = ctx.Queue()
    collected: dict[tuple[str, int], dict[str, Any]] = {}
    killed: set[tuple[str, int]] = set()
    with tempfile.TemporaryDirectory() as tmp:
        procs = {
            (backend, rank): ctx.Process(
                target=_worker,
                args=(
                    backend,
                    rank,
                    world_size,
                    os.path.join(tmp, f"rendezvous-{backend}"),
                    device,
                    results,
                    group_timeout_s,
                ),
                daemon=True,
            )
            for backend in backends
            for rank in range(world_size)
        }
        deadline = time.monotonic() + join_timeout_s
        try:
            for p in procs.values():
                p.start()
            while len(collected) < len(procs):
                remaining = deadline - time.monotonic()
                if remaining <= 0:
                    break
                try:
                    backend, rank, payload = results.get(timeout=min(remaining, 1.0))
                    collected[backend, rank] = payload
                except queue_mod.Empty:
                    if not any(p.is_alive() for key, p in procs.items() if key not in collected):
                        break  # the missing ranks are gone: nothing more can come
        finally:
            grace = time.monotonic() + 10.0  # reporting workers exit within moments
            for key, p in procs.items():
                if p.pid is None:  # never started (start() itself failed)
                    continue
                if key in collected:
                    p.join(timeout=max(0.0, grace - time.monotonic()))
                if p.is_alive():
                    p.kill()
                    killed.add(key)
                    p.join(timeout=5)
            results.close()
    out: dict[str, list[dict[str, Any]]] = {}
    for backend in backends:
        ranks = []
        for rank in range(world_size):
            key = (backend, rank)
            if key in collected:
                ranks.append(collected[key])
            elif key in killed or procs[key].exitcode is None:  # still running at the deadline
                ranks.append({"status": "timeout"})
            else:  # exited on its own without a report (a negative exit code is the signal)
                ranks.append({"status": "died", "exitcode": procs[key].exitcode})
        out[backend] = ranks
    return out
