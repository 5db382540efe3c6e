"""A dataset for the CUDA-in-DataLoader-workers pitfall (notebook 12).

A DataLoader worker started with ``spawn`` (or ``forkserver``, Linux's default from
Python 3.14) imports its Dataset class by module path, so a class that such workers
load lives here, not in a notebook.
"""

from __future__ import annotations

import torch
from torch.utils.data import Dataset

from helpers.data import _check_length, check_index

__all__ = ["SquaresOn"]


class SquaresOn(Dataset):
    """``n`` items; item ``i`` is the float32 scalar ``i * i``, created on ``device`` by ``__getitem__``.

    With ``device="cuda"`` every ``__getitem__`` touches CUDA in whichever process runs it. In a
    DataLoader worker forked from a process that has initialised CUDA that raises "Cannot
    re-initialize CUDA in forked subprocess" (notebook 12, C33). With ``device="cpu"`` the workers
    never touch CUDA, and the main process moves each batch (the fix). Building the dataset does
    not touch CUDA: ``torch.device("cuda")`` only parses the name.
    """

    def __init__(self, n: int, device: str | torch.device = "cuda") -> None:
        self.n = _check_length(n)
        self.device = torch.device(device)  # RuntimeError for a device name torch does not know

    def __len__(self) -> int:
        return self.n

    def __getitem__(self, i: int) -> torch.Tensor:
        i = check_index(i, self.n)
        return torch.tensor(float(i * i), device=self.device)
