"""The rules of ``fieldnotes check``: one class per pitfall, each citing the claim that proves it.

:data:`RULES` is the machine-readable registry (code, title, message, fix, claim, site URL, TorchFix
overlap, autofix, the file that shows the wrong way), in code order; the site renders it as a page and
``fieldnotes rules --json`` prints it.

Precision comes before recall: a rule fires on a pattern that is wrong wherever it appears
(``BCELoss()(torch.sigmoid(z), t)``), not on one that is merely suspicious. Where a name decides it (an
optimizer passed in as a parameter) the rule's docstring says so.
"""

from __future__ import annotations

import ast
import difflib
import re
from collections.abc import Callable, Collection, Iterator
from typing import TYPE_CHECKING, Any

from fieldnotes.check.base import (
    COMPREHENSIONS,
    REGISTRY,
    Rule,
    RuleInfo,
    Source,
    dotted,
    get_arg,
    has_star_args,
    int_value,
    is_const,
    is_constant_number,
    is_self_attr,
    last_name,
    method_call,
    positional,
    rule,
)

if TYPE_CHECKING:
    import libcst as cst

FUNC = "torch.nn.functional"
FUNCTIONS = (ast.FunctionDef, ast.AsyncFunctionDef)


def nn_classes(*names: str) -> frozenset[str]:
    """``torch.nn.X`` under both spellings torch exports it (``torch.nn.X``, ``torch.nn.modules.<m>.X``)."""
    out = set()
    for n in names:
        module = "loss" if n.endswith("Loss") else "activation"
        out |= {f"torch.nn.{n}", f"torch.nn.modules.{module}.{n}"}
    return frozenset(out)


def keyword_arg(source: str) -> cst.Arg:
    """A LibCST keyword argument parsed from ``name=value`` (spaced as code is written)."""
    import libcst as cst

    call = cst.parse_expression(f"f({source})")
    assert isinstance(call, cst.Call)
    return call.args[0]


def comments(node: cst.CSTNode) -> int:
    """How many comments ``node`` holds."""
    import libcst.matchers as m

    return len(m.findall(node, m.Comment()))


def unwrapped(call: cst.Call, inner: cst.BaseExpression) -> cst.BaseExpression | None:
    """``inner`` (the rewritten argument or receiver of ``call``) in place of ``call``, which only wraps it
    (``f(x)``, ``x.f()``), keeping the comments written in ``call``'s parentheses: then ``inner`` is put in
    parentheses that hold them (``torch.sigmoid(  # why`` + ``z)`` -> ``(  # why`` + ``z)``). None if a
    comment would still be lost."""
    import libcst as cst

    if comments(inner) == comments(call):
        return inner
    before = call.whitespace_before_args
    after: cst.BaseParenthesizableWhitespace = cst.SimpleWhitespace("")
    if len(call.args) == 1:  # (a trailing comma's whitespace, if there is one, holds the comment)
        arg = call.args[0]
        after = arg.comma.whitespace_after if isinstance(arg.comma, cst.Comma) else arg.whitespace_after_arg
    wrapped = inner.with_changes(
        lpar=[cst.LeftParen(whitespace_after=before), *inner.lpar],
        rpar=[*inner.rpar, cst.RightParen(whitespace_before=after)],
    )
    return wrapped if comments(wrapped) == comments(call) else None


def renamed_method(call: cst.CSTNode, new: str) -> cst.CSTNode | None:
    """``x.old(...)`` -> ``x.new(...)`` (also ``torch.old(...)``); None if ``call`` is not of that form."""
    import libcst as cst

    if isinstance(call, cst.Call) and isinstance(call.func, cst.Attribute):
        return call.with_changes(func=call.func.with_changes(attr=cst.Name(new)))
    return None


class TensorRule(Rule):
    """Helpers for rules about activations and losses."""

    SIGMOID = frozenset({"torch.sigmoid", "torch.special.expit", f"{FUNC}.sigmoid"})
    SOFTMAX = frozenset({"torch.softmax", "torch.special.softmax", f"{FUNC}.softmax"})

    def activation(self, node: ast.AST | None, functions: frozenset[str], method: str, module: str) -> bool:
        """``node`` applies an activation: one of torch's ``functions``, the tensor ``method`` (on a receiver
        that resolves to no import, e.g. not ``scipy.special``), or an ``nn.<module>()(x)``."""
        if not isinstance(node, ast.Call):
            return False
        names = self.src.callee(node)
        if names:
            return not names.isdisjoint(functions)
        if method_call(node, method):
            return True
        return self.src.calls(node.func, nn_classes(module))

    def is_sigmoid(self, node: ast.AST | None) -> bool:
        """``torch.sigmoid(z)``, ``F.sigmoid(z)``, ``torch.special.expit(z)``, ``z.sigmoid()``,
        ``nn.Sigmoid()(z)``."""
        return self.activation(node, self.SIGMOID, "sigmoid", "Sigmoid") and not (
            method_call(node, "sigmoid") and node.args and not self.src.callee(node)
        )

    def plain_sigmoid(self, node: ast.AST) -> bool:
        """A sigmoid call that takes nothing but its input (what a rewrite may drop)."""
        if self.src.calls(node, self.SIGMOID):
            return len(node.args) == 1 and not node.keywords and not isinstance(node.args[0], ast.Starred)
        return method_call(node, "sigmoid") and not node.args and not node.keywords

    def is_softmax(self, node: ast.AST | None) -> bool:
        """``torch.softmax``/``F.softmax``/``torch.special.softmax`` calls, ``x.softmax(d)``,
        ``nn.Softmax(d)(x)``."""
        return self.activation(node, self.SOFTMAX, "softmax", "Softmax")

    def loss_call(self, node: ast.Call, functions: frozenset[str], classes: frozenset[str]) -> bool:
        """``node`` calls one of the loss ``functions``, or a loss object built from ``classes``
        (``nn.BCELoss()(...)``, ``criterion(...)`` after ``criterion = nn.BCELoss()``)."""
        return self.src.calls(node, functions) or self.src.built_by(node.func, classes)

    @staticmethod
    def loss_input(node: ast.Call) -> ast.expr | None:
        return get_arg(node, "input", 0)


# ============================================================================ data flow of real code
# What a rule needs to follow a value a few steps, as real code passes it: a name rebound to a wrapper
# (``model = DDP(model)``), an argparse default (``num_workers=args.num_workers``), a parameter's default
# or the arguments its callers pass, a small config class of the same file. Each helper answers only what
# the file decides and says "unknown" (False / None) otherwise; each walks the module at most once per
# file (``Source.memo``), and only when a rule has a candidate to decide.
#: Module methods that return the module itself (``nn.DataParallel(m).cuda()`` is the DataParallel).
SELF_RETURNING = (
    "cuda",
    "to",
    "cpu",
    "float",
    "half",
    "double",
    "bfloat16",
    "train",
    "eval",
    "requires_grad_",
)
NAMESPACES = frozenset({"argparse.Namespace"})
OWN_SCOPES = (*FUNCTIONS, ast.Lambda, ast.ClassDef)


class Index:
    """One walk of the module: calls by the name they call, attributes assigned anywhere, functions and
    classes by name, and whether the file rewrites a namespace wholesale (``setattr``, ``__dict__``)."""

    def __init__(self, src: Source) -> None:
        self.calls: dict[str, list[ast.Call]] = {}
        self.attr_stores: set[str] = set()
        self.functions: dict[str, list[ast.FunctionDef | ast.AsyncFunctionDef]] = {}
        self.classes: dict[str, list[ast.ClassDef]] = {}
        self.wholesale = False  # setattr(...), x.__dict__, vars(x).update(...)
        for n in src.order:
            if isinstance(n, ast.Call):
                name = last_name(n.func)
                if name:
                    self.calls.setdefault(name, []).append(n)
                if name == "setattr" or (name == "update" and self.namespace_dict(n.func)):
                    self.wholesale = True
            elif isinstance(n, ast.Attribute):
                if isinstance(n.ctx, (ast.Store, ast.Del)):
                    self.attr_stores.add(n.attr)
                elif n.attr == "__dict__":
                    self.wholesale = True
            elif isinstance(n, FUNCTIONS):
                self.functions.setdefault(n.name, []).append(n)
            elif isinstance(n, ast.ClassDef):
                self.classes.setdefault(n.name, []).append(n)

    @staticmethod
    def namespace_dict(func: ast.expr) -> bool:
        """``vars(x).update`` / ``x.__dict__.update``."""
        owner = func.value if isinstance(func, ast.Attribute) else None
        return (isinstance(owner, ast.Call) and last_name(owner.func) == "vars") or (
            isinstance(owner, ast.Attribute) and owner.attr == "__dict__"
        )


def index(src: Source) -> Index:
    if Index not in src.memo:
        src.memo[Index] = Index(src)
    return src.memo[Index]


def own_nodes(scope: ast.AST) -> Iterator[ast.AST]:
    """The nodes of ``scope``'s own body: not those of functions, lambdas and classes defined in it."""
    todo = list(ast.iter_child_nodes(scope))
    while todo:
        n = todo.pop()
        yield n
        if not isinstance(n, OWN_SCOPES):
            todo.extend(ast.iter_child_nodes(n))


def unchained(node: ast.AST | None) -> ast.AST | None:
    """``x`` for ``x.cuda()``, ``x.to(device).train()``: a module method that returns the module."""
    while method_call(node, *SELF_RETURNING):
        node = node.func.value  # type: ignore[union-attr]
    return node


def assigned(src: Source, name: ast.Name) -> list[ast.expr] | None:
    """The values a name is assigned, as written (``Source.values`` follows names and attributes further),
    when every binding of it is a plain assignment; else None."""
    bindings = src.lookup(name.id, name)
    if not bindings or any(b.kind != "assign" or b.value is None for b in bindings):
        return None
    return [b.value for b in bindings if b.value is not None]


def binding_scope(src: Source, name: ast.Name) -> ast.AST | None:
    """The scope whose bindings of ``name`` are seen where it is used (:meth:`Source.binding_scope`)."""
    return src.binding_scope(name.id, name)


def parameter(fn: ast.AST, name: str) -> tuple[int | None, ast.expr | None] | None:
    """(position among the positional parameters, None for a keyword-only one; its default or None) of
    ``fn``'s parameter ``name``; None if it has none of that name."""
    if not isinstance(fn, FUNCTIONS):
        return None
    a = fn.args
    ordered = [*a.posonlyargs, *a.args]
    for i, p in enumerate(ordered):
        if p.arg == name:
            k = i - (len(ordered) - len(a.defaults))
            return i, a.defaults[k] if k >= 0 else None
    for p, d in zip(a.kwonlyargs, a.kw_defaults, strict=True):
        if p.arg == name:
            return None, d
    return None


def only_parameter(src: Source, name: ast.Name) -> tuple[ast.AST, int | None, ast.expr | None] | None:
    """(function, position, default) when ``name`` is a parameter its function never rebinds."""
    scope = binding_scope(src, name)
    if scope is None or len(src.bindings[scope][name.id]) != 1:
        return None
    found = parameter(scope, name.id)
    return (scope, *found) if found is not None else None


def call_sites(src: Source, fn: ast.AST) -> list[tuple[ast.Call, int]]:
    """The calls of ``fn`` in this file, each with how many parameters the call fills implicitly (1 for
    ``self``: ``obj.method(...)``, ``Class(...)`` for ``__init__``), found by name."""
    if not isinstance(fn, FUNCTIONS):
        return []
    owner = src.parent(fn)
    shift, name = 0, fn.name
    if isinstance(owner, ast.ClassDef):
        shift = 0 if any(last_name(d) == "staticmethod" for d in fn.decorator_list) else 1
        name = owner.name if fn.name == "__init__" else fn.name
    inside = set(map(id, ast.walk(fn)))
    return [(c, shift) for c in index(src).calls.get(name, []) if id(c) not in inside]


STAR = ast.Starred()  # "passed somewhere in *args/**kwargs": unknown


def passed(call: ast.Call, name: str, position: int | None, shift: int) -> ast.expr | None:
    """What ``call`` passes for parameter ``name`` (``STAR`` where ``*args``/``**kwargs`` may hold it),
    None when it passes nothing (the default applies)."""
    star = False
    for kw in call.keywords:
        if kw.arg == name:
            return kw.value
        star = star or kw.arg is None
    if position is not None and position >= shift:
        for j, a in enumerate(call.args):
            if isinstance(a, ast.Starred):
                return STAR
            if j == position - shift:
                return a
    return STAR if star else None


def local_def(src: Source, func: ast.AST, kind: type) -> Any:
    """The one function (``kind`` ast.FunctionDef) or class (ast.ClassDef) of this file that the name
    ``func`` is bound to, else None."""
    if not isinstance(func, ast.Name):
        return None
    scope = binding_scope(src, func)
    if scope is None or len(src.bindings[scope][func.id]) != 1:
        return None
    table = index(src).classes if kind is ast.ClassDef else index(src).functions
    found = table.get(func.id, [])
    return found[0] if len(found) == 1 and src.parent(found[0]) is scope else None


def made_by(src: Source, node: ast.AST | None, made: Callable[[ast.AST], bool], depth: int = 0) -> bool:
    """Every value ``node`` can have is one that ``made`` accepts (a call, an index into one): ``node``
    itself, a function of this file that returns only such values, a name bound only to them (unpacked
    too: ``args, _ = parser.parse_known_args()`` is ``made`` of ``parse_known_args()[0]``), ``self.x`` set
    only from them, or a parameter that every call in this file passes one to (``main(args)``)."""
    if depth > 5 or node is None:
        return False
    if made(node):
        return True
    if isinstance(node, ast.Call):
        fn = local_def(src, node.func, ast.FunctionDef)
        returns = [r.value for r in own_nodes(fn) if isinstance(r, ast.Return)] if fn is not None else []
        return bool(returns) and all(made_by(src, r, made, depth + 1) for r in returns)
    if is_self_attr(node):
        cls = src.method_class(node)
        values = src.self_attrs(cls).get(node.attr) if cls is not None else None
        return bool(values) and all(made_by(src, v, made, depth + 1) for v in values or [])
    if not isinstance(node, ast.Name):
        return False
    scope = binding_scope(src, node)
    if scope is None:
        return False
    bindings = src.bindings[scope][node.id]
    if all(b.kind == "assign" for b in bindings):
        return all(made_by(src, b.value, made, depth + 1) for b in bindings)
    if len(bindings) != 1:
        return False
    param = parameter(scope, node.id)
    if param is not None:
        sites = call_sites(src, scope)
        args = [passed(c, node.id, param[0], shift) for c, shift in sites]
        return bool(args) and all(a is not STAR and made_by(src, a, made, depth + 1) for a in args)
    for s in own_nodes(scope):  # an unpacking: x, y = value
        if (
            isinstance(s, ast.Assign)
            and len(s.targets) == 1
            and isinstance(s.targets[0], (ast.Tuple, ast.List))
        ):
            for i, t in enumerate(s.targets[0].elts):
                if isinstance(t, ast.Name) and t.id == node.id:
                    return made(ast.Subscript(value=s.value, slice=ast.Constant(i), ctx=ast.Load()))
    return False


def parsed_args(src: Source, node: ast.AST) -> bool:
    """``parser.parse_args()``, ``parser.parse_known_args()[0]``, ``argparse.Namespace(...)``."""
    if isinstance(node, ast.Subscript):
        return method_call(node.value, "parse_known_args") and int_value(node.slice) == 0
    return isinstance(node, ast.Call) and (method_call(node, "parse_args") or src.calls(node, NAMESPACES))


def is_namespace(src: Source, node: ast.AST | None) -> bool:
    """``node`` is certainly an ``argparse.Namespace`` (see :func:`made_by` for how it is followed)."""
    return made_by(src, node, lambda n: parsed_args(src, n))


def argparse_defaults(src: Source) -> dict[str, list[ast.expr | None]]:
    """``add_argument`` calls of this file by destination (``--num-workers`` -> ``num_workers``, or
    ``dest=``): the ``default=`` of each (None where it has none)."""
    if argparse_defaults not in src.memo:
        out: dict[str, list[ast.expr | None]] = {}
        for call in index(src).calls.get("add_argument", []):
            dest = get_arg(call, "dest")
            name = dest.value if isinstance(dest, ast.Constant) and isinstance(dest.value, str) else None
            flags = [
                a.value for a in positional(call) if isinstance(a, ast.Constant) and isinstance(a.value, str)
            ]
            if name is None and flags:
                long = [f for f in flags if f.startswith("--")]
                name = (long[0] if long else flags[0]).lstrip("-").replace("-", "_")
            if name:
                out.setdefault(name, []).append(get_arg(call, "default"))
        src.memo[argparse_defaults] = out
    return src.memo[argparse_defaults]


def attr_changed(src: Source, attr: str) -> bool:
    """Something in the file may change attribute ``attr`` after construction: ``x.attr = ...``,
    ``set_defaults(attr=...)``, ``setattr``, ``vars(x).update``, ``x.__dict__``."""
    idx = index(src)
    return (
        attr in idx.attr_stores
        or idx.wholesale
        or any(kw.arg in (attr, None) for c in idx.calls.get("set_defaults", []) for kw in c.keywords)
    )


def guarded_by(src: Source, node: ast.AST, exprs: Collection[str]) -> bool:
    """A test of an ``if``/``while``/conditional expression around ``node`` (in its function) mentions one
    of ``exprs`` (``ast.dump``\\ s): the code handles that value itself."""
    child = node
    for a in src.ancestors(node):
        if isinstance(a, (ast.If, ast.While, ast.IfExp)) and child is not a.test:
            if any(ast.dump(n) in exprs for n in ast.walk(a.test)):
                return True
        if isinstance(a, (*FUNCTIONS, ast.Lambda)):
            return False
        child = a
    return False


def conditions(src: Source, node: ast.AST) -> set[tuple[str, bool]]:
    """The ``if`` tests around ``node`` in its function, each as (``ast.dump`` of the test without its
    ``not``, whether ``node`` runs when it holds)."""
    out = set()
    child = node
    for a in src.ancestors(node):
        if isinstance(a, (ast.If, ast.IfExp)) and child is not a.test:
            body = child in a.body if isinstance(a.body, list) else child is a.body
            test, holds = a.test, body
            while isinstance(test, ast.UnaryOp) and isinstance(test.op, ast.Not):
                test, holds = test.operand, not holds
            out.add((ast.dump(test), holds))
        if isinstance(a, (*FUNCTIONS, ast.Lambda)):
            break
        child = a
    return out


def never_together(src: Source, a: ast.AST, b: ast.AST) -> bool:
    """``a`` and ``b`` run under opposite outcomes of one test (the two branches of an ``if``, or two
    ``if``\\ s on the same condition, one negated)."""
    ca = conditions(src, a)
    return any((test, not holds) in ca for test, holds in conditions(src, b))


def local_config_default(src: Source, owner: ast.expr, attr: str) -> ast.expr | None:
    """The value of ``owner.attr`` where ``owner`` is a config class of this file (``Config.attr``) or only
    ever an instance built without that field (``cfg = Config()`` of a ``@dataclass`` with ``attr: int =
    0``, or of a plain class without ``__init__`` or bases); None when not decidable."""
    cls = local_def(src, owner, ast.ClassDef)
    if cls is not None:
        return class_field(src, cls, attr)
    values = src.values(owner) if isinstance(owner, ast.Name) or is_self_attr(owner) else None
    found: list[ast.expr | None] = []
    for v in values or [None]:
        cls = local_def(src, v.func, ast.ClassDef) if isinstance(v, ast.Call) else None
        if cls is None or has_star_args(v):
            return None
        plain = not cls.bases and not any(isinstance(s, FUNCTIONS) and s.name == "__init__" for s in cls.body)
        if not (plain or dataclass(cls)):
            return None
        given = get_arg(v, attr)
        if given is None and v.args:
            return None
        found.append(given if given is not None else class_field(src, cls, attr))
    same = {ast.dump(f) if f is not None else None for f in found}
    return found[0] if len(same) == 1 else None


def dataclass(cls: ast.ClassDef) -> bool:
    return any(last_name(d.func if isinstance(d, ast.Call) else d) == "dataclass" for d in cls.decorator_list)


def class_field(src: Source, cls: ast.ClassDef, attr: str) -> ast.expr | None:
    """The default a class body gives ``attr`` (``attr: int = 0``, ``attr = 0``, ``field(default=0)``), if
    no method sets ``self.attr``."""
    if src.self_attrs(cls).get(attr):
        return None
    for s in cls.body:
        value = None
        if isinstance(s, ast.AnnAssign) and isinstance(s.target, ast.Name) and s.target.id == attr:
            value = s.value
        elif isinstance(s, ast.Assign) and any(isinstance(t, ast.Name) and t.id == attr for t in s.targets):
            value = s.value
        if isinstance(value, ast.Call) and last_name(value.func) == "field":
            value = get_arg(value, "default")
        if value is not None:
            return value
    return None


# ============================================================================ 00 · environment
DATASETS = frozenset(
    f"torch.utils.data.{m}{c}" for m in ("", "dataset.") for c in ("Dataset", "IterableDataset")
)
RNGS = frozenset(
    {
        "numpy.random.default_rng",
        "numpy.random.RandomState",
        "numpy.random.Generator",
        "random.Random",
        "torch.Generator",
    }
)


@rule(
    code="FNC001",
    name="dataset-owned-rng",
    title="Dataset draws from an RNG object it owns, not re-seeded per worker",
    message="every DataLoader worker gets a copy of this generator and draws the same numbers (every "
    "epoch too unless workers persist)",
    fix="re-create the generator from torch.utils.data.get_worker_info().seed in a worker_init_fn",
    claim="00-C15",
    demo="helpers/data.py",
)
class DatasetOwnedRng(Rule):
    """A ``Dataset`` whose ``__init__`` stores ``np.random.default_rng(...)`` (or ``RandomState``,
    ``random.Random``, ``torch.Generator``) and whose ``__getitem__``/``__iter__`` draws from it, with no
    ``get_worker_info`` in the class and no ``worker_init_fn=`` anywhere in the file."""

    def __init__(self, src: Source) -> None:
        super().__init__(src)
        self.candidates: list[ast.AST] = []
        self.worker_init = False

    def visit_keyword(self, node: ast.keyword) -> None:
        if node.arg == "worker_init_fn":
            self.worker_init = True

    def visit_ClassDef(self, node: ast.ClassDef) -> None:
        if not any(self.src.qnames(b) & DATASETS for b in node.bases):
            return
        if any(last_name(n) == "get_worker_info" for n in ast.walk(node)):
            return
        methods = {s.name: s for s in node.body if isinstance(s, FUNCTIONS)}
        if "__init__" not in methods:
            return
        owned: dict[str, ast.Assign] = {}
        for n in ast.walk(methods["__init__"]):
            if isinstance(n, ast.Assign) and self.src.calls(n.value, RNGS):
                owned.update({t.attr: n for t in n.targets if is_self_attr(t)})
        drawing = [methods[m] for m in ("__getitem__", "__getitems__", "__iter__") if m in methods]
        used = {n.attr for fn in drawing for n in ast.walk(fn) if is_self_attr(n)}
        self.candidates += [assign for attr, assign in owned.items() if attr in used]

    def finish(self) -> None:
        if not self.worker_init:
            for node in self.candidates:
                self.report(node)


