"""``fieldnotes check PATH...`` and ``fieldnotes rules``: the console script.

Which tool for which files: for ``.py`` files the framework route is flake8 (``flake8 --select FNC``: the
plugin in :mod:`fieldnotes.check.flake8_plugin`, configured by flake8's own config files, ``setup.cfg``,
``tox.ini``, ``.flake8``); notebooks can go the same way through nbQA (``nbqa flake8 --select FNC``; nbQA
is not a dependency of this package). This standalone command exists for what flake8 cannot do: check
notebooks by itself (all code cells as one module, findings as ``path:cell_N:line:col``) and rewrite
findings (``--fix``). It reads no config file: options are given on the command line.

A directory is walked for ``*.py`` and ``*.ipynb`` files, skipping hidden files and directories (``.venv``,
``.git``, ``.tox``, ...), the environment and build directories in :data:`SKIP_DIRS` (``venv``,
``site-packages``, ``build``, ``dist``, ``node_modules``, ``__pycache__``) and whatever matches an
``--exclude GLOB``; a file named on the command line is always checked, whatever its suffix (``.ipynb``: as
a notebook). Output is one line per finding, flake8's format, ``path:line:col: CODE message`` (notebooks:
``path:cell_N:line:col``, N counting all cells from 1), then a summary on stderr.

``--fix`` applies the safe rewrites only; ``--fix --unsafe-fixes`` also the unsafe ones, which may change
what the code computes (as in ruff; ``fieldnotes rules`` marks them ``[unsafe autofix]`` and says why).
``[*]`` marks a finding that the given options would rewrite.

Exit status: 0 clean, 1 findings, 2 a usage error or input that could not be read or parsed (reported on
stderr, not as a traceback). A notebook cell that does not parse is reported (``path:cell_N:...``) and
skipped; the notebook's other cells are still checked, and the exit status is 2.
"""

from __future__ import annotations

import argparse
import ast
import difflib
import json
import os
import re
import sys
from collections.abc import Sequence
from dataclasses import dataclass, field
from fnmatch import fnmatchcase
from pathlib import Path

from fieldnotes import __version__
from fieldnotes.check.engine import UnknownCode, check_code, fix_code, select_rules
from fieldnotes.check.notebook import NotebookSource, read_notebook, write_notebook
from fieldnotes.check.rules import RULES


class CheckError(Exception):
    """A path that cannot be checked: missing, unreadable, or not parseable."""


#: Directories a directory walk never enters, besides hidden ones (``.venv``, ``.git``, ``.tox``, ...):
#: environments, caches and build output, which hold other people's code.
SKIP_DIRS = frozenset(
    {".venv", "venv", ".git", "__pycache__", "build", "dist", ".tox", "node_modules", "site-packages"}
)


def excluded(path: Path, root: Path, patterns: Sequence[str]) -> bool:
    """``path`` (under the walked directory ``root``) matches an ``--exclude`` glob: by its name, its path
    relative to ``root``, or its path as given (``*_pb2.py``, ``tests/data``, ``src/*/generated``)."""
    names = (path.name, path.relative_to(root).as_posix(), path.as_posix())
    return any(fnmatchcase(name, g.rstrip("/")) for g in patterns for name in names)


def walk(root: Path, exclude: Sequence[str] = ()) -> list[Path]:
    """The ``.py`` and ``.ipynb`` files under directory ``root``, sorted; hidden files and directories,
    :data:`SKIP_DIRS` and ``exclude`` matches are left out."""
    out: list[Path] = []
    for dirpath, dirnames, filenames in os.walk(root):
        here = Path(dirpath)
        keep = [d for d in dirnames if not d.startswith(".") and d not in SKIP_DIRS]
        dirnames[:] = [d for d in keep if not excluded(here / d, root, exclude)]
        files = [f for f in filenames if f.endswith((".py", ".ipynb")) and not f.startswith(".")]
        out += [here / f for f in files if not excluded(here / f, root, exclude)]
    return sorted(out)


def gather(paths: Sequence[str], exclude: Sequence[str] = ()) -> list[Path]:
    """The files to check, in command-line order (directories: their ``.py`` and ``.ipynb`` files, see
    :func:`walk`; a file given by name always)."""
    out: list[Path] = []
    for p in paths:
        if not os.path.exists(p):
            raise CheckError(f"{p}: no such file or directory")
        out += walk(Path(p), exclude) if os.path.isdir(p) else [Path(p)]
    return list(dict.fromkeys(out))


def syntax_error(path: Path, error: SyntaxError, nb: NotebookSource | None) -> CheckError:
    """A parse error as ``path:line:col: cannot parse: ...`` (notebooks: ``path:cell_N:line:col``)."""
    line, col, msg = error.lineno or 1, error.offset or 1, error.msg
    where = f"{line}:{col}"
    if nb is not None:
        cell, in_cell = nb.locate(line)
        where = f"cell_{cell}:{in_cell}:{col}"
        # ("... (detected at line N)" counts the joined module's lines: say which cell's line it is)
        msg = re.sub(r"line (\d+)\)$", lambda m: "cell_{}:{})".format(*nb.locate(int(m[1]))), msg)
    return CheckError(f"{path}:{where}: cannot parse: {msg}")


