"""Claim checks: the ledger of verified statements.

Every asserted claim in a notebook goes through :func:`claim` (or one of its
siblings). On success it prints exactly one stable line::

    ✔ C3 CrossEntropyLoss == LogSoftmax + NLLLoss

and on failure it raises :class:`ClaimError` with the claim id and the reason.
The site tools parse that line format, so it must not change: ``✔``, a space,
``C`` + a number, a space, the statement.
"""

from __future__ import annotations

import re
from collections.abc import Callable
from typing import Any

import numpy as np
import torch

__all__ = ["ClaimError", "claim", "claim_close", "claim_raises", "skip", "LEDGER_RE", "SKIP_RE", "parse_ledger"]

#: Regular expression matching one ledger line (used by tools and tests).
LEDGER_RE = re.compile(r"^✔ (C\d+) (\S.*)$")
#: A claim that could not run here (e.g. needs CUDA) prints this form instead.
SKIP_RE = re.compile(r"^⊘ (C\d+) (\S.*) — skipped: (.+)$")
_ID_RE = re.compile(r"^C\d+$")


class ClaimError(AssertionError):
    """A claim check failed. Subclasses AssertionError so pytest reports it as a failure."""


def _validate(cid: str, statement: str) -> None:
    if not isinstance(cid, str) or not _ID_RE.match(cid):
        raise ValueError(f"claim id must look like 'C1', 'C12'; got {cid!r}")
    if not isinstance(statement, str) or not statement.strip():
        raise ValueError("claim statement must be a non-empty string")
    if "\n" in statement:
        raise ValueError("claim statement must be a single line")


def _line(cid: str, statement: str) -> str:
    return f"✔ {cid} {statement.strip()}"


def claim(cid: str, statement: str, condition: Any, detail: str = "") -> None:
    """Assert ``condition`` and print the ledger line for claim ``cid``.

    ``condition`` must be a Python ``bool`` or a one-element bool tensor; anything
    else (a list, a multi-element tensor, None) raises ``TypeError`` so that a
    check can never pass by accident through truthiness.
    """
    _validate(cid, statement)
    if isinstance(condition, torch.Tensor):
        if condition.numel() != 1 or condition.dtype != torch.bool:
            raise TypeError(
                f"{cid}: condition tensor must be a single bool, got shape "
                f"{tuple(condition.shape)} dtype {condition.dtype}"
            )
        condition = bool(condition.item())
    if isinstance(condition, np.bool_):  # numpy comparisons return numpy booleans
        condition = bool(condition)
    if not isinstance(condition, bool):
        kind = type(condition)
        raise TypeError(f"{cid}: condition must be a bool, got {kind.__module__}.{kind.__qualname__}")
    if not condition:
        raise ClaimError(f"{cid} FAILED: {statement}" + (f" ({detail})" if detail else ""))
    print(_line(cid, statement))


def claim_close(
    cid: str,
    statement: str,
    actual: Any,
    expected: Any,
    *,
    rtol: float | None = None,
    atol: float | None = None,
) -> None:
    """Assert ``actual ≈ expected`` with :func:`torch.testing.assert_close` and print the line.

    Scalars and numpy arrays are accepted (converted with ``torch.as_tensor``).
    ``rtol``/``atol`` must be given together, as torch requires.
    """
    _validate(cid, statement)
    if (rtol is None) != (atol is None):
        raise ValueError(f"{cid}: give both rtol and atol, or neither")
    a = actual if isinstance(actual, torch.Tensor) else torch.as_tensor(actual)
    e = expected if isinstance(expected, torch.Tensor) else torch.as_tensor(expected)
    try:
        torch.testing.assert_close(a, e, rtol=rtol, atol=atol, check_dtype=False, check_device=False)
    except AssertionError as exc:
        first = str(exc).strip().splitlines()[0]
        raise ClaimError(f"{cid} FAILED: {statement} ({first})") from None
    print(_line(cid, statement))


def claim_raises(
    cid: str,
    statement: str,
    fn: Callable[[], Any],
    exc_type: type[BaseException] | tuple[type[BaseException], ...],
    match: str | None = None,
) -> BaseException:
    """Assert that calling ``fn()`` raises ``exc_type`` whose message contains ``match``.

    Use this (rather than a ``raises-exception`` cell) when the exact message is
    unstable across devices or runs (paths, PIDs, ``torch.cuda.FloatTensor``...).
    Returns the caught exception (assign it, so the cell stores no repr).
    """
    _validate(cid, statement)
    if not callable(fn):
        raise TypeError(f"{cid}: fn must be callable, got {type(fn).__name__}")
    try:
        fn()
    except exc_type as exc:  # type: ignore[misc]
        if match is not None and match not in str(exc):
            raise ClaimError(
                f"{cid} FAILED: {statement} (message lacks {match!r}: {str(exc)[:200]!r})"
            ) from None
        print(_line(cid, statement))
        return exc
    except BaseException as exc:  # noqa: BLE001 - report the wrong type clearly
        raise ClaimError(
            f"{cid} FAILED: {statement} (raised {type(exc).__name__}, expected {exc_type})"
        ) from exc
    raise ClaimError(f"{cid} FAILED: {statement} (nothing was raised)")


def skip(cid: str, statement: str, reason: str) -> None:
    """Print the fixed line for a claim that cannot be checked on this runner.

    Use it in the ``else`` branch of a guarded GPU part, so the stored output
    on a CPU runner is one stable line: ``⊘ C7 <statement> — skipped: <reason>``.
    """
    _validate(cid, statement)
    if not isinstance(reason, str) or not reason.strip() or "\n" in reason:
        raise ValueError("skip reason must be a non-empty single line")
    print(f"⊘ {cid} {statement.strip()} — skipped: {reason.strip()}")


def parse_ledger(text: str) -> list[tuple[str, str]]:
    """Return ``[(claim_id, statement), ...]`` for every ledger line in ``text``."""
    out = []
    for raw in text.splitlines():
        m = LEDGER_RE.match(raw.rstrip())
        if m:
            out.append((m.group(1), m.group(2)))
    return out