def worker_init_names(src: Source) -> set[str]:
    """The names passed as ``worker_init_fn=`` in the file."""
    if worker_init_names not in src.memo:
        src.memo[worker_init_names] = {
            last_name(n.value) or ""
            for n in src.order
            if isinstance(n, ast.keyword) and n.arg == "worker_init_fn" and last_name(n.value)
        }
    return src.memo[worker_init_names]


def is_worker_init(src: Source, fn: ast.AST | None) -> bool:
    """``fn`` runs in a DataLoader worker at its start: a function passed as ``worker_init_fn=`` in this file,
    one whose name contains ``worker_init``, one whose only parameter is ``worker_id`` (the call DataLoader
    makes), or a lambda passed as ``worker_init_fn=`` (or assigned to a name passed so)."""
    if isinstance(fn, ast.Lambda):
        owner = src.parent(fn)
        if isinstance(owner, ast.Assign):  # seed = lambda w: ...; DataLoader(..., worker_init_fn=seed)
            return any(isinstance(t, ast.Name) and t.id in worker_init_names(src) for t in owner.targets)
        return isinstance(owner, ast.keyword) and owner.arg == "worker_init_fn"
    if not isinstance(fn, FUNCTIONS):
        return False
    params = [a.arg for a in fn.args.args]
    return fn.name in worker_init_names(src) or "worker_init" in fn.name or params == ["worker_id"]


SEEDERS = frozenset(
    {
        "numpy.random.seed",
        "random.seed",
        "torch.manual_seed",
        "torch.random.manual_seed",
        "torch.cuda.manual_seed",
        "torch.cuda.manual_seed_all",
    }
)


@rule(
    code="FNC002",
    name="constant-worker-seed",
    title="worker_init_fn seeds every worker with the same constant",
    message="every DataLoader worker then draws the same random numbers, which brings the duplicated "
    "augmentation back",
    fix="derive the seed from the worker: torch.utils.data.get_worker_info().seed (or "
    "torch.initial_seed()) % 2**32",
    claim="00-C16",
    demo="helpers/data.py",
)
class ConstantWorkerSeed(Rule):
    """A seeding call with a constant (``np.random.seed(42)``) inside a worker init function (see
    :func:`is_worker_init`): a function passed as ``worker_init_fn=`` in this file, one whose name contains
    ``worker_init``, one whose only parameter is ``worker_id`` (the call DataLoader makes), or a lambda
    passed as ``worker_init_fn=``."""

    def __init__(self, src: Source) -> None:
        super().__init__(src)
        self.seeds: list[tuple[ast.Call, ast.AST | None]] = []

    def visit_Call(self, node: ast.Call) -> None:
        if self.src.calls(node, SEEDERS) and node.args and is_constant_number(node.args[0]):
            self.seeds.append((node, self.src.enclosing(node, (*FUNCTIONS, ast.Lambda))))

    def finish(self) -> None:
        for call, fn in self.seeds:
            if is_worker_init(self.src, fn):
                self.report(call)


CUDNN_FLAGS = ("enabled", "benchmark", "benchmark_limit", "deterministic", "allow_tf32", "fp32_precision")


@rule(
    code="FNC003",
    name="cudnn-flag-typo",
    title="assignment to a torch.backends.cudnn flag that does not exist",
    message="the misspelt flag (e.g. cudnn.enable) is silently created as a new attribute and changes "
    "nothing",
    fix="spell the flag: enabled, benchmark, deterministic, allow_tf32, benchmark_limit, fp32_precision",
    claim="00-C12",
    torchfix="TOR002 catches the same kind of typo for tensor.require_grad; this rule, cuDNN's flags",
    autofix="unsafe",
    unsafe_because="the misspelt assignment changed nothing; the rewrite sets the real flag, so cuDNN "
    "then behaves differently (other algorithms, determinism, TF32, or off), and the closest spelling may "
    "not be the flag that was meant",
    demo="notebooks/00_environment.ipynb",
)
class CudnnFlagTypo(Rule):
    """``torch.backends.cudnn.<name> = ...`` (also through ``cudnn = torch.backends.cudnn``) for a name
    that is none of cuDNN's flags. ``--fix --unsafe-fixes`` renames it to the one flag it is a close
    misspelling of (unsafe: the program then runs with that flag set, which it never did)."""

    def visit_Assign(self, node: ast.Assign) -> None:
        for target in node.targets:
            if not isinstance(target, ast.Attribute) or target.attr in CUDNN_FLAGS:
                continue
            if "torch.backends.cudnn" not in self.src.qnames(target.value):
                continue
            close = difflib.get_close_matches(target.attr, CUDNN_FLAGS, n=2, cutoff=0.8)
            self.report(target, fixable=len(close) == 1, data=close[0] if len(close) == 1 else None)

    @staticmethod
    def fix(node: cst.CSTNode, data: Any) -> cst.CSTNode | None:
        import libcst as cst

        return node.with_changes(attr=cst.Name(data)) if isinstance(node, cst.Attribute) else None


LEGACY_NUMPY_SEEDS = frozenset(
    {
        "numpy.random.seed",
        "numpy.random.RandomState",
        "numpy.random.mtrand.seed",
        "numpy.random.mtrand.RandomState",
    }
)
INITIAL_SEED = frozenset({"torch.initial_seed", "torch.random.initial_seed"})
WORKER_INFO = frozenset(
    {"torch.utils.data.get_worker_info", "torch.utils.data._utils.worker.get_worker_info"}
)


@rule(
    code="FNC036",
    name="worker-seed-too-large",
    title="NumPy's legacy seeding given a DataLoader worker's 64-bit seed",
    message="in a DataLoader worker torch.initial_seed() (and get_worker_info().seed) is base_seed + "
    "worker_id, a 64-bit number: np.random.seed and np.random.RandomState accept at most 2**32 - 1 and "
    "raise ValueError 'Seed must be between 0 and 2**32 - 1'",
    fix="reduce it: np.random.seed(torch.initial_seed() % 2**32) (or np.random.default_rng(seed), which "
    "takes any size)",
    claim="00-C23",
)
class WorkerSeedTooLarge(Rule):
    """``np.random.seed(s)`` / ``np.random.RandomState(s)`` where ``s`` is ``get_worker_info().seed`` (also
    through a name, plus or minus something: ``+ worker_id``), or ``torch.initial_seed()`` inside a worker
    init function (see :func:`is_worker_init`; in the main process ``initial_seed()`` is the seed given to
    ``torch.manual_seed``, which may be small). A seed reduced with ``%``, ``//``, ``&`` or ``>>`` is left
    alone."""

    def __init__(self, src: Source) -> None:
        super().__init__(src)
        self.candidates: list[tuple[ast.Call, str]] = []

    def visit_Call(self, node: ast.Call) -> None:
        if last_name(node.func) in ("seed", "RandomState") and self.src.calls(node, LEGACY_NUMPY_SEEDS):
            kind = self.seed_kind(get_arg(node, "seed", 0))
            if kind:
                self.candidates.append((node, kind))

    def seed_kind(self, node: ast.AST | None, depth: int = 0) -> str | None:
        """``"worker"`` for a worker's seed, ``"initial"`` for ``torch.initial_seed()``, else None."""
        if isinstance(node, ast.BinOp) and isinstance(node.op, (ast.Add, ast.Sub)):
            return self.seed_kind(node.left, depth) or self.seed_kind(node.right, depth)
        if isinstance(node, ast.Call) and last_name(node.func) == "int" and len(node.args) == 1:
            return self.seed_kind(node.args[0], depth)
        if self.src.calls(node, INITIAL_SEED):
            return "initial"
        if isinstance(node, ast.Attribute) and node.attr == "seed":
            base = node.value
            values = [base] if isinstance(base, ast.Call) else self.src.values(base) or []
            if values and all(self.src.calls(v, WORKER_INFO) for v in values):
                return "worker"
        if isinstance(node, ast.Name) and depth < 3:
            kinds = {self.seed_kind(v, depth + 1) for v in assigned(self.src, node) or [None]}
            return kinds.pop() if len(kinds) == 1 else None
        return None

    def finish(self) -> None:
        for node, kind in self.candidates:
            if kind == "worker" or is_worker_init(
                self.src, self.src.enclosing(node, (*FUNCTIONS, ast.Lambda))
            ):
                self.report(node)


#: Calls that start a new process (which reads PYTHONHASHSEED when it starts).
LAUNCHES = re.compile(
    r"subprocess\..*|os\.(?:system|popen|exec\w*|spawn\w*|posix_spawn\w*|fork\w*)|"
    r"(?:torch\.)?multiprocessing\..*|torch\.distributed\.(?:run|launch)\..*"
)


@rule(
    code="FNC037",
    name="hash-seed-at-runtime",
    title="os.environ['PYTHONHASHSEED'] set inside the running script",
    message="Python reads PYTHONHASHSEED once, at start-up: set inside the running process it leaves this "
    "process's hash() of strings, and the order of sets of strings, random; only processes started "
    "afterwards see it",
    fix="set it before Python starts (PYTHONHASHSEED=0 python train.py, or in the job's environment); keep "
    "the line only for child processes the script starts afterwards",
    claim="00-C10",
)
class HashSeedAtRuntime(Rule):
    """``os.environ["PYTHONHASHSEED"] = ...`` (also ``os.environ.setdefault``/``update``, ``os.putenv``),
    typically in a ``seed_everything()``, in a file that starts no process afterwards (no ``subprocess``,
    ``os.exec*``/``os.system``, ``multiprocessing``/``torch.multiprocessing``: there the variable reaches
    the child, which is what a launcher wants)."""

    def __init__(self, src: Source) -> None:
        super().__init__(src)
        self.candidates: list[ast.AST] = []

    def environ(self, node: ast.AST) -> bool:
        return "os.environ" in self.src.qnames(node)

    @staticmethod
    def names_hash_seed(node: ast.AST | None) -> bool:
        return isinstance(node, ast.Constant) and node.value == "PYTHONHASHSEED"

    def visit_Assign(self, node: ast.Assign) -> None:
        for t in node.targets:
            if isinstance(t, ast.Subscript) and self.names_hash_seed(t.slice) and self.environ(t.value):
                self.candidates.append(t)

    def visit_Call(self, node: ast.Call) -> None:
        func = node.func
        if (last_name(func) == "putenv" and "os.putenv" in self.src.callee(node)) or (
            isinstance(func, ast.Attribute) and func.attr == "setdefault" and self.environ(func.value)
        ):
            if node.args and self.names_hash_seed(node.args[0]):
                self.candidates.append(node)
        elif isinstance(func, ast.Attribute) and func.attr == "update" and self.environ(func.value):
            if any(kw.arg == "PYTHONHASHSEED" for kw in node.keywords) or any(
                isinstance(a, ast.Dict) and any(self.names_hash_seed(k) for k in a.keys) for a in node.args
            ):
                self.candidates.append(node)

    def finish(self) -> None:
        if not self.candidates:
            return
        calls = (n for n in self.src.order if isinstance(n, ast.Call))
        if not any(LAUNCHES.fullmatch(q) for c in calls for q in self.src.callee(c)):
            for node in self.candidates:
                self.report(node)


# ============================================================================ 01 · tensors
@rule(
    code="FNC004",
    name="set-default-tensor-type",
    title="torch.set_default_tensor_type is deprecated",
    message="torch.set_default_tensor_type is deprecated since PyTorch 2.1 and warns",
    fix="torch.set_default_dtype(torch.float64) (and torch.set_default_device for a device)",
    claim="01-C3",
    demo="notebooks/01_tensors.ipynb",
)
class SetDefaultTensorType(Rule):
    """Any call of ``torch.set_default_tensor_type``."""

    def visit_Call(self, node: ast.Call) -> None:
        if self.src.calls(node, {"torch.set_default_tensor_type"}):
            self.report(node)


LEGACY_TENSORS = frozenset(
    f"torch.{t}Tensor"
    for t in ("", "Float", "Double", "Half", "BFloat16", "Long", "Int", "Short", "Char", "Byte", "Bool")
)


PARAMETERS = frozenset({"torch.nn.Parameter", "torch.nn.parameter.Parameter"})
#: Conversions that keep a tensor's values (FNC009's CONVERSIONS too).
CONVERSIONS_KEEPING = ("to", "cuda", "float", "double", "half", "bfloat16", "type")
#: In-place methods that draw every value of a tensor at random.
RANDOM_INIT_METHODS = (
    "normal_",
    "uniform_",
    "bernoulli_",
    "cauchy_",
    "exponential_",
    "geometric_",
    "log_normal_",
    "random_",
)
#: Methods that return the tensor's values unchanged (moved or cast).
KEEPS_VALUES = (*CONVERSIONS_KEEPING, "cpu", "contiguous", "pin_memory")
#: What a use of an uninitialised tensor does first (FNC005): reads its values, only looks at its shape
#: (or writes one row), or fills it (also: anything the rule cannot follow).
READ, META, FILL = "read", "meta", "fill"
#: Attributes and methods that look only at a tensor's shape, dtype or device.
SHAPE_ONLY = frozenset(
    {"shape", "size", "dim", "ndim", "ndimension", "numel", "nelement", "dtype", "device", "is_cuda"}
)
#: Methods whose result depends on every value (reductions, conversions to Python, arithmetic).
READS_VALUES = frozenset(
    {"item", "tolist", "numpy", "sum", "mean", "max", "min", "prod", "std", "var", "norm", "argmax"}
    | {"argmin", "any", "all", "abs", "exp", "log", "sqrt", "add", "sub", "mul", "div", "add_", "sub_"}
    | {"mul_", "div_", "mm", "matmul", "bmm", "eq", "ne", "lt", "gt", "le", "ge", "equal", "allclose"}
    | {"cumsum", "clamp", "clamp_", "sign", "pow", "__repr__", "__str__"}
)
#: torch functions that read every value of a tensor passed to them.
READING_TORCH = READS_VALUES | {"cat", "stack", "isnan", "isfinite", "save"}
#: Builtins that read a tensor's values (print shows them).
READING_BUILTINS = frozenset({"print", "float", "int", "bool", "list", "tuple", "sum", "max", "min", "abs"})


def is_literal_index(node: ast.AST) -> bool:
    """An index of integer literals only (``0``, ``-1``, ``(0, 2)``): one element or row, not a slice."""
    elts = node.elts if isinstance(node, ast.Tuple) else [node]
    return bool(elts) and all(int_value(e) is not None for e in elts)


FLOAT32 = frozenset({"numpy.float32", "numpy.single"})


@rule(
    code="FNC005",
    name="legacy-tensor-constructor",
    title="torch.Tensor(...) called with a size or an array",
    message="torch.Tensor(3) is an uninitialised tensor of shape (3,), not the number 3, and "
    "torch.Tensor(ndarray) silently copies and casts to float32 (it aliases only a float32 array)",
    fix="torch.tensor(data) or torch.empty(shape); for an array, keep the float32 cast explicit: "
    "torch.as_tensor(a, dtype=torch.float32) or torch.from_numpy(a).float() (a bare torch.from_numpy(a) "
    "keeps float64 and breaks a float32 matmul that follows)",
    claim="01-C7",
    demo="notebooks/01_tensors.ipynb",
)
class LegacyTensorConstructor(Rule):
    """``torch.Tensor``/``torch.FloatTensor``/... called with sizes (an integer, or several arguments) or
    with a NumPy array (a ``numpy`` call, or a name bound only to one) when the class is ``torch.Tensor``,
    whose float32 cast is implicit. A typed constructor of an array (``torch.FloatTensor(a)``,
    ``torch.LongTensor(labels)``) is left alone: its name states the cast, and code relies on it (a float64
    array then feeds a float32 ``mm``), so no rewrite without the cast would be right. Other arguments (a
    list literal, a storage, an unknown name) are left alone: there the call may mean what it says. So
    are an array that is float32 already, every value of it made so in the file (``np.zeros(shape,
    dtype=np.float32)``, ``a.astype("float32")``): the cast changes nothing. So are sizes passed straight
    to ``nn.Parameter`` (``nn.Parameter(torch.Tensor(out, in))``, then ``nn.init``) or to
    ``register_buffer`` (``self.register_buffer("features", torch.Tensor(n, d))``, then a reset): the
    shape of a parameter or buffer that the layer initialises, as ``torch.empty`` would make it. Sizes (or one
    literal number, which may be meant as data) are reported only where the file shows the uninitialised
    values read before anything fills them (see :meth:`read_before_fill`): ``print(torch.Tensor(2, 3))``,
    ``data = torch.LongTensor(batch, n) % ntoken``; not ``torch.Tensor(5).random_(10)``, rows assigned in
    a loop, nor a tensor first passed to a function that may fill it (``init_embedding(emb)``)."""

    def is_array(self, node: ast.AST) -> bool:
        values = [node] if isinstance(node, ast.Call) else self.src.values(node) or []
        return bool(values) and all(
            any(n.startswith("numpy.") for n in self.src.callee(v)) or method_call(v, "numpy") for v in values
        )

    def is_float32(self, node: ast.AST | None) -> bool:
        """``np.float32`` / ``np.single`` / ``"float32"`` / ``"f4"``."""
        if isinstance(node, ast.Constant):
            return node.value in ("float32", "f4", "<f4", "single")
        return isinstance(node, (ast.Name, ast.Attribute)) and bool(self.src.qnames(node) & FLOAT32)

    def float32_array(self, node: ast.AST) -> bool:
        """Every value ``node`` can have is an array made float32 in this file: a ``numpy`` call with
        ``dtype=np.float32`` (``np.zeros(shape, dtype=np.float32)``) or ``<array>.astype(np.float32)``
        (item assignments into it, ``a[i] = v``, keep its dtype)."""
        values = [node] if isinstance(node, ast.Call) else self.src.values(node) or []
        for v in values:
            if not isinstance(v, ast.Call):
                return False
            if method_call(v, "astype"):
                dtype = get_arg(v, "dtype", 0)
            elif any(n.startswith("numpy.") for n in self.src.callee(v)):
                dtype = get_arg(v, "dtype")
            else:
                return False
            if not self.is_float32(dtype):
                return False
        return bool(values)

    def shape_of_a_layer(self, node: ast.Call) -> bool:
        """``node`` is passed straight to ``nn.Parameter(...)`` or as the tensor of ``register_buffer``."""
        parent = self.src.parent(node)
        if isinstance(parent, ast.keyword):
            parent = self.src.parent(parent)
        if self.src.calls(parent, PARAMETERS):
            return True
        return method_call(parent, "register_buffer") and get_arg(parent, "tensor", 1) is node  # type: ignore[arg-type]

    def visit_Call(self, node: ast.Call) -> None:
        args = positional(node)
        if not args or not self.src.calls(node, LEGACY_TENSORS):
            return
        if self.is_array(args[0]):
            if self.src.calls(node, {"torch.Tensor"}) and not self.float32_array(args[0]):
                self.report(node)
        elif (len(args) > 1 or is_constant_number(args[0])) and not self.shape_of_a_layer(node):
            if self.read_before_fill(node):
                self.report(node)

    def read_before_fill(self, node: ast.Call) -> bool:
        """The file shows the uninitialised values READ before anything fills or overwrites them: the tensor
        (``node``, or the name it is assigned to, use by use in the order they are written) used in
        arithmetic or a comparison, reduced (``x.sum()``), converted (``.item()``, ``.tolist()``,
        ``.numpy()``), indexed for reading, returned, printed or displayed (a notebook cell's bare value),
        with only shape/dtype/device look-ups (``x.size(0)``) and writes of single literal-indexed rows
        (``x[0] = 1``) before that. Anything else comes first, and the rule stays silent: a fill
        (``x.uniform_()``, ``nn.init.normal_(x)``), rows assigned in a loop, a rebinding, or the tensor passed
        to any call that could fill it (``init_embedding(emb)``, ssd.pytorch's ``match(..., loc_t, ...)``)."""
        return self.fate(node, 0) == READ

    def fate(self, node: ast.AST, depth: int) -> str:
        """What first happens to the (uninitialised) value of ``node``: READ, META (only its shape, dtype or
        a single literal row write: look further) or FILL (filled, overwritten, or out of sight)."""
        top = node
        while True:  # through methods that keep the values: .to(device), .cuda(), .float()
            up = self.src.parent(top)
            if not (isinstance(up, ast.Attribute) and up.value is top):
                break
            call = self.src.parent(up)
            called = isinstance(call, ast.Call) and call.func is up
            if up.attr in SHAPE_ONLY:
                return META
            if called and up.attr in KEEPS_VALUES:
                top = call  # type: ignore[assignment]
                continue
            return READ if called and up.attr in READS_VALUES else FILL
        up = self.src.parent(top)
        if isinstance(up, (ast.BinOp, ast.UnaryOp, ast.Return, ast.Yield, ast.Lambda, ast.FormattedValue)):
            return READ  # arithmetic, returned (a lambda's body too), formatted
        if isinstance(up, ast.Expr):
            return READ  # a bare value: displayed as a notebook cell's output
        if isinstance(up, ast.Compare):
            return META if all(isinstance(o, (ast.Is, ast.IsNot)) for o in up.ops) else READ
        if isinstance(up, ast.AugAssign):
            return READ  # y += x
        if isinstance(up, ast.Subscript) and up.value is top:
            if isinstance(up.ctx, ast.Load):
                inner = self.fate(up, depth + 9)  # a row read (x[0].sum()) or a row filled (x[i].copy_(v))
                return READ if inner == READ else FILL
            if isinstance(up.ctx, ast.Store) and is_literal_index(up.slice):
                return META  # one row written: the others are still uninitialised
            return FILL  # x[i] = v, x[:] = v: rows written (in a loop, or all), or out of sight
        if isinstance(up, ast.Call) and top in up.args:
            func = up.func
            if isinstance(func, ast.Name) and self.src.lookup(func.id, up) is None:
                if func.id in READING_BUILTINS:
                    return READ
                if func.id in ("len", "isinstance", "type", "id"):
                    return META
            names = self.src.callee(up)
            if any(n.startswith("torch.") and n.rsplit(".", 1)[1] in READING_TORCH for n in names):
                return READ
            return FILL  # passed to a call that could fill it
        if (
            isinstance(up, ast.Assign)
            and up.value is top
            and len(up.targets) == 1
            and isinstance(up.targets[0], ast.Name)
            and depth < 3
        ):
            return self.fate_of_name(up, up.targets[0].id, depth)
        return FILL

    def fate_of_name(self, stmt: ast.Assign, name: str, depth: int) -> str:
        """The first use of ``name`` after ``stmt`` (in this function or module, in written order) that is
        not a look-up of its shape: READ, or FILL for anything else (none: never read)."""
        after = (stmt.end_lineno, stmt.end_col_offset)

        def at(n: ast.Name) -> tuple[int, int]:
            if isinstance(n.ctx, ast.Store):  # an assignment's target is bound after its value is read
                owner = self.src.enclosing(n, ast.stmt)
                return (owner.end_lineno, owner.end_col_offset)
            return (n.lineno, n.col_offset)

        uses = sorted(
            (
                n
                for n in own_nodes(self.src.function_or_module(stmt))
                if isinstance(n, ast.Name) and n.id == name and n is not stmt.targets[0] and at(n) >= after
            ),
            key=at,
        )
        for use in uses:
            if isinstance(use.ctx, ast.Store):
                return READ if isinstance(self.src.parent(use), ast.AugAssign) else FILL
            if not isinstance(use.ctx, ast.Load):
                return FILL
            found = self.fate(use, depth + 1)
            if found != META:
                return found
        return FILL


