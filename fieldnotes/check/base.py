"""The parts every rule shares: its registry record, the rule base class, and name resolution.

A rule is one :class:`Rule` subclass registered with :func:`rule`, which attaches its :class:`RuleInfo`:
the code, what is wrong and the fix in one line, the claim that proves it (``NN-Cn``) and where that claim
is on the site. Rules read Python's ``ast`` -- the tree flake8 hands its plugins -- with ``visit_<Node>``
methods; the engine walks a module once and calls every rule's methods (as flake8 and LibCST's batched
visitors do). A fixable rule also has a LibCST ``fix`` method: rewrites are made on LibCST's concrete
tree, which keeps the code's formatting and comments. As in ruff, a fix is safe (``--fix`` applies it) or
unsafe (it may change what the code does: only ``--fix --unsafe-fixes`` applies it).

Names are resolved by what binds them, not by spelling (:meth:`Source.qnames`): imports
(``import torch.nn as nn; nn.BCELoss`` -> ``torch.nn.BCELoss``, ``from torch.nn import functional as F``),
scopes (a parameter ``F`` is not the module), and plain assignments (``cudnn = torch.backends.cudnn``,
``criterion = nn.BCELoss()`` then ``criterion(...)``, ``self.loss = nn.BCELoss()`` in ``__init__``).
"""

from __future__ import annotations

import ast
import functools
import importlib.metadata
from collections.abc import Collection, Iterator
from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Any, ClassVar, Literal

if TYPE_CHECKING:  # libcst is imported only to fix (it takes a while to import)
    import libcst as cst
    from libcst.codemod.visitors import ImportItem

#: Claim number -> notebook stem; a claim ``NN-Cn`` is on ``notebooks/<stem>.html`` at ``#claim-NN-cn``
#: (the target site/fieldnotes_site puts before every claim cell; a test keeps both in step).
NOTEBOOKS = {
    "00": "00_environment",
    "01": "01_tensors",
    "02": "02_autograd",
    "03": "03_per_sample_gradients",
    "04": "04_modules_hooks",
    "05": "05_dropout",
    "06": "06_normalization",
    "07": "07_affine_grid_opencv",
    "08": "08_losses",
    "09": "09_training_loop",
    "10": "10_mixed_precision",
    "11": "11_memory_speed",
    "12": "12_data_loading",
    "13": "13_distributed_data_parallel",
    "14": "14_dying_relu_selu",
    "15": "15_saving_deployment",
    "16": "16_error_gallery",
}


@functools.cache
def site_url() -> str:
    """The published site (pyproject.toml ``[project.urls] Documentation``, read from the installed
    project's metadata), ending in ``/``; "" where the project is not installed (links stay relative)."""
    try:
        urls = importlib.metadata.metadata("pytorch-field-notes").get_all("Project-URL") or []
    except importlib.metadata.PackageNotFoundError:
        return ""
    for entry in urls:
        label, _, url = entry.partition(",")
        if label.strip() == "Documentation":
            return url.strip().rstrip("/") + "/"
    return ""


def claim_url(claim: str) -> str:
    """The claim's place on the site, relative to the site's root: ``08-C10`` ->
    ``notebooks/08_losses.html#claim-08-c10``."""
    num, cid = claim.split("-")
    return f"notebooks/{NOTEBOOKS[num]}.html#claim-{num}-{cid.lower()}"


