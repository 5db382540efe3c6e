"""What a notebook's code says, read with ``ast``: the messages its claim_raises calls check, the cell's
section heading, and the torch versions its version branches name."""

from __future__ import annotations

import ast
import re
from functools import lru_cache


def heading_before(cells: list, index: int) -> str:
    """The last Markdown heading above cell ``index`` (a ``# comment`` inside a fenced code block is code)."""
    for cell in reversed(cells[:index]):
        if cell.cell_type == "markdown":
            headings, fence = [], ""
            for line in cell.source.splitlines():
                marker = re.match(r"\s*(`{3,}|~{3,})", line)
                if marker and (not fence or marker[1].startswith(fence)):
                    fence = "" if fence else marker[1]
                elif not fence and re.match(r"#{1,6}\s", line):
                    headings.append(line.lstrip("#").strip())
            if headings:
                return headings[-1]
    return ""


@lru_cache(maxsize=4096)
def _parse(source: str) -> ast.Module | None:
    """A cell's source as a tree, or None when it is not Python (a magic, a shell line). Cached: each claim
    cell is read by three of the functions below (the trees are only walked, never changed)."""
    try:
        return ast.parse(source)
    except SyntaxError:
        return None


def _calls(tree: ast.AST, names: set[str], min_args: int = 1) -> list[ast.Call]:
    """Every call of a plain name in ``names`` with at least ``min_args`` positional arguments."""
    return [
        node
        for node in ast.walk(tree)
        if isinstance(node, ast.Call)
        and getattr(node.func, "id", None) in names
        and len(node.args) >= min_args
    ]


def _assigned_values(tree: ast.AST) -> dict[str, list[ast.expr]]:
    """Name -> every expression assigned to it in a cell (tuple unpacking included), in source order."""
    values: dict[str, list[ast.expr]] = {}
    for node in ast.walk(tree):
        if isinstance(node, ast.Assign):
            for target in node.targets:
                if isinstance(target, ast.Name):
                    values.setdefault(target.id, []).append(node.value)
                elif isinstance(target, ast.Tuple) and isinstance(node.value, ast.Tuple):
                    for t, v in zip(target.elts, node.value.elts):
                        if isinstance(t, ast.Name):
                            values.setdefault(t.id, []).append(v)
    return values


def _resolve(node: ast.expr, values: dict[str, list[ast.expr]]) -> list[ast.expr]:
    """The expressions a claim_raises argument stands for: itself, or what its name was assigned (a check
    that branches on the torch version assigns the exception and message per branch)."""
    if isinstance(node, ast.Name) and node.id in values:
        return values[node.id]
    return [node]


def claim_raises_calls(source: str) -> list[tuple[str, str, str]]:
    """(claim id, exception name, asserted message part) for each claim_raises(...) in a cell; where the
    exception or message is a name assigned per version branch, the alternatives joined by " / "."""
    if "claim_raises" not in source:
        return []
    tree = _parse(source)
    if tree is None:
        return []
    values = _assigned_values(tree)
    found = []
    for node in _calls(tree, {"claim_raises"}, min_args=4):
        cid = node.args[0].value if isinstance(node.args[0], ast.Constant) else "?"
        exc = " / ".join(dict.fromkeys(ast.unparse(v) for v in _resolve(node.args[3], values)))
        match_node = node.args[4] if len(node.args) >= 5 else None
        for kw in node.keywords:
            if kw.arg == "match":
                match_node = kw.value
        match = ""
        if match_node is not None:
            texts = [v.value for v in _resolve(match_node, values) if isinstance(v, ast.Constant)]
            match = " / ".join(dict.fromkeys(t for t in texts if isinstance(t, str)))
        found.append((cid, exc, match))
    return found


CLAIM_FUNCS = {"claim", "claim_close", "claim_raises", "skip"}


def checked_messages(source: str) -> list[tuple[str, str, str]]:
    """(claim id, exception name, message part) for the other ways a claim cell checks a message: the
    ``raises(fn, Exc, "part")`` helper inside a condition, and ``"a message of four words or more" in text``
    (the type is then unknown: ""). The claim is the claim call that contains the check, else the next one
    in the cell, else the cell's last."""
    tree = _parse(source)
    if tree is None:
        return []
    claims = sorted(
        (node.lineno, node.end_lineno or node.lineno, node.args[0].value)
        for node in _calls(tree, CLAIM_FUNCS)
        if isinstance(node.args[0], ast.Constant)
    )
    if not claims:
        return []

    def owner(line: int) -> str:
        inside = [c for c in claims if c[0] <= line <= c[1]]
        after = [c for c in claims if c[0] > line]
        return str((inside or after or claims[-1:])[0][2])

    found = [
        (node.lineno, owner(node.lineno), ast.unparse(node.args[1]), node.args[2].value)
        for node in _calls(tree, {"raises"}, min_args=3)
        if isinstance(node.args[2], ast.Constant) and isinstance(node.args[2].value, str)
    ]
    for node in ast.walk(tree):
        if (
            isinstance(node, ast.Compare)
            and len(node.ops) == 1
            and isinstance(node.ops[0], ast.In)
            and isinstance(node.left, ast.Constant)
            and isinstance(node.left.value, str)
            and len(node.left.value.split()) >= 4
        ):
            found.append((node.lineno, owner(node.lineno), "", node.left.value))
    return [f[1:] for f in sorted(found)]


def _since_versions(node: ast.AST) -> list[str]:
    return [
        n.args[0].value
        for n in _calls(node, {"since"})
        if isinstance(n.args[0], ast.Constant) and isinstance(n.args[0].value, str)
    ]


def version_branches(source: str) -> dict[str, list[str]]:
    """Claim id -> versions of the since("X.Y") calls (helpers.versions) its check depends on: in the claim
    call's own arguments, or in a variable they use that was assigned from a since() branch."""
    tree = _parse(source)
    if tree is None:
        return {}
    tainted: dict[str, list[str]] = {}
    # assignments under `if since(...)` / `elif since(...)` branch on those versions too
    guarded: dict[int, list[str]] = {}
    for node in ast.walk(tree):
        if isinstance(node, ast.If) and _since_versions(node.test):
            for child in [*node.body, *node.orelse]:
                for inner in ast.walk(child):
                    guarded.setdefault(id(inner), []).extend(_since_versions(node.test))
    for node in ast.walk(tree):  # assignments whose value branches on the version (one level of names)
        if isinstance(node, (ast.Assign, ast.AnnAssign)) and node.value is not None:
            versions = _since_versions(node.value) + guarded.get(id(node), [])
            versions += [
                v for n in ast.walk(node.value) if isinstance(n, ast.Name) for v in tainted.get(n.id, [])
            ]
            targets = node.targets if isinstance(node, ast.Assign) else [node.target]
            for t in targets:
                for name in ast.walk(t):
                    if isinstance(name, ast.Name) and versions:
                        tainted[name.id] = sorted(set(tainted.get(name.id, []) + versions))
    out: dict[str, list[str]] = {}
    for node in _calls(tree, CLAIM_FUNCS):
        if not isinstance(node.args[0], ast.Constant):
            continue
        args = [*node.args, *(kw.value for kw in node.keywords)]
        versions = [v for arg in args for v in _since_versions(arg)]
        versions += [
            v for arg in args for n in ast.walk(arg) if isinstance(n, ast.Name) for v in tainted.get(n.id, [])
        ]
        if versions:
            out[str(node.args[0].value)] = sorted(set(versions))
    return out