#: A tensor's sizes as the expressions it was shaped with (None: unknown) and its possible layouts.
Shape = tuple[list[ast.expr | None], list[list[int]]]
INTERPOLATE = frozenset({f"{FUNC}.interpolate", f"{FUNC}.upsample", "torch.nn.functional.interpolate"})
TRANSPOSING_METHODS = ("transpose", "permute", "t", "swapaxes", "swapdims", "movedim", "moveaxis")
TRANSPOSING = frozenset(f"torch.{m}" for m in TRANSPOSING_METHODS)
#: Calls that return one integer (as a ``view`` argument: one dimension).
INT_CALLS = ("size", "numel", "int", "len", "prod")


def dims_lower_bound(indices: list[ast.expr]) -> int:
    """The fewest dimensions a tensor indexed by these dimension arguments has (at least 2: a transpose
    that moves anything has two)."""
    out = 2
    for node in indices:
        for n in node.elts if isinstance(node, (ast.Tuple, ast.List)) else [node]:
            i = int_value(n)
            if i is not None:
                out = max(out, i + 1 if i >= 0 else -i)
    return out


def view_dims(args: list[ast.expr]) -> int | None:
    """How many dimensions ``view(*args)`` asks for; None when unknown (``*shape``, ``x.size()``, a name
    that may be a dtype)."""
    if any(isinstance(a, ast.Starred) for a in args):
        return None
    if len(args) != 1:
        return len(args)
    arg = args[0]
    if isinstance(arg, (ast.Tuple, ast.List)):
        return None if any(isinstance(e, ast.Starred) for e in arg.elts) else len(arg.elts)
    if isinstance(arg, ast.Constant):
        return 1 if type(arg.value) is int else None
    if isinstance(arg, (ast.UnaryOp, ast.BinOp)):
        return 1
    if isinstance(arg, ast.Subscript) and last_name(arg.value) == "shape":
        return None if isinstance(arg.slice, ast.Slice) else 1
    if isinstance(arg, ast.Call) and last_name(arg.func) in INT_CALLS:
        return None if last_name(arg.func) == "size" and not arg.args else 1
    return None


def permute_view_ok(perm: list[int], groups: list[list[int]]) -> bool:
    """Whether ``x.permute(*perm).view(...)`` works on a contiguous ``x`` whose sizes are all above 1,
    when the view's dimensions are ``groups``: consecutive runs of the permuted dimensions (by position),
    each merged into one. Dimension ``perm[k]`` of ``x`` has stride ``prod(sizes[perm[k] + 1:])``, so two
    neighbours merge exactly when the right one is the next dimension of ``x`` (its stride times its size
    is the left one's stride): every group must read ``d, d + 1, d + 2, ...``."""
    return all(all(perm[g[i + 1]] == perm[g[i]] + 1 for i in range(len(g) - 1)) for g in groups)


def permute_runs(perm: list[int]) -> int:
    """How many maximal ``d, d + 1, ...`` runs the permuted layout has: the fewest dimensions a view of
    it can have (for sizes above 1)."""
    return 1 + sum(perm[k] != perm[k - 1] + 1 for k in range(1, len(perm)))


@rule(
    code="FNC006",
    name="view-after-transpose",
    title="view() right after transpose/permute",
    message="transpose/permute make the tensor non-contiguous, and view then raises 'view size is not "
    "compatible with input tensor's size and stride' unless every group of dimensions it merges (a -1 "
    "merges all the dimensions the other sizes leave) was consecutive and in order before the permute; "
    "where the sizes do not name the dimensions, check which ones each size covers, or use reshape",
    fix="reshape(...) (a view when possible, a copy when needed) or .contiguous().view(...)",
    claim="01-C10",
    autofix="safe",
    demo="notebooks/01_tensors.ipynb",
)
class ViewAfterTranspose(Rule):
    """``x.transpose(...).view(shape)``, ``x.permute(...).view``, ``x.t().view``, ``x.mT.view``, or
    ``y.view`` where ``y`` is only ever bound to such a result, when the view has fewer dimensions than
    the transposed tensor certainly has, so it merges dimensions: ``permute(0, 2, 1)`` has 3,
    ``transpose(1, 2)`` at least 3, ``t()``/``mT`` at least 2. A view that may only split dimensions
    (``x.transpose(1, 2).view(B, C, H, W)`` of a ``(B, H*W, C)`` tensor) works and is left alone, and so
    is one whose length is unknown (``view(*shape)``, ``view(x.size())``, ``view(dtype)``). Where the
    permutation is literal and every view size names the dimensions of the permuted tensor
    (``x.size(1)``, ``x.shape[1]``, ``h`` from ``b, c, h, w = x.size()``, products of them and one
    ``-1``), the merged groups are known and the view is left alone when each group is consecutive and in
    order in ``x`` (``x.permute(0, 2, 3, 1).view(b, h * w, c)`` works; :func:`permute_view_ok`); a view
    with fewer dimensions than the permuted layout has runs always raises. A view size also names a
    dimension when it is the very expression ``x`` was shaped with (a literal, or a name bound once):
    ``x`` last bound to ``y.reshape(1, s, s, dim).permute(0, 3, 1, 2)`` has sizes ``(1, dim, s, s)``,
    and ``F.interpolate`` keeps the first two (and the input's layout: channels_last here, so the view
    is decided on that layout), whatever sizes it is given, also through ``**kwargs`` (dinov2):
    ``x.permute(0, 2, 3, 1).view(1, -1, dim)`` merges only the two spatial dimensions, and works.
    ``--fix`` writes ``reshape``: the same view where ``view`` worked, a copy where it raised."""

    def rank(self, node: ast.AST, follow: bool = True) -> int | None:
        """The fewest dimensions ``node`` has if it is a transposed tensor, else None."""
        if isinstance(node, ast.Attribute) and node.attr in ("T", "mT", "mH", "H"):
            return 2
        if isinstance(node, ast.Call) and not has_star_args(node):
            functional = self.src.calls(node, TRANSPOSING)
            if functional or method_call(node, *TRANSPOSING_METHODS):
                name = last_name(node.func)
                args = node.args[1:] if functional else node.args
                if name == "t":
                    return 2 if not args else None  # (self.t(x) is a layer, not Tensor.t)
                if name == "permute" and args:
                    listed = len(args) == 1 and isinstance(args[0], (ast.Tuple, ast.List))
                    dims = args[0].elts if listed else args
                    return max(len(dims), dims_lower_bound(dims))
                return dims_lower_bound(args) if args else None
        if follow and isinstance(node, ast.Name):
            values = self.src.values(node)
            ranks = [self.rank(v, follow=False) for v in values or []]
            if ranks and None not in ranks:
                return min(ranks)
        return None

    def permute(self, node: ast.AST) -> tuple[ast.expr, list[int]] | None:
        """The tensor permuted and the literal permutation (normalised), when ``node`` is, or is a name
        only ever bound to, ``x.permute(...)`` / ``torch.permute(x, ...)``."""
        if isinstance(node, ast.Name):
            values = self.src.values(node)
            node = values[0] if values and len(values) == 1 else node
        if not isinstance(node, ast.Call) or has_star_args(node) or node.keywords:
            return None
        if self.src.calls(node, {"torch.permute"}) and len(node.args) == 2:
            base, dims = node.args[0], node.args[1:]
        elif method_call(node, "permute") and node.args:
            base, dims = node.func.value, node.args
        else:
            return None
        if len(dims) == 1 and isinstance(dims[0], (ast.Tuple, ast.List)):
            dims = dims[0].elts
        perm = [int_value(d) for d in dims]
        n = len(perm)
        if any(i is None or not -n <= i < n for i in perm):
            return None
        perm = [i % n for i in perm]  # type: ignore[operator]
        return (base, perm) if sorted(perm) == list(range(n)) else None

    def shape_of(self, node: ast.AST, at: ast.AST, depth: int = 0) -> Shape | None:
        """The sizes of the tensor ``node`` as the expressions it was shaped with (None where unknown), and
        its possible memory layouts (``m``: it is ``y.permute(m)`` of a contiguous ``y``), when the file
        decides its rank: ``y.reshape(a, b, c)`` / ``view`` with literal-length sizes (taken as contiguous,
        as the rule takes any tensor not visibly transposed), a literal ``permute`` of a known shape,
        ``contiguous()``, ``F.interpolate(y, ...)`` (the first two sizes of ``y``, the rest new; contiguous
        for a contiguous ``y``, channels_last for a channels_last one, either for another; whatever its
        other arguments, ``**kwargs`` too, since none of them changes these), or a name whose
        last binding before ``at``, in a block around it, is one of these."""
        if depth > 6:
            return None
        if isinstance(node, ast.Name):
            last = bound_before(self.src, node.id, at)
            if last is None or last[1] is None or not in_block_around(self.src, last[0], at):
                return None  # unbound here, or bound in a branch that does not hold ``at``
            return self.shape_of(last[1], last[0], depth + 1)
        if not isinstance(node, ast.Call):
            return None
        if self.src.calls(node, INTERPOLATE) and node.args and not isinstance(node.args[0], ast.Starred):
            # the input's first two sizes and its layout, whatever the sizes asked for (dinov2's
            # ``F.interpolate(y, mode="bicubic", **kwargs)`` with ``size`` or ``scale_factor`` in kwargs)
            inner = self.shape_of(node.args[0], at, depth + 1)
            if inner is None or len(inner[0]) not in (3, 4, 5):
                return None
            n = len(inner[0])
            plain, channels_last = list(range(n)), [0, n - 1, *range(1, n - 1)]
            layouts: list[list[int]] = []
            for m in inner[1]:
                if m == plain or n == 3:
                    out = [plain]
                else:
                    out = [channels_last] if m == channels_last else [plain, channels_last]
                layouts += [o for o in out if o not in layouts]
            return [*inner[0][:2], *[None] * (n - 2)], layouts
        if node.keywords or has_star_args(node):
            return None
        if method_call(node, "reshape", "view"):
            args = node.args
            if len(args) == 1 and isinstance(args[0], (ast.Tuple, ast.List)):
                args = args[0].elts
            if not args or view_dims(node.args) is None:
                return None
            if self.rank(node.func.value) is not None:  # type: ignore[attr-defined]
                return None  # a view of a transposed tensor may keep its strides
            return [None if int_value(a) == -1 else a for a in args], [list(range(len(args)))]
        if method_call(node, "contiguous") and not node.args:
            inner = self.shape_of(node.func.value, at, depth + 1)  # type: ignore[attr-defined]
            return (inner[0], [list(range(len(inner[0])))]) if inner is not None else None
        found = self.permute(node)
        if found is not None:
            inner = self.shape_of(found[0], at, depth + 1)
            perm = found[1]
            if inner is None or len(inner[0]) != len(perm):
                return None
            return [inner[0][p] for p in perm], [[m[p] for p in perm] for m in inner[1]]
        return None

    def same_size(self, a: ast.expr, b: ast.expr) -> bool:
        """``a`` and ``b`` are the same size: equal integer literals, or the same name (or product of
        names and literals), each name bound once."""
        if ast.dump(a) != ast.dump(b):
            return False
        simple = (ast.Name, ast.Constant, ast.BinOp, ast.Mult, ast.Load)
        if not all(isinstance(n, simple) for n in ast.walk(a)):
            return False
        names = [(x, y) for x, y in zip(ast.walk(a), ast.walk(b), strict=True) if isinstance(x, ast.Name)]
        for x, y in names:
            scope = binding_scope(self.src, x)
            if scope is None or scope is not binding_scope(self.src, y):
                return False
            if len(self.src.bindings[scope][x.id]) != 1:
                return False
        return True

    def dim_of(
        self, arg: ast.expr, base: ast.expr, n: int, shape: list[ast.expr | None] | None = None
    ) -> list[int] | None:
        """The dimensions of ``base`` (rank ``n``) whose sizes ``arg`` multiplies; ``[-1]`` for ``-1``;
        None when unknown. ``shape``: ``base``'s sizes as :meth:`shape_of` finds them."""
        if isinstance(arg, ast.BinOp) and isinstance(arg.op, ast.Mult):
            left, right = self.dim_of(arg.left, base, n, shape), self.dim_of(arg.right, base, n, shape)
            return None if left is None or right is None or -1 in left + right else left + right
        if int_value(arg) == -1:
            return [-1]
        if shape is not None:
            same = [i for i, s in enumerate(shape) if s is not None and self.same_size(arg, s)]
            if len(same) == 1:
                return same
        index: ast.expr | None = None
        owner: ast.expr | None = None
        if isinstance(arg, ast.Call) and method_call(arg, "size") and len(arg.args) == 1:
            owner, index = arg.func.value, arg.args[0]
        elif isinstance(arg, ast.Subscript):
            if last_name(arg.value) == "shape" and isinstance(arg.value, ast.Attribute):
                owner, index = arg.value.value, arg.slice
            elif isinstance(arg.value, ast.Call) and method_call(arg.value, "size") and not arg.value.args:
                owner, index = arg.value.func.value, arg.slice
        elif isinstance(arg, ast.Name):
            return self.unpacked_dim(arg, base, n)
        i = int_value(index)
        if owner is None or i is None or not -n <= i < n or ast.dump(owner) != ast.dump(base):
            return None
        return [i % n]

    def unpacked_dim(self, name: ast.Name, base: ast.expr, n: int) -> list[int] | None:
        """``name``'s dimension when it is bound once, by ``a, b, c = base.size()`` / ``base.shape``."""
        bindings = self.src.lookup(name.id, name)
        if not bindings or len(bindings) != 1:
            return None
        for stmt in ast.walk(self.src.function_or_module(name)):
            if not isinstance(stmt, ast.Assign) or len(stmt.targets) != 1:
                continue
            target, value = stmt.targets[0], stmt.value
            if not isinstance(target, (ast.Tuple, ast.List)) or len(target.elts) != n:
                continue
            if isinstance(value, ast.Call) and method_call(value, "size") and not value.args:
                owner = value.func.value
            elif isinstance(value, ast.Attribute) and value.attr == "shape":
                owner = value.value
            else:
                continue
            for i, t in enumerate(target.elts):
                if isinstance(t, ast.Name) and t.id == name.id and ast.dump(owner) == ast.dump(base):
                    return [i]
        return None

    def view_works(self, view: ast.Call) -> bool:
        """The view is decidable and works: a literal permutation of a contiguous tensor, and view sizes
        that name its dimensions (at most one ``-1``), grouped so that :func:`permute_view_ok` holds (for
        a base that may be channels_last, in both layouts)."""
        assert isinstance(view.func, ast.Attribute)
        found = self.permute(view.func.value)
        if found is None:
            return False
        base, perm = found
        if self.rank(base) is not None:
            return False  # x itself transposed: not contiguous, undecidable
        n = len(perm)
        args = view.args
        if len(args) == 1 and isinstance(args[0], (ast.Tuple, ast.List)):
            args = args[0].elts
        if len(args) < permute_runs(perm):
            return False  # a merge across two runs: always raises
        known = self.shape_of(base, view)
        shape, layouts = known if known is not None and len(known[0]) == n else (None, [list(range(n))])
        dims: list[list[int]] = []
        for a in args:
            d = self.dim_of(a, base, n, shape)
            if d is None:
                return False
            dims.append(d)
        wildcards = sum(d == [-1] for d in dims)
        rest = n - sum(len(d) for d in dims if d != [-1])  # the dimensions a -1 stands for
        if wildcards > 1 or (rest < 1 if wildcards else rest != 0):
            return False
        groups: list[list[int]] = []
        pos = 0
        for d in dims:
            group = list(range(pos, pos + (rest if d == [-1] else len(d))))
            if d != [-1] and sorted(d) != sorted(perm[g] for g in group):
                return False
            groups.append(group)
            pos += len(group)
        return all(permute_view_ok([m[p] for p in perm], groups) for m in layouts)  # x = y.permute(m)

    def visit_Call(self, node: ast.Call) -> None:
        if not method_call(node, "view") or not node.args or node.keywords:
            return
        rank = self.rank(node.func.value)
        dims = view_dims(node.args)
        if rank is not None and dims is not None and dims < rank and not self.view_works(node):
            self.report(node, fixable=True)

    @staticmethod
    def fix(node: cst.CSTNode, data: Any) -> cst.CSTNode | None:

        return renamed_method(node, "reshape")


# ============================================================================ 02 · autograd
@rule(
    code="FNC007",
    name="variable",
    title="torch.autograd.Variable / volatile",
    message="Variable is a deprecated no-op that returns a plain Tensor, and volatile=True only warns and "
    "has no effect",
    fix="use tensors directly: requires_grad=True / .requires_grad_(), and torch.no_grad() for inference",
    claim="02-C8",
    demo="notebooks/02_autograd.ipynb",
)
class VariableVolatile(Rule):
    """Any call of ``torch.autograd.Variable`` (with or without ``volatile=``)."""

    def visit_Call(self, node: ast.Call) -> None:
        if self.src.calls(node, {"torch.autograd.Variable", "torch.autograd.variable.Variable"}):
            self.report(node)


NO_GRAD = frozenset({"torch.no_grad", "torch.inference_mode", "torch.autograd.grad_mode.no_grad"})
#: In-place methods that are no update of the values autograd saw: random initialisation, flags.
NOT_UPDATES = (*RANDOM_INIT_METHODS, "requires_grad_", "share_memory_")
#: Attributes of a tensor that read no values a computation could save.
NOT_READS = frozenset(
    {"data", "grad", "shape", "dtype", "device", "requires_grad", "is_leaf", "grad_fn", "size", "dim", "ndim"}
    | {"numel", "data_ptr", "_version", "requires_grad_", "retain_grad", "register_hook", "is_cuda"}
)
#: Calls that, without arguments, build an empty mapping.
EMPTY_DICTS = ("dict", "OrderedDict")
#: Operations whose backward uses their own result (autograd saves the output): ``out = a.sigmoid()`` then
#: ``out.data.zero_()`` changes what the sigmoid's backward reads. Most operations save their inputs, not
#: their result (``gather``, ``mm``, ``*``, a module call of unknown kind), so changing the result is no
#: change to any saved value.
SAVES_RESULT = frozenset(
    {
        "sigmoid",
        "tanh",
        "exp",
        "exp2",
        "expm1",
        "softmax",
        "log_softmax",
        "relu",
        "sqrt",
        "rsqrt",
        "reciprocal",
    }
)
#: Methods that return a view of their receiver (the view's ``.data`` writes the receiver's storage).
VIEW_METHODS = frozenset(
    {
        "view",
        "view_as",
        "reshape",
        "reshape_as",
        "squeeze",
        "unsqueeze",
        "transpose",
        "permute",
        "t",
        "expand",
        "expand_as",
        "narrow",
        "select",
        "flatten",
        "unflatten",
        "movedim",
        "unfold",
        "contiguous",
    }
)


