"""Matrix-product FLOPs counted at dispatch, for pages that must also run on torch 2.0.

``torch.utils.flop_counter.FlopCounterMode`` (torch 2.1+) counts the FLOPs of matrix products and
convolutions. For networks of Linear layers that is the products ``mm``, ``addmm`` and, under ``vmap``
or batched gradients, ``bmm`` and ``baddbmm``, at 2·m·n·k each (a multiply and an add per term).
:class:`MatmulFlops` counts exactly those at the dispatcher, so it agrees with ``FlopCounterMode`` on
such networks (tests/test_helpers.py checks it against ``FlopCounterMode``) and stands in for it on
torch 2.0: :data:`FlopCounterMode` here is torch's class where it exists and :class:`MatmulFlops`
otherwise. It does not count convolutions.
"""

from __future__ import annotations

from typing import Any

import torch
from torch.utils._python_dispatch import TorchDispatchMode

__all__ = ["FlopCounterMode", "MatmulFlops", "matmul_flops"]

_aten = torch.ops.aten


def matmul_flops(func: Any, args: tuple) -> int:
    """FLOPs of one aten matrix product call, 2·(batch)·m·n·k; 0 for any other op.

    ``func`` is an aten op or overload packet (as a ``TorchDispatchMode`` receives it), ``args`` its
    positional arguments: ``mm(a, b)``, ``addmm(bias, a, b)``, ``bmm(a, b)``, ``baddbmm(bias, a, b)``.
    """
    if not isinstance(args, tuple):
        raise ValueError(f"args must be the op's positional arguments as a tuple, got {type(args).__name__}")
    packet = getattr(func, "overloadpacket", func)
    if packet is _aten.mm:
        a, b = args[0], args[1]
        return 2 * a.shape[0] * a.shape[1] * b.shape[1]
    if packet is _aten.addmm:
        a, b = args[1], args[2]
        return 2 * a.shape[0] * a.shape[1] * b.shape[1]
    if packet is _aten.bmm:
        a, b = args[0], args[1]
        return 2 * a.shape[0] * a.shape[1] * a.shape[2] * b.shape[2]
    if packet is _aten.baddbmm:
        a, b = args[1], args[2]
        return 2 * a.shape[0] * a.shape[1] * a.shape[2] * b.shape[2]
    return 0


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


try:  # torch 2.1+
    from torch.utils.flop_counter import FlopCounterMode
except ImportError:  # torch 2.0: the matrix products alone
    FlopCounterMode = MatmulFlops  # type: ignore[misc, assignment]
