"""Seeding for reproducible runs.

What each call controls is taught in notebook 00; this module only packages it.
"""

from __future__ import annotations

import os
import random

import numpy as np
import torch

__all__ = ["seed_everything", "seed_worker", "make_generator"]

_MAX_SEED = 2**32 - 1


def _check_seed(seed: int) -> int:
    if isinstance(seed, bool) or not isinstance(seed, (int, np.integer)):
        raise TypeError(f"seed must be an int, got {type(seed).__name__}")
    if not 0 <= int(seed) <= _MAX_SEED:
        raise ValueError(f"seed must be in [0, 2**32 - 1] (NumPy's limit), got {seed}")
    return int(seed)


def seed_everything(seed: int, *, deterministic: bool = False) -> None:
    """Seed Python's ``random``, NumPy's global RNG and torch (all devices).

    ``PYTHONHASHSEED`` is exported too, but note: it only affects *child*
    processes started afterwards, never the running interpreter (notebook 00, C10).
    With ``deterministic=True`` also switch torch to deterministic algorithms and
    cuDNN to deterministic, non-benchmarking mode; this changes global state, so
    callers in notebooks should undo it with :func:`torch.use_deterministic_algorithms`.
    """
    seed = _check_seed(seed)
    if not isinstance(deterministic, bool):
        raise TypeError("deterministic must be a bool")
    random.seed(seed)
    np.random.seed(seed)
    torch.manual_seed(seed)  # seeds CPU and every CUDA device
    os.environ["PYTHONHASHSEED"] = str(seed)  # noqa: FNC037 (for child processes, see above)
    if deterministic:
        torch.use_deterministic_algorithms(True)
        torch.backends.cudnn.deterministic = True
        torch.backends.cudnn.benchmark = False


def seed_worker(worker_id: int) -> None:
    """DataLoader ``worker_init_fn`` that reseeds ``random`` and NumPy from the worker's torch seed.

    Since PyTorch 1.9 the DataLoader already does this for the *global* RNGs; this
    function is kept for code that must also run on older versions. It does not
    help RNG objects a Dataset owns (see :mod:`helpers.data`).
    """
    if not isinstance(worker_id, int) or worker_id < 0:
        raise ValueError(f"worker_id must be a non-negative int, got {worker_id!r}")
    worker_seed = torch.initial_seed() % 2**32  # torch seeds are 64-bit; NumPy wants 32-bit
    np.random.seed(worker_seed)
    random.seed(worker_seed)


def make_generator(seed: int) -> torch.Generator:
    """Return a CPU ``torch.Generator`` seeded with ``seed`` (for DataLoader ``generator=``)."""
    return torch.Generator().manual_seed(_check_seed(seed))