@rule(
    code="FNC008",
    name="data-inplace-update",
    title=".data used to update a tensor in place",
    message="an in-place change through .data is hidden from autograd: here a computation reads the "
    "tensor, then .data changes it, then a backward runs, which uses the changed values and computes a "
    "silently wrong gradient",
    fix="update under torch.no_grad() on the tensor itself (p -= lr * p.grad), or use .detach(), which "
    "makes autograd raise instead",
    claim="02-C15",
    demo="notebooks/02_autograd.ipynb",
)
class DataInplaceUpdate(Rule):
    """``x.data.<op>_(...)``, ``x.data -= ...`` and ``p.data = ... p.grad ...`` (also ``(x.data if c else
    y).<op>_()``) where the claim's wrong gradient can be seen: in the same statement list (the function's
    or loop's body, through the ``if``/``with``/``try`` blocks around the write), a computation reads the
    tensor before the write (``y = x * w``; a call of a module that owns it, ``model(x)`` for
    ``model.weight.data``; ``out = a.sigmoid()`` that makes it), and a ``.backward(...)`` or
    ``torch.autograd.grad(...)`` follows the write (or the function returns its ``loss``, a
    ``training_step``), with no backward between that read and the write (the pending backward of
    02-C15). A read through ``.data``/``.grad``/``.shape`` is none, and only a read of the object the
    write changes counts: after the last statement that rebinds the name (``dist = dist.gather(1,
    a).squeeze(1)`` reads the old ``dist``), or that statement's own result where its operation saves its
    result (``out = a.sigmoid()``; :data:`SAVES_RESULT`, also through a view), not a ``gather``/``mm``/
    module call, which saves its inputs (RL-Adventure's categorical DQN clamps such a result through
    ``.data`` before the ``log`` that reads it: no saved value changes). So a hand-written optimizer or
    sampling step after its backward (``p.data.add_(-lr * p.grad)``, Langevin updates of an input), a mask
    applied in ``forward`` (no backward in sight), and copying weights back are left alone, as are
    initialisation methods (``__init__``, ``_?init*``, ``_?reset*``, ``*init*``), random-initialisation
    calls (``w.data.normal_()``), a gradient (``p.grad.data.zero_()``), code under ``torch.no_grad()`` or
    ``inference_mode()``, a module's tensor set right after the module is built (``m = nn.Linear(2, 2)``
    then ``m.weight.data.copy_(w)``), and a ``.data`` that is the field of a record of the file (a
    ``namedtuple``/``NamedTuple``/``@dataclass`` with a field ``data``)."""

    def in_init(self, node: ast.AST) -> bool:
        fn = self.src.enclosing(node, FUNCTIONS)
        return fn is not None and ("init" in fn.name or fn.name.lstrip("_").startswith("reset"))

    def under_no_grad(self, node: ast.AST) -> bool:
        for a in self.src.ancestors(node):
            if isinstance(a, (ast.With, ast.AsyncWith)) and any(
                self.src.calls(i.context_expr, NO_GRAD) for i in a.items
            ):
                return True
            if isinstance(a, FUNCTIONS) and any(
                self.src.qnames(d.func if isinstance(d, ast.Call) else d) & NO_GRAD for d in a.decorator_list
            ):
                return True
        return False

    def freshly_built(self, node: ast.AST, data: ast.Attribute) -> bool:
        """``data`` is ``<root>.<attr>...data`` and the last statement before ``node`` that binds ``root``
        (in the same block or one enclosing it, not across a loop or a function) builds it:
        ``root = SomeClass(...)``."""
        owner = data.value
        if not isinstance(owner, ast.Attribute):
            return False
        while isinstance(owner, ast.Attribute):
            owner = owner.value
        if not isinstance(owner, ast.Name):
            return False
        stmt = node if isinstance(node, ast.stmt) else self.src.enclosing(node, ast.stmt)
        while stmt is not None:
            block = self.src.parent(stmt)
            body = next(
                (v for _, v in ast.iter_fields(block) if isinstance(v, list) and stmt in v),
                [],
            )
            for before in reversed(body[: body.index(stmt)] if stmt in body else []):
                if isinstance(before, ast.Assign) and any(
                    isinstance(t, ast.Name) and t.id == owner.id for t in before.targets
                ):
                    return self.constructor(before.value)
            if isinstance(block, (ast.For, ast.AsyncFor, ast.While, *FUNCTIONS, ast.ClassDef, ast.Module)):
                return False
            stmt = block if isinstance(block, ast.stmt) else self.src.enclosing(block, ast.stmt)
        return False

    @staticmethod
    def constructor(value: ast.expr) -> bool:
        """``value`` builds an object: a call of a capitalised name (``nn.Linear(2, 2)``), or of a class
        looked up by name (``models.__dict__[arch]()``, ``MODELS[name](cfg)``, ``getattr(models, arch)()``),
        also with a module method that returns the module (``Net().cuda()``)."""
        value = unchained(value)  # type: ignore[assignment]
        if not isinstance(value, ast.Call):
            return False
        func = value.func
        if isinstance(func, ast.Subscript) or (
            isinstance(func, ast.Call) and last_name(func.func) == "getattr"
        ):
            return True
        name = last_name(func)
        return bool(name) and name[:1].isupper()

    def record_classes(self) -> dict[str, bool]:
        """Names of this file's record types by whether they have a field ``data``: ``namedtuple`` /
        ``NamedTuple`` calls assigned to a name, ``NamedTuple`` subclasses and ``@dataclass`` classes."""
        memo = self.src.memo
        if (DataInplaceUpdate, "records") in memo:
            return memo[DataInplaceUpdate, "records"]
        out: dict[str, bool] = {}
        for n in self.src.order:
            if (
                isinstance(n, ast.Assign)
                and len(n.targets) == 1
                and isinstance(n.targets[0], ast.Name)
                and isinstance(n.value, ast.Call)
                and last_name(n.value.func) in ("namedtuple", "NamedTuple")
            ):
                fields = get_arg(n.value, "field_names", 1) or get_arg(n.value, "fields", 1)
                names: list[str] = []
                if isinstance(fields, ast.Constant) and isinstance(fields.value, str):
                    names = fields.value.replace(",", " ").split()
                elif isinstance(fields, (ast.Tuple, ast.List)):
                    for e in fields.elts:
                        e = e.elts[0] if isinstance(e, ast.Tuple) and e.elts else e
                        if isinstance(e, ast.Constant) and isinstance(e.value, str):
                            names.append(e.value)
                out[n.targets[0].id] = out.get(n.targets[0].id, False) or "data" in names
            elif isinstance(n, ast.ClassDef) and (
                dataclass(n) or any(last_name(b) == "NamedTuple" for b in n.bases)
            ):
                out[n.name] = out.get(n.name, False) or any(
                    isinstance(f, ast.AnnAssign) and isinstance(f.target, ast.Name) and f.target.id == "data"
                    for f in n.body
                )
        memo[DataInplaceUpdate, "records"] = out
        return out

    def is_record(self, value: ast.AST | None) -> bool:
        """``value`` builds a record of this file that has a field ``data`` (``Binding(name, t, shape, im,
        ptr)``), or is ``r._replace(...)`` of one."""
        if method_call(value, "_replace"):
            return True
        if not isinstance(value, ast.Call) or not isinstance(value.func, ast.Name):
            return False
        return self.record_classes().get(value.func.id, False)

    def mapping_values(self, name: str) -> list[ast.expr] | None:
        """Every value this file puts into a mapping called ``name`` (``bindings[k] = v``, ``self.bindings =
        {k: v}``, a dict comprehension, ``OrderedDict()``); None when the file fills it some other way
        (``.update``, ``setdefault``, a value of unknown kind)."""
        key = (DataInplaceUpdate, "mapping", name)
        if key in self.src.memo:
            return self.src.memo[key]
        out: list[ast.expr] | None = []
        for n in self.src.order:
            if method_call(n, "update", "setdefault") and last_name(n.func.value) == name:  # type: ignore[union-attr]
                out = None
                break
            if not isinstance(n, (ast.Assign, ast.AnnAssign)) or n.value is None:
                continue
            for t in n.targets if isinstance(n, ast.Assign) else [n.target]:
                v = n.value
                if isinstance(t, ast.Subscript) and last_name(t.value) == name:
                    out.append(v)  # type: ignore[union-attr]
                elif isinstance(t, (ast.Name, ast.Attribute)) and last_name(t) == name:
                    if isinstance(v, ast.Dict):
                        out += v.values  # type: ignore[operator]
                    elif isinstance(v, ast.DictComp):
                        out.append(v.value)  # type: ignore[union-attr]
                    elif not (isinstance(v, ast.Call) and last_name(v.func) in EMPTY_DICTS and not v.args):
                        out = None
                        break
            if out is None:
                break
        self.src.memo[key] = out
        return out

    def not_a_tensor(self, owner: ast.AST) -> bool:
        """``owner`` (of ``owner.data``) is certainly a record of this file whose field ``data`` is meant, not
        ``Tensor.data``: every value of the name (or ``self.<attr>``) builds one, or it is an item of a
        mapping that the file fills only with them (``self.bindings[name].data`` where ``bindings[name] =
        Binding(...)``)."""
        if not self.record_classes() or not any(self.record_classes().values()):
            return False
        if isinstance(owner, ast.Subscript):
            name = last_name(owner.value)
            values = self.mapping_values(name) if name else None
            return bool(values) and all(self.is_record(v) for v in values or [])
        if isinstance(owner, ast.Name) or is_self_attr(owner):
            values = self.src.values(owner)
            return bool(values) and all(self.is_record(v) for v in values or [])
        return False

    @staticmethod
    def backward_call(n: ast.AST) -> bool:
        """``<x>.backward(...)`` or ``torch.autograd.grad(...)`` / ``autograd.grad(...)``."""
        if not isinstance(n, ast.Call):
            return False
        name = last_name(n.func)
        return name == "backward" or (name == "grad" and "autograd" in (dotted(n.func) or ""))

    @staticmethod
    def returns_loss(n: ast.AST) -> bool:
        """``return loss`` (a ``training_step`` hands its loss to a trainer that runs the backward)."""
        return (
            isinstance(n, ast.Return)
            and n.value is not None
            and any(
                isinstance(r, ast.Name) and r.id == "loss" or is_const(r, "loss") for r in ast.walk(n.value)
            )
        )

    def region(self, stmt: ast.stmt) -> list[ast.stmt]:
        """The statement list around ``stmt``: climbing through ``if``/``with``/``try`` blocks up to the body
        of the nearest loop, function or module."""
        while True:
            block = self.src.parent(stmt)
            if block is None or isinstance(block, (ast.For, ast.AsyncFor, ast.While, *FUNCTIONS, ast.Module)):
                for _, value in ast.iter_fields(block) if block is not None else []:
                    if isinstance(value, list) and any(v is stmt for v in value):
                        return value
                return [stmt]
            if isinstance(block, ast.ClassDef):
                return [stmt]
            stmt = block if isinstance(block, ast.stmt) else self.src.enclosing(block, ast.stmt)
            if stmt is None:
                return []

    @staticmethod
    def chain(node: ast.AST) -> list[str]:
        """The dotted prefixes of ``model.fc.weight``: ``model``, ``model.fc``, ``model.fc.weight``
        (subscripts kept as written: ``slots['w']``)."""
        parts = []
        while isinstance(node, (ast.Attribute, ast.Subscript)):
            parts.append(node)
            node = node.value
        if not isinstance(node, ast.Name):
            return []
        parts.append(node)
        return [ast.unparse(p) for p in reversed(parts)]

    @staticmethod
    def saves_result(value: ast.AST | None) -> bool:
        """``value`` is the result of an operation whose backward reads that result (:data:`SAVES_RESULT`:
        ``a.sigmoid()``, ``torch.exp(x)``, ``F.softmax(x, 1)``), also through views of it
        (``a.sigmoid().view(-1)``, ``torch.tanh(x)[0]``)."""
        while True:
            if isinstance(value, ast.Subscript):
                value = value.value
            elif method_call(value, *VIEW_METHODS):
                value = value.func.value  # type: ignore[union-attr]
            else:
                break
        return isinstance(value, ast.Call) and last_name(value.func) in SAVES_RESULT

    def read_at(self, n: ast.AST, tensor: str, owners: set[str]) -> bool:
        """``n`` (a name, attribute or subscript) reads the tensor for a computation: the tensor itself, not
        through ``.data``/``.grad``/``.shape``..., or assigned the result of an operation that saves its
        result (:meth:`saves_result`); or a call of a module that owns it (``model(x)`` for
        ``model.weight``)."""
        text = ast.unparse(n)
        parent = self.src.parent(n)
        if text == tensor:
            if isinstance(parent, ast.Attribute) and parent.value is n:
                return parent.attr not in NOT_READS
            if isinstance(getattr(n, "ctx", None), ast.Store):
                value = getattr(parent, "value", None)
                if isinstance(parent, ast.AugAssign):
                    return isinstance(value, (ast.Call, ast.BinOp, ast.UnaryOp, ast.Subscript))
                return self.saves_result(value)
            return True
        return text in owners and isinstance(parent, ast.Call) and parent.func is n

    def rebinds(self, n: ast.AST, tensor: str, root: str) -> tuple[tuple[int, int], tuple[int, int]] | None:
        """Where the binding starts and ends, if ``n`` is a target that binds the tensor's name anew
        (``dist = dist.gather(...)``, ``for x in ...``, ``model = Net()`` for ``model.weight``): a new object
        from then on. ``x += y`` is none (the same tensor, changed in place). The end of an assignment is the
        statement's; of a loop or ``with``, its header's."""
        if not isinstance(getattr(n, "ctx", None), ast.Store):
            return None
        if not (ast.unparse(n) == tensor or (isinstance(n, ast.Name) and n.id == root)):
            return None
        stmt = self.src.enclosing(n, ast.stmt)
        if stmt is None or isinstance(stmt, ast.AugAssign):
            return None
        header: ast.AST = n
        if isinstance(stmt, (ast.Assign, ast.AnnAssign)):
            header = stmt
        elif isinstance(stmt, (ast.For, ast.AsyncFor)):
            header = stmt.iter
        elif isinstance(stmt, (ast.With, ast.AsyncWith)):
            header = stmt.items[-1].context_expr
        return (stmt.lineno, stmt.col_offset), (header.end_lineno or 0, header.end_col_offset or 0)

    def pending_backward(self, node: ast.AST, data: ast.Attribute) -> bool:
        """A computation read the tensor before ``node`` and its backward follows (see the docstring)."""
        names = self.chain(data.value)
        stmt = node if isinstance(node, ast.stmt) else self.src.enclosing(node, ast.stmt)
        if not names or stmt is None:
            return False
        tensor, owners = names[-1], set(names[:-1]) - {"self"}
        root = names[0].split("[", 1)[0]
        at = (node.lineno, node.col_offset)
        last_backward = None
        later = False
        reads: list[tuple[tuple[int, int], bool]] = []  # (position, a store: the binding's own result)
        bound = None  # (start, end) of the last binding before the write that binds the name anew
        for top in self.region(stmt):
            todo = [top]
            while todo:
                n = todo.pop()
                if isinstance(n, (*FUNCTIONS, ast.ClassDef, ast.Lambda)):
                    continue
                todo.extend(ast.iter_child_nodes(n))
                if self.backward_call(n) or self.returns_loss(n):
                    end = (n.end_lineno, n.end_col_offset)
                    if end > at:
                        later = later or (n.lineno, n.col_offset) >= at
                    elif last_backward is None or end > last_backward:
                        last_backward = end
                elif isinstance(n, ast.Name) and n.id == root and (n.lineno, n.col_offset) < at:
                    level: ast.AST = n
                    while True:
                        binding = self.rebinds(level, tensor, root)
                        if binding is not None and (bound is None or binding > bound):
                            bound = binding
                        if self.read_at(level, tensor, owners):
                            store = isinstance(getattr(level, "ctx", None), ast.Store)
                            reads.append(((level.lineno, level.col_offset), store))
                            break
                        up = self.src.parent(level)
                        if not (isinstance(up, (ast.Attribute, ast.Subscript)) and up.value is level):
                            break
                        level = up
        # only reads of the object the write changes count: after the last statement that rebinds the name
        # (``dist = dist.gather(1, a)`` reads the old ``dist``), or that statement's own saved result
        if bound is not None:
            start, end = bound
            reads = [(pos, store) for pos, store in reads if pos > end or (store and pos >= start)]
        last_read = max((pos for pos, _ in reads), default=None)
        if not later or last_read is None:
            return False
        return last_backward is None or last_read > last_backward

    def exempt(self, node: ast.AST, data: ast.Attribute) -> bool:
        return (
            self.not_a_tensor(data.value)
            or self.in_init(node)
            or self.under_no_grad(node)
            or self.freshly_built(node, data)
            or not self.pending_backward(node, data)
        )

    @staticmethod
    def is_data(node: ast.AST) -> bool:
        """``x.data``, not ``p.grad.data`` (a gradient is no tensor autograd saved)."""
        return isinstance(node, ast.Attribute) and node.attr == "data" and last_name(node.value) != "grad"

    def visit_Call(self, node: ast.Call) -> None:
        if not isinstance(node.func, ast.Attribute):
            return
        receiver = node.func.value
        if isinstance(receiver, ast.IfExp):  # (out.data if use_data else out.detach()).zero_()
            receiver = next((r for r in (receiver.body, receiver.orelse) if self.is_data(r)), receiver)
        if self.is_data(receiver):
            method = node.func.attr
            if method.endswith("_") and not method.startswith("_") and method not in NOT_UPDATES:
                if not self.exempt(node, receiver):  # type: ignore[arg-type]
                    self.report(node)

    def visit_AugAssign(self, node: ast.AugAssign) -> None:
        if self.is_data(node.target) and not self.exempt(node, node.target):  # type: ignore[arg-type]
            self.report(node)

    def visit_Assign(self, node: ast.Assign) -> None:
        data = next((t for t in node.targets if self.is_data(t)), None)
        if data is not None and any(
            isinstance(n, ast.Attribute) and n.attr == "grad" for n in ast.walk(node.value)
        ):
            if not self.exempt(node, data):  # type: ignore[arg-type]
                self.report(node)


CONVERSIONS = CONVERSIONS_KEEPING


OPTIMIZER_CLASS = re.compile(
    r"(SGD|Adam\w*|AdamW|NAdam|RAdam|Adagrad|Adadelta|Adamax|ASGD|LBFGS|RMSprop|Rprop|SparseAdam|Lion|LARS|LAMB"
    r"|\w*Optimizer)$"
)


@rule(
    code="FNC009",
    name="non-leaf-after-requires-grad",
    title="tensor converted after requires_grad=True",
    message="the conversion (.double(), .cuda(), .to(...)) returns a non-leaf copy: its .grad stays None "
    "and an optimizer refuses it ('can't optimize a non-leaf Tensor')",
    fix="create it with dtype=/device= and requires_grad=True in one call, or convert first and call "
    ".requires_grad_() last",
    claim="02-C17",
    demo="notebooks/02_autograd.ipynb",
)
class NonLeafAfterRequiresGrad(Rule):
    """``torch.<factory>(..., requires_grad=True).<conversion>(...)`` where the non-leaf matters: the
    converted tensor's ``.grad`` is read (``w.grad``, the name it is assigned to, ``self.w`` too), or it
    goes to an optimizer, directly, in a list or dict or param group (``SGD([w], ...)``,
    ``Adam([{"params": [w]}])``, ``params = [w, b]`` then ``SGD(params)``), or to ``.add_param_group``.
    A converted tensor that is only computed with (a unit test comparing outputs, the gradient argument of
    ``backward``) is left alone: there ``requires_grad=True`` is merely redundant."""

    def optimizer_call(self, node: ast.AST) -> bool:
        if not isinstance(node, ast.Call):
            return False
        if method_call(node, "add_param_group"):
            return True
        names = self.src.callee(node)
        if any(n.startswith("torch.optim.") and "lr_scheduler" not in n for n in names):
            return True
        return bool(OPTIMIZER_CLASS.match(last_name(node.func) or ""))

    def target(self, node: ast.Call) -> str | None:
        """The name or ``self.<attr>`` the converted tensor is assigned to (through further conversions)."""
        top: ast.AST = node
        while True:
            up = self.src.parent(top)
            if isinstance(up, ast.Attribute) and method_call(
                self.src.parent(up), *CONVERSIONS, "requires_grad_"
            ):
                top = self.src.parent(up)  # type: ignore[assignment]
                continue
            break
        up = self.src.parent(top)
        if isinstance(up, (ast.Assign, ast.AnnAssign)) and up.value is top:
            targets = up.targets if isinstance(up, ast.Assign) else [up.target]
            if len(targets) == 1 and (isinstance(targets[0], ast.Name) or is_self_attr(targets[0])):
                return dotted(targets[0])
        return None

    def matters(self, node: ast.Call) -> bool:
        for a in self.src.ancestors(node):  # SGD([torch.randn(3, requires_grad=True).cuda()])
            if self.optimizer_call(a):
                return True
            if isinstance(a, ast.stmt):
                break
        name = self.target(node)
        if name is None:
            return False
        scope = self.src.method_class(node) if "." in name else self.src.function_or_module(node)
        if scope is None:
            return False
        names = {name}
        for n in ast.walk(scope):  # params = [w, b]; a dict or group holding it
            if (
                isinstance(n, ast.Assign)
                and len(n.targets) == 1
                and isinstance(n.value, (ast.List, ast.Tuple, ast.Dict))
            ):
                if any(dotted(e) == name for e in ast.walk(n.value)):
                    target = dotted(n.targets[0])
                    if target:
                        names.add(target)
        for n in ast.walk(scope):
            if isinstance(n, ast.Attribute) and n.attr == "grad" and dotted(n.value) == name:
                return True
            if self.optimizer_call(n):
                args = [*n.args, *(k.value for k in n.keywords)]  # type: ignore[attr-defined]
                if any(dotted(e) in names for arg in args for e in ast.walk(arg)):
                    return True
        return False

    def visit_Call(self, node: ast.Call) -> None:
        if not method_call(node, *CONVERSIONS):
            return
        made = node.func.value  # type: ignore[attr-defined]
        if isinstance(made, ast.Call) and is_const(get_arg(made, "requires_grad"), True):
            if any(n.startswith("torch.") for n in self.src.callee(made)) and self.matters(node):
                self.report(node)


# ============================================================================ 04 · modules and hooks
@rule(
    code="FNC010",
    name="register-backward-hook",
    title="Module.register_backward_hook is deprecated",
    message="register_backward_hook is deprecated and can report the wrong tensors as grad_input (those "
    "of the module's last operation)",
    fix="module.register_full_backward_hook(hook)",
    claim="04-C3",
    demo="notebooks/04_modules_hooks.ipynb",
)
class RegisterBackwardHook(Rule):
    """``<module>.register_backward_hook(...)`` and the global ``register_module_backward_hook``."""

    def visit_Call(self, node: ast.Call) -> None:
        if method_call(node, "register_backward_hook") or self.src.calls(
            node, {"torch.nn.modules.module.register_module_backward_hook"}
        ):
            self.report(node)


FAN_INITS = ("xavier_uniform", "xavier_normal", "kaiming_uniform", "kaiming_normal", "orthogonal", "sparse")
SHAPED_INITS = frozenset(f"torch.nn.init.{n}{u}" for n in (*FAN_INITS, "dirac", "eye") for u in ("", "_"))


