"""Small DistributedDataParallel experiments in local processes (gloo, loopback only).

Used by notebook 13. Everything a spawned worker runs lives here, because ``spawn``
workers import their target by module path and cannot see notebook code.

Design decisions, each from a measured failure:
- ``file://`` rendezvous and ``GLOO_SOCKET_IFNAME=lo``: the env:// TCPStore listens on all
  interfaces; this way every socket is on 127.0.0.1.
- Workers end with ``destroy_process_group()``, flushed streams and ``os._exit(0)``: a plain
  exit aborted about 1 run in 40 ("terminate called without an active exception").
- Worker stdout/stderr go to /dev/null (gloo's C++ logging would otherwise land in the
  notebook); results and exceptions travel back through a queue as plain Python values.
- Every wait has a timeout, so a deadlock becomes an error instead of a hung kernel.
"""

from __future__ import annotations

import contextlib
import copy
import datetime
import multiprocessing as mp
import os
import queue as queue_mod
import select
import shutil
import subprocess
import sys
import tempfile
import time
import warnings
from collections.abc import Callable
from typing import Any

import torch
import torch.distributed as dist
import torch.nn.functional as F
from torch import nn
from torch.nn.parallel import DistributedDataParallel as DDP

from helpers.models import make_mlp

__all__ = [
    "run",
    "run_isolated",
    "make_data",
    "train_reference",
    "layerdrop_reference",
    "two_heads_reference",
    "TwoHeads",
    "SharedBlockNet",
    "shared_block_reference",
    "SCENARIOS",
    "WorkerError",
]


class WorkerError(RuntimeError):
    """A worker did not report back in time, or died without a result."""


# --- shared model and data (used by workers and by the single-process references) ----------------
def make_data(
    n_total: int, seed: int = 0, dtype: torch.dtype = torch.float64
) -> tuple[torch.Tensor, torch.Tensor]:
    g = torch.Generator().manual_seed(seed)
    x = torch.randn(n_total, 4, generator=g, dtype=dtype)
    y = torch.sin(x.sum(1, keepdim=True))
    return x, y


def _model(dtype: torch.dtype = torch.float64) -> nn.Module:
    return make_mlp([4, 8, 1], nn.Tanh, seed=0).to(dtype)


def _params(model: nn.Module) -> list[list[float]]:
    return [p.detach().flatten().tolist() for p in model.parameters()]


def _shard(rank: int, sizes: list[int]) -> slice:
    start = sum(sizes[:rank])
    return slice(start, start + sizes[rank])


def train_reference(sizes: list[int], steps: int = 5, lr: float = 0.1) -> list[list[float]]:
    """Single process, full batch, mean loss: what DDP should reproduce."""
    x, y = make_data(sum(sizes))
    model = _model()
    opt = torch.optim.SGD(model.parameters(), lr=lr)
    for _ in range(steps):
        opt.zero_grad()
        F.mse_loss(model(x), y).backward()
        opt.step()
    return _params(model)


class TwoHeads(nn.Module):
    """Two linear heads; forward uses only ``used``, so ``unused`` never gets a gradient."""

    def __init__(self) -> None:
        super().__init__()
        self.used, self.unused = nn.Linear(4, 1), nn.Linear(4, 1)

    def forward(self, x: torch.Tensor) -> torch.Tensor:
        return self.used(x)


def _two_heads() -> TwoHeads:
    torch.manual_seed(0)
    return TwoHeads().double()


def two_heads_reference(steps: int = 3, lr: float = 0.1) -> dict[str, list[list[float]]]:
    """Single process, plain SGD on the 8 samples that the ranks of ``_unused_params`` split between them.

    Returns the initial and the final parameters (the unused head keeps its initial values).
    """
    x, y = make_data(8)
    model = _two_heads()
    initial = _params(model)
    opt = torch.optim.SGD(model.parameters(), lr=lr)
    for _ in range(steps):
        opt.zero_grad()
        F.mse_loss(model(x), y).backward()
        opt.step()
    return {"initial": initial, "final": _params(model)}


