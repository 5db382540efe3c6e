"""Run the rules on Python source: findings, ``# noqa``, ``--select``/``--ignore``, and ``--fix``.

Checking parses once with ``ast`` (:class:`~fieldnotes.check.base.Source`) and walks the tree once,
calling every selected rule's ``visit_<node>`` methods. Fixing is a LibCST codemod
(:mod:`fieldnotes.check.fixer`), imported only when something is to be fixed; it applies the safe fixes,
and the unsafe ones only when asked (``unsafe=True``, the CLI's ``--unsafe-fixes``).
"""

from __future__ import annotations

import re
from collections.abc import Iterable, Sequence
from dataclasses import dataclass

# Importing the rules registers them.
from fieldnotes.check import rules as _rules  # noqa: F401
from fieldnotes.check.base import REGISTRY, Found, Rule, RuleInfo, Source

#: flake8's inline suppression comment: bare, it silences the line; with codes (": FNC001,FNC017") those.
NOQA = re.compile(r"#\s*noqa(?::[\s]?(?P<codes>[A-Z][0-9]+(?:[,\s]+[A-Z][0-9]+)*))?", re.I)


class UnknownCode(ValueError):
    """A --select/--ignore entry that matches no rule."""


@dataclass(frozen=True)
class Finding:
    """One finding: 1-based line, 0-based column in characters (as flake8 plugins report)."""

    code: str
    line: int
    column: int
    fixable: bool

    @property
    def info(self) -> RuleInfo:
        """The registry record of this finding's rule."""
        return REGISTRY[self.code]

    def fix_applies(self, unsafe: bool = False) -> bool:
        """``--fix`` rewrites this finding: a safe fix, or (``unsafe``: with ``--unsafe-fixes``) any fix."""
        return self.fixable and (self.info.autofix == "safe" or (unsafe and self.info.autofix == "unsafe"))

    @property
    def text(self) -> str:
        """``FNC018 <message>; fix: <fix> (08-C10)``: flake8's message text."""
        i = self.info
        return f"{self.code} {i.message}; fix: {i.fix} ({i.claim})"


def select_rules(select: Sequence[str] | None = None, ignore: Sequence[str] | None = None) -> list[RuleInfo]:
    """The rules whose code starts with an entry of ``select`` (all by default) and with none of
    ``ignore``; entries are code prefixes as in flake8 (``FNC0``, ``FNC018``)."""
    for entry in [*(select or []), *(ignore or [])]:
        if not any(code.startswith(entry.upper()) for code in REGISTRY):
            raise UnknownCode(f"no rule matches {entry!r} (codes are FNC001-{max(REGISTRY)})")
    return [
        info
        for code, info in sorted(REGISTRY.items())
        if (not select or any(code.startswith(s.upper()) for s in select))
        and not any(code.startswith(i.upper()) for i in ignore or [])
    ]


def run_rules(src: Source, infos: Iterable[RuleInfo]) -> list[Found]:
    """Every finding of ``infos`` in ``src`` (one walk of the tree), sorted by position."""
    rules = [info.visitor(src) for info in infos]
    dispatch: dict[str, list] = {}
    for r in rules:
        for name in dir(r):
            if name.startswith("visit_"):
                dispatch.setdefault(name[6:], []).append(getattr(r, name))
    for node in src.order:
        for method in dispatch.get(type(node).__name__, ()):
            method(node)
    for r in rules:
        r.finish()
    return sorted((f for r in rules for f in r.found), key=lambda f: (f.line, f.column, f.code))


def suppressed(line: int, code: str, lines: Sequence[str]) -> bool:
    """Line ``line`` carries a ``# noqa`` that covers ``code``."""
    match = NOQA.search(lines[line - 1]) if 0 < line <= len(lines) else None
    if match is None:
        return False
    codes = match.group("codes")
    return codes is None or any(code.startswith(c.upper()) for c in re.split(r"[,\s]+", codes))


def active(src: Source, infos: Iterable[RuleInfo]) -> list[Found]:
    """The findings that no ``# noqa`` suppresses."""
    return [f for f in run_rules(src, infos) if not suppressed(f.line, f.code, src.lines)]


def check_code(
    code: str, select: Sequence[str] | None = None, ignore: Sequence[str] | None = None
) -> list[Finding]:
    """Findings in Python source ``code``; raises ``SyntaxError`` if it does not parse."""
    return [
        Finding(f.code, f.line, f.column, f.fixable)
        for f in active(Source(code), select_rules(select, ignore))
    ]


def fix_code(
    code: str,
    select: Sequence[str] | None = None,
    ignore: Sequence[str] | None = None,
    passes: int = 5,
    *,
    unsafe: bool = False,
) -> tuple[str, int]:
    """``code`` with every fixable finding of a safe autofix (``unsafe``: also of an unsafe one, as
    ``--unsafe-fixes``) rewritten, and how many rewrites were made. Runs again while a pass changes
    something. Raises ``SyntaxError`` if the code does not parse."""
    from fieldnotes.check.fixer import apply_fixes  # LibCST: imported only to fix

    wanted = ("safe", "unsafe") if unsafe else ("safe",)
    infos = [i for i in select_rules(select, ignore) if i.autofix in wanted]
    total = 0
    for _ in range(passes):
        findings = [f for f in active(Source(code), infos) if f.fixable]
        if not findings:
            break
        fixed, n = apply_fixes(code, findings)
        if fixed == code:
            break
        code, total = fixed, total + n
    return code, total


__all__ = ["Finding", "Rule", "UnknownCode", "check_code", "fix_code", "run_rules", "select_rules"]
