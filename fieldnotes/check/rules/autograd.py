"""Rules of notebook 02 (autograd).

``torch.autograd.Variable`` and ``volatile``, in-place updates through ``.data``, and a tensor converted
after ``requires_grad=True`` (the result is no leaf).
"""

from __future__ import annotations

import ast
import re

from fieldnotes.check.base import Rule, dotted, get_arg, is_const, is_self_attr, last_name, method_call, rule
from fieldnotes.check.rules.common import FUNCTIONS, dataclass, unchained
from fieldnotes.check.rules.tensors import CONVERSIONS_KEEPING, RANDOM_INIT_METHODS


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
