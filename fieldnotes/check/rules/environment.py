"""Rules of notebook 00 (environment): seeding and reproducibility.

DataLoader workers that share a random generator or a constant seed, cudnn flag typos, worker seeds too
large for NumPy, and PYTHONHASHSEED set at runtime.
"""

from __future__ import annotations

import ast
import difflib
import re
from typing import TYPE_CHECKING, Any

from fieldnotes.check.base import Rule, Source, get_arg, is_constant_number, is_self_attr, last_name, rule
from fieldnotes.check.rules.common import FUNCTIONS, assigned

if TYPE_CHECKING:
    import libcst as cst


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
