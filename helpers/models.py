"""Tiny model factories for the notebooks."""

from __future__ import annotations

from collections.abc import Callable, Sequence

import torch
from torch import nn

__all__ = ["make_mlp"]


def make_mlp(
    sizes: Sequence[int],
    activation: Callable[[], nn.Module] = nn.ReLU,
    *,
    bias: bool = True,
    seed: int | None = None,
) -> nn.Sequential:
    """``Linear(sizes[0], sizes[1]) → act → … → Linear(sizes[-2], sizes[-1])`` (no activation at the end).

    ``seed`` makes the initial weights reproducible without touching the global RNG.
    """
    sizes = list(sizes)
    if len(sizes) < 2:
        raise ValueError(f"sizes needs at least an input and an output size, got {sizes}")
    if any(isinstance(s, bool) or not isinstance(s, int) or s < 1 for s in sizes):
        raise ValueError(f"sizes must be positive ints, got {sizes}")
    if not callable(activation):
        raise TypeError("activation must be a callable returning an nn.Module (e.g. nn.ReLU)")
    layers: list[nn.Module] = []
    with torch.random.fork_rng(enabled=seed is not None):
        if seed is not None:
            torch.manual_seed(seed)
        for i, (fan_in, fan_out) in enumerate(zip(sizes[:-1], sizes[1:])):
            layers.append(nn.Linear(fan_in, fan_out, bias=bias))
            if i < len(sizes) - 2:
                layers.append(activation())
    return nn.Sequential(*layers)
