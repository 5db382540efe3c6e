"""Rules of notebook 01 (tensors): how tensors are built and laid out.

The deprecated default tensor type, the legacy constructor ``torch.Tensor(...)`` given a size or an
array, and ``view`` right after a transpose or permute.
"""

from __future__ import annotations

import ast
from typing import TYPE_CHECKING, Any

from fieldnotes.check.base import (
    Rule,
    get_arg,
    has_star_args,
    int_value,
    is_constant_number,
    last_name,
    method_call,
    positional,
    rule,
)
from fieldnotes.check.rules.common import (
    FUNC,
    binding_scope,
    bound_before,
    in_block_around,
    own_nodes,
    renamed_method,
)

if TYPE_CHECKING:
    import libcst as cst


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