@rule(
    code="FNC011",
    name="init-every-parameter",
    title="fan-based init applied to every parameter, 1-D biases included",
    message="xavier_/kaiming_/orthogonal_ init need a tensor with at least 2 dimensions and raise 'Fan in "
    "and fan out can not be computed' on a bias",
    fix="model.apply(fn) with an isinstance check (init m.weight, zero m.bias), or skip p.dim() < 2",
    claim="04-C14",
    demo="notebooks/04_modules_hooks.ipynb",
)
class InitEveryParameter(Rule):
    """``for p in model.parameters(): nn.init.xavier_uniform_(p)`` (or ``named_parameters()``, or the
    same comprehension) when nothing in the loop filters the parameters (no ``if``, no ``continue``)."""

    @staticmethod
    def binds(target: ast.AST, name: str) -> bool:
        return any(isinstance(n, ast.Name) and n.id == name for n in ast.walk(target))

    def visit_Call(self, node: ast.Call) -> None:
        args = positional(node)
        if not args or not isinstance(args[0], ast.Name) or not self.src.calls(node, SHAPED_INITS):
            return
        name = args[0].id
        for a in self.src.ancestors(node):
            if isinstance(a, (ast.If, ast.IfExp, ast.Try, ast.While)):
                return
            if isinstance(a, ast.For) and self.binds(a.target, name):
                filtered = any(isinstance(n, (ast.If, ast.Continue, ast.IfExp)) for n in ast.walk(a))
                if method_call(a.iter, "parameters", "named_parameters") and not filtered:
                    self.report(node)
                return
            if isinstance(a, (ast.ListComp, ast.GeneratorExp, ast.SetComp)):
                comp = a.generators[0]
                if self.binds(comp.target, name):
                    if method_call(comp.iter, "parameters", "named_parameters") and not comp.ifs:
                        self.report(node)
                    return


DEPRECATED_INITS = (*FAN_INITS, "uniform", "normal", "constant", "dirac", "eye")


@rule(
    code="FNC012",
    name="init-without-underscore",
    title="deprecated nn.init function without the trailing underscore",
    message="nn.init.xavier_uniform (no underscore) and its siblings are deprecated aliases and warn",
    fix="the in-place spelling: nn.init.xavier_uniform_(w)",
    claim="04-C14",
    autofix="safe",
    demo="notebooks/04_modules_hooks.ipynb",
)
class InitWithoutUnderscore(Rule):
    """``--fix`` renames the call to the underscore function, which the alias calls anyway."""

    def visit_Call(self, node: ast.Call) -> None:
        for name in self.src.callee(node):
            module, _, old = name.rpartition(".")
            if module == "torch.nn.init" and old in DEPRECATED_INITS:
                self.report(node, fixable=True, data=f"{old}_")
                return

    @staticmethod
    def fix(node: cst.CSTNode, data: Any) -> Any:
        import libcst as cst

        if isinstance(node, cst.Call) and isinstance(node.func, cst.Attribute):
            return renamed_method(node, data)
        if isinstance(node, cst.Call) and isinstance(node.func, cst.Name):
            from libcst.codemod.visitors import ImportItem

            return node.with_changes(func=cst.Name(data)), [ImportItem("torch.nn.init", data)]
        return None


MODULE_BASES = frozenset({"torch.nn.Module", "torch.nn.modules.module.Module"})
#: The containers that register the modules (or parameters) they are given.
CONTAINERS = frozenset(
    f"torch.nn.{c}" for c in ("Sequential", "ModuleList", "ModuleDict", "ParameterList", "ParameterDict")
)


@rule(
    code="FNC013",
    name="layers-in-plain-list",
    title="layers kept in a plain Python list or dict on a Module",
    message="layers in a plain list are not registered: no parameters for the optimizer, not in "
    "state_dict, not moved by .to()",
    fix="nn.ModuleList([...]) (nn.ModuleDict for a dict, nn.ParameterList for parameters)",
    claim="04-C11",
    demo="notebooks/16_error_gallery.ipynb",
)
class LayersInPlainList(Rule):
    """``self.x = [nn.Linear(...), ...]`` (a list, tuple or dict literal, or a list comprehension, of
    ``torch.nn`` module or ``nn.Parameter`` constructions) inside an ``nn.Module`` subclass, unless the same
    method wraps it afterwards (``self.net = nn.Sequential(*self.net)``, see :meth:`wrapped_later`)."""

    def is_layer(self, node: ast.AST) -> bool:
        for name in self.src.callee(node):
            parts = name.split(".")
            if name.startswith("torch.nn.") and parts[-1][:1].isupper() and "functional" not in parts:
                return True
        return False

    def visit_Assign(self, node: ast.Assign) -> None:
        if not any(is_self_attr(t) for t in node.targets):
            return
        value = node.value
        if isinstance(value, (ast.List, ast.Tuple, ast.Set)):
            items = value.elts
        elif isinstance(value, ast.Dict):
            items = value.values
        elif isinstance(value, (ast.ListComp, ast.SetComp)):
            items = [value.elt]
        elif isinstance(value, ast.DictComp):
            items = [value.value]
        else:
            return
        if not any(self.is_layer(i) for i in items):
            return
        cls = self.src.method_class(node)
        if cls is not None and any(self.src.qnames(b) & MODULE_BASES for b in cls.bases):
            if not self.wrapped_later(node):
                self.report(value)

    def wrapped_later(self, node: ast.Assign) -> bool:
        """The list is wrapped before the method ends: a later ``nn.Sequential(*self.net)``,
        ``nn.ModuleList(layers)`` (``self.net = layers = [...]``), ``nn.ModuleDict(...)`` of it, or
        ``add_module``/``register_module`` in a loop over it, so the layers end up registered."""
        fn = self.src.enclosing(node, FUNCTIONS)
        names = {dotted(t) for t in node.targets} - {None}
        if fn is None or not names:
            return False
        after = (node.end_lineno, node.end_col_offset)
        for n in own_nodes(fn):
            if not isinstance(n, (ast.Call, ast.For)) or (n.lineno, n.col_offset) < after:
                continue
            if isinstance(n, ast.For):
                if any(dotted(e) in names for e in ast.walk(n.iter)) and any(
                    method_call(c, "add_module", "register_module", "register_parameter") for c in ast.walk(n)
                ):
                    return True
            elif self.src.calls(n, CONTAINERS):
                args = [*n.args, *(k.value for k in n.keywords)]
                if any(dotted(e) in names for a in args for e in ast.walk(a)):
                    return True
        return False


@rule(
    code="FNC014",
    name="state-dict-snapshot",
    title="'best' state_dict kept without a copy",
    message="state_dict() returns references to the live tensors, so a 'best' snapshot keeps changing "
    "with training",
    fix="copy.deepcopy(model.state_dict()) (or {k: v.detach().clone() for k, v in ...})",
    claim="04-C10",
    demo="notebooks/04_modules_hooks.ipynb",
)
class StateDictSnapshot(Rule):
    """``best... = model.state_dict()`` (a target whose name says best or snapshot)."""

    NAME = re.compile(r"best|snapshot", re.I)

    def visit_Assign(self, node: ast.Assign) -> None:
        value = node.value
        if len(node.targets) == 1 and method_call(value, "state_dict") and not value.args:
            name = last_name(node.targets[0])
            if name and self.NAME.search(name):
                self.report(value)


# ============================================================================ 05 · dropout
DROPOUTS = frozenset(f"{FUNC}.{n}" for n in ("dropout", "dropout1d", "dropout2d", "dropout3d"))


@rule(
    code="FNC015",
    name="functional-dropout-in-forward",
    title="F.dropout in forward() without training=self.training",
    message="F.dropout ignores model.eval(): its training argument defaults to True, so it keeps dropping "
    "units at evaluation",
    fix="F.dropout(x, p, training=self.training), or an nn.Dropout module",
    claim="05-C8",
    demo="notebooks/05_dropout.ipynb",
)
class FunctionalDropoutInForward(Rule):
    """``F.dropout``/``dropout1d``/``2d``/``3d`` inside a ``forward`` method without ``training``
    (by name or third positional). ``F.alpha_dropout`` defaults to ``training=False`` and is left alone.
    So is a call that runs only in training: under ``if self.training:`` (also ``if self.training and
    p > 0:``, the ``else`` of ``if not self.training``, ``F.dropout(x) if self.training else x``) or after
    ``if not self.training: return ...``: there the default ``training=True`` is ``self.training``."""

    TRAINING = ast.dump(ast.parse("self.training", mode="eval").body)

    def training_holds(self, test: ast.expr, holds: bool) -> bool:
        """``test`` having the outcome ``holds`` implies ``self.training``."""
        while isinstance(test, ast.UnaryOp) and isinstance(test.op, ast.Not):
            test, holds = test.operand, not holds
        if ast.dump(test) == self.TRAINING:
            return holds
        if isinstance(test, ast.BoolOp):
            if isinstance(test.op, ast.And) and holds:
                return any(self.training_holds(v, True) for v in test.values)
            if isinstance(test.op, ast.Or) and not holds:
                return any(self.training_holds(v, False) for v in test.values)
        return False

    def only_in_training(self, node: ast.AST) -> bool:
        child = node
        for a in self.src.ancestors(node):
            if isinstance(a, (ast.If, ast.IfExp)) and child is not a.test:
                body = child in a.body if isinstance(a.body, list) else child is a.body
                if self.training_holds(a.test, body):
                    return True
            block = next((v for _, v in ast.iter_fields(a) if isinstance(v, list) and child in v), None)
            for before in block[: block.index(child)] if block else []:  # if not self.training: return x
                if (
                    isinstance(before, ast.If)
                    and before.body
                    and isinstance(before.body[-1], (ast.Return, ast.Raise))
                    and self.training_holds(before.test, False)
                ):
                    return True
            if isinstance(a, FUNCTIONS):
                break
            child = a
        return False

    def visit_Call(self, node: ast.Call) -> None:
        if not self.src.calls(node, DROPOUTS) or has_star_args(node) or get_arg(node, "training", 2):
            return
        fn = self.src.enclosing(node, FUNCTIONS)
        if fn is not None and fn.name == "forward" and not self.only_in_training(node):
            self.report(node)


# ============================================================================ 07 · affine_grid
@rule(
    code="FNC016",
    name="grid-align-corners",
    title="affine_grid / grid_sample without align_corners (or with align_corners=None)",
    message="without align_corners (or with align_corners=None), affine_grid and grid_sample warn on every "
    "call and use align_corners=False, which must match how theta was built",
    fix="pass align_corners=True or False explicitly (False is what the call does now)",
    claim="07-C1",
    autofix="safe",
    demo="notebooks/07_affine_grid_opencv.ipynb",
)
class GridAlignCorners(Rule):
    """No ``align_corners``, or a literal ``align_corners=None`` (by keyword or position), which warns the
    same. ``--fix`` adds ``align_corners=False`` (or puts ``False`` in place of the ``None``): the behaviour
    the call has today, without the warning."""

    POSITION = {f"{FUNC}.affine_grid": 2, f"{FUNC}.grid_sample": 4}

    def visit_Call(self, node: ast.Call) -> None:
        names = self.src.callee(node) & self.POSITION.keys()
        if names and not has_star_args(node):
            value = get_arg(node, "align_corners", self.POSITION[names.pop()])
            if value is None:
                self.report(node, fixable=True)
            elif is_const(value, None):
                self.report(node, fixable=True, data=node.args.index(value) if value in node.args else -1)

    @staticmethod
    def fix(node: cst.CSTNode, data: Any) -> cst.CSTNode | None:
        """``data``: None, no align_corners (add it); the position of a ``None`` passed positionally; -1, a
        keyword ``align_corners=None``."""
        import libcst as cst

        if not isinstance(node, cst.Call):
            return None
        if data is None:
            return node.with_changes(args=[*node.args, keyword_arg("align_corners=False")])
        args = list(node.args)
        for i, arg in enumerate(args):
            keyword = arg.keyword.value if arg.keyword is not None else None
            if (keyword == "align_corners") if data == -1 else (i == data and keyword is None):
                if not (isinstance(arg.value, cst.Name) and arg.value.value == "None"):
                    return None
                args[i] = arg.with_changes(value=cst.Name("False"))
                return node.with_changes(args=args)
        return None


# ============================================================================ 08 · losses
@rule(
    code="FNC017",
    name="log-of-softmax",
    title="log(softmax(x)) instead of log_softmax(x)",
    message="log(softmax(x)) is -inf (with NaN gradients) once two logits differ by more than about 87-104 "
    "in float32",
    fix="log_softmax(x, dim) (F.log_softmax, torch.log_softmax, x.log_softmax)",
    claim="08-C2",
    autofix="unsafe",
    unsafe_because="log_softmax returns finite values and gradients where log(softmax) gave -inf and NaN, "
    "so results change wherever that happened (code may also test for the -inf); and x.softmax(d).log() "
    "is rewritten on any receiver with a softmax method, not only a tensor",
    demo="notebooks/08_losses.ipynb",
)
class LogOfSoftmax(TensorRule):
    """``torch.log(softmax(x))``, ``softmax(x).log()``, also with an index between
    (``torch.log(softmax(x)[i])``). ``--fix --unsafe-fixes`` renames ``softmax`` to ``log_softmax`` (same
    arguments): the same values where the naive form was finite, others where it was not (hence unsafe).
    (``log(softmax(x) + eps)`` is not flagged.)"""

    def visit_Call(self, node: ast.Call) -> None:
        if self.src.calls(node, {"torch.log"}) and len(node.args) == 1 and not node.keywords:
            inner = node.args[0]
        elif method_call(node, "log") and not node.args and not node.keywords:
            inner = node.func.value
        else:
            return
        softmax = inner.value if isinstance(inner, ast.Subscript) else inner
        if self.is_softmax(softmax):
            fixable = isinstance(softmax.func, ast.Attribute) and softmax.func.attr == "softmax"
            self.report(node, fixable=fixable)

    @staticmethod
    def fix(node: cst.CSTNode, data: Any) -> cst.CSTNode | None:
        import libcst as cst

        if not isinstance(node, cst.Call):
            return None
        if isinstance(node.func, cst.Attribute) and node.func.attr.value == "log" and not node.args:
            inner = node.func.value  # softmax(x).log()
        elif len(node.args) == 1:
            inner = node.args[0].value  # torch.log(softmax(x))
        else:
            return None
        index = inner if isinstance(inner, cst.Subscript) else None
        log_softmax = renamed_method(index.value if index is not None else inner, "log_softmax")
        if log_softmax is None:
            return None
        return unwrapped(node, index.with_changes(value=log_softmax) if index is not None else log_softmax)


BCE = (frozenset({f"{FUNC}.binary_cross_entropy"}), nn_classes("BCELoss"))
BCE_LOGITS = (frozenset({f"{FUNC}.binary_cross_entropy_with_logits"}), nn_classes("BCEWithLogitsLoss"))


@rule(
    code="FNC018",
    name="bce-on-sigmoid",
    title="BCELoss on a sigmoid output",
    message="float32 sigmoid is exactly 1 from a logit of about 17, where BCELoss returns its clamp 100 "
    "with a zero gradient",
    fix="BCEWithLogitsLoss / F.binary_cross_entropy_with_logits on the logits",
    claim="08-C10",
    autofix="unsafe",
    unsafe_because="the with-logits loss is the same function of z only where the sigmoid did not "
    "saturate: where BCELoss returned its clamp 100 with a zero gradient, it returns the true (larger) loss "
    "and a gradient, so training changes",
    demo="notebooks/08_losses.ipynb",
)
class BceOnSigmoid(TensorRule):
    """``nn.BCELoss()(torch.sigmoid(z), t)``, ``F.binary_cross_entropy(z.sigmoid(), t)``, or a criterion
    built from ``nn.BCELoss`` called on a sigmoid. ``--fix --unsafe-fixes`` (where the loss and the sigmoid
    are written in the call itself, as ``F.binary_cross_entropy``/``nn.BCELoss(...)`` attributes) drops the
    sigmoid and switches to the with-logits loss: the same function of z, computed stably, so other values
    where the sigmoid saturated (hence unsafe). Comments in the sigmoid's parentheses are kept."""

    def visit_Call(self, node: ast.Call) -> None:
        if not self.loss_call(node, *BCE):
            return
        value = self.loss_input(node)
        if value is None or not self.is_sigmoid(value):
            return
        func = node.func
        spelled = (isinstance(func, ast.Attribute) and self.src.calls(node, BCE[0])) or (
            isinstance(func, ast.Call) and isinstance(func.func, ast.Attribute)
        )
        first = positional(node)[:1] == [value]
        self.report(node, fixable=spelled and first and self.plain_sigmoid(value))

    @staticmethod
    def fix(node: cst.CSTNode, data: Any) -> cst.CSTNode | None:
        import libcst as cst

        if not isinstance(node, cst.Call) or not node.args:
            return None
        sig = node.args[0].value
        if not isinstance(sig, cst.Call):
            return None
        if isinstance(sig.func, cst.Attribute) and sig.func.attr.value == "sigmoid" and not sig.args:
            z = unwrapped(sig, sig.func.value)
        elif len(sig.args) == 1:
            z = unwrapped(sig, sig.args[0].value)
        else:
            return None
        if z is None:
            return None
        func = node.func
        if isinstance(func, cst.Attribute):
            new_func = func.with_changes(attr=cst.Name("binary_cross_entropy_with_logits"))
        elif isinstance(func, cst.Call) and isinstance(func.func, cst.Attribute):
            new_func = func.with_changes(func=func.func.with_changes(attr=cst.Name("BCEWithLogitsLoss")))
        else:
            return None
        return node.with_changes(func=new_func, args=[node.args[0].with_changes(value=z), *node.args[1:]])


@rule(
    code="FNC019",
    name="sigmoid-before-bce-with-logits",
    title="sigmoid applied before BCEWithLogitsLoss",
    message="BCEWithLogitsLoss applies the sigmoid itself; on sigmoid outputs it computes a different, "
    "wrong loss without any error",
    fix="pass the logits themselves",
    claim="08-C17",
    demo="notebooks/08_losses.ipynb",
)
class SigmoidBeforeBceWithLogits(TensorRule):
    """``BCEWithLogitsLoss``/``binary_cross_entropy_with_logits`` whose input is a sigmoid output."""

    def visit_Call(self, node: ast.Call) -> None:
        if self.loss_call(node, *BCE_LOGITS) and self.is_sigmoid(self.loss_input(node)):
            self.report(node)


CE = (
    frozenset({f"{FUNC}.cross_entropy", f"{FUNC}.nll_loss"}),
    nn_classes("CrossEntropyLoss", "NLLLoss"),
)


@rule(
    code="FNC020",
    name="cross-entropy-on-softmax",
    title="CrossEntropyLoss (or NLLLoss) on softmax outputs",
    message="CrossEntropyLoss applies log_softmax itself (NLLLoss expects log-probabilities): on "
    "probabilities the loss is wrong, cannot fall below log(1 + (C-1)/e), and its gradients are small",
    fix="pass the logits to CrossEntropyLoss (log_softmax outputs to NLLLoss)",
    claim="08-C11",
    demo="notebooks/08_losses.ipynb",
)
class CrossEntropyOnSoftmax(TensorRule):
    """``cross_entropy``/``CrossEntropyLoss``/``nll_loss``/``NLLLoss`` whose input is a softmax output (soft
    targets that are softmax outputs are fine)."""

    def visit_Call(self, node: ast.Call) -> None:
        if self.loss_call(node, *CE) and self.is_softmax(self.loss_input(node)):
            self.report(node)


@rule(
    code="FNC021",
    name="kl-div-mean",
    title="KLDivLoss / kl_div with reduction='mean' (the default)",
    message="reduction='mean' also divides by the number of classes, so it is not the KL divergence "
    "(and warns)",
    fix="reduction='batchmean'",
    claim="08-C13",
    demo="notebooks/08_losses.ipynb",
)
class KlDivMean(Rule):
    """``nn.KLDivLoss()`` / ``F.kl_div(...)`` without ``reduction`` or with ``reduction="mean"`` (calls
    that use the legacy ``size_average``/``reduce`` are left alone)."""

    #: Positional arguments before the legacy ``size_average``: more means a legacy call.
    POSITIONAL = {f"{FUNC}.kl_div": 2, **{n: 0 for n in nn_classes("KLDivLoss")}}

    def visit_Call(self, node: ast.Call) -> None:
        names = self.src.callee(node) & self.POSITIONAL.keys()
        if not names or has_star_args(node) or get_arg(node, "size_average") or get_arg(node, "reduce"):
            return
        if len(positional(node)) > self.POSITIONAL[names.pop()]:
            return
        reduction = get_arg(node, "reduction")
        if reduction is None or is_const(reduction, "mean"):
            self.report(node)


# ============================================================================ 09 · training loop
OPTIMIZER_NAME = re.compile(r"(?:.*_)?(?:opt|optim|optimi[sz]er)(?:_.*|\d*)", re.I)
SCHEDULER_NAME = re.compile(r".*sched.*", re.I)


@rule(
    code="FNC022",
    name="scheduler-before-optimizer",
    title="scheduler.step() before optimizer.step()",
    message="calling scheduler.step() before optimizer.step() skips the first value of the schedule "
    "(every step uses the next one) and warns",
    fix="call optimizer.step() first, then scheduler.step()",
    claim="09-C8",
    demo="notebooks/09_training_loop.ipynb",
)
class SchedulerBeforeOptimizer(Rule):
    """In one block, ``sched.step()`` followed by a statement that runs ``opt.step()`` (or
    ``scaler.step(opt)``), also inside a nested loop. A receiver is a scheduler/optimizer when it was built
    by ``torch.optim.lr_scheduler.*`` / ``torch.optim.*``; when its origin is unknown (a parameter), when
    its name says so (``scheduler``, ``lr_sched``; ``opt``, ``optimizer``, ``opt_g``)."""

    def kind(self, node: ast.AST) -> str | None:
        values = self.src.values(node)
        if values:
            names = set().union(*(self.src.callee(v) for v in values))
            if any(n.startswith("torch.optim.lr_scheduler.") for n in names):
                return "scheduler"
            if any(n.startswith("torch.optim.") and n.rsplit(".", 1)[1][:1].isupper() for n in names):
                return "optimizer"
            if names:
                return None
        name = last_name(node)
        if name and SCHEDULER_NAME.fullmatch(name):
            return "scheduler"
        if name and OPTIMIZER_NAME.fullmatch(name):
            return "optimizer"
        return None

    def steps_optimizer(self, stmt: ast.AST) -> bool:
        for n in ast.walk(stmt):
            if method_call(n, "step"):
                if self.kind(n.func.value) == "optimizer":
                    return True
                args = positional(n)
                if len(args) == 1 and self.kind(args[0]) == "optimizer":
                    return True
        return False

    def check(self, body: list[ast.stmt]) -> None:
        for i, stmt in enumerate(body):
            call = stmt.value if isinstance(stmt, ast.Expr) else None
            if method_call(call, "step") and not call.args and not call.keywords:
                if self.kind(call.func.value) == "scheduler":
                    if any(self.steps_optimizer(later) for later in body[i + 1 :]):
                        self.report(call)

    def generic_block(self, node: ast.AST) -> None:
        for name in ("body", "orelse", "finalbody"):
            block = getattr(node, name, None)
            if isinstance(block, list) and block and isinstance(block[0], ast.stmt):
                self.check(block)

    visit_Module = visit_FunctionDef = visit_AsyncFunctionDef = visit_For = visit_AsyncFor = generic_block
    visit_While = visit_If = visit_With = visit_AsyncWith = visit_Try = visit_ExceptHandler = generic_block


