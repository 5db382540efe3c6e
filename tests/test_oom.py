"""Unit tests for helpers/oom.py (notebook 16, C39); they run on CPU."""

import random

import pytest

from helpers.oom import (
    UNITS,
    format_size,
    parse_oom_message,
    parse_size,
    printing_tolerance,
)

KiB, MiB, GiB = UNITS["KiB"], UNITS["MiB"], UNITS["GiB"]
TAIL = (
    " If reserved but unallocated memory is large try setting"
    " PYTORCH_CUDA_ALLOC_CONF=expandable_segments:True to avoid fragmentation."
    "  See documentation for Memory Management "
    " (https://docs.pytorch.org/docs/stable/notes/cuda.html"
    "#optimizing-memory-usage-with-pytorch-cuda-alloc-conf)"
)
# measured on an H200 with torch 2.11: one request of 1.5 x the card, nothing held
H200 = (
    "CUDA out of memory. Tried to allocate 209.70 GiB. GPU 0 has a total capacity"
    " of 139.80 GiB of which 139.29 GiB is free. Including non-PyTorch memory, this"
    " process has 518.00 MiB memory in use. Of the allocated memory 0 bytes is"
    " allocated by PyTorch, and 0 bytes is reserved by PyTorch but unallocated." + TAIL
)


def gib(x: float) -> int:
    return round(x * GiB)


def mib(x: float) -> int:
    return round(x * MiB)


def message(sizes: dict[str, int], processes: str = "") -> str:
    """A torch >= 2.1 message as c10's malloc builds it (its optional clauses too)."""
    size = {name: format_size(n) for name, n in sizes.items()}
    allowed = f"{size['allowed']} allowed; " if "allowed" in sizes else ""
    private = ""
    if sizes.get("private_pools"):
        pools = size["private_pools"]
        private = f"with {pools} allocated in private pools (e.g., CUDA Graphs), "
    return (
        f"CUDA out of memory. Tried to allocate {size['tried']}. GPU 0 has a total"
        f" capacity of {size['total']} of which {size['free']} is free. {processes}"
        f"{allowed}Of the allocated memory {size['allocated']} is allocated by"
        f" PyTorch, {private}and {size['unallocated']} is reserved by PyTorch but"
        " unallocated." + TAIL
    )


def test_the_measured_h200_message():
    assert parse_oom_message(H200) == {
        "tried": gib(209.70),
        "total": gib(139.80),
        "free": gib(139.29),
        "this_process": mib(518),
        "allocated": 0,
        "unallocated": 0,
    }


def test_a_small_request_on_a_full_card():
    # from a comment of 2024-03-13 on pytorch/pytorch#16417
    text = (
        "torch.cuda.OutOfMemoryError: CUDA out of memory. Tried to allocate"
        " 22.00 MiB. GPU 0 has a total capacity of 23.65 GiB of which 11.06 MiB is"
        " free. Including non-PyTorch memory, this process has 23.60 GiB memory in"
        " use. Of the allocated memory 22.90 GiB is allocated by PyTorch, and"
        " 194.87 MiB is reserved by PyTorch but unallocated." + TAIL
    )
    assert parse_oom_message(text) == {
        "tried": mib(22),
        "total": gib(23.65),
        "free": mib(11.06),
        "this_process": gib(23.60),
        "allocated": gib(22.90),
        "unallocated": mib(194.87),
    }


def test_other_processes_and_no_this_process_in_a_container():
    # a pasted report of torch 2.1 ("capacty", the max_split_size_mb hint); in a
    # container the driver's process ids are the host's, so this process is one of
    # the "Process N" lines
    text = (
        "torch.cuda.OutOfMemoryError: CUDA out of memory. Tried to allocate"
        " 448.00 MiB. GPU 1 has a total capacty of 79.10 GiB of which 364.31 MiB is"
        " free. Process 175080 has 1.46 GiB memory in use. Process 175356 has"
        " 77.26 GiB memory in use. Of the allocated memory 72.12 GiB is allocated by"
        " PyTorch, and 3.78 GiB is reserved by PyTorch but unallocated. If reserved"
        " but unallocated memory is large try setting max_split_size_mb to avoid"
        " fragmentation.  See documentation for Memory Management and"
        " PYTORCH_CUDA_ALLOC_CONF"
    )
    assert parse_oom_message(text) == {
        "tried": mib(448),
        "total": gib(79.10),
        "free": mib(364.31),
        "process 175080": gib(1.46),
        "process 175356": gib(77.26),
        "allocated": gib(72.12),
        "unallocated": gib(3.78),
    }


def test_no_process_lines_and_zero_free():
    text = (
        "CUDA out of memory. Tried to allocate 1.70 GiB. GPU 0 has a total capacty"
        " of 6.00 GiB of which 0 bytes is free. Of the allocated memory 2.93 GiB is"
        " allocated by PyTorch, and 2.30 GiB is reserved by PyTorch but unallocated."
    )
    assert parse_oom_message(text) == {
        "tried": gib(1.70),
        "total": gib(6),
        "free": 0,
        "allocated": gib(2.93),
        "unallocated": gib(2.30),
    }