def blank_unparseable(path: Path, nb: NotebookSource) -> list[str]:
    """Blank every cell of ``nb`` that does not parse (the kernel runs the others anyway); one line for
    stderr per cell, in cell order."""
    problems: dict[int, str] = {}
    for _ in range(len(nb.cells) + 1):
        try:
            ast.parse(nb.code)
            break
        except SyntaxError as e:
            cell = nb.cell_at(e.lineno or 1)
            if cell.blanked:  # (an empty cell parses: only if the parser blamed the wrong cell)
                raise syntax_error(path, e, nb) from None
            problems[cell.index] = f"{syntax_error(path, e, nb)} (cell skipped)"
            nb.blank(cell)
    return [problems[i] for i in sorted(problems)]


@dataclass
class FileReport:
    """What checking one file gave."""

    lines: list[str] = field(default_factory=list)  # one per finding, for stdout
    findings: int = 0
    fixes: int = 0  # rewrites made
    fixable: int = 0  # findings the given options would rewrite (marked [*])
    unsafe: int = 0  # findings only --unsafe-fixes would rewrite, not given
    skipped: list[str] = field(default_factory=list)  # notebook cells that did not parse, for stderr


def check_file(path: Path, args: argparse.Namespace) -> FileReport:
    """Report (and fix) one file; raises :class:`CheckError`."""
    is_notebook = path.suffix == ".ipynb"
    try:
        nb: NotebookSource | None = read_notebook(path) if is_notebook else None
        # utf-8-sig: a file that starts with a byte-order mark (Python accepts one) reads without it
        code = nb.code if nb is not None else path.read_text(encoding="utf-8-sig")
    except (OSError, ValueError) as e:  # (UnicodeDecodeError and JSON errors are ValueErrors)
        raise CheckError(f"{path}: cannot read: {e}") from None
    report = FileReport()
    try:
        if nb is not None:
            report.skipped = blank_unparseable(path, nb)
            code = nb.code
        if args.fix or args.diff:
            fixed, report.fixes = fix_code(code, args.select, args.ignore, unsafe=args.unsafe_fixes)
            if fixed != code and args.diff:
                print(
                    "".join(
                        difflib.unified_diff(
                            code.splitlines(True), fixed.splitlines(True), str(path), str(path)
                        )
                    ),
                    end="",
                )
            elif fixed != code and nb is not None:
                if nb.apply(fixed):
                    write_notebook(nb)
                    blanked = {c.index for c in nb.cells if c.blanked}
                    nb = read_notebook(path)
                    for cell in nb.cells:
                        if cell.index in blanked:
                            nb.blank(cell)
                    fixed = nb.code
                else:
                    report.fixes = 0
                    fixed = code
            elif fixed != code:
                bom = path.read_bytes().startswith(b"\xef\xbb\xbf")  # (kept where the file had one)
                path.write_text(fixed, encoding="utf-8-sig" if bom else "utf-8")
            if args.fix and not args.diff:  # (--diff only shows the rewrite: the findings stay)
                code = fixed
        findings = check_code(code, args.select, args.ignore)
    except SyntaxError as e:
        raise syntax_error(path, e, nb) from None
    for f in findings:
        if nb is not None:
            cell, line = nb.locate(f.line)
            where = f"cell_{cell}:{line}"
        else:
            where = str(f.line)
        applies = f.fix_applies(args.unsafe_fixes)
        report.fixable += applies
        report.unsafe += f.fixable and not applies
        mark = " [*]" if applies else ""
        report.lines.append(
            f"{path}:{where}:{f.column + 1}: {f.code}{mark} {f.info.message}; fix: {f.info.fix}"
            f" (see {f.info.claim}: {f.info.link})"
        )
    report.findings = len(findings)
    return report