class LayerDropNet(nn.Module):
    """Four residual blocks; ``drop`` is a set of block indices skipped in this forward pass."""

    def __init__(self) -> None:
        super().__init__()
        torch.manual_seed(1)
        self.inp = nn.Linear(4, 8)
        self.blocks = nn.ModuleList(nn.Linear(8, 8) for _ in range(4))
        self.out = nn.Linear(8, 1)
        self.double()

    def forward(
        self, x: torch.Tensor, drop: frozenset = frozenset(), mask_instead: bool = False
    ) -> torch.Tensor:
        h = torch.tanh(self.inp(x))
        for i, block in enumerate(self.blocks):
            if i in drop:
                if mask_instead:  # keep the block in the graph, contribute nothing
                    h = h + 0.0 * torch.tanh(block(h))
                continue
            h = h + torch.tanh(block(h))
        return self.out(h)


def drop_pattern(rank: int, step: int) -> frozenset:
    """Deterministic, different per rank and step (the notes' layer-drop with p > 0)."""
    return frozenset(
        {(step + rank) % 4, (step * 3 + 2 * rank + 1) % 4} if step % 2 == 0 else {(step + 2 * rank) % 4}
    )


def layerdrop_reference(
    steps: int = 4, lr: float = 0.1, world: int = 2, *, mask: bool = False, momentum: float = 0.0
) -> list[list[float]]:
    """Single process: the mean of each rank's shard loss with that rank's drop pattern.

    ``mask=True`` multiplies dropped blocks by 0 instead of skipping them: a block dropped by every rank
    then gets a zero gradient instead of none, which differs once the optimizer has momentum.
    """
    x, y = make_data(16, seed=3)
    model = LayerDropNet()
    opt = torch.optim.SGD(model.parameters(), lr=lr, momentum=momentum)
    sizes = [16 // world] * world
    for step in range(steps):
        opt.zero_grad()
        loss = sum(
            F.mse_loss(
                model(x[_shard(r, sizes)], drop_pattern(r, step), mask_instead=mask), y[_shard(r, sizes)]
            )
            for r in range(world)
        )
        (loss / world).backward()
        opt.step()
    return _params(model)


class SharedBlockNet(nn.Module):
    """One hidden block applied twice; ``checkpoint`` picks how each application is checkpointed.

    ``checkpoint=None``: no checkpointing; ``"reentrant"`` / ``"non_reentrant"``: each application wrapped in
    ``torch.utils.checkpoint.checkpoint`` with ``use_reentrant=True`` / ``False``.
    """

    def __init__(self) -> None:
        super().__init__()
        torch.manual_seed(2)
        self.inp, self.block, self.out = nn.Linear(4, 8), nn.Linear(8, 8), nn.Linear(8, 1)
        self.double()

    def forward(self, x: torch.Tensor, checkpoint: str | None = None) -> torch.Tensor:
        if checkpoint not in (None, "reentrant", "non_reentrant"):
            raise ValueError(f"checkpoint must be None, 'reentrant' or 'non_reentrant', got {checkpoint!r}")
        from torch.utils.checkpoint import checkpoint as ckpt

        h = self.inp(x)  # requires grad, so a reentrant checkpoint below has a gradient path
        for _ in range(2):  # the same parameters, used twice
            if checkpoint is None:
                h = torch.tanh(self.block(h))
            else:
                h = ckpt(lambda t: torch.tanh(self.block(t)), h, use_reentrant=checkpoint == "reentrant")
        return self.out(h)


def shared_block_reference(lr: float = 0.1) -> dict[str, list[list[float]]]:
    """Single process, no checkpointing, one SGD step on the 8 samples that ``_shared_block`` splits 4+4."""
    x, y = make_data(8, seed=4)
    model = SharedBlockNet()
    opt = torch.optim.SGD(model.parameters(), lr=lr)
    F.mse_loss(model(x), y).backward()
    grads = [p.grad.flatten().tolist() for p in model.parameters()]
    opt.step()
    return {"grads": grads, "params": _params(model)}


def _shared_block(rank: int, world: int, mode: str, lr: float = 0.1) -> dict[str, Any]:
    """One DDP step of ``SharedBlockNet`` on this rank's half of 8 samples.

    mode: 'reentrant' (use_reentrant=True), 'reentrant_find_unused' (the same with
    find_unused_parameters=True), 'non_reentrant' (use_reentrant=False), 'static_graph' (use_reentrant=True
    with static_graph=True). Returns the error message, or the all-reduced gradients and the stepped weights.
    """
    modes = ("reentrant", "reentrant_find_unused", "non_reentrant", "static_graph")
    if mode not in modes:
        raise ValueError(f"mode must be one of {modes}, got {mode!r}")
    x, y = make_data(8, seed=4)
    sizes = [8 // world] * world
    xs, ys = x[_shard(rank, sizes)], y[_shard(rank, sizes)]
    model = DDP(
        SharedBlockNet(),
        find_unused_parameters=mode == "reentrant_find_unused",
        static_graph=mode == "static_graph",
    )
    opt = torch.optim.SGD(model.parameters(), lr=lr)
    checkpoint = "non_reentrant" if mode == "non_reentrant" else "reentrant"
    try:
        F.mse_loss(model(xs, checkpoint), ys).backward()
    except RuntimeError as exc:
        return {"message": str(exc)}
    grads = [p.grad.flatten().tolist() for p in model.parameters()]
    opt.step()
    return {"message": None, "grads": grads, "params": _params(model.module)}


# --- scenarios (run inside each worker after the process group is up) ---------------------------
def _train(rank: int, world: int, steps: int = 5, lr: float = 0.1) -> dict[str, Any]:
    """DDP training for three data splits: equal shards, unequal with mean loss, unequal with global
    weighting."""
    out = {}
    for name, sizes, weighting in [
        ("equal", [8, 8], "mean"),
        ("unequal_mean", [10, 6], "mean"),
        ("unequal_global", [10, 6], "global"),
    ]:
        x, y = make_data(sum(sizes))
        xs, ys = x[_shard(rank, sizes)], y[_shard(rank, sizes)]
        model = DDP(_model())
        opt = torch.optim.SGD(model.parameters(), lr=lr)
        for _ in range(steps):
            opt.zero_grad()
            if weighting == "mean":
                loss = F.mse_loss(model(xs), ys)  # mean over this shard
            else:
                loss = (
                    F.mse_loss(model(xs), ys, reduction="sum") * world / sum(sizes)
                )  # DDP averages over ranks
            loss.backward()
            opt.step()
        out[name] = _params(model.module)
    return out


def _collective_on_one_rank(
    rank: int,
    world: int,
    kind: str = "all_reduce",
    group_timeout_s: float | None = None,
    wait_s: float = 60.0,
) -> dict[str, Any]:
    """Rank 0 alone enters a collective (the notes' `if rank == 0: reduce_tensor(loss)`); the others never do.

    kind="all_reduce": plain all_reduce, ended by the process group's timeout.
    kind="monitored_barrier": ``dist.monitored_barrier(timeout=2 s)``, which names the missing rank.
    After either failure gloo closes the group's connections, so a second collective in it fails at once:
    with ``group_timeout_s`` every rank first creates a fresh gloo group with that timeout and the failure
    stays inside it (several such scenarios can then share one run, after everything else).
    The other ranks stay alive until rank 0 signals through the rendezvous store (at most ``wait_s``), so
    rank 0 always sees the timeout and never "connection closed by peer", however slow the machine.
    """
    if kind not in ("all_reduce", "monitored_barrier"):
        raise ValueError(f"kind must be 'all_reduce' or 'monitored_barrier', got {kind!r}")
    group = None
    if group_timeout_s is not None:
        group = dist.new_group(backend="gloo", timeout=datetime.timedelta(seconds=group_timeout_s))
    store = dist.distributed_c10d._get_default_store()  # the file:// store, independent of gloo's sockets
    done_key = f"rank0_done_{kind}"
    if rank != 0:
        with contextlib.suppress(Exception):
            store.wait([done_key], datetime.timedelta(seconds=wait_s))
        return {"raised": None}
    t0 = time.perf_counter()
    try:
        if kind == "all_reduce":
            dist.all_reduce(torch.ones(1), group=group)
        else:
            dist.monitored_barrier(group=group, timeout=datetime.timedelta(seconds=2))
        return {"raised": None}
    except Exception as exc:  # noqa: BLE001 - the type is part of the result
        return {
            "raised": type(exc).__name__,
            "is_runtime_error": isinstance(exc, RuntimeError),
            "message": str(exc),
            "seconds": time.perf_counter() - t0,
        }
    finally:
        store.set(done_key, "1")


def _no_sync_accumulation(rank: int, world: int, k: int = 4, lr: float = 0.1) -> dict[str, Any]:
    """Gradient accumulation over k micro-batches per rank: all-reduce only on the last (model.no_sync())."""
    from torch.distributed.algorithms.ddp_comm_hooks.default_hooks import allreduce_hook

    def run_once(use_no_sync: bool) -> tuple[list[list[float]], int]:
        calls = []

        def counting_hook(state, bucket):  # no annotations: DDP checks them, and this module's are strings
            calls.append(bucket.index())
            return allreduce_hook(state, bucket)

        x, y = make_data(32)
        xs, ys = x[_shard(rank, [16, 16])], y[_shard(rank, [16, 16])]
        model = DDP(_model())
        model.register_comm_hook(None, counting_hook)
        opt = torch.optim.SGD(model.parameters(), lr=lr)
        for i, (xb, yb) in enumerate(zip(xs.chunk(k), ys.chunk(k))):
            last = i == k - 1
            ctx = model.no_sync() if (use_no_sync and not last) else contextlib.nullcontext()
            with ctx:
                (F.mse_loss(model(xb), yb) / k).backward()
        opt.step()
        return _params(model.module), len(calls)

    params_sync, calls_every = run_once(False)
    params_nosync, calls_last = run_once(True)
    return {
        "params": params_nosync,
        "params_every_step": params_sync,
        "allreduce_calls": [calls_every, calls_last],
    }


def _unused_params(
    rank: int, world: int, find_unused: bool = False, static_graph: bool = False
) -> dict[str, Any]:
    """A model with a head that forward never uses (the same unused set every iteration)."""
    model = DDP(_two_heads(), find_unused_parameters=find_unused, static_graph=static_graph)
    opt = torch.optim.SGD(model.parameters(), lr=0.1)
    x, y = make_data(8)
    sizes = [8 // world] * world  # each rank its own shard: only averaged gradients match one process
    x, y = x[_shard(rank, sizes)], y[_shard(rank, sizes)]
    for it in range(3):
        try:
            opt.zero_grad()
            F.mse_loss(model(x), y).backward()
            opt.step()
        except RuntimeError as exc:
            return {"failed_at_iteration": it, "message": str(exc)}
    return {"failed_at_iteration": None, "params": _params(model.module)}


def _layerdrop(
    rank: int, world: int, mode: str, steps: int = 4, lr: float = 0.1, momentum: float = 0.0
) -> dict[str, Any]:
    """Layer drop with a different pattern per rank. mode: 'plain', 'find_unused', 'static_graph', 'mask'."""
    x, y = make_data(16, seed=3)
    sizes = [16 // world] * world
    xs, ys = x[_shard(rank, sizes)], y[_shard(rank, sizes)]
    kw = {"find_unused_parameters": mode == "find_unused", "static_graph": mode == "static_graph"}
    model = DDP(LayerDropNet(), **kw)
    opt = torch.optim.SGD(model.parameters(), lr=lr, momentum=momentum)
    for step in range(steps):
        try:
            opt.zero_grad()
            out = model(xs, drop_pattern(rank, step), mask_instead=(mode == "mask"))
            F.mse_loss(out, ys).backward()
            opt.step()
        except RuntimeError as exc:
            return {"failed_at_step": step, "message": str(exc)}
    return {"failed_at_step": None, "params": _params(model.module)}


def _save_load(rank: int, world: int, path: str) -> dict[str, Any]:
    """Each rank starts from its own weights (seed = rank, no DDP); rank 0 saves; barrier; every rank loads.

    Returns each rank's weights before and after loading, so the caller can check that every rank ends
    with rank 0's weights (and that the others really started from different ones).
    """
    model = make_mlp([4, 8, 1], nn.Tanh, seed=rank).double()
    own = _params(model)
    if rank == 0:
        torch.save(model.state_dict(), path)
    dist.barrier()
    model.load_state_dict(torch.load(path, map_location="cpu"))
    return {"own": own, "loaded": _params(model)}


def _init_broadcast(rank: int, world: int) -> dict[str, Any]:
    """Ranks seed differently; DDP's constructor broadcasts rank 0's weights; editing one replica desyncs
    them.

    Counterfactual in the same run: one step of an unedited copy keeps the replicas equal. The RNG state is
    read before and after ``DDP(...)`` (``rng_untouched``), and each rank's next draw is its own.
    """
    torch.manual_seed(100 + rank)
    model = make_mlp([4, 8, 1], nn.Tanh).double()  # initialised from this rank's own RNG
    model.register_buffer("stat", torch.full((2,), float(rank), dtype=torch.float64))  # a per-rank buffer
    before, buffer_before = _params(model), model.stat.tolist()
    rng_before = torch.get_rng_state()
    ddp_model = DDP(model)
    rng_untouched = torch.equal(rng_before, torch.get_rng_state())
    after, buffer_after = _params(ddp_model.module), ddp_model.module.stat.tolist()
    augmentation_draw = torch.rand(3).tolist()  # per-rank RNG stream, e.g. for data augmentation
    x, y = make_data(8)
    unedited = DDP(copy.deepcopy(ddp_model.module))
    unedited_opt = torch.optim.SGD(unedited.parameters(), lr=0.1)
    F.mse_loss(unedited(x), y).backward()
    unedited_opt.step()
    if rank == 0:
        with torch.no_grad():
            ddp_model.module[0].weight.add_(1.0)  # a change on one rank only, outside autograd
    opt = torch.optim.SGD(ddp_model.parameters(), lr=0.1)
    opt.zero_grad()
    F.mse_loss(ddp_model(x), y).backward()
    opt.step()
    return {
        "before": before,
        "after": after,
        "buffer_before": buffer_before,
        "buffer_after": buffer_after,
        "rng_untouched": rng_untouched,
        "draw": augmentation_draw,
        "after_step": _params(ddp_model.module),
        "after_step_unedited": _params(unedited.module),
    }


def _group_facts(rank: int, world: int) -> dict[str, Any]:
    """Inside the running gloo group: the timeout a new group gets without ``timeout=``, and SyncBatchNorm on
    CPU.

    ``default_timeout_s``: a ``dist.new_group(backend="gloo")`` created without ``timeout=`` (private API
    ``_get_backend(cpu).options._timeout``); ``world_timeout_s``: the world group, created with ``timeout=``.
    SyncBatchNorm in training mode on a CPU input, in the 2-rank world group and in a 1-rank subgroup of this
    rank alone: the exception it raises (None if it did not). Its eval-mode output is compared with
    BatchNorm2d's.
    """

    def timeout_s(group: Any) -> float:
        return group._get_backend(torch.device("cpu")).options._timeout.total_seconds()

    default_group = dist.new_group(backend="gloo")
    singles = [dist.new_group([r], backend="gloo") for r in range(world)]  # every rank creates every group

    def raised(fn: Callable[[], Any]) -> dict[str, str] | None:
        try:
            fn()
        except Exception as exc:  # noqa: BLE001 - the type is part of the result
            return {"type": type(exc).__name__, "message": str(exc)}
        return None

    x = torch.randn(4, 3, 2, 2, generator=torch.Generator().manual_seed(rank))
    torch.manual_seed(0)
    bn = nn.BatchNorm2d(3)
    with torch.no_grad():
        bn.weight.copy_(torch.linspace(0.5, 1.5, 3))
        bn.running_mean.copy_(torch.linspace(-1, 1, 3))
    sync = nn.SyncBatchNorm.convert_sync_batchnorm(copy.deepcopy(bn))
    single = nn.SyncBatchNorm.convert_sync_batchnorm(copy.deepcopy(bn), process_group=singles[rank])
    return {
        "default_timeout_s": timeout_s(default_group),
        "world_timeout_s": timeout_s(dist.group.WORLD),
        "world_size_single": dist.get_world_size(singles[rank]),
        "train_raised": raised(lambda: sync(x)),
        "single_raised": raised(lambda: single(x)),
        "eval_equal": torch.equal(sync.eval()(x), bn.eval()(x)),
    }


def _nccl_all_reduce(rank: int, world: int) -> dict[str, Any]:
    torch.cuda.set_device(rank)
    t = torch.full((4,), float(rank + 1), device=f"cuda:{rank}")
    dist.all_reduce(t)
    return {"value": t.cpu().tolist()}


def _listeners(rank: int, world: int, probe_store: bool = False) -> dict[str, Any]:
    """Local addresses of this process's listening TCP sockets (Linux /proc), e.g. ['127.0.0.1:43121'],
    and (``connected``) those of its connected ones: gloo's pairs, which torch 2.0's gloo keeps after
    closing its listening sockets.

    ``probe_store=True`` (rank 0 only) then also starts the TCPStore that ``env://`` would use, asked for
    host 127.0.0.1, and reports where it listens (``store_listening``): the counterfactual to file://.
    """
    out: dict[str, Any] = {"listening": _tcp_addresses(), "connected": _tcp_addresses("01")}
    if probe_store and rank == 0:
        store = dist.TCPStore(
            "127.0.0.1", 0, world_size=1, is_master=True, timeout=datetime.timedelta(seconds=5)
        )
        port = store.port
        out["store_listening"] = [a for a in _tcp_addresses() if a.endswith(f":{port}")]
        del store
    return out


def _tcp_addresses(state: str = "0A") -> list[str]:
    """Local addresses of this process's TCP sockets in ``state`` (/proc/net/tcp's hex code: 0A listening,
    01 established)."""
    inodes = set()
    for fd in os.listdir("/proc/self/fd"):
        try:
            target = os.readlink(f"/proc/self/fd/{fd}")
        except OSError:
            continue
        if target.startswith("socket:["):
            inodes.add(target[8:-1])
    found = []
    for table, width in (("/proc/net/tcp", 8), ("/proc/net/tcp6", 32)):
        try:
            lines = open(table, encoding="ascii").read().splitlines()[1:]
        except OSError:
            continue
        for line in lines:
            cols = line.split()
            if cols[3] != state or cols[9] not in inodes:
                continue
            hex_ip, hex_port = cols[1].split(":")
            raw = bytes.fromhex(hex_ip)
            if width == 8:
                ip = ".".join(str(b) for b in raw[::-1])
            else:  # 4 little-endian 32-bit words
                words = [raw[i : i + 4][::-1] for i in range(0, 16, 4)]
                ip = ":".join(b"".join(words)[i : i + 2].hex() for i in range(0, 16, 2))
            found.append(f"{ip}:{int(hex_port, 16)}")
    return sorted(found)


def _batch(rank: int, world: int, jobs: list[tuple[str, dict]]) -> dict[str, Any]:
    """Several scenarios in one process group (each spawn costs ~3 s). Put failing cases last:
    they fail symmetrically on every rank, but a poisoned group would spoil what follows."""
    return {"results": [SCENARIOS[name](rank, world, **kw) for name, kw in jobs]}


SCENARIOS: dict[str, Callable[..., dict[str, Any]]] = {
    "batch": _batch,
    "listeners": _listeners,
    "no_sync_accumulation": _no_sync_accumulation,
    "init_broadcast": _init_broadcast,
    "nccl_all_reduce": _nccl_all_reduce,
    "train": _train,
    "collective_on_one_rank": _collective_on_one_rank,
    "unused_params": _unused_params,
    "layerdrop": _layerdrop,
    "save_load": _save_load,
    "group_facts": _group_facts,
    "shared_block": _shared_block,
}


# --- process management -------------------------------------------------------------------------
def _worker(
    rank: int,
    world: int,
    init_file: str,
    scenario: str,
    kwargs: dict,
    results: Any,
    timeout_s: float,
    backend: str,
) -> None:
    devnull = os.open(os.devnull, os.O_WRONLY)
    os.dup2(devnull, 1)
    os.dup2(devnull, 2)
    os.environ["GLOO_SOCKET_IFNAME"] = "lo"
    torch.set_num_threads(1)
    try:
        dist.init_process_group(
            backend,
            init_method=f"file://{init_file}",
            rank=rank,
            world_size=world,
            timeout=datetime.timedelta(seconds=timeout_s),
        )
        results.put((rank, "ok", SCENARIOS[scenario](rank, world, **kwargs)))
    except BaseException as exc:  # noqa: BLE001 - everything must be reported to the parent
        results.put((rank, "error", {"type": type(exc).__name__, "message": str(exc)}))
    finally:
        try:
            if dist.is_initialized():
                dist.destroy_process_group()
        except BaseException:  # noqa: BLE001
            pass
        results.close()
        results.join_thread()  # make sure the result left before _exit
        sys.stdout.flush()
        sys.stderr.flush()
        os._exit(0)


def run(
    scenario: str,
    world_size: int = 2,
    timeout_s: float = 20.0,
    join_timeout_s: float = 90.0,
    backend: str = "gloo",
    **kwargs: Any,
) -> list[tuple[str, dict[str, Any]]]:
    """Run ``scenario`` on ``world_size`` spawned ranks; return ``[(status, result)]`` ordered by rank.

    ``status`` is ``"ok"`` or ``"error"`` (then ``result`` has ``type`` and ``message``).
    ``timeout_s`` is the process group's collective timeout; ``join_timeout_s`` bounds the whole run.
    """
    if scenario not in SCENARIOS:
        raise ValueError(f"unknown scenario {scenario!r}; choose from {sorted(SCENARIOS)}")
    if isinstance(world_size, bool) or not isinstance(world_size, int) or world_size < 1:
        raise ValueError(f"world_size must be a positive int, got {world_size!r}")
    if timeout_s <= 0 or join_timeout_s <= 0:
        raise ValueError("timeouts must be positive")
    if backend not in ("gloo", "nccl"):
        raise ValueError(f"backend must be 'gloo' or 'nccl', got {backend!r}")
    ctx = mp.get_context("spawn")
    results = ctx.Queue()
    with tempfile.TemporaryDirectory() as tmp:
        init_file = os.path.join(tmp, "rendezvous")
        procs = [
            ctx.Process(
                target=_worker,
                args=(r, world_size, init_file, scenario, kwargs, results, timeout_s, backend),
                daemon=True,
            )
            for r in range(world_size)
        ]
        for p in procs:
            p.start()
        collected: dict[int, tuple[str, dict]] = {}
        deadline = time.monotonic() + join_timeout_s
        try:
            while len(collected) < world_size:
                remaining = deadline - time.monotonic()
                if remaining <= 0:
                    raise WorkerError(
                        f"{scenario}: only ranks {sorted(collected)} reported within {join_timeout_s} s"
                    )
                try:
                    rank, status, payload = results.get(timeout=min(remaining, 1.0))
                    collected[rank] = (status, payload)
                except queue_mod.Empty:
                    dead = [r for r, p in enumerate(procs) if not p.is_alive() and r not in collected]
                    if dead and all(not p.is_alive() for p in procs):
                        raise WorkerError(f"{scenario}: ranks {dead} exited without reporting") from None
        finally:
            for p in procs:
                p.join(timeout=10)
                if p.is_alive():
                    p.kill()
                    p.join(timeout=5)
            results.close()
    return [collected[r] for r in range(world_size)]


# --- a command in a private network namespace (notebook 13's torchrun launches) ------------------
def can_isolate() -> bool:
    """Whether this machine gives an unprivileged private network namespace (``unshare -rn``)."""
    if not (shutil.which("unshare") and shutil.which("ip")):
        return False
    return subprocess.run(["unshare", "-rn", "true"], capture_output=True).returncode == 0


def _ns_key(pid: int | str) -> tuple[int, int] | None:
    """The network namespace of process ``pid`` (``"self"``: this one) as (device, inode), or None."""
    try:
        st = os.stat(f"/proc/{pid}/ns/net")
    except OSError:
        return None
    return st.st_dev, st.st_ino


def _stop_all(root_pid: int | None, netns_fd: int | None) -> None:
    """Kill ``root_pid`` with all its descendants, whatever session they run in (torchrun starts each rank
    in a session of its own), and every process in the network namespace held open by ``netns_fd`` (which
    also finds a rank whose launcher is gone, or one forked after the list was taken). The open descriptor
    keeps that namespace alive, so its inode cannot be reused by another while we look."""
    import psutil  # only here: Colab has it, ``fieldnotes check`` does not need it

    victims: dict[int, Any] = {}
    if root_pid is not None:
        with contextlib.suppress(psutil.NoSuchProcess):
            root = psutil.Process(root_pid)
            victims.update((p.pid, p) for p in (*root.children(recursive=True), root))
    if netns_fd is not None:
        st = os.fstat(netns_fd)
        key = (st.st_dev, st.st_ino)
        if key != _ns_key("self"):  # never this process's own namespace
            victims.update((p.pid, p) for p in psutil.process_iter() if _ns_key(p.pid) == key)
    for proc in victims.values():
        with contextlib.suppress(psutil.NoSuchProcess):
            proc.kill()
    deadline = time.monotonic() + 10
    left = [proc.pid for proc in victims.values() if not _exited(proc, deadline)]
    if left:
        warnings.warn(f"processes still running 10 s after SIGKILL: {left}", RuntimeWarning, stacklevel=3)


def _exited(proc: Any, deadline: float) -> bool:
    """Wait until ``proc`` (a killed psutil.Process) has exited with all its threads, or until ``deadline``
    (time.monotonic()); reap it where it is our child. Exited, not reaped: a killed process that is not our
    child stays a zombie until whoever inherited it reaps it (init here: 1.5-1.7 s a call on this machine,
    which psutil.wait_procs waited for). A pidfd becomes readable once the whole thread group has exited and
    released its ports, files and memory; a zombie leader whose other threads still run has not."""
    import psutil

    try:
        fd = os.pidfd_open(proc.pid)
    except ProcessLookupError:
        return True  # gone, reaped already
    except (AttributeError, OSError):  # no pidfd here (Linux < 5.3): wait for the PID to go away
        _, alive = psutil.wait_procs([proc], timeout=max(deadline - time.monotonic(), 0))
        return not alive
    try:
        done = bool(select.select([fd], [], [], max(deadline - time.monotonic(), 0))[0])
    finally:
        os.close(fd)
    if done:
        with contextlib.suppress(psutil.Error):
            proc.wait(timeout=0)  # reaps it where it is our child
    return done


def run_isolated(
    command: str, cwd: str | None = None, timeout_s: float = 120.0
) -> subprocess.CompletedProcess | None:
    """Run the shell ``command`` in a private network namespace with only a loopback device (up), so that
    nothing it listens on is reachable from the network; return the finished process (text stdout and
    stderr), or ``None`` where the machine gives no such namespace.

    After ``timeout_s`` it kills the command and every process it started, then raises
    :class:`subprocess.TimeoutExpired`; when the command ends, it kills whatever the command left running
    in its namespace. Either way no rank is left behind (a rank left running can make later launches
    hang).
    """
    if not isinstance(command, str) or not command.strip():
        raise ValueError(f"command must be a non-empty str, got {command!r}")
    if isinstance(timeout_s, bool) or not isinstance(timeout_s, int | float) or timeout_s <= 0:
        raise ValueError(f"timeout_s must be a positive number, got {timeout_s!r}")
    if not can_isolate():
        return None
    # the shell waits for a line on stdin before it runs the command, so that its namespace can be
    # found (and held open) while it is certainly alive; the command itself reads /dev/null
    script = 'ip link set lo up && read _ && exec sh -c "$0" </dev/null'
    args = ["unshare", "-rn", "sh", "-c", script, command]
    proc = subprocess.Popen(
        args,
        cwd=cwd,
        stdin=subprocess.PIPE,
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
        text=True,
    )
    own, netns_fd = _ns_key("self"), None
    deadline = time.monotonic() + timeout_s
    try:
        while proc.poll() is None and time.monotonic() < deadline:
            key = _ns_key(proc.pid)
            if key is not None and key != own:  # unshare(2) has run
                with contextlib.suppress(OSError):
                    netns_fd = os.open(f"/proc/{proc.pid}/ns/net", os.O_RDONLY)
                break
            time.sleep(0.002)
        with contextlib.suppress(BrokenPipeError):
            proc.stdin.write("\n")
            proc.stdin.flush()
        try:
            out, err = proc.communicate(timeout=max(deadline - time.monotonic(), 0.001))
        except subprocess.TimeoutExpired:
            _stop_all(proc.pid, netns_fd)
            proc.wait()  # not communicate(): a pipe held open elsewhere must not block the error
            proc.stdout.close()
            proc.stderr.close()
            raise
        _stop_all(None, netns_fd)  # whatever the command left running in its namespace
    finally:
        if netns_fd is not None:
            os.close(netns_fd)
    return subprocess.CompletedProcess(args, proc.returncode, out, err)
