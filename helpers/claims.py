"""Claim checks: the ledger of verified statements.

Every asserted claim in a notebook goes through :func:`claim` (or one of its
siblings). On success it prints exactly one stable line::

    ✔ C3 CrossEntropyLoss == LogSoftmax + NLLLoss

and on failure it raises :class:`ClaimError` with the claim id and the reason.
Every check names what it was compared with (``against=``): a formula, another
API, a manual computation or a measured counterfactual. The line then reads::

    ✔ C3 CrossEntropyLoss == LogSoftmax + NLLLoss — against another API: F.nll_loss(F.log_softmax(x))

This module owns that line format: :func:`claim` & co. print it and
:func:`parse_ledger` / :func:`parse_skips` read it back (tools and tests use them,
never their own regular expressions).
"""

from __future__ import annotations

import re
from collections.abc import Callable
from typing import Any, NamedTuple

__all__ = [
    "ClaimError",
    "LedgerEntry",
    "REFERENCE_KINDS",
    "claim",
    "claim_close",
    "claim_raises",
    "skip",
    "LEDGER_RE",
    "SKIP_RE",
    "parse_ledger",
    "parse_skips",
]

#: What a check may be compared with: key used in ``against="key: what"`` -> words printed in the ledger.
REFERENCE_KINDS: dict[str, str] = {
    "formula": "a formula",
    "api": "another API",
    "manual": "a manual computation",
    "counterfactual": "a measured counterfactual",
}
_KIND_WORDS = "|".join(re.escape(w) for w in REFERENCE_KINDS.values())
_WORD_TO_KIND = {w: k for k, w in REFERENCE_KINDS.items()}
_SEP = " — against "
#: One ledger line: ``✔ C3 <statement> — against <kind words>: <reference>``.
LEDGER_RE = re.compile(rf"^✔ (C\d+) (\S.*?){_SEP}({_KIND_WORDS}): (\S.*)$")
#: A claim that could not run here (e.g. needs CUDA) prints this form instead.
SKIP_RE = re.compile(rf"^⊘ (C\d+) (\S.*?){_SEP}({_KIND_WORDS}): (\S.*?) — skipped: (\S.*)$")
_ID_RE = re.compile(r"^C\d+$")


class LedgerEntry(NamedTuple):
    """One parsed ledger (or skip) line."""

    cid: str
    statement: str
    kind: str  # a key of REFERENCE_KINDS
    reference: str


class ClaimError(AssertionError):
    """A claim check failed. Subclasses AssertionError so pytest reports it as a failure."""


def _validate(cid: str, statement: str) -> None:
    if not isinstance(cid, str) or not _ID_RE.match(cid):
        raise ValueError(f"claim id must look like 'C1', 'C12'; got {cid!r}")
    if not isinstance(statement, str) or not statement.strip():
        raise ValueError("claim statement must be a non-empty string")
    if "\n" in statement:
        raise ValueError("claim statement must be a single line")
    if " — " in statement:
        raise ValueError("claim statement must not contain ' — ' (it separates the reference)")


def _reference(cid: str, statement: str, against: Any) -> tuple[str, str]:
    """Validate ``against="kind: what"`` and return ``(kind, what)``."""
    if not isinstance(against, str) or ":" not in against:
        raise ValueError(
            f"{cid}: against= must be 'kind: what it was checked against' with kind one of "
            f"{sorted(REFERENCE_KINDS)}; got {against!r}"
        )
    kind, _, what = against.partition(":")
    kind, what = kind.strip(), what.strip()
    if kind not in REFERENCE_KINDS:
        raise ValueError(f"{cid}: against= kind must be one of {sorted(REFERENCE_KINDS)}; got {kind!r}")
    if not what or "\n" in what or " — " in what:
        raise ValueError(f"{cid}: against= needs a one-line description after '{kind}:' (no ' — ')")
    if what.casefold() == statement.strip().casefold():
        raise ValueError(f"{cid}: a claim cannot be checked against its own statement")
    return kind, what


def _line(cid: str, statement: str, against: str) -> str:
    kind, what = _reference(cid, statement, against)
    return f"✔ {cid} {statement.strip()}{_SEP}{REFERENCE_KINDS[kind]}: {what}"


def claim(cid: str, statement: str, condition: Any, detail: str = "", *, against: str) -> None:
    """Assert ``condition`` and print the ledger line for claim ``cid``.

    ``against`` names the independent reference the condition compares with, as
    ``"kind: what"`` (kind: formula, api, manual or counterfactual); it is printed
    in the ledger line and shown on the site's claim ledger.

    ``condition`` must be a Python ``bool`` or a one-element bool tensor; anything
    else (a list, a multi-element tensor, None) raises ``TypeError`` so that a
    check can never pass by accident through truthiness.
    """
    import numpy as np  # here, not at the top: the site build reads ledgers without torch
    import torch

    _validate(cid, statement)
    _reference(cid, statement, against)
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
    print(_line(cid, statement, against))