@dataclass(frozen=True)
class RuleInfo:
    """One rule's record: what the site's rules page and ``fieldnotes rules --json`` show."""

    code: str
    name: str
    title: str
    message: str
    fix: str
    claim: str
    visitor: type[Rule] = field(repr=False, compare=False)
    #: The TorchFix (pytorch-labs/torchfix 0.7.0) rule this one overlaps and how they differ; None: none.
    torchfix: str | None = None
    #: How ``--fix`` may rewrite the finding (as ruff's fix applicability): ``"safe"``, certainly keeping
    #: what the code computes (or the code could only raise before), applied by ``--fix``; ``"unsafe"``,
    #: a rewrite that may change what the code does, applied only with ``--fix --unsafe-fixes``;
    #: None, no rewrite.
    autofix: Literal["safe", "unsafe"] | None = None
    #: Why the rewrite of an ``"unsafe"`` autofix may change what the code does (None for the others).
    unsafe_because: str | None = None
    #: The file of this repository whose code shows the wrong way (a test checks the rule fires there);
    #: None where the notebook shows it only behind a runtime flag.
    demo: str | None = None

    @property
    def url(self) -> str:
        """The cited claim on the site, relative to its root."""
        return claim_url(self.claim)

    @property
    def link(self) -> str:
        """The cited claim on the published site (relative where the site's address is unknown)."""
        return site_url() + self.url

    def as_dict(self) -> dict[str, Any]:
        """A JSON-ready record (the rule class left out)."""
        return {
            "code": self.code,
            "name": self.name,
            "title": self.title,
            "message": self.message,
            "fix": self.fix,
            "claim": self.claim,
            "url": self.url,
            "torchfix": self.torchfix,
            "autofix": self.autofix,
            "unsafe_because": self.unsafe_because,
            "demo": self.demo,
        }


#: Every registered rule by code (filled by :func:`rule`; fieldnotes.check.rules registers them).
REGISTRY: dict[str, RuleInfo] = {}


def rule(**fields: Any) -> Any:
    """Class decorator: register a :class:`Rule` subclass under ``fields`` (see :class:`RuleInfo`)."""

    def register(cls: type[Rule]) -> type[Rule]:
        info = RuleInfo(visitor=cls, **fields)
        if info.code in REGISTRY:
            raise ValueError(f"rule code {info.code} registered twice")
        if info.autofix not in ("safe", "unsafe", None):
            raise ValueError(f"{info.code}: autofix={info.autofix!r} is none of 'safe', 'unsafe', None")
        if (info.autofix is not None) != (cls.fix is not Rule.fix):
            raise ValueError(f"{info.code}: autofix={info.autofix!r} but the class does not match")
        if (info.autofix == "unsafe") != bool(info.unsafe_because):
            raise ValueError(f"{info.code}: an unsafe autofix (and only one) says why it is unsafe")
        cls.info = info
        REGISTRY[info.code] = info
        return cls

    return register


# ------------------------------------------------------------------------------------------ ast helpers
def dotted(node: ast.AST | None) -> str | None:
    """``a.b.c`` for a Name/Attribute chain, else None."""
    parts = []
    while isinstance(node, ast.Attribute):
        parts.append(node.attr)
        node = node.value
    if isinstance(node, ast.Name):
        return ".".join([node.id, *reversed(parts)])
    return None


def last_name(node: ast.AST | None) -> str | None:
    """The identifier a Name or Attribute ends with (``opt`` for ``self.opt``), else None."""
    if isinstance(node, ast.Name):
        return node.id
    if isinstance(node, ast.Attribute):
        return node.attr
    return None


def method_call(node: ast.AST | None, *names: str) -> bool:
    """``<anything>.<name>(...)`` for one of ``names``."""
    return isinstance(node, ast.Call) and isinstance(node.func, ast.Attribute) and node.func.attr in names


def is_self_attr(node: ast.AST | None) -> bool:
    """``self.<name>``."""
    return isinstance(node, ast.Attribute) and isinstance(node.value, ast.Name) and node.value.id == "self"


def get_arg(call: ast.Call, keyword: str, position: int | None = None) -> ast.expr | None:
    """The value passed to parameter ``keyword`` (by name, or at 0-based ``position``), else None."""
    for kw in call.keywords:
        if kw.arg == keyword:
            return kw.value
    if position is not None:
        args = positional(call)
        if position < len(args):
            return args[position]
    return None


def positional(call: ast.Call) -> list[ast.expr]:
    """Positional arguments before any ``*args``."""
    out = []
    for a in call.args:
        if isinstance(a, ast.Starred):
            break
        out.append(a)
    return out


def has_star_args(call: ast.Call) -> bool:
    """``*args`` or ``**kwargs`` in the call: any parameter may be passed there."""
    return any(isinstance(a, ast.Starred) for a in call.args) or any(k.arg is None for k in call.keywords)