def cmd_check(args: argparse.Namespace) -> int:
    """``fieldnotes check``: report (and fix) every file; the exit status of the whole run."""
    try:
        select_rules(args.select, args.ignore)
        files = gather(args.paths, args.exclude)
    except (UnknownCode, CheckError) as e:
        print(f"fieldnotes check: {e}", file=sys.stderr)
        return 2
    errors = skipped = findings = fixes = fixable = unsafe = 0
    for path in files:
        try:
            report = check_file(path, args)
        except CheckError as e:
            print(f"fieldnotes check: {e}", file=sys.stderr)
            errors += 1
            continue
        for line in report.skipped:
            print(f"fieldnotes check: {line}", file=sys.stderr)
        for line in report.lines:
            print(line)
        findings += report.findings
        fixes += report.fixes
        fixable += report.fixable
        unsafe += report.unsafe
        skipped += len(report.skipped)
    summary = f"{findings} finding{'s' * (findings != 1)} in {len(files)} file{'s' * (len(files) != 1)}"
    if args.diff:
        summary += f"; {fixes} would be rewritten as shown (nothing written)"
    elif args.fix:
        summary += f"; {fixes} fixed"
    elif fixable:
        flags = "--fix --unsafe-fixes" if args.unsafe_fixes else "--fix"
        summary += f" ({fixable} fixable with {flags}, marked [*])"
    if unsafe:
        summary += f"; {unsafe} more fixable with --fix --unsafe-fixes (may change what the code computes)"
    if skipped:
        summary += f"; {skipped} notebook cell{'s' * (skipped != 1)} skipped (cannot parse)"
    if errors:
        summary += f"; {errors} could not be checked"
    if findings or fixes or errors or skipped:
        print(summary, file=sys.stderr)
    return 2 if errors or skipped else 1 if findings else 0


def cmd_rules(args: argparse.Namespace) -> int:
    """``fieldnotes rules``: the registry as a table, or as JSON with ``--json``."""
    if args.json:
        print(json.dumps([r.as_dict() for r in RULES], indent=2, ensure_ascii=False))
        return 0
    for r in RULES:
        extra = {"safe": " [autofix]", "unsafe": " [unsafe autofix]", None: ""}[r.autofix]
        extra += f" [TorchFix: {r.torchfix.split()[0]}]" if r.torchfix else ""
        print(f"{r.code}  {r.claim:7} {r.title}{extra}")
    return 0


CHECK_EPILOG = """\
which route:
  .py files      flake8 --select FNC        (the framework route: the FNC plugin, configured by
                                             flake8's config files: setup.cfg, tox.ini, .flake8)
  notebooks      nbqa flake8 --select FNC   (nbQA, installed separately, runs flake8 on the cells)
  this command   checks notebooks by itself and rewrites findings (--fix); no config file

exit status: 0 clean, 1 findings, 2 usage error or input that could not be read or parsed (a notebook
cell that does not parse is reported and skipped, the other cells are checked)
"""


def codes(text: str) -> list[str]:
    """``--select FNC0,FNC018`` -> ``["FNC0", "FNC018"]``."""
    return [c.strip() for c in text.split(",") if c.strip()]


def parser() -> argparse.ArgumentParser:
    """The ``fieldnotes`` command line: ``check`` and ``rules``."""
    top = argparse.ArgumentParser(
        prog="fieldnotes",
        description="The PyTorch pitfalls that the Field Notes prove, found in your code.",
    )
    top.add_argument("--version", action="version", version=f"%(prog)s {__version__}")
    sub = top.add_subparsers(dest="command", required=True)
    check = sub.add_parser(
        "check",
        help="check .py files and notebooks (.ipynb code cells)",
        description="Check .py files and notebooks (.ipynb code cells) for the PyTorch pitfalls the Field "
        "Notes prove; every finding cites its claim.",
        epilog=CHECK_EPILOG,
        formatter_class=argparse.RawDescriptionHelpFormatter,
    )
    check.add_argument("paths", nargs="+", metavar="PATH", help="files or directories")
    check.add_argument(
        "--select", type=codes, help="comma-separated codes or prefixes to report (default: all)"
    )
    check.add_argument("--ignore", type=codes, help="comma-separated codes or prefixes not to report")
    check.add_argument(
        "--exclude",
        action="append",
        default=[],
        metavar="GLOB",
        help="in directories, skip files and directories whose name or path matches GLOB (repeatable; "
        "hidden, environment and build directories are always skipped; a file given by name is checked)",
    )
    check.add_argument(
        "--fix", action="store_true", help="apply the safe rewrites (findings marked [*]) in place"
    )
    check.add_argument(
        "--unsafe-fixes",
        action="store_true",
        help="with --fix or --diff, also apply the unsafe rewrites (rules marked [unsafe autofix] in "
        "'fieldnotes rules'), which may change what the code computes",
    )
    check.add_argument(
        "--diff", action="store_true", help="print the rewrites --fix would make, change nothing"
    )
    check.add_argument("--list-rules", action="store_true", help=argparse.SUPPRESS)
    check.set_defaults(func=cmd_check)
    rules = sub.add_parser("rules", help="list the rules with the claims they cite")
    rules.add_argument("--json", action="store_true", help="the machine-readable registry")
    rules.set_defaults(func=cmd_rules)
    return top


def main(argv: Sequence[str] | None = None) -> int:
    """The console script (``fieldnotes``); returns the exit status."""
    argv = list(sys.argv[1:] if argv is None else argv)
    if "--list-rules" in argv:  # `fieldnotes check --list-rules` is `fieldnotes rules`
        return cmd_rules(argparse.Namespace(json="--json" in argv))
    args = parser().parse_args(argv)
    return args.func(args)
