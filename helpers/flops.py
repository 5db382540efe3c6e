"""Matrix-product FLOPs counted at dispatch, for pages that must also run on torch 2.0.

``torch.utils.flop_counter.FlopCounterMode`` (torch 2.1+) counts the FLOPs of matrix products and
convolutions. For networks of Linear layers that is the products ``mm``, ``addmm`` and, under ``vmap``
or batched gradients, ``bmm`` and ``baddbmm``, at 2·m·n·k each (a multiply and an add per term).
:class:`MatmulFlops` counts exactly those at the dispatcher, so it agrees with ``FlopCounterMode`` on
such networks in eager grad-mode code, as the pages run them (tests/test_helpers.py checks it against
``FlopCounterMode``; torch's counter also decomposes composite ops it has no formula for, which this one
does not), and stands in for it on torch 2.0: :data:`FlopCounterMode` here is torch's class from 2.1 and
:class:`MatmulFlops` on 2.0. It does not count convolutions.
"""

from __future__ import annotations

from typing import Any

import torch
from torch.utils._python_dispatch import TorchDispatchMode

from helpers.versions import since

__all__ = ["FlopCounterMode", "MatmulFlops", "matmul_flops"]

_aten = torch.ops.aten


#: op -> (positions of the two factors in its arguments, their number of dimensions)
_PRODUCTS = {
    _aten.mm: ((0, 1), 2),
    _aten.addmm: ((1, 2), 2),
    _aten.bmm: ((0, 1), 3),
    _aten.baddbmm: ((1, 2), 3),
}


def matmul_flops(func: Any, args: tuple[Any, ...]) -> int:
    """FLOPs of one aten matrix product call, 2·(batch)·m·n·k; 0 for any other op.

    ``func`` is an aten op or overload packet (as a ``TorchDispatchMode`` receives it), ``args`` its
    positional arguments: ``mm(a, b)``, ``addmm(bias, a, b)``, ``bmm(a, b)``, ``baddbmm(bias, a, b)``.
    """
    if not isinstance(args, tuple):
        raise ValueError(f"args must be the op's positional arguments as a tuple, got {type(args).__name__}")
    packet = getattr(func, "overloadpacket", func)
    if packet not in _PRODUCTS:
        return 0
    (i, j), ndim = _PRODUCTS[packet]
    if len(args) <= j or not all(isinstance(args[k], torch.Tensor) and args[k].dim() == ndim for k in (i, j)):
        got = [tuple(x.shape) if isinstance(x, torch.Tensor) else type(x).__name__ for x in args]
        raise ValueError(f"{packet} takes two {ndim}-D tensors at positions {i} and {j}, got {got}")
    a, b = args[i], args[j]
    return 2 * a.shape[:-1].numel() * a.shape[-1] * b.shape[-1]


class MatmulFlops(TorchDispatchMode):
    """A context manager that sums :func:`matmul_flops` over every op dispatched inside it.

    Same interface as ``FlopCounterMode`` where pages use it: ``with MatmulFlops(display=False) as c:``
    then ``c.get_total_flops()``. ``display`` is accepted for that interface and must be False (this
    counter prints no table).
    """

    def __init__(self, display: bool = False) -> None:
        if display is not False:
            raise ValueError(f"MatmulFlops prints no table: display must be False, got {display!r}")
        super().__init__()
        self.flops = 0

    def __torch_dispatch__(self, func, types, args=(), kwargs=None):  # noqa: ANN001, ANN204 - torch's hook
        self.flops += matmul_flops(func, tuple(args))
        return func(*args, **(kwargs or {}))

    def get_total_flops(self) -> int:
        """The FLOPs counted so far."""
        return self.flops


if since("2.1"):  # by version, so a failing import on 2.1+ is an error, not a silent fallback
    from torch.utils.flop_counter import FlopCounterMode
else:  # torch 2.0: the matrix products alone
    FlopCounterMode = MatmulFlops  # type: ignore[misc, assignment]