def is_const(node: ast.AST | None, value: Any) -> bool:
    """A literal ``True``/``False``/``None``/number equal (and of the same type) to ``value``."""
    return isinstance(node, ast.Constant) and type(node.value) is type(value) and node.value == value


def int_value(node: ast.AST | None) -> int | None:
    """The value of an integer literal, also negated (``-1``); else None."""
    if isinstance(node, ast.UnaryOp) and isinstance(node.op, ast.USub):
        inner = int_value(node.operand)
        return -inner if inner is not None else None
    if isinstance(node, ast.Constant) and type(node.value) is int:
        return node.value
    return None


def is_constant_number(node: ast.AST) -> bool:
    """A number literal, or arithmetic on number literals only (``42``, ``2**31 - 1``)."""
    if isinstance(node, ast.Constant):
        return type(node.value) in (int, float)
    if isinstance(node, ast.UnaryOp):
        return is_constant_number(node.operand)
    if isinstance(node, ast.BinOp):
        return is_constant_number(node.left) and is_constant_number(node.right)
    return False


SCOPES = (ast.Module, ast.FunctionDef, ast.AsyncFunctionDef, ast.Lambda, ast.ClassDef)
COMPREHENSIONS = (ast.ListComp, ast.SetComp, ast.DictComp, ast.GeneratorExp)


@dataclass(frozen=True)
class Binding:
    """How a name is bound: ``import`` (with ``qualified``), ``assign`` (with ``value``), or ``other``."""

    kind: str
    qualified: str | None = None
    value: ast.expr | None = None


