"""Read the sizes in a CUDA out-of-memory message (notebook 16, C39).

PyTorch's caching allocator (``c10/cuda/CUDACachingAllocator.cpp``) builds the message
of a ``torch.OutOfMemoryError`` from sizes printed by its ``format_size``: whole bytes
up to 1024 bytes, else two decimals of KiB, MiB or GiB. Since torch 2.1 it reads::

    CUDA out of memory. Tried to allocate X. GPU 0 has a total capacity of T of which
    F is free. [Process N has S memory in use. ...] [Including non-PyTorch memory, this
    process has P memory in use.] [L allowed; ]Of the allocated memory A is allocated
    by PyTorch, [with G allocated in private pools (e.g., CUDA Graphs), ]and R is
    reserved by PyTorch but unallocated. If reserved but unallocated memory is large ...

(torch 2.1 spelled "capacty"). Up to torch 2.0 it read ``Tried to allocate X (GPU 0;
T total capacity; A already allocated; F free; [L allowed; ]V reserved in total by
PyTorch)``, and older releases still wrote ``V cached`` for the last part.
"""

from __future__ import annotations

import re

__all__ = [
    "UNITS",
    "format_size",
    "parse_size",
    "parse_oom_message",
    "printing_tolerance",
]

#: The units the allocator prints, in bytes.
UNITS: dict[str, int] = {"bytes": 1, "KiB": 2**10, "MiB": 2**20, "GiB": 2**30}

_SIZE = r"(\d+(?:\.\d+)?) (bytes|KiB|MiB|GiB)"


def _named(name: str) -> str:
    """The size pattern, its number and unit captured as ``name_n`` and ``name_u``."""
    return rf"(?P<{name}_n>\d+(?:\.\d+)?) (?P<{name}_u>bytes|KiB|MiB|GiB)"


_START = re.compile(
    rf"(?:CUDA|HIP) out of memory\. Tried to allocate {_named('tried')}",
)
# torch >= 2.1: the rest of the message, clause by clause ("(?: ...)?": an optional one)
_MODERN = re.compile(
    r"\. GPU \d+ has a total capac(?:i)?ty of "
    rf"{_named('total')} of which {_named('free')} is free\."
    r"(?P<processes>(?: (?:Process \d+|Including non-PyTorch memory, this process)"
    rf" has {_SIZE} memory in use\.)*)"
    rf"(?: {_named('allowed')} allowed;)?"
    rf" Of the allocated memory {_named('allocated')} is allocated by PyTorch,"
    rf"(?: with {_named('private_pools')} allocated in private pools"
    r" \(e\.g\., CUDA Graphs\),)?"
    rf" and {_named('unallocated')} is reserved by PyTorch but unallocated\."
)
_PROCESS = re.compile(
    rf"(?:Process (\d+)|this process) has {_SIZE} memory in use\.",
)
# torch <= 2.0 (older releases still: "cached" for "reserved in total by PyTorch")
_OLD = re.compile(
    rf" \(GPU \d+; {_named('total')} total capacity;"
    rf" {_named('allocated')} already allocated; {_named('free')} free;"
    rf"(?: {_named('allowed')} allowed;)?"
    rf" {_named('reserved')} (?:reserved in total by PyTorch|cached)\)"
)


def _bytes(number: str, unit: str) -> int:
    return round(float(number) * UNITS[unit])


def _unit(nbytes: int) -> str:
    """The unit the allocator's ``format_size`` picks for a size."""
    if nbytes <= 2**10:
        return "bytes"
    return "KiB" if nbytes <= 2**20 else "MiB" if nbytes <= 2**30 else "GiB"


def parse_size(text: str) -> int:
    """``"83.57 GiB"`` -> bytes, rounded to a whole byte (``"0 bytes"`` -> 0).

    Raises ValueError for anything but a number, one space and one of :data:`UNITS`.
    """
    match = re.fullmatch(_SIZE, text.strip())
    if match is None:
        raise ValueError(f"not a size as the allocator prints it: {text!r}")
    return _bytes(match[1], match[2])


def format_size(nbytes: int) -> str:
    """A size as the allocator prints it: ``"512 bytes"``, ``"1.50 KiB"``.

    Mirrors ``format_size`` in c10 (``precision(2)``, ``std::fixed``): up to 1024 bytes
    in bytes, up to 1 MiB in KiB, up to 1 GiB in MiB, else in GiB.
    """
    if nbytes < 0:
        raise ValueError(f"a size cannot be negative: {nbytes}")
    unit = _unit(nbytes)
    if unit == "bytes":
        return f"{nbytes} bytes"
    return f"{nbytes / UNITS[unit]:.2f} {unit}"


def printing_tolerance(nbytes: int) -> float:
    """How far ``parse_size(format_size(nbytes))`` can be from ``nbytes``, in bytes.

    Half a step of the last printed digit (0.005 of the unit; none for a size printed in
    bytes), plus half a byte for :func:`parse_size`'s rounding to whole bytes.
    """
    unit = _unit(nbytes)
    return 0.5 if unit == "bytes" else 0.005 * UNITS[unit] + 0.5


def _sizes(match: re.Match[str], names: tuple[str, ...]) -> dict[str, int]:
    """The named sizes a match captured (an absent optional clause gives none)."""
    found = {name: (match[f"{name}_n"], match[f"{name}_u"]) for name in names}
    return {name: _bytes(n, u) for name, (n, u) in found.items() if n is not None}


def parse_oom_message(text: str) -> dict[str, int]:
    """The sizes in a CUDA out-of-memory message, in bytes, by name.

    ``text`` may be the bare message, a pasted traceback around it, or the message
    wrapped over several lines (whitespace is collapsed). The first message is read.

    Keys for the message of torch >= 2.1: ``tried`` (the block the allocator tried to
    get), ``total`` (the card's capacity), ``free`` (free on the card, every process
    counted), ``this_process`` (what the driver counts for this process, PyTorch's cache
    included; absent where the driver lists none, or, in a container, lists this process
    as ``Process N``), ``process N`` for each other process listed, ``allowed`` (only
    with ``torch.cuda.set_per_process_memory_fraction``), ``allocated`` (live tensors;
    the message adds ``private_pools``, memory of CUDA Graphs' private pools, to it) and
    ``unallocated`` (reserved by PyTorch but unallocated). Keys for the message of
    torch <= 2.0: ``tried``, ``total``, ``allocated``, ``free``, ``allowed`` (optional)
    and ``reserved`` (reserved in total, allocated included).

    Raises ValueError when ``text`` holds no such message (for example the CUDA
    runtime's "CUDA error: out of memory", which has no sizes).
    """
    flat = " ".join(text.split())
    start = _START.search(flat)
    if start is None:
        raise ValueError("not a CUDA out-of-memory message of PyTorch's allocator")
    sizes = _sizes(start, ("tried",))
    rest = flat[start.end() :]
    old = _OLD.match(rest)
    if old is not None:
        names = ("total", "allocated", "free", "allowed", "reserved")
        return sizes | _sizes(old, names)
    modern = _MODERN.match(rest)
    if modern is None:
        shown = flat[start.start() : start.start() + 300]
        raise ValueError(f"an OOM message, its sizes in no known format: {shown!r}")
    sizes |= _sizes(modern, ("total", "free"))
    for pid, number, unit in _PROCESS.findall(modern["processes"]):
        sizes[f"process {pid}" if pid else "this_process"] = _bytes(number, unit)
    names = ("allowed", "allocated", "private_pools", "unallocated")
    return sizes | _sizes(modern, names)
