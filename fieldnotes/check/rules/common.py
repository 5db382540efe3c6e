"""Helpers the rules share: LibCST rewrites and the data flow of real code.

``nn_classes`` and the LibCST helpers (``keyword_arg``, ``unwrapped``, ``renamed_method``) that fixes
use, and what a rule needs to follow a value a few steps (:class:`Index`, :func:`made_by`,
:func:`assigned`, :func:`call_sites`, :func:`guarded_by`, :func:`local_config_default`, ...).
"""

from __future__ import annotations

import ast
from collections.abc import Callable, Collection, Iterator
from typing import TYPE_CHECKING, Any

from fieldnotes.check.base import (
    Source,
    dotted,
    get_arg,
    has_star_args,
    int_value,
    is_self_attr,
    last_name,
    method_call,
    positional,
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