LOSS_FUNCTIONS = frozenset(
    f"{FUNC}.{n}"
    for n in (
        "mse_loss",
        "l1_loss",
        "smooth_l1_loss",
        "huber_loss",
        "cross_entropy",
        "nll_loss",
        "binary_cross_entropy",
        "binary_cross_entropy_with_logits",
        "kl_div",
        "cosine_embedding_loss",
        "margin_ranking_loss",
        "triplet_margin_loss",
        "ctc_loss",
    )
)
LOSS_CLASS = re.compile(r"torch\.nn\.(?:modules\.loss\.)?\w+Loss")


@rule(
    code="FNC023",
    name="accumulate-loss-tensor",
    title="running total of the loss tensor (total += loss)",
    message="adding the loss tensor keeps every step's autograd graph alive (the total requires grad); "
    "memory grows with every step",
    fix="total += loss.item() (or loss.detach())",
    claim="09-C6",
)
class AccumulateLossTensor(Rule):
    """``total += loss`` or ``total = total + loss`` where ``loss`` is bound only to loss calls
    (``F.mse_loss(...)``, ``criterion(...)`` with ``criterion = nn.XLoss()``), or only to calls and is
    backpropagated (``loss.backward()``) in the same function; not under ``torch.no_grad()`` /
    ``inference_mode()``, and not when the total itself is backpropagated (gradient accumulation)."""

    def __init__(self, src: Source) -> None:
        super().__init__(src)
        self.candidates: list[tuple[ast.AST, ast.Name, str]] = []
        self.backwarded: set[tuple[ast.AST, str]] = set()

    def visit_Call(self, node: ast.Call) -> None:
        if method_call(node, "backward"):
            name = dotted(node.func.value)
            if name:
                self.backwarded.add((self.src.function_or_module(node), name))

    def is_loss_call(self, node: ast.AST) -> bool:
        if not isinstance(node, ast.Call):
            return False
        if self.src.calls(node, LOSS_FUNCTIONS):
            return True
        values = self.src.values(node.func)
        return bool(values) and all(any(LOSS_CLASS.fullmatch(n) for n in self.src.callee(v)) for v in values)

    def added(self, node: ast.AST) -> ast.Name | None:
        """The name added: ``loss``, also in ``loss * n``, ``loss / k``."""
        if isinstance(node, ast.Name):
            return node
        if isinstance(node, ast.BinOp) and isinstance(node.op, (ast.Mult, ast.Div)):
            return self.added(node.left)
        return None

    def candidate(self, stmt: ast.AST, target: ast.AST, value: ast.AST) -> None:
        loss = self.added(value)
        total = dotted(target.value if isinstance(target, ast.Subscript) else target)
        if loss is None or total is None:
            return
        for a in self.src.ancestors(stmt):
            if isinstance(a, ast.With) and any(
                self.src.calls(i.context_expr, {"torch.no_grad", "torch.inference_mode"}) for i in a.items
            ):
                return
        self.candidates.append((stmt, loss, total))

    def visit_AugAssign(self, node: ast.AugAssign) -> None:
        if isinstance(node.op, ast.Add):
            self.candidate(node, node.target, node.value)

    def visit_Assign(self, node: ast.Assign) -> None:
        value = node.value
        if len(node.targets) == 1 and isinstance(value, ast.BinOp) and isinstance(value.op, ast.Add):
            if dotted(value.left) is not None and dotted(value.left) == dotted(node.targets[0]):
                self.candidate(node, node.targets[0], value.right)

    def finish(self) -> None:
        for stmt, loss, total in self.candidates:
            scope = self.src.function_or_module(stmt)
            if (scope, total) in self.backwarded:
                continue
            values = self.src.values(loss)
            if not values or not all(isinstance(v, ast.Call) for v in values):
                continue
            if any(method_call(v, "item", "detach", "tolist", "cpu", "numpy") for v in values):
                continue
            if (scope, loss.id) in self.backwarded or all(self.is_loss_call(v) for v in values):
                self.report(stmt)


# ============================================================================ 10 · mixed precision
AMP = {
    "torch.cuda.amp.autocast": ("cuda", "autocast"),
    "torch.cuda.amp.GradScaler": ("cuda", "GradScaler"),
    "torch.cpu.amp.autocast": ("cpu", "autocast"),
    "torch.cpu.amp.GradScaler": ("cpu", "GradScaler"),
    "torch.cuda.amp.custom_fwd": ("cuda", "custom_fwd"),
    "torch.cuda.amp.custom_bwd": ("cuda", "custom_bwd"),
}


@rule(
    code="FNC024",
    name="cuda-amp",
    title="torch.cuda.amp.* is deprecated",
    message="torch.cuda.amp.autocast/GradScaler (and torch.cpu.amp.*) are deprecated aliases of the "
    "torch.amp classes and emit a FutureWarning",
    fix='torch.amp.autocast("cuda", ...), torch.amp.GradScaler("cuda", ...), '
    'torch.amp.custom_fwd(device_type="cuda")',
    claim="10-C9",
    autofix="safe",
    demo="notebooks/10_mixed_precision.ipynb",
)
class CudaAmp(Rule):
    """Calls and decorators of the deprecated names. ``--fix`` rewrites ``torch.cuda.amp.GradScaler(a)`` to
    ``torch.amp.GradScaler("cuda", a)`` and ``torch.cuda.amp.autocast(k=v)`` to
    ``torch.amp.autocast("cuda", k=v)`` (autocast only with keyword arguments: its positional order
    differs); names imported with ``from torch.cuda.amp import ...`` are reported, not rewritten.

    A fallback for old torch is left alone: a call in one branch of an ``if``/conditional expression whose
    other branch uses ``torch.amp`` (``torch.amp.GradScaler(...) if TORCH_2_4 else
    torch.cuda.amp.GradScaler()``), or in an ``except`` handler of a ``try`` that does: it runs only where
    the new spelling is missing, and there the old one does not warn."""

    def uses_torch_amp(self, nodes: list[ast.AST]) -> bool:
        return any(
            any(q.startswith("torch.amp.") or q == "torch.autocast" for q in self.src.qnames(n))
            for top in nodes
            for n in ast.walk(top)
            if isinstance(n, ast.Attribute | ast.Name)
        )

    def fallback(self, node: ast.AST) -> bool:
        child = node
        for a in self.src.ancestors(node):
            if isinstance(a, ast.IfExp) and child in (a.body, a.orelse):
                other = a.orelse if child is a.body else a.body
                if self.uses_torch_amp([other]):
                    return True
            elif isinstance(a, ast.If) and child is not a.test:
                other = a.orelse if child in a.body else a.body
                if self.uses_torch_amp(other):
                    return True
            elif isinstance(a, ast.ExceptHandler):
                attempt = self.src.parent(a)
                if isinstance(attempt, ast.Try) and self.uses_torch_amp(attempt.body):
                    return True
            elif isinstance(a, FUNCTIONS):
                return False
            child = a
        return False

    def visit_Call(self, node: ast.Call) -> None:
        found = self.src.callee(node) & AMP.keys()
        if not found or self.fallback(node):
            return
        device, what = AMP[found.pop()]
        func = node.func
        fixable = (
            what in ("autocast", "GradScaler")
            and isinstance(func, ast.Attribute)
            and isinstance(func.value, ast.Attribute)  # <torch>.cuda.amp
            and isinstance(func.value.value, ast.Attribute)  # <torch>.cuda
            and self.src.qnames(func.value.value.value) == {"torch"}
            and (what == "GradScaler" or (not node.args and all(k.arg for k in node.keywords)))
        )
        self.report(node, fixable=fixable, data=device)

    def visit_FunctionDef(self, node: ast.FunctionDef) -> None:
        for d in node.decorator_list:
            if not isinstance(d, ast.Call) and self.src.qnames(d) & AMP.keys():
                self.report(d)

    visit_AsyncFunctionDef = visit_FunctionDef

    @staticmethod
    def fix(node: cst.CSTNode, data: Any) -> cst.CSTNode | None:
        import libcst as cst

        func = node.func if isinstance(node, cst.Call) else None
        if not (isinstance(func, cst.Attribute) and isinstance(func.value, cst.Attribute)):
            return None
        amp = func.value.with_changes(value=func.value.value.value)  # <torch>.cuda.amp -> <torch>.amp
        device = cst.Arg(value=cst.SimpleString(f'"{data}"'))
        return node.with_changes(func=func.with_changes(value=amp), args=[device, *node.args])


CLIPS = frozenset(
    f"torch.nn.utils.{m}{f}"
    for m in ("", "clip_grad.")
    for f in ("clip_grad_norm_", "clip_grad_value_", "clip_grad_norm", "clip_grads_with_norm_")
)


@rule(
    code="FNC025",
    name="clip-without-unscale",
    title="gradients clipped under a GradScaler without unscale_",
    message="after scaler.scale(loss).backward() the gradients are multiplied by the scale (65536 at "
    "first), so clipping sees a norm 65536x too large",
    fix="scaler.unscale_(optimizer) before clip_grad_norm_ (scaler.step(optimizer) then does not unscale "
    "again)",
    claim="10-C11",
)
class ClipWithoutUnscale(Rule):
    """In one function (or at module level): a clip call after ``<scaler>.scale(...).backward()`` with no
    ``<scaler>.unscale_(...)`` between them. Calls in the other branch of an ``if`` (``if use_amp:
    scaler.scale(loss).backward() ... else: loss.backward(); clip_grad_norm_(...)``) do not count: they
    never run before the clip."""

    def __init__(self, src: Source) -> None:
        super().__init__(src)
        self.events: list[tuple[int, tuple[int, int], str, ast.Call]] = []

    def visit_Call(self, node: ast.Call) -> None:
        kind = None
        if method_call(node, "backward") and method_call(node.func.value, "scale"):
            kind = "scaled-backward"
        elif method_call(node, "unscale_"):
            kind = "unscale"
        elif self.src.calls(node, CLIPS):
            kind = "clip"
        if kind:
            scope = id(self.src.function_or_module(node))
            self.events.append((scope, (node.lineno, node.col_offset), kind, node))

    def branches(self, node: ast.AST) -> dict[ast.AST, str]:
        """For each ``if`` (or conditional expression) around ``node``: the part that holds it."""
        out: dict[ast.AST, str] = {}
        child = node
        for a in self.src.ancestors(node):
            if isinstance(a, (ast.If, ast.IfExp)):
                body = child in a.body if isinstance(a.body, list) else child is a.body
                out[a] = "test" if child is a.test else "body" if body else "orelse"
            child = a
        return out

    def exclusive(self, a: ast.AST, b: ast.AST) -> bool:
        """``a`` and ``b`` are in different branches of one ``if``: never both run."""
        ba, bb = self.branches(a), self.branches(b)
        return any({ba[k], bb[k]} == {"body", "orelse"} for k in ba.keys() & bb.keys())

    def finish(self) -> None:
        events = sorted(self.events, key=lambda e: (e[0], e[1]))
        for i, (scope, _, kind, node) in enumerate(events):
            if kind != "clip":
                continue
            before = [
                k for s, _, k, n in events[:i] if s == scope and k != "clip" and not self.exclusive(n, node)
            ]
            if before and before[-1] == "scaled-backward":
                self.report(node)


# ============================================================================ 12 · data loading
DATALOADERS = frozenset({"torch.utils.data.DataLoader", "torch.utils.data.dataloader.DataLoader"})


@rule(
    code="FNC026",
    name="worker-options-without-workers",
    title="persistent_workers / prefetch_factor with num_workers=0",
    message="persistent_workers=True and prefetch_factor need worker processes: with num_workers=0 (the "
    "default, or the default of the argument, parameter or config field it comes from) the DataLoader "
    "raises ValueError",
    fix="num_workers > 0 (also as the default), or drop the option, or pass it only with workers: "
    "persistent_workers=num_workers > 0",
    claim="12-C31",
    torchfix="TOR401 (off by default) asks for num_workers > 0 on any DataLoader; this rule flags only "
    "the options that raise without workers",
    demo="notebooks/12_data_loading.ipynb",
)
class WorkerOptionsWithoutWorkers(Rule):
    """``DataLoader(..., persistent_workers=True)`` or ``prefetch_factor=...`` whose ``num_workers`` is
    absent or 0, or comes, unchanged, from a 0 this file decides: an argparse option
    (``num_workers=args.num_workers`` with ``add_argument('--num_workers', default=0)``, ``args`` certainly
    the parsed namespace and nothing in the file setting ``.num_workers``), a parameter's default
    (``def make_loader(ds, num_workers=0)``, unless every call in the file passes it), a module constant, or
    a field of a config class of the same file (``cfg = Config()`` of a ``@dataclass`` with
    ``num_workers: int = 0``). A non-zero or unknown default, or a loader built under a test of that value
    (``if args.num_workers > 0:``), is left alone."""

    def visit_Call(self, node: ast.Call) -> None:
        if not self.src.calls(node, DATALOADERS) or has_star_args(node):
            return
        prefetch = get_arg(node, "prefetch_factor")
        if not (
            is_const(get_arg(node, "persistent_workers"), True)
            or (prefetch is not None and not is_const(prefetch, None))
        ):
            return
        workers = get_arg(node, "num_workers", 5)
        if workers is None or int_value(workers) == 0 or self.zero_by_default(workers, node):
            self.report(node)

    def zero_by_default(self, workers: ast.expr, call: ast.Call, depth: int = 0) -> bool:
        src = self.src
        if int_value(workers) is not None or guarded_by(src, call, {ast.dump(workers)}) or depth > 2:
            return False
        if isinstance(workers, ast.Name):
            param = only_parameter(src, workers)
            if param is not None:
                fn, position, default = param
                if int_value(default) != 0:
                    return False
                sites = call_sites(src, fn)
                return not sites or any(passed(c, workers.id, position, s) is None for c, s in sites)
            values = assigned(src, workers)  # a module constant, or an alias: workers = args.num_workers
            return bool(values) and all(
                int_value(v) == 0 or self.zero_by_default(v, call, depth + 1) for v in values or []
            )
        if not isinstance(workers, ast.Attribute) or attr_changed(src, workers.attr):
            return False
        if is_namespace(src, workers.value):
            defaults = argparse_defaults(src).get(workers.attr)
            return bool(defaults) and all(int_value(d) == 0 for d in defaults or [])
        return int_value(local_config_default(src, workers.value, workers.attr)) == 0


@rule(
    code="FNC027",
    name="from-numpy-negative-stride",
    title="torch.from_numpy on a reversed view (a[..., ::-1])",
    message="torch.from_numpy rejects arrays with negative strides, such as the BGR -> RGB view "
    "img[..., ::-1]",
    fix="copy the view first: torch.from_numpy(img[..., ::-1].copy())",
    claim="12-C20",
    autofix="safe",
    demo="notebooks/12_data_loading.ipynb",
)
class FromNumpyNegativeStride(Rule):
    """``--fix`` appends ``.copy()`` to the sliced array (the call could only raise before)."""

    def visit_Call(self, node: ast.Call) -> None:
        args = positional(node)
        if not args or not isinstance(args[0], ast.Subscript):
            return
        if not self.src.calls(node, {"torch.from_numpy", "torch.as_tensor"}):
            return
        index = args[0].slice
        parts = index.elts if isinstance(index, ast.Tuple) else [index]
        if any(isinstance(p, ast.Slice) and (int_value(p.step) or 0) < 0 for p in parts):
            self.report(node, fixable=True)

    @staticmethod
    def fix(node: cst.CSTNode, data: Any) -> cst.CSTNode | None:
        import libcst as cst

        if not isinstance(node, cst.Call) or not node.args:
            return None
        array = node.args[0].value
        copied = cst.Call(func=cst.Attribute(value=array, attr=cst.Name("copy")))
        return node.with_changes(args=[node.args[0].with_changes(value=copied), *node.args[1:]])


SAMPLERS = frozenset(
    {"torch.utils.data.DistributedSampler", "torch.utils.data.distributed.DistributedSampler"}
)


@rule(
    code="FNC028",
    name="distributed-sampler-set-epoch",
    title="DistributedSampler iterated over epochs without set_epoch",
    message="without sampler.set_epoch(epoch) every epoch repeats the same order, and under drop_last the "
    "same samples are never seen",
    fix="call sampler.set_epoch(epoch) at the start of every epoch",
    claim="12-C15",
)
class DistributedSamplerSetEpoch(Rule):
    """A shuffling ``DistributedSampler`` bound to a name (or passed to a ``DataLoader`` bound to a name)
    that a loop inside another loop iterates, in a file that never calls ``set_epoch``."""

    def __init__(self, src: Source) -> None:
        super().__init__(src)
        self.samplers: list[tuple[ast.Call, str]] = []
        self.loops: list[set[str]] = []
        self.loaders: dict[str, set[str]] = {}  # sampler name -> names of the DataLoaders built with it
        self.set_epoch = False

    def visit_Attribute(self, node: ast.Attribute) -> None:
        if node.attr == "set_epoch":
            self.set_epoch = True

    def bound_name(self, node: ast.AST) -> str | None:
        owner = self.src.parent(node)
        if isinstance(owner, ast.keyword) and owner.arg == "sampler":
            loader = self.src.parent(owner)
            return self.bound_name(loader) if self.src.calls(loader, DATALOADERS) else None
        if isinstance(owner, ast.Assign) and len(owner.targets) == 1:
            return dotted(owner.targets[0])
        return None

    def visit_Call(self, node: ast.Call) -> None:
        if self.src.calls(node, SAMPLERS):
            shuffle = get_arg(node, "shuffle", 3)
            name = self.bound_name(node)
            if name and not is_const(shuffle, False):
                self.samplers.append((node, name))
        elif self.src.calls(node, DATALOADERS):
            sampler, loader = dotted(get_arg(node, "sampler", 3)), self.bound_name(node)
            if sampler and loader:
                self.loaders.setdefault(sampler, set()).add(loader)

    def visit_For(self, node: ast.For) -> None:
        if self.src.enclosing(node, (ast.For, ast.While)) is not None:
            self.loops.append({d for n in ast.walk(node.iter) if (d := dotted(n))})

    def finish(self) -> None:
        if not self.set_epoch:
            for node, name in self.samplers:
                iterated = {name} | self.loaders.get(name, set())
                if any(iterated & names for names in self.loops):
                    self.report(node)


# ============================================================================ 13 · DDP
@rule(
    code="FNC029",
    name="sampler-with-shuffle",
    title="DataLoader with both a sampler and shuffle=True",
    message="shuffle=True is mutually exclusive with sampler= (and batch_sampler=): the DataLoader raises "
    "ValueError",
    fix="drop shuffle=True: the sampler decides the order (DistributedSampler shuffles itself)",
    claim="13-C18",
    demo="notebooks/13_distributed_data_parallel.ipynb",
)
class SamplerWithShuffle(Rule):
    """``DataLoader(..., shuffle=True)`` with a ``sampler=``/``batch_sampler=`` that is not None."""

    def visit_Call(self, node: ast.Call) -> None:
        if is_const(get_arg(node, "shuffle", 2), True) and self.src.calls(node, DATALOADERS):
            sampler = get_arg(node, "sampler", 3) or get_arg(node, "batch_sampler", 4)
            if sampler is not None and not is_const(sampler, None):
                self.report(node)


#: Collectives of torch.distributed, each with the position of its ``group`` parameter.
COLLECTIVE_GROUP = {
    "all_reduce": 2,
    "reduce": 3,
    "broadcast": 2,
    "all_gather": 2,
    "all_gather_into_tensor": 2,
    "all_gather_object": 2,
    "gather": 3,
    "gather_object": 3,
    "scatter": 3,
    "scatter_object_list": 3,
    "reduce_scatter": 3,
    "reduce_scatter_tensor": 3,
    "all_to_all": 2,
    "all_to_all_single": 4,
    "barrier": 0,
    "monitored_barrier": 0,
    "broadcast_object_list": 2,
}
COLLECTIVES = {
    f"torch.distributed{m}.{name}": name for m in ("", ".distributed_c10d") for name in COLLECTIVE_GROUP
}
RANK = re.compile(r"(?:[a-z]+_)?rank", re.I)
RANK_CALLS = frozenset({"get_rank", "get_local_rank", "get_global_rank", "get_node_local_rank"})
MAIN_PROCESS = frozenset(
    {
        "is_main_process",
        "main_process",
        "is_local_main_process",
        "is_master",
        "is_master_process",
        "master_process",
        "is_local_master",
        "is_global_zero",
        "is_rank_zero",
        "is_main_rank",
    }
)
EXITS = (ast.Return, ast.Raise, ast.Continue, ast.Break)


def is_rank(node: ast.AST) -> bool:
    """``rank``, ``local_rank``, ``args.rank``, ``dist.get_rank()``, ``int(os.environ["RANK"])``."""
    if isinstance(node, ast.Call):
        if last_name(node.func) in RANK_CALLS:
            return True
        return last_name(node.func) == "int" and len(node.args) == 1 and is_rank(node.args[0])
    if isinstance(node, ast.Subscript) and isinstance(node.slice, ast.Constant):
        return isinstance(node.slice.value, str) and bool(RANK.fullmatch(node.slice.value))
    name = last_name(node)
    return bool(name and RANK.fullmatch(name))


FLIPPED = {ast.Lt: ast.Gt, ast.Gt: ast.Lt, ast.LtE: ast.GtE, ast.GtE: ast.LtE}


def selects_ranks(test: ast.AST) -> bool:
    """``test`` holds on some ranks only: ``rank == 0``, ``local_rank not in [-1, 0]``, ``rank > 0``,
    ``is_main_process()``; not ``local_rank != -1`` or ``rank >= 0`` (every rank of a distributed run)."""
    for n in ast.walk(test):
        if isinstance(n, (ast.Name, ast.Attribute, ast.Call)):
            if last_name(n.func if isinstance(n, ast.Call) else n) in MAIN_PROCESS:
                return True
        if not isinstance(n, ast.Compare):
            continue
        operands = [n.left, *n.comparators]
        for i, op in enumerate(n.ops):
            left, right = operands[i], operands[i + 1]
            if is_rank(left):
                other = right
            elif is_rank(right):
                other, op = left, FLIPPED.get(type(op), type(op))()
            else:
                continue
            if some_ranks(op, other):
                return True
    return False


