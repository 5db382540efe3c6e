"""Rules of notebook 15 (saving and deployment): checkpoints.

``state_dict()`` of a DataParallel/DDP wrapper, ``torch.load(weights_only=False)``, the deprecated
TorchScript, and a checkpoint holding an ``argparse.Namespace`` (which ``weights_only=True`` refuses).
"""

from __future__ import annotations

import ast
import re
from typing import Any

from fieldnotes.check.base import (
    COMPREHENSIONS,
    Rule,
    Source,
    dotted,
    get_arg,
    has_star_args,
    is_const,
    is_self_attr,
    last_name,
    method_call,
    positional,
    rule,
)
from fieldnotes.check.rules.autograd import NOT_READS
from fieldnotes.check.rules.common import (
    FUNCTIONS,
    binding_scope,
    bound_before,
    dataclass,
    local_def,
    made_by,
    never_together,
    only_parameter,
    own_nodes,
    parsed_args,
    stores,
    unchained,
)

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