def test_allowed_and_private_pool_clauses():
    sizes = {
        "tried": 20 * MiB,
        "total": 80 * GiB,
        "free": 30 * GiB,
        "allowed": 40 * GiB,
        "allocated": 39 * GiB,
        "private_pools": 3 * GiB,
        "unallocated": 512 * KiB,
    }
    processes = (
        "Process 7 has 10.00 GiB memory in use. Including non-PyTorch memory, this"
        " process has 40.50 GiB memory in use. "
    )
    parsed = parse_oom_message(message(sizes, processes))
    assert parsed == sizes | {"process 7": 10 * GiB, "this_process": gib(40.50)}


def test_wrapped_over_lines_inside_a_traceback():
    words = H200.split(" ")  # a terminal or a forum wraps between words
    lines = [" ".join(words[i : i + 9]) for i in range(0, len(words), 9)]
    pasted = "Traceback (most recent call last):\n  ...\ntorch.OutOfMemoryError: "
    pasted += "\n  ".join(lines)
    assert parse_oom_message(pasted) == parse_oom_message(H200)


def test_the_first_of_two_messages_is_read():
    second = H200.replace("209.70 GiB", "2.00 MiB")
    assert parse_oom_message(H200 + "\n" + second) == parse_oom_message(H200)


def test_the_format_up_to_torch_2_0():
    # chnsh/DCRNN_PyTorch#6 (2020)
    text = (
        "RuntimeError: CUDA out of memory. Tried to allocate 20.00 MiB (GPU 0;"
        " 5.80 GiB total capacity; 4.36 GiB already allocated; 6.69 MiB free;"
        " 4.63 GiB reserved in total by PyTorch)"
    )
    assert parse_oom_message(text) == {
        "tried": mib(20),
        "total": gib(5.80),
        "allocated": gib(4.36),
        "free": mib(6.69),
        "reserved": gib(4.63),
    }
    # older still (the title of pytorch/pytorch#16417), and with a memory fraction
    older = (
        "CUDA out of memory. Tried to allocate 12.50 MiB (GPU 0; 10.92 GiB total"
        " capacity; 8.57 MiB already allocated; 9.28 GiB free; 4.68 MiB cached)"
    )
    assert parse_oom_message(older)["reserved"] == mib(4.68)
    allowed = text.replace("6.69 MiB free;", "6.69 MiB free; 5.00 GiB allowed;")
    assert parse_oom_message(allowed)["allowed"] == 5 * GiB


@pytest.mark.parametrize(
    "text",
    [
        "",
        "CUDA error: out of memory\nCUDA kernel errors might be asynchronously",
        "RuntimeError: [enforce fail at alloc_cpu.cpp:114] data. DefaultCPUAllocator:"
        " not enough memory: you tried to allocate 800000000000 bytes.",
        "MPS backend out of memory (MPS allocated: 1.00 GiB, other allocations: 0)",
    ],
)
def test_other_messages_raise(text):
    with pytest.raises(ValueError, match="not a CUDA out-of-memory message"):
        parse_oom_message(text)


def test_a_truncated_message_raises():
    with pytest.raises(ValueError, match="no known format"):
        parse_oom_message(H200[:150])


def test_parse_size():
    assert parse_size("518.00 MiB") == 518 * MiB and parse_size("1.50 KiB") == 1536
    assert parse_size("0 bytes") == 0 and parse_size(" 512 bytes ") == 512
    assert parse_size("139.80 GiB") == gib(139.8)
    for bad in ["1.5 KB", "12", "GiB", "-1.00 MiB", "1.00  MiB", "1,024.00 KiB"]:
        with pytest.raises(ValueError, match="not a size"):
            parse_size(bad)


def test_format_size_picks_the_allocators_units():
    sizes = (0, 1024, 1025, MiB, MiB + 1, GiB, GiB + 1)
    assert [format_size(n) for n in sizes] == [
        "0 bytes",
        "1024 bytes",
        "1.00 KiB",
        "1024.00 KiB",
        "1.00 MiB",
        "1024.00 MiB",
        "1.00 GiB",
    ]
    assert format_size(20 * MiB) == "20.00 MiB"
    assert format_size(gib(83.57)) == "83.57 GiB"
    with pytest.raises(ValueError):
        format_size(-1)


def test_printed_sizes_parse_back_within_the_tolerance():
    rng = random.Random(0)
    sizes = [0, 1, 1024, 1025, MiB, MiB + 1, GiB, GiB + 1, 2**40]
    sizes += [rng.randrange(2**e) for e in range(1, 48) for _ in range(20)]
    for n in sizes:
        error = abs(parse_size(format_size(n)) - n)
        assert error <= printing_tolerance(n), (n, format_size(n))
    assert printing_tolerance(512) == 0.5 and printing_tolerance(GiB + 1) > 5 * MiB
    # a whole message of such sizes reads back as well
    fields = {"tried": 20 * MiB, "total": gib(23.65), "free": 3 * MiB + 1}
    fields |= {"allocated": gib(22.91) + 7, "unallocated": mib(281.39)}
    parsed = parse_oom_message(message(fields))
    assert parsed.keys() == fields.keys()
    assert all(abs(parsed[k] - v) <= printing_tolerance(v) for k, v in fields.items())