def claim_close(
    cid: str,
    statement: str,
    actual: Any,
    expected: Any,
    *,
    against: str,
    rtol: float | None = None,
    atol: float | None = None,
) -> None:
    """Assert ``actual ≈ expected`` with :func:`torch.testing.assert_close` and print the line.

    Scalars and numpy arrays are accepted (converted with ``torch.as_tensor``).
    ``rtol``/``atol`` must be given together, as torch requires. ``expected`` is the
    independent reference named by ``against``; passing the very same tensor (or a
    view of the same memory) as both sides raises ``ValueError``: that checks nothing.
    """
    import torch

    _validate(cid, statement)
    _reference(cid, statement, against)
    if (rtol is None) != (atol is None):
        raise ValueError(f"{cid}: give both rtol and atol, or neither")
    a = actual if isinstance(actual, torch.Tensor) else torch.as_tensor(actual)
    e = expected if isinstance(expected, torch.Tensor) else torch.as_tensor(expected)
    if a is e or (
        a.numel() > 0
        and a.device == e.device
        and a.data_ptr() == e.data_ptr()
        and a.shape == e.shape
        and a.stride() == e.stride()
    ):
        raise ValueError(
            f"{cid}: actual and expected are the same memory; compare with an independent reference"
        )
    try:
        torch.testing.assert_close(a, e, rtol=rtol, atol=atol, check_dtype=False, check_device=False)
    except AssertionError as exc:
        first = str(exc).strip().splitlines()[0]
        raise ClaimError(f"{cid} FAILED: {statement} ({first})") from None
    print(_line(cid, statement, against))


def claim_raises(
    cid: str,
    statement: str,
    fn: Callable[[], Any],
    exc_type: type[BaseException] | tuple[type[BaseException], ...],
    match: str | None = None,
    *,
    against: str,
    fix: Callable[[], Any] | None = None,
) -> BaseException:
    """Assert that calling ``fn()`` raises ``exc_type`` whose message contains ``match``.

    This is how a ✔ line asserts an error message (a ``raises-exception`` cell only
    shows it). ``fix``, when given, is the right way: it is called after the error
    was seen and must not raise, so one claim shows the wrong way failing and the
    fix working. Returns the caught exception (assign it, so the cell stores no repr).
    """
    _validate(cid, statement)
    _reference(cid, statement, against)
    if not callable(fn):
        raise TypeError(f"{cid}: fn must be callable, got {type(fn).__name__}")
    if fix is not None and not callable(fix):
        raise TypeError(f"{cid}: fix must be callable, got {type(fix).__name__}")
    try:
        fn()
    except exc_type as exc:  # type: ignore[misc]
        if match is not None and match not in str(exc):
            raise ClaimError(
                f"{cid} FAILED: {statement} (message lacks {match!r}: {str(exc)[:200]!r})"
            ) from None
        if fix is not None:
            try:
                fix()
            except Exception as fix_exc:  # noqa: BLE001 - the fix must work
                raise ClaimError(
                    f"{cid} FAILED: {statement} "
                    f"(the fix raised {type(fix_exc).__name__}: {str(fix_exc)[:200]})"
                ) from fix_exc
        print(_line(cid, statement, against))
        return exc
    except BaseException as exc:  # noqa: BLE001 - report the wrong type clearly
        raise ClaimError(
            f"{cid} FAILED: {statement} (raised {type(exc).__name__}, expected {exc_type})"
        ) from exc
    raise ClaimError(f"{cid} FAILED: {statement} (nothing was raised)")


def skip(cid: str, statement: str, reason: str, *, against: str) -> None:
    """Print the fixed line for a claim that cannot be checked on this runner.

    Use it in the ``else`` branch of a guarded GPU part, so the stored output on a
    CPU runner is one stable line:
    ``⊘ C7 <statement> — against <kind>: <what> — skipped: <reason>``
    (``against`` is the reference the GPU branch compares with).
    """
    _validate(cid, statement)
    if not isinstance(reason, str) or not reason.strip() or "\n" in reason:
        raise ValueError("skip reason must be a non-empty single line")
    line = _line(cid, statement, against)[len("✔ ") :]
    print(f"⊘ {line} — skipped: {reason.strip()}")


def _entry(m: re.Match[str]) -> LedgerEntry:
    return LedgerEntry(m.group(1), m.group(2), _WORD_TO_KIND[m.group(3)], m.group(4))


def parse_ledger(text: str) -> list[LedgerEntry]:
    """Every ✔ line in ``text`` as a :class:`LedgerEntry` (other lines are ignored)."""
    return [_entry(m) for raw in text.splitlines() if (m := LEDGER_RE.match(raw.rstrip()))]


def parse_skips(text: str) -> list[LedgerEntry]:
    """Every ⊘ (skipped) line in ``text`` as a :class:`LedgerEntry`."""
    return [_entry(m) for raw in text.splitlines() if (m := SKIP_RE.match(raw.rstrip()))]
