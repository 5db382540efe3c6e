"""Code for the CUDA error notebooks that cannot live in a notebook cell.

- :class:`SquaresOn`, a dataset for the CUDA-in-DataLoader-workers pitfall
  (notebook 12). A DataLoader worker started with ``spawn`` (or ``forkserver``,
  Linux's default from Python 3.14) imports its Dataset class by module path, so a
  class that such workers load lives here.
- :func:`where_it_fails` runs a short script in a fresh process and reports the line
  where it raised (notebook 08: a device-side assert is reported at a later line
  unless ``CUDA_LAUNCH_BLOCKING=1``, and it leaves the CUDA context unusable).
"""

from __future__ import annotations

import json
import os
import subprocess
import sys
import tempfile
from typing import TypedDict

import torch
from torch.utils.data import Dataset

from helpers.data import _check_length, check_index

__all__ = ["SquaresOn", "FailureReport", "marked_lines", "no_failure", "where_it_fails"]


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


#: Prefix of the report line that :func:`where_it_fails`'s runner prints last.
_REPORT_MARK = "@@where_it_fails@@ "
#: Run as ``python -c _RUNNER script.py args...``: runs the script as ``__main__``
#: (its ``sys.argv`` is ``[script.py, args...]``), catches what it raises and prints
#: one report line.
_RUNNER = f"""\
import json, os, runpy, sys, traceback
path = os.path.abspath(sys.argv[1])
sys.argv = sys.argv[1:]
report = {{}}
try:
    runpy.run_path(path, run_name="__main__")
except Exception as exc:
    mine = [f for f in traceback.extract_tb(exc.__traceback__)
            if os.path.abspath(f.filename) == path]
    report = {{"line": mine[-1].lineno if mine else None,
              "type": type(exc).__name__,
              "runtime_error": isinstance(exc, RuntimeError),
              "message": str(exc)}}
print("\\n{_REPORT_MARK}" + json.dumps(report), flush=True)
"""


class FailureReport(TypedDict):
    """Where and how a script run by :func:`where_it_fails` stopped.

    Every key is always present (see :func:`no_failure`).
    """

    line: int | None  # the script's innermost traceback frame; None: no error
    type: str  # the exception's class name; "no error" when the script ran to its end
    runtime_error: bool  # isinstance(exc, RuntimeError); torch.AcceleratorError is one
    message: str  # str(exc), all lines
    first: str  # the message's first line, what a reader pastes
    device_side: bool  # the message says "device-side assert triggered"
    async_hint: bool  # it says the error "might be asynchronously reported"


def no_failure() -> FailureReport:
    """The report of a script that raised nothing.

    Every key has a value, so a false statement about a script fails a check instead
    of raising ``KeyError``.
    """
    return FailureReport(
        line=None,
        type="no error",
        runtime_error=False,
        message="",
        first="",
        device_side=False,
        async_hint=False,
    )


def marked_lines(script: str, *marks: str) -> dict[str, int]:
    """Line numbers (from 1) of the lines of ``script`` that end in ``# MARK``.

    Raises ``ValueError`` when a mark ends no line or several: the line numbers a
    check relies on are counted from the text, never written by hand.
    """
    if not isinstance(script, str):
        raise TypeError(f"script must be a str, got {type(script).__name__}")
    ok = [isinstance(m, str) and bool(m.strip()) and "\n" not in m for m in marks]
    if not marks or not all(ok):
        raise ValueError("give one or more marks, each a non-empty one-line str")
    lines = [text.rstrip() for text in script.splitlines()]
    found: dict[str, int] = {}
    for mark in marks:
        numbers = [n for n, text in enumerate(lines, 1) if text.endswith(f"# {mark}")]
        if len(numbers) != 1:
            raise ValueError(f"mark {mark!r} ends {len(numbers)} lines, not one")
        found[mark] = numbers[0]
    return found


def where_it_fails(
    script: str, *args: str, blocking: bool = False, timeout: float = 120.0
) -> tuple[FailureReport, str]:
    """Run ``script`` in a fresh Python process; return how it failed, and its stderr.

    The script is written to a temporary file and run as ``__main__``, with ``args``
    as its ``sys.argv[1:]``, by this interpreter in this environment, except that
    ``CUDA_LAUNCH_BLOCKING`` is ``"1"`` when ``blocking`` and unset otherwise (the
    variable counts only if set before the process starts). An exception the script
    raises is caught; the report names the line of its innermost traceback frame
    inside the script. The fresh process keeps the caller's CUDA context usable
    after a device-side assert (notebook 08, C19).

    Raises ``RuntimeError`` when no report comes back (the script left through
    ``sys.exit`` or ``os._exit``, or the process crashed), and
    ``subprocess.TimeoutExpired`` after ``timeout`` seconds.
    """
    if not isinstance(script, str) or not script.strip():
        raise ValueError("script must be a non-empty str of Python code")
    if not all(isinstance(a, str) for a in args):
        raise TypeError("args must be str: they become the script's sys.argv[1:]")
    if not isinstance(blocking, bool):
        raise TypeError(f"blocking must be a bool, got {type(blocking).__name__}")
    number = isinstance(timeout, (int, float)) and not isinstance(timeout, bool)
    if not number or not timeout > 0:
        raise ValueError(f"timeout must be a positive number of seconds: {timeout!r}")
    env = {k: v for k, v in os.environ.items() if k != "CUDA_LAUNCH_BLOCKING"}
    if blocking:
        env["CUDA_LAUNCH_BLOCKING"] = "1"
    with tempfile.TemporaryDirectory() as tmp:
        path = os.path.join(tmp, "script.py")
        with open(path, "w", encoding="utf-8") as f:
            f.write(script)
        res = subprocess.run(
            [sys.executable, "-c", _RUNNER, path, *args],
            capture_output=True,
            text=True,
            timeout=timeout,
            env=env,
        )
    reports = [ln for ln in res.stdout.splitlines() if ln.startswith(_REPORT_MARK)]
    if not reports:
        tail = res.stderr[-400:]
        raise RuntimeError(f"no report (exit status {res.returncode}); stderr: {tail}")
    raw = json.loads(reports[-1][len(_REPORT_MARK) :])
    report = no_failure()
    if raw:
        message = raw["message"]
        report.update(
            line=raw["line"],
            type=raw["type"],
            runtime_error=raw["runtime_error"],
            message=message,
            first=(message.splitlines() or [""])[0],
            device_side="device-side assert triggered" in message,
            async_hint="might be asynchronously reported" in message,
        )
    return report, res.stderr