def some_ranks(op: ast.cmpop, other: ast.expr) -> bool:
    """``rank <op> other`` holds on some ranks (from 0 up) but not all, for a literal ``other`` (a name for
    another rank, ``rank != MAIN_PROCESS_RANK``, may be -1: not decided)."""
    if isinstance(other, (ast.Tuple, ast.List, ast.Set)):
        values = [int_value(e) for e in other.elts]
        return isinstance(op, (ast.In, ast.NotIn)) and any(v is not None and v >= 0 for v in values)
    c = int_value(other)
    if c is None:
        return False
    if isinstance(op, (ast.Eq, ast.NotEq, ast.Gt, ast.LtE)):
        return c >= 0
    if isinstance(op, (ast.GtE, ast.Lt)):
        return c >= 1
    return False


@rule(
    code="FNC038",
    name="collective-on-some-ranks",
    title="torch.distributed collective called under a rank test",
    message="every rank of the group must call a collective: under `if rank == 0:` (or after `if rank != 0: "
    "return`) the other ranks never do, and the ranks that do wait for them: a hang, or a RuntimeError "
    "once the process group's timeout has passed (30 minutes by default for gloo)",
    fix="call the collective on every rank (all_reduce, then use the result only under the rank test), or "
    "give it a group of just the ranks that call it",
    claim="13-C6",
)
class CollectiveOnSomeRanks(Rule):
    """A ``torch.distributed`` collective (``all_reduce``, ``reduce``, ``broadcast``, ``all_gather``,
    ``gather``, ``scatter``, ``barrier``, ... and their ``_object`` forms) without a ``group``, inside an
    ``if`` whose test holds on some ranks only (see :func:`selects_ranks`), or after an ``if`` on such a
    test that returns (``if rank != 0: return``), when the same function calls that collective nowhere
    else (the ``torch_distributed_zero_first`` pattern: ``barrier()`` under ``rank != 0`` and again under
    ``rank == 0``, or a ``broadcast`` in both branches, is left alone)."""

    def visit_Call(self, node: ast.Call) -> None:
        if last_name(node.func) not in COLLECTIVE_GROUP:
            return
        found = self.src.callee(node) & COLLECTIVES.keys()
        if not found or has_star_args(node):
            return
        name = COLLECTIVES[found.pop()]
        if get_arg(node, "group", COLLECTIVE_GROUP[name]) is not None:
            return
        region = self.rank_region(node)
        if region is None:
            return
        inside = {id(n) for top in region for n in ast.walk(top)}
        for other in own_nodes(self.src.function_or_module(node)):
            if isinstance(other, ast.Call) and id(other) not in inside:
                if any(COLLECTIVES.get(q) == name for q in self.src.callee(other)):
                    return
        self.report(node)

    def rank_region(self, node: ast.AST) -> list[ast.AST] | None:
        """The statements that run only on some ranks and hold ``node``: the branch of an ``if`` on a rank
        test, or what follows an ``if`` on one that leaves (``return``, ``continue``, ...); None if none."""
        child = node
        for a in self.src.ancestors(node):
            if isinstance(a, (ast.If, ast.IfExp)) and child is not a.test and selects_ranks(a.test):
                if isinstance(a.body, list):
                    return a.body if child in a.body else a.orelse
                return [child]
            if isinstance(a, ast.stmt):
                for block in (getattr(a, f, None) for f in ("body", "orelse", "finalbody")):
                    if isinstance(block, list) and child in block:
                        before = block[: block.index(child)]
                        for i, s in enumerate(before):
                            if (
                                isinstance(s, ast.If)
                                and not s.orelse
                                and s.body
                                and isinstance(s.body[-1], EXITS)
                                and selects_ranks(s.test)
                            ):
                                return block[i + 1 :]
            if isinstance(a, (*FUNCTIONS, ast.Lambda)):
                return None
            child = a
        return None


# ============================================================================ 15 · saving
WRAPPERS = frozenset(
    {
        "torch.nn.DataParallel",
        "torch.nn.parallel.DataParallel",
        "torch.nn.parallel.data_parallel.DataParallel",
        "torch.nn.parallel.DistributedDataParallel",
        "torch.nn.parallel.distributed.DistributedDataParallel",
    }
)


def is_saver(src: Source, call: ast.Call) -> bool:
    """``torch.save(...)`` or a function whose name says it saves (``save_checkpoint``, ``save_on_master``,
    ``xm.save``, ``accelerator.save``)."""
    return (
        src.calls(call, {"torch.save", "torch.serialization.save"})
        or "save" in (last_name(call.func) or "").lower()
    )


def reaches_save(src: Source, node: ast.AST, follow: bool = True) -> bool:
    """``node``'s value is saved: it is in the arguments of a saving call (also inside a dict or list there),
    or (``follow``) assigned to a name, or into a dict (``ckpt["model"] = ...``), that a saving call of the
    same function is given."""
    child = node
    for a in src.ancestors(node):
        if isinstance(a, ast.Call) and child is not a.func and is_saver(src, a):
            return True
        if isinstance(a, (*FUNCTIONS, ast.Lambda, ast.ClassDef)):
            return False
        if isinstance(a, ast.stmt):
            if not (follow and isinstance(a, (ast.Assign, ast.AnnAssign)) and child is a.value):
                return False
            targets = a.targets if isinstance(a, ast.Assign) else [a.target]
            names = {dotted(t.value if isinstance(t, ast.Subscript) else t) for t in targets} - {None}
            return any(
                isinstance(n, (ast.Name, ast.Attribute))
                and isinstance(n.ctx, ast.Load)
                and dotted(n) in names
                and reaches_save(src, n, follow=False)
                for n in own_nodes(src.function_or_module(a))
            )
        child = a
    return False


def stores(src: Source, scope: ast.AST) -> dict[str, list[tuple[ast.stmt, ast.expr | None]]]:
    """Every statement of ``scope`` (not of functions in it) that binds a name or ``self.<attr>``, by that
    dotted name, in source order, each with the value a plain assignment gives (None for others:
    ``for x in``, ``with ... as x``, unpacking)."""
    key = (stores, scope)
    if key not in src.memo:
        out: dict[str, list[tuple[ast.stmt, ast.expr | None]]] = {}
        for n in own_nodes(scope):
            if not (isinstance(n, (ast.Name, ast.Attribute)) and isinstance(n.ctx, ast.Store)):
                continue
            name = dotted(n)
            stmt = n if isinstance(n, ast.stmt) else src.enclosing(n, ast.stmt)
            if name is None or stmt is None:
                continue
            value = None
            if isinstance(stmt, ast.Assign) and n in stmt.targets:
                value = stmt.value
            elif isinstance(stmt, ast.AnnAssign) and stmt.target is n:
                value = stmt.value
            out.setdefault(name, []).append((stmt, value))
        for found in out.values():
            found.sort(key=lambda s: (s[0].lineno, s[0].col_offset))
        src.memo[key] = out
    return src.memo[key]


def in_block_around(src: Source, stmt: ast.stmt, node: ast.AST) -> bool:
    """``stmt`` is in a statement list that also holds ``node`` (or a statement around it): every path to
    ``node`` in that block passes ``stmt`` first, if ``stmt`` comes first."""
    block = src.parent(stmt)
    around = {id(a) for a in src.ancestors(node)} | {id(node)}
    for _, value in ast.iter_fields(block):
        if isinstance(value, list) and any(s is stmt for s in value):
            return any(id(s) in around for s in value)
    return False


def bound_before(src: Source, name: str, node: ast.AST) -> tuple[ast.stmt, ast.expr | None] | None:
    """The last statement of ``node``'s function (or module) before ``node`` that binds ``name``: one that
    starts before it (a ``for``/``with`` around it binds first; an assignment around it, after)."""
    scope = src.function_or_module(node)
    last = None
    around = set(map(id, src.ancestors(node)))
    for stmt, value in stores(src, scope).get(name, []):
        if (stmt.lineno, stmt.col_offset) >= (node.lineno, node.col_offset):
            break
        if id(stmt) in around and not isinstance(stmt, (ast.For, ast.AsyncFor, ast.With, ast.AsyncWith)):
            continue
        last = (stmt, value)
    return last


@rule(
    code="FNC030",
    name="wrapped-state-dict",
    title="state_dict() of a DataParallel / DDP wrapper",
    message="a wrapped model's state_dict prefixes every key with 'module.', so it does not load into the "
    "plain model",
    fix="save model.module.state_dict() (or strip the prefix when loading)",
    claim="15-C14",
    demo="notebooks/15_saving_deployment.ipynb",
)
class WrappedStateDict(Rule):
    """``.state_dict()`` on an object built only by ``nn.DataParallel``/``DistributedDataParallel`` (also
    ``nn.DataParallel(m).cuda()``); and the common ``model = DDP(model, ...)``, the wrapper assigned back to
    the same name (or ``self.model``), when the last binding of that name before a saved
    ``model.state_dict()`` in the same function (or module) is the wrapper: ``torch.save(model.state_dict(),
    ...)``, ``{"model": model.state_dict()}`` given to a save, a ``save_checkpoint(...)``. Left alone: a save
    of ``model.module.state_dict()``; one under a test of the model (``if isinstance(model, DDP)``,
    ``hasattr(model, "module")``) or in the other branch of one that takes ``model.module``; one that the
    wrap's own condition excludes (``if args.distributed: model = DDP(model)`` ... ``if not
    args.distributed: torch.save(...)``); a name rebound between wrap and save (``model =
    model.module``; not ``model = model.cuda(gpu)``, which keeps it wrapped); and a file that strips the
    prefix itself from a dict it saves or loads (see :meth:`strips_prefix`). A function that saves a
    module-level name it only reads (``net = nn.DataParallel(net)`` at module level, ``torch.save({"net":
    net.state_dict()}, p)`` in ``test()``) is decided by the last module-level binding of that name."""

    def visit_Call(self, node: ast.Call) -> None:
        if not method_call(node, "state_dict"):
            return
        receiver = node.func.value
        values = self.src.values(receiver)
        if values and all(self.src.calls(unchained(v), WRAPPERS) for v in values):
            if not self.handled(node, receiver):
                self.report(node)
        elif self.rewrapped(node, receiver) and reaches_save(self.src, node):
            self.report(node)

    def rewrapped(self, node: ast.Call, receiver: ast.expr) -> bool:
        src = self.src
        name = dotted(receiver)
        if name is None or not (isinstance(receiver, ast.Name) or is_self_attr(receiver)):
            return False
        at_module = False  # a module-level name read by a function (``global``): its module-level bindings
        if isinstance(receiver, ast.Name):
            scope = binding_scope(src, receiver)
            if scope is not src.function_or_module(node):
                if scope is not src.tree or any(
                    isinstance(g, ast.Global) and receiver.id in g.names for g in src.order
                ):
                    return False
                at_module = True
            values = [b.value for b in src.bindings[scope][receiver.id]]
        else:
            cls = src.method_class(receiver)
            values = list(src.self_attrs(cls).get(receiver.attr, [])) if cls is not None else []
        if not any(src.calls(unchained(v), WRAPPERS) for v in values):
            return False  # no wrapper is ever bound to it (the common case, decided without a walk)
        if self.strips_prefix(node):
            return False  # the file strips the prefix itself (when saving or loading this checkpoint)
        bindings = stores(src, src.tree).get(name, []) if at_module else None
        last = self.last_binding(name, node, bindings)
        if last is None or last[1] is None or not src.calls(unchained(last[1]), WRAPPERS):
            return False
        if at_module:
            return not self.handled(node, receiver)
        return not (never_together(src, last[0], node) or self.handled(node, receiver))

    def last_binding(
        self, name: str, node: ast.AST, bindings: list[tuple[ast.stmt, ast.expr | None]] | None
    ) -> tuple[ast.stmt, ast.expr | None] | None:
        """The last binding of ``name`` before ``node`` in its function (``bindings``: all of a module-level
        name, for a function that reads it), passing over ``model = model.cuda(gpu)`` / ``.to(device)``,
        which keep a wrapper wrapped."""
        if bindings is None:
            last = bound_before(self.src, name, node)
            before = []
            if last is not None:
                before = stores(self.src, self.src.function_or_module(node))[name]
                before = before[: before.index(last) + 1]
        else:
            before = list(bindings)
        for stmt, value in reversed(before):
            inner = unchained(value)
            if value is not None and inner is not value and dotted(inner) == name:
                continue  # model = model.cuda(...): the same object
            return stmt, value
        return None

    def strips_prefix(self, node: ast.Call) -> bool:
        """The file strips the ``'module.'`` prefix from the state dict that ``node`` saves:
        ``consume_prefix_in_state_dict_if_present``, or a ``"module."`` string in code that strips a live
        model's ``state_dict()``, or a loaded checkpoint that may be this one (see :meth:`same_file`), or,
        iterating neither, hands a dict to ``load_state_dict`` or to a save, or returns one. Not a strip of
        a checkpoint loaded from another path (``torch.load(args.pretrained)`` where the save writes
        ``checkpoint.pth.tar``: pre-trained weights), nor one that only compares the keys of the live
        model with a checkpoint's (a sanity check)."""
        src = self.src
        if "consume_prefix_in_state_dict" in src.code:
            return True
        if "'module.'" not in src.code and '"module."' not in src.code:
            return False
        return any(
            isinstance(n, ast.Constant) and n.value == "module." and self.strip_applies(n, node)
            for n in src.order
        )

    def iterated(self, string: ast.Constant) -> tuple[bool, list[ast.Call]]:
        """What the loops and comprehensions around ``string`` iterate: (a live ``state_dict()`` among them,
        the load calls among them)."""
        src = self.src
        key = (WrappedStateDict, "iterated", id(string))
        if key in src.memo:
            return src.memo[key]
        scope = src.function_or_module(string)
        own, loads = False, []
        for a in src.ancestors(string):
            iters = [g.iter for g in a.generators] if isinstance(a, COMPREHENSIONS) else []
            if isinstance(a, (ast.For, ast.AsyncFor)):
                iters = [a.iter]
            for it in iters:
                for n in ast.walk(it):
                    values = (src.values(n) or []) if isinstance(n, ast.Name) else [n]
                    for v in values:
                        for c in ast.walk(v):
                            if not isinstance(c, ast.Call):
                                continue
                            if method_call(c, "state_dict"):
                                own = True
                            elif "load" in (last_name(c.func) or "").lower() and not method_call(
                                c, "load_state_dict"
                            ):
                                loads.append(c)
            if a is scope:
                break
        src.memo[key] = (own, loads)
        return own, loads

    def same_file(self, load: ast.Call, node: ast.Call) -> bool:
        """``load`` may read the checkpoint a save around ``node`` writes: its path is unknown here (a
        parameter of a loading function, none given) or shares an expression or a file name with a save's
        arguments in ``node``'s function."""
        src = self.src
        path = get_arg(load, "f", 0)
        if path is None or isinstance(path, ast.Starred):
            return True
        if isinstance(path, ast.Name) and only_parameter(src, path) is not None:
            return True

        def tokens(e: ast.AST) -> set[str]:
            return {ast.unparse(e)} | {
                c.value
                for c in ast.walk(e)
                if isinstance(c, ast.Constant) and isinstance(c.value, str) and "." in c.value
            }

        wanted = tokens(path)
        for n in own_nodes(src.function_or_module(node)):
            if isinstance(n, ast.Call) and is_saver(src, n):
                args = [*n.args, *(k.value for k in n.keywords)]
                if any(wanted & tokens(arg) for arg in args[1:] or args):
                    return True
        return False

    def strip_applies(self, string: ast.Constant, node: ast.Call) -> bool:
        src = self.src
        own, loads = self.iterated(string)
        if own:
            return True
        if loads:
            return any(self.same_file(load, node) for load in loads)
        scope = src.function_or_module(string)
        for n in own_nodes(scope):
            if isinstance(n, ast.Call) and (method_call(n, "load_state_dict") or is_saver(src, n)):
                return True
            if isinstance(n, ast.Return) and n.value is not None and scope is not src.tree:
                return True
        return False

    def handled(self, node: ast.AST, receiver: ast.expr) -> bool:
        """A test around the save looks at the model, or the other branch saves ``model.module``."""
        name = dotted(receiver)
        child = node
        for a in self.src.ancestors(node):
            if isinstance(a, (ast.If, ast.IfExp)) and child is not a.test:
                if any(dotted(n) == name for n in ast.walk(a.test)):
                    return True
                body = child in a.body if isinstance(a.body, list) else child is a.body
                other = a.orelse if body else a.body
                for top in other if isinstance(other, list) else [other]:
                    if any(
                        isinstance(n, ast.Attribute) and n.attr == "module" and dotted(n.value) == name
                        for n in ast.walk(top)
                    ):
                        return True
            if isinstance(a, (*FUNCTIONS, ast.Lambda)):
                return False
            child = a
        return False


@rule(
    code="FNC031",
    name="weights-only-false",
    title="torch.load(weights_only=False)",
    message="weights_only=False unpickles arbitrary objects, so a malicious checkpoint runs its payload; "
    "it is acceptable only for a checkpoint you produced or trust (e.g. one holding non-tensor objects), "
    "and even there an allow-list is better; silence an accepted one with # noqa: FNC031",
    fix="keep the default weights_only=True and allow-list the classes a trusted checkpoint needs: "
    "torch.serialization.safe_globals([...]) around the load, or add_safe_globals([...]) for the process",
    claim="15-C3",
    torchfix="TOR102 flags torch.load without weights_only; this rule flags the explicit "
    "weights_only=False that TOR102 accepts",
    demo="notebooks/15_saving_deployment.ipynb",
)
class WeightsOnlyFalse(Rule):
    """``torch.load(..., weights_only=False)``."""

    def visit_Call(self, node: ast.Call) -> None:
        if is_const(get_arg(node, "weights_only"), False) and self.src.calls(node, {"torch.load"}):
            self.report(node)


JIT = frozenset({"torch.jit.script", "torch.jit.trace", "torch.jit.trace_module", "torch.jit.save"})


@rule(
    code="FNC032",
    name="torchscript",
    title="TorchScript (torch.jit.script / trace / save) is deprecated",
    message="torch.jit.script, torch.jit.trace and torch.jit.save are documented as deprecated (use "
    "torch.export); they warn since torch 2.10",
    fix="torch.compile for speed, torch.export (or ONNX) for deployment",
    claim="15-C8",
    demo="notebooks/15_saving_deployment.ipynb",
)
class TorchScript(Rule):
    """Calls of ``torch.jit.script``/``trace``/``trace_module``/``save``, and ``@torch.jit.script``."""

    def visit_Call(self, node: ast.Call) -> None:
        if self.src.calls(node, JIT):
            self.report(node)

    def visit_FunctionDef(self, node: ast.FunctionDef) -> None:
        for d in node.decorator_list:
            if not isinstance(d, ast.Call) and self.src.qnames(d) & JIT:
                self.report(d)

    visit_AsyncFunctionDef = visit_FunctionDef


class Keyed:
    """The string keys a scope reads from names (``ckpt["model"]``, ``ckpt.get("epoch")``) and the entries it
    stores into them (``ckpt["args"] = args``), by dotted name."""

    def __init__(self, scope: ast.AST) -> None:
        self.reads: dict[str, set[Any]] = {}
        self.stores: dict[str, list[tuple[ast.expr, ast.expr]]] = {}
        for n in own_nodes(scope):
            if isinstance(n, ast.Assign) and len(n.targets) == 1 and isinstance(n.targets[0], ast.Subscript):
                name = dotted(n.targets[0].value)
                if name:
                    self.stores.setdefault(name, []).append((n.targets[0].slice, n.value))
            key = None
            if isinstance(n, ast.Subscript) and isinstance(n.ctx, ast.Load):
                name, key = dotted(n.value), n.slice
            elif method_call(n, "get") and n.args:
                name, key = dotted(n.func.value), n.args[0]
            if key is not None and name and isinstance(key, ast.Constant):
                self.reads.setdefault(name, set()).add(key.value)


def keyed(src: Source, scope: ast.AST) -> Keyed:
    if (Keyed, scope) not in src.memo:
        src.memo[Keyed, scope] = Keyed(scope)
    return src.memo[Keyed, scope]


#: Checkpoint keys that hold a configuration.
CONFIG_KEY = re.compile(r"args?|config|cfg|conf|opts?|options|hparams|hyper_?param(eter)?s|settings", re.I)
#: A config key in quotes, as source text (a cheap test before walking a file's loads).
CONFIG_KEY_TEXT = re.compile(r"""['"](?:%s)['"]""" % CONFIG_KEY.pattern, re.I)
#: Attributes and methods of a tensor (an entry used through them may be a tensor, which loads fine).
TENSOR_ATTRS = NOT_READS | {
    "to",
    "cpu",
    "cuda",
    "float",
    "half",
    "double",
    "long",
    "int",
    "bool",
    "numpy",
    "item",
    "tolist",
    "clone",
    "detach",
    "view",
    "reshape",
    "T",
}
#: Config classes that are no plain dict for torch.load's weights_only unpickler.
CONFIG_CLASSES = frozenset(
    {"CfgNode", "CN", "EasyDict", "edict", "DictConfig", "SimpleNamespace", "Namespace"}
)


