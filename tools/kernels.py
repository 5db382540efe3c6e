"""Kernel start-up that survives a lost race for its ports.

jupyter_client gives each new kernel five TCP ports on 127.0.0.1 that were free a moment before the kernel
binds them. With many kernels starting at once (16 nbval workers on the GPU runner, each notebook its own
kernel) another process can take one in between; the kernel then exits at start-up, and nbval reports
every cell of that notebook as "Kernel died before replying to kernel_info" (2 of 17 notebooks in one of
two runs there, none in the other; nbmake's issue #129 shows the same error with "Address already in use"
under xdist). A kernel that died before it ran anything is started again, up to ``tries`` times; every
start-up failure is appended to the file named by ``$FIELDNOTES_KERNEL_LOG`` (tools/gpu/run.sh brings it
back), so a retry is never silent: with the kernel's last stderr lines where the call takes a ``stderr``
(nbval's), else the kernel writes them to the caller's own stderr.
"""

from __future__ import annotations

import datetime as dt
import functools
import os
import tempfile
from collections.abc import Callable
from typing import TypeVar

T = TypeVar("T")

#: jupyter_client's message when the kernel process exited before answering its first request.
DIED_AT_STARTUP = "Kernel died before replying to kernel_info"


def died_at_startup(exc: BaseException) -> bool:
    """Whether ``exc`` is a kernel that exited before it ran anything (so starting it again is safe)."""
    return isinstance(exc, RuntimeError) and DIED_AT_STARTUP in str(exc)


def note_failed_start(what: str, attempt: int, stderr: str = "") -> None:
    """Append one start-up failure to ``$FIELDNOTES_KERNEL_LOG`` (nothing when it is unset): when, which
    xdist worker, ``what`` and the attempt, then the last lines of ``stderr`` that say something (a
    traceback's ``^^^`` markers left out)."""
    path = os.environ.get("FIELDNOTES_KERNEL_LOG")
    if not path:
        return
    lines = [ln for ln in stderr.strip().splitlines() if ln.strip(" ^~")]
    tail = "".join(f"    {ln}\n" for ln in lines[-4:])
    stamp = dt.datetime.now(dt.timezone.utc).isoformat(timespec="seconds")
    worker = os.environ.get("PYTEST_XDIST_WORKER", "-")
    with open(path, "a", encoding="utf-8") as f:
        f.write(f"{stamp} {worker} {what}: attempt {attempt} died at start-up\n{tail}")


def retrying(start: Callable[..., T], tries: int = 3, what: str = "kernel") -> Callable[..., T]:
    """Wrap a kernel-starting call (e.g. ``nbval.kernel.start_new_kernel``) so that a kernel that died at
    start-up is started again, at most ``tries`` times in all; any other error, and the last failure,
    propagate. A ``stderr`` keyword is replaced by a temporary file, read back when the start fails."""
    if tries < 1:
        raise ValueError(f"tries must be at least 1, got {tries}")

    @functools.wraps(start)
    def wrapper(*args, **kwargs) -> T:
        for attempt in range(1, tries + 1):
            with tempfile.TemporaryFile() as err:
                call = {**kwargs, "stderr": err} if "stderr" in kwargs else kwargs
                try:
                    return start(*args, **call)
                except RuntimeError as exc:
                    if not died_at_startup(exc):
                        raise
                    err.seek(0)
                    where = f"{what} in {kwargs['cwd']}" if kwargs.get("cwd") else what
                    note_failed_start(where, attempt, err.read().decode(errors="replace"))
                    if attempt == tries:
                        raise
        raise AssertionError("unreachable")  # pragma: no cover

    return wrapper