class Source:
    """One parsed module: its ``ast``, each node's parent, and the names each scope binds.

    Built in one pass over the tree; rules ask it to resolve names (:meth:`qnames`) and objects
    (:meth:`values`).
    """

    def __init__(self, code: str, tree: ast.Module | None = None) -> None:
        self.code = code
        self.lines = code.splitlines()
        self.tree = tree if tree is not None else ast.parse(code)
        self.parents: dict[ast.AST, ast.AST] = {}
        self.order: list[ast.AST] = []
        self.bindings: dict[ast.AST, dict[str, list[Binding]]] = {}
        self._self_attrs: dict[ast.ClassDef, dict[str, list[ast.expr]]] = {}
        self._qnames: dict[ast.AST, set[str]] = {}
        #: What rules work out about the whole module once and share (keyed by the helper that fills it).
        self.memo: dict[Any, Any] = {}
        self._index()

    def _bind(self, scope: ast.AST, name: str, binding: Binding) -> None:
        self.bindings.setdefault(scope, {}).setdefault(name, []).append(binding)

    def _index(self) -> None:
        """One pass: parents, source order, and what each scope binds (imports, assignments, others)."""
        stack: list[tuple[ast.AST, ast.AST | None, ast.AST]] = [(self.tree, None, self.tree)]
        while stack:
            node, parent, scope = stack.pop()
            self.order.append(node)
            if parent is not None:
                self.parents[node] = parent
            if isinstance(node, ast.Import):
                for a in node.names:
                    local = a.asname or a.name.split(".")[0]
                    self._bind(scope, local, Binding("import", a.name if a.asname else local))
            elif isinstance(node, ast.ImportFrom):
                for a in node.names:
                    if node.module and not node.level and a.name != "*":
                        self._bind(scope, a.asname or a.name, Binding("import", f"{node.module}.{a.name}"))
            elif isinstance(node, (ast.FunctionDef, ast.AsyncFunctionDef, ast.ClassDef)):
                self._bind(scope, node.name, Binding("other"))
            elif isinstance(node, ast.arg):
                self._bind(scope, node.arg, Binding("other"))
            elif isinstance(node, ast.Name) and isinstance(node.ctx, ast.Store):
                value = None
                if isinstance(parent, ast.Assign) and parent.targets == [node]:
                    value = parent.value
                elif isinstance(parent, ast.AnnAssign) and parent.target is node:
                    value = parent.value
                self._bind(scope, node.id, Binding("assign", value=value) if value else Binding("other"))
            inner = node if isinstance(node, (*SCOPES, *COMPREHENSIONS)) else scope
            stack.extend((child, node, inner) for child in reversed(list(ast.iter_child_nodes(node))))

    # ------------------------------------------------------------------------------------ positions
    def column(self, node: ast.AST) -> int:
        """``node``'s 0-based column in characters (ast counts UTF-8 bytes)."""
        line = self.lines[node.lineno - 1] if node.lineno <= len(self.lines) else ""
        return len(line.encode()[: node.col_offset].decode(errors="replace"))

    def end_column(self, node: ast.AST) -> int:
        """Where ``node`` ends, as :meth:`column` counts."""
        line = self.lines[node.end_lineno - 1] if node.end_lineno <= len(self.lines) else ""
        return len(line.encode()[: node.end_col_offset].decode(errors="replace"))

    # ------------------------------------------------------------------------------------ tree
    def parent(self, node: ast.AST) -> ast.AST | None:
        """``node``'s parent (None for the module)."""
        return self.parents.get(node)

    def ancestors(self, node: ast.AST) -> Iterator[ast.AST]:
        """Parent, grandparent, ... up to the module."""
        p = self.parents.get(node)
        while p is not None:
            yield p
            p = self.parents.get(p)

    def enclosing(self, node: ast.AST, kind: type | tuple[type, ...]) -> Any:
        """The nearest ancestor of type ``kind``, else None."""
        return next((a for a in self.ancestors(node) if isinstance(a, kind)), None)

    def function_or_module(self, node: ast.AST) -> ast.AST:
        """The function (not lambda) whose body holds ``node``, else the module."""
        return self.enclosing(node, (ast.FunctionDef, ast.AsyncFunctionDef)) or self.tree

    def method_class(self, node: ast.AST) -> ast.ClassDef | None:
        """The class whose method holds ``node`` (``self`` there is an instance of it)."""
        fn = self.enclosing(node, (ast.FunctionDef, ast.AsyncFunctionDef))
        owner = self.parents.get(fn) if fn is not None else None
        return owner if isinstance(owner, ast.ClassDef) else None

    # ------------------------------------------------------------------------------------ names
    def binding_scope(self, name: str, node: ast.AST) -> ast.AST | None:
        """The scope whose bindings of ``name`` are the ones seen from ``node`` (Python's scoping: a class
        body is not seen from its methods); None if nothing in the file binds it."""
        innermost = True
        for a in self.ancestors(node):
            if not isinstance(a, (*SCOPES, *COMPREHENSIONS)):
                continue
            if isinstance(a, ast.ClassDef) and not innermost:
                continue
            innermost = False
            if self.bindings.get(a, {}).get(name):
                return a
        return None

    def lookup(self, name: str, node: ast.AST) -> list[Binding] | None:
        """The bindings of ``name`` as seen from ``node`` (see :meth:`binding_scope`); None if nothing in the
        file binds it."""
        scope = self.binding_scope(name, node)
        return None if scope is None else self.bindings[scope][name]

    def qnames(self, node: ast.AST, _depth: int = 0) -> set[str]:
        """Fully qualified names of a Name/Attribute, through imports and plain assignments
        (``S = torch.optim.lr_scheduler``); empty when unknown. (Remembered per node: every rule asks.)"""
        if node not in self._qnames:
            self._qnames[node] = self._resolve(node, _depth)
        return self._qnames[node]

    def _resolve(self, node: ast.AST, depth: int) -> set[str]:
        if isinstance(node, ast.Attribute):
            return {f"{base}.{node.attr}" for base in self.qnames(node.value, depth)}
        if not isinstance(node, ast.Name) or depth > 3:
            return set()
        out: set[str] = set()
        for b in self.lookup(node.id, node) or ():
            if b.kind == "import" and b.qualified:
                out.add(b.qualified)
            elif b.kind == "assign" and isinstance(b.value, (ast.Name, ast.Attribute)):
                resolved = self.qnames(b.value, depth + 1)
                if not resolved:
                    return set()
                out |= resolved
            else:
                return set()
        return out

    def callee(self, node: ast.AST | None) -> set[str]:
        """Qualified names of what a call calls (empty for ``f(a)(b)``'s outer call and unknowns)."""
        if not isinstance(node, ast.Call):
            return set()
        return self.qnames(node.func)

    def calls(self, node: ast.AST | None, names: Collection[str]) -> bool:
        """``node`` is a call of one of ``names`` (qualified)."""
        return not self.callee(node).isdisjoint(names)

    def self_attrs(self, cls: ast.ClassDef) -> dict[str, list[ast.expr]]:
        """``self.<attr> = <value>`` in the methods of ``cls``: attr -> values."""
        if cls not in self._self_attrs:
            found: dict[str, list[ast.expr]] = {}
            for fn in cls.body:
                if isinstance(fn, (ast.FunctionDef, ast.AsyncFunctionDef)):
                    for n in ast.walk(fn):
                        if isinstance(n, ast.Assign):
                            for t in n.targets:
                                if is_self_attr(t):
                                    found.setdefault(t.attr, []).append(n.value)
            self._self_attrs[cls] = found
        return self._self_attrs[cls]

    def values(self, node: ast.AST, _depth: int = 0) -> list[ast.expr] | None:
        """What an object expression was made from: itself for a call; the assigned values of a name or of
        ``self.<attr>``; None when unknown (a parameter, a loop variable, ...)."""
        if isinstance(node, ast.Call):
            return [node]
        found: list[ast.expr] | None = None
        if isinstance(node, ast.Name):
            bindings = self.lookup(node.id, node)
            if bindings and all(b.kind == "assign" for b in bindings):
                found = [b.value for b in bindings if b.value is not None]
        elif is_self_attr(node):
            cls = self.method_class(node)
            if cls is not None:
                found = self.self_attrs(cls).get(node.attr)
        if not found or _depth > 3:
            return None
        out: list[ast.expr] = []
        for v in found:
            if isinstance(v, (ast.Name, ast.Attribute)):
                inner = self.values(v, _depth + 1)
                if inner is None:
                    return None
                out += inner
            else:
                out.append(v)
        return out

    def built_by(self, node: ast.AST, names: Collection[str]) -> bool:
        """Every value ``node`` was made from is a call of one of ``names`` (``nn.BCELoss()``, or a name
        assigned only from such calls)."""
        found = self.values(node)
        return bool(found) and all(self.calls(v, names) for v in found)