@rule(
    code="FNC033",
    name="namespace-in-checkpoint",
    title="checkpoint holding an argparse.Namespace loaded with torch.load's default weights_only=True",
    message="the checkpoint holds an argparse.Namespace or a config object (this file saves one in it, or "
    "reads its 'args' (or another config key's) entry back as an object), and torch.load defaults to "
    "weights_only=True since torch 2.6, which refuses it: "
    "UnpicklingError 'Unsupported global: argparse.Namespace'; adding weights_only=True, TorchFix's "
    "autofix, fails the same way",
    fix="load inside torch.serialization.safe_globals([argparse.Namespace]) (your config class too; "
    "add_safe_globals([...]) for the whole process), or save plain types, vars(args) or "
    "dataclasses.asdict(cfg), and check the code that reads them back (ckpt['args'].lr becomes "
    "ckpt['args']['lr'], or argparse.Namespace(**ckpt['args'])); weights_only=False only for a file you "
    "trust",
    claim="15-C18",
    torchfix="TOR102 flags every torch.load without weights_only, and its autofix adds weights_only=True, "
    "which leaves this load failing: this rule flags only the loads of a checkpoint that holds a Namespace "
    "(with or without weights_only=True), where the fix is the allow-list or vars(args)",
    demo="notebooks/15_saving_deployment.ipynb",
)
class NamespaceInCheckpoint(Rule):
    """A ``torch.load`` without ``weights_only`` (or with ``weights_only=True``, or no ``pickle_module``) in a
    file that saves a checkpoint holding a namespace: ``torch.save({..., "args": args}, path)`` (also through
    a name, ``ckpt["args"] = args``, or a ``save_checkpoint(...)``/``save_on_master(...)``) where ``args``
    is certainly an ``argparse.Namespace`` (see :func:`is_namespace`) or an instance of a ``@dataclass``
    of the file, or, under a config key, an object that is no plain dict (see :meth:`config_object`: a
    yacs ``CfgNode`` parameter read as ``config.OUTPUT``, an ``args`` parameter read as ``args.output_dir``).
    The load must read that checkpoint: its result is indexed with one of the saved keys
    (``ckpt["model"]``, ``torch.load(p)["args"]``), or it loads the same path expression the save wrote.
    Also, wherever the checkpoint was saved, a load whose ``"args"`` entry (or one under another config
    key: ``"config"``, ``"opt"``, ``"settings"``...) is used as an object, which a plain dict
    (``vars(args)``) is not: ``ckpt["args"].arch``, ``vars(ckpt["args"])``, ``a = ckpt.get("args")`` then
    ``a.lr``, attention-is-all-you-need's ``model_opt = checkpoint["settings"]`` then
    ``model_opt.d_model`` (a dict method, a tensor's attribute, ``ckpt["args"]["lr"]`` or
    ``Namespace(**ckpt["args"])`` is no such use). Left alone: loads under ``with
    torch.serialization.safe_globals(...)``, loads in a file that calls ``add_safe_globals`` (at module
    level: before the load), and files that set ``TORCH_FORCE_NO_WEIGHTS_ONLY_LOAD``."""

    DICT_METHODS = frozenset({"get", "items", "keys", "values", "copy", "pop", "update", "setdefault"}) | {
        "clear",
        "popitem",
        "fromkeys",
    }

    def __init__(self, src: Source) -> None:
        super().__init__(src)
        self.loads: list[ast.Call] = []
        self.saves: list[ast.Call] = []
        self.allowed: list[ast.Call] = []  # add_safe_globals(...)

    def visit_Call(self, node: ast.Call) -> None:
        name = last_name(node.func) or ""
        if name == "load" and self.src.calls(node, {"torch.load", "torch.serialization.load"}):
            weights_only = get_arg(node, "weights_only")
            if (weights_only is None or is_const(weights_only, True)) and get_arg(
                node, "pickle_module", 2
            ) is None:
                if not has_star_args(node):
                    self.loads.append(node)
        elif name == "add_safe_globals":
            self.allowed.append(node)
        elif "save" in name.lower():  # is_saver
            self.saves.append(node)

    def config(self, node: ast.AST) -> bool:
        """A namespace, or an instance of a dataclass of this file."""
        if parsed_args(self.src, node):
            return True
        cls = local_def(self.src, node.func, ast.ClassDef) if isinstance(node, ast.Call) else None
        return cls is not None and dataclass(cls)

    def holds_config(self, value: ast.expr) -> bool:
        """``value`` is a namespace or a config object (followed as :func:`made_by` does)."""
        return made_by(self.src, value, self.config)

    def config_object(self, key: ast.expr | None, value: ast.expr, save: ast.Call) -> bool:
        """Under a config key (``'config'``, ``'cfg'``, ``'args'``, ``'opt'``, ``'hparams'``...), an object
        that is no plain dict: a yacs ``CfgNode``/``EasyDict``/``OmegaConf`` built here, or a name that the
        saving function reads attributes of (``config.OUTPUT``, ``args.output_dir``: a plain dict has none;
        a ``CfgNode`` passed in as a parameter, an ``args`` parameter that is the parsed Namespace)."""
        if not (
            isinstance(key, ast.Constant) and isinstance(key.value, str) and CONFIG_KEY.fullmatch(key.value)
        ):
            return False
        if isinstance(value, ast.Call):
            return any(n.rpartition(".")[2] in CONFIG_CLASSES for n in self.src.callee(value)) or (
                last_name(value.func) in CONFIG_CLASSES
            )
        if not isinstance(value, ast.Name):
            return False
        return any(
            isinstance(n, ast.Attribute)
            and isinstance(n.ctx, ast.Load)
            and isinstance(n.value, ast.Name)
            and n.value.id == value.id
            and not n.attr.startswith("__")
            and n.attr not in self.DICT_METHODS
            and n.attr not in NOT_READS
            for n in own_nodes(self.src.function_or_module(save))
        )

    def saved_keys(self, obj: ast.expr, save: ast.Call) -> set[str] | None:
        """The string keys of a dict saved as ``obj`` when one of its values holds a config, else None: a
        dict literal, ``dict(...)``, or a name bound to one, plus ``name[key] = value`` in the function."""
        items: list[tuple[ast.expr | None, ast.expr]] = []
        dicts = [obj] if isinstance(obj, (ast.Dict, ast.Call)) else self.src.values(obj) or []
        for d in dicts:
            if isinstance(d, ast.Dict):
                items += [(k, v) for k, v in zip(d.keys, d.values, strict=True)]
            elif isinstance(d, ast.Call) and last_name(d.func) == "dict":
                items += [(ast.Constant(kw.arg), kw.value) for kw in d.keywords if kw.arg]
        name = dotted(obj)
        made = any(
            isinstance(d, ast.Dict) or (isinstance(d, ast.Call) and last_name(d.func) == "dict")
            for d in dicts
        )
        if name is not None and made:  # a dict bound to a name, and filled in afterwards
            items += keyed(self.src, self.src.function_or_module(save)).stores.get(name, [])
        if not any(self.holds_config(v) or self.config_object(k, v, save) for k, v in items):
            return None
        return {k.value for k, _ in items if isinstance(k, ast.Constant) and isinstance(k.value, str)}

    def reads(self, load: ast.Call, keys: set[str], paths: set[str]) -> bool:
        """The load reads the checkpoint: indexed with a saved key, or loading a saved path."""
        if load.args and ast.dump(load.args[0]) in paths:
            return True
        parent = self.src.parent(load)
        if isinstance(parent, ast.Subscript) and parent.value is load:
            return isinstance(parent.slice, ast.Constant) and parent.slice.value in keys
        if not (isinstance(parent, ast.Assign) and len(parent.targets) == 1 and parent.value is load):
            return False
        name = dotted(parent.targets[0])
        read = keyed(self.src, self.src.function_or_module(load)).reads.get(name, set()) if name else set()
        return not read.isdisjoint(keys)

    def args_entry(self, node: ast.AST, name: str | None) -> bool:
        """``node`` reads the ``"args"`` entry: ``<load>["args"]``, ``<name>["args"]``, ``<name>.get("args")``
        (``<load>`` itself where ``name`` is None)."""
        if isinstance(node, ast.Subscript) and isinstance(node.ctx, ast.Load):
            owner, key = node.value, node.slice
        elif method_call(node, "get") and node.args:  # type: ignore[union-attr]
            owner, key = node.func.value, node.args[0]  # type: ignore[union-attr]
        else:
            return False
        if not (
            isinstance(key, ast.Constant) and isinstance(key.value, str) and CONFIG_KEY.fullmatch(key.value)
        ):
            return False
        return dotted(owner) == name if name is not None else True

    def used_as_object(self, entry: ast.AST, depth: int = 0) -> bool:
        """The value ``entry`` is used as an object, not a dict: an attribute that no dict has, ``vars()`` of
        it, or a name bound once to it and used so."""
        parent = self.src.parent(entry)
        if isinstance(parent, ast.Attribute) and parent.value is entry:
            return not (
                parent.attr.startswith("__")
                or parent.attr in self.DICT_METHODS
                or parent.attr in TENSOR_ATTRS
            )
        if isinstance(parent, ast.Call) and last_name(parent.func) == "vars" and parent.args == [entry]:
            return True
        if (
            depth == 0
            and isinstance(parent, ast.Assign)
            and parent.value is entry
            and len(parent.targets) == 1
            and isinstance(parent.targets[0], ast.Name)
        ):
            target = parent.targets[0]
            scope = self.src.function_or_module(parent)
            if len(self.src.bindings.get(scope, {}).get(target.id, [])) != 1:
                return False
            return any(
                isinstance(n, ast.Name)
                and n.id == target.id
                and isinstance(n.ctx, ast.Load)
                and self.used_as_object(n, depth + 1)
                for n in own_nodes(scope)
            )
        return False

    def reads_args_object(self, load: ast.Call) -> bool:
        """The load's ``"args"`` entry is used as an object (see the class docstring)."""
        parent = self.src.parent(load)
        if self.args_entry(parent, None) and getattr(parent, "value", None) is load:
            return self.used_as_object(parent)  # type: ignore[arg-type]
        if not (isinstance(parent, ast.Assign) and len(parent.targets) == 1 and parent.value is load):
            return False
        name = dotted(parent.targets[0])
        if name is None:
            return False
        scope = self.src.function_or_module(load)
        if not any(
            isinstance(k, str) and CONFIG_KEY.fullmatch(k)
            for k in keyed(self.src, scope).reads.get(name, set())
        ):
            return False  # (decided from the scope's keyed reads, walked once)
        return any(self.args_entry(n, name) and self.used_as_object(n) for n in own_nodes(scope))

    def allow_listed(self, load: ast.Call) -> bool:
        for a in self.src.ancestors(load):
            if isinstance(a, (ast.With, ast.AsyncWith)) and any(
                isinstance(i.context_expr, ast.Call) and last_name(i.context_expr.func) == "safe_globals"
                for i in a.items
            ):
                return True
        at_module = self.src.function_or_module(load) is self.src.tree
        return any(
            not at_module or (a.lineno, a.col_offset) < (load.lineno, load.col_offset) for a in self.allowed
        )

    def finish(self) -> None:
        if not self.loads or "TORCH_FORCE_NO_WEIGHTS_ONLY_LOAD" in self.src.code:
            return
        if CONFIG_KEY_TEXT.search(self.src.code):
            objects = [load for load in self.loads if self.reads_args_object(load)]
            self.loads = [load for load in self.loads if load not in objects]
            for load in objects:
                if not self.allow_listed(load):
                    self.report(load)
        keys: set[str] = set()
        paths: set[str] = set()
        for save in self.saves:
            torch_save = self.src.calls(save, {"torch.save", "torch.serialization.save"})
            objs = (
                [get_arg(save, "obj", 0)]
                if torch_save
                else [*positional(save), *(k.value for k in save.keywords)]
            )
            for obj in objs:
                found = self.saved_keys(obj, save) if obj is not None else None
                if found is None:
                    continue
                keys |= found
                path = get_arg(save, "f", 1) if torch_save else None
                if path is not None:
                    paths.add(ast.dump(path))
        if not keys and not paths:
            return
        for load in self.loads:
            if self.reads(load, keys, paths) and not self.allow_listed(load):
                self.report(load)


# ============================================================================ 16 · error gallery
IMPORT_ERRORS = frozenset(
    {"ImportError", "ModuleNotFoundError", "AttributeError", "Exception", "BaseException"}
)


def binds(stmts: list[ast.stmt], names: Collection[str]) -> bool:
    """``stmts`` import, assign or define one of ``names``."""
    for s in stmts:
        for n in ast.walk(s):
            if isinstance(n, (ast.Import, ast.ImportFrom)):
                if any((a.asname or a.name.split(".")[0]) in names for a in n.names):
                    return True
            elif isinstance(n, ast.Name) and isinstance(n.ctx, ast.Store) and n.id in names:
                return True
            elif isinstance(n, (*FUNCTIONS, ast.ClassDef)) and n.name in names:
                return True
    return False


@rule(
    code="FNC034",
    name="torch-six",
    title="import of torch._six, removed in PyTorch 2.0",
    message='torch._six was removed in PyTorch 2.0: importing it raises ModuleNotFoundError "No module '
    "named 'torch._six'\" (torch._six.inf an AttributeError)",
    fix="replace the names: inf -> math.inf (or torch.inf), string_classes -> str, int_classes -> int, "
    "container_abcs -> collections.abc; or upgrade the library that imports it",
    claim="16-C56",
    demo="notebooks/16_error_gallery.ipynb",
)
class TorchSix(Rule):
    """``from torch._six import ...``, ``import torch._six``, ``from torch import _six`` and
    ``torch._six.<name>``; not as a fallback: in a ``try`` whose handler (``except ImportError``, ...)
    provides the names (or only passes), or under a version test (``if TORCH_VERSION < (1, 9):``) or an
    ``if`` whose other branch provides them."""

    def fallback(self, node: ast.AST, names: Collection[str]) -> bool:
        child = node
        for a in self.src.ancestors(node):
            if isinstance(a, ast.Try) and child in a.body:
                for h in a.handlers:
                    caught = h.type.elts if isinstance(h.type, ast.Tuple) else [h.type]
                    if h.type is None or any(last_name(t) in IMPORT_ERRORS for t in caught):
                        if binds(h.body, names) or all(isinstance(s, ast.Pass) for s in h.body):
                            return True
            elif isinstance(a, ast.If) and child is not a.test:
                if any("version" in (last_name(n) or "").lower() for n in ast.walk(a.test)):
                    return True
                if binds(a.orelse if child in a.body else a.body, names):
                    return True
            child = a
        return False

    def visit_Import(self, node: ast.Import) -> None:
        names = [
            a.asname or a.name.split(".")[0] for a in node.names if a.name.split(".")[:2] == ["torch", "_six"]
        ]
        if names and not self.fallback(node, names):
            self.report(node)

    def visit_ImportFrom(self, node: ast.ImportFrom) -> None:
        module = node.module or ""
        if node.level or not (
            module.split(".")[:2] == ["torch", "_six"]
            or (module == "torch" and any(a.name == "_six" for a in node.names))
        ):
            return
        if not self.fallback(node, [a.asname or a.name for a in node.names]):
            self.report(node)

    def visit_Attribute(self, node: ast.Attribute) -> None:
        if (
            node.attr != "_six"
            or not isinstance(node.ctx, ast.Load)
            or "torch._six" not in self.src.qnames(node)
        ):
            return
        stmt = self.src.enclosing(node, ast.stmt)
        targets = stmt.targets if isinstance(stmt, ast.Assign) else []
        names = {n.id for t in targets for n in ast.walk(t) if isinstance(n, ast.Name)}
        if not self.fallback(node, names):
            self.report(node)


@rule(
    code="FNC035",
    name="loss-data-index",
    title="loss.data[0] (PyTorch 0.3 code) on a 0-dim loss",
    message="since PyTorch 0.4 a reduced loss is a 0-dim tensor, and loss.data[0] raises IndexError "
    "'invalid index of a 0-dim tensor. Use `tensor.item()`'",
    fix="loss.item()",
    claim="16-C33",
    autofix="safe",
    demo="notebooks/16_error_gallery.ipynb",
)
class LossDataIndex(Rule):
    """``x.data[0]`` where ``x`` is a reduced loss: a call (or a name bound only to calls) of a loss function
    (``F.mse_loss(...)``) or of a criterion built from a ``torch.nn`` loss class (``criterion =
    nn.CrossEntropyLoss().cuda()``), with ``reduction`` absent, ``"mean"`` or ``"sum"`` and no legacy
    ``size_average``/``reduce``, or a whole-tensor ``.mean()``/``.sum()``; or a name with ``loss`` in it
    that the same function backpropagates with a bare ``x.backward()`` (only a one-element tensor can be).
    Also a call of a function of the same file (a notebook's cells are one module) whose every ``return``
    gives such a loss: its negation, its sum, difference, product or quotient with a number or another
    such loss, or a name last bound to one (RL-Adventure's ``loss = compute_td_loss(batch_size)`` then
    ``losses.append(loss.data[0])``, the function in another cell returning ``loss = (...).pow(2).mean()``).
    ``--fix`` writes ``x.item()`` where the loss is one of those calls: the index could only raise there."""

    @staticmethod
    def reduced(call: ast.Call) -> bool:
        """No ``reduction="none"``, and no legacy ``reduce=`` other than True (``size_average`` only picks
        mean or sum)."""
        reduction, legacy = get_arg(call, "reduction"), get_arg(call, "reduce")
        return (reduction is None or is_const(reduction, "mean") or is_const(reduction, "sum")) and (
            legacy is None or is_const(legacy, True)
        )

    def loss_call(self, node: ast.AST) -> bool:
        """``node`` calls a loss that returns a 0-dim tensor, or reduces a whole tensor to one
        (``out.pow(2).mean()``, ``x.sum()``: no ``dim``)."""
        if not isinstance(node, ast.Call) or has_star_args(node):
            return False
        if (method_call(node, "mean") or method_call(node, "sum")) and not node.args and not node.keywords:
            return True
        if self.src.calls(node, LOSS_FUNCTIONS):
            return self.reduced(node)
        makers = [node.func] if isinstance(node.func, ast.Call) else self.src.values(node.func)
        return bool(makers) and all(self.loss_maker(unchained(m)) for m in makers or [])

    def loss_maker(self, node: ast.AST | None) -> bool:
        """``node`` builds a reducing loss module: ``nn.MSELoss()``, ``nn.CrossEntropyLoss(weight)``."""
        return (
            isinstance(node, ast.Call)
            and any(LOSS_CLASS.fullmatch(n) and "Adaptive" not in n for n in self.src.callee(node))
            and len(positional(node)) <= 1
            and self.reduced(node)
        )

    def number(self, node: ast.AST) -> bool:
        """An int or float literal, or a name bound only to them (``num_quant = 51``)."""
        values = [node] if isinstance(node, ast.Constant) else self.src.values(node) or []
        return bool(values) and all(
            isinstance(v, ast.Constant) and type(v.value) in (int, float) for v in values
        )

    def zero_dim(self, node: ast.AST | None, at: ast.AST, depth: int = 0) -> bool:
        """``node``, evaluated at ``at``, is a 0-dim loss: a :meth:`loss_call`, its negation, arithmetic of it
        with numbers or other such losses, or a name whose last binding before ``at`` (in a block around
        it) is one."""
        if node is None or depth > 4:
            return False
        if isinstance(node, ast.UnaryOp) and isinstance(node.op, (ast.USub, ast.UAdd)):
            return self.zero_dim(node.operand, at, depth + 1)
        if isinstance(node, ast.BinOp) and isinstance(node.op, (ast.Add, ast.Sub, ast.Mult, ast.Div)):
            sides = [self.zero_dim(s, at, depth + 1) for s in (node.left, node.right)]
            return any(sides) and all(z or self.number(s) for z, s in zip(sides, (node.left, node.right)))
        if isinstance(node, ast.Name):
            last = bound_before(self.src, node.id, at)
            if last is None or last[1] is None or not in_block_around(self.src, last[0], at):
                return False
            return self.zero_dim(last[1], last[0], depth + 1)
        return self.loss_call(node)

    def returns_loss(self, call: ast.AST) -> bool:
        """``call`` calls a function of this file whose every ``return`` gives a 0-dim loss."""
        fn = local_def(self.src, call.func, ast.FunctionDef) if isinstance(call, ast.Call) else None
        if fn is None:
            return False
        returns = [n for n in own_nodes(fn) if isinstance(n, ast.Return)]
        if not returns or any(isinstance(n, (ast.Yield, ast.YieldFrom)) for n in own_nodes(fn)):
            return False
        return all(self.zero_dim(r.value, r) for r in returns)

    def backpropagated(self, base: ast.AST) -> bool:
        """``base``, a name with ``loss`` in it, is backpropagated with a bare ``backward()`` in its function
        (only a one-element tensor can be), or is an operand of a sum, difference, product or quotient that
        is (ssd.pytorch's ``loss = loss_l + loss_c`` then ``loss.backward()``: broadcasting never makes a
        result smaller than an operand, so each is one element too)."""
        name = dotted(base)
        if name is None or "loss" not in name.lower():
            return False
        nodes = list(own_nodes(self.src.function_or_module(base)))
        backed = {
            dotted(n.func.value)
            for n in nodes
            if method_call(n, "backward") and not n.args and not n.keywords
        }
        if name in backed:
            return True
        return any(
            isinstance(n, ast.Assign)
            and len(n.targets) == 1
            and dotted(n.targets[0]) in backed
            and isinstance(n.value, ast.BinOp)
            and name in self.operands(n.value)
            for n in nodes
        )

    @classmethod
    def operands(cls, node: ast.AST) -> set[str]:
        """The names a tree of ``+ - * /`` (and negation) combines: ``loss_l + 0.5 * loss_c``."""
        if isinstance(node, ast.BinOp) and isinstance(node.op, (ast.Add, ast.Sub, ast.Mult, ast.Div)):
            return cls.operands(node.left) | cls.operands(node.right)
        if isinstance(node, ast.UnaryOp) and isinstance(node.op, (ast.USub, ast.UAdd)):
            return cls.operands(node.operand)
        name = dotted(node)
        return {name} if name else set()

    def visit_Subscript(self, node: ast.Subscript) -> None:
        data = node.value
        if not (isinstance(node.ctx, ast.Load) and isinstance(data, ast.Attribute) and data.attr == "data"):
            return
        if int_value(node.slice) != 0:
            return
        base = data.value
        values = [base] if isinstance(base, ast.Call) else self.src.values(base)
        if values and all(self.loss_call(v) or self.returns_loss(v) for v in values):
            self.report(node, fixable=True)
        elif self.backpropagated(base):
            self.report(node)

    @staticmethod
    def fix(node: cst.CSTNode, data: Any) -> cst.CSTNode | None:
        import libcst as cst

        if not (isinstance(node, cst.Subscript) and isinstance(node.value, cst.Attribute)):
            return None
        item = cst.Attribute(value=node.value.value, attr=cst.Name("item"))
        return cst.Call(func=item, lpar=node.lpar, rpar=node.rpar)


#: The registry, in code order: what the site's rules page and ``fieldnotes rules --json`` show.
RULES: tuple[RuleInfo, ...] = tuple(REGISTRY[code] for code in sorted(REGISTRY))