# ------------------------------------------------------------------------------------------ rules
@dataclass
class Found:
    """A rule's finding on one node; ``data`` is what the rule's ``fix`` needs (None: not fixable)."""

    code: str
    node: ast.AST
    line: int
    column: int
    end: tuple[int, int]
    fixable: bool
    data: Any = None


class Rule:
    """Base of every rule: ``visit_<ast node>`` methods call :meth:`report`; :meth:`finish` runs after
    the whole module (for rules that decide on what they saw everywhere). A fixable rule overrides
    :meth:`fix`."""

    info: ClassVar[RuleInfo]

    def __init__(self, src: Source) -> None:
        self.src = src
        self.found: list[Found] = []

    def report(self, node: ast.AST, *, fixable: bool = False, data: Any = None) -> None:
        """A finding at ``node``; ``fixable``: :meth:`fix` may rewrite it (given ``data``), under ``--fix``
        or, for an unsafe autofix, ``--fix --unsafe-fixes``."""
        src = self.src
        self.found.append(
            Found(
                self.info.code,
                node,
                node.lineno,
                src.column(node),
                (node.end_lineno, src.end_column(node)),
                fixable,
                data,
            )
        )

    def finish(self) -> None:
        """Called once the whole module has been visited."""

    @staticmethod
    def fix(node: cst.CSTNode, data: Any) -> cst.CSTNode | tuple[cst.CSTNode, list[ImportItem]] | None:
        """The LibCST rewrite of the reported node (found at the same span), optionally with imports it
        needs; None to leave it."""
        raise NotImplementedError
