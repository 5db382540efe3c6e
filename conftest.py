"""pytest configuration shared by every entry point (make test, plain `pytest --nbval notebooks/`)."""

import os
import sys

# Kernels started by nbval inherit this PATH: put the running interpreter's bin/ first so tools
# installed in the venv (e.g. `dot` from graphviz-pure) are found without activating it.
_bin = os.path.dirname(sys.executable)
if _bin not in os.environ.get("PATH", "").split(os.pathsep):
    os.environ["PATH"] = _bin + os.pathsep + os.environ.get("PATH", "")

# A notebook's kernel that dies at start-up (a port taken between jupyter_client's pick and the kernel's
# bind, with many kernels starting at once) is started again instead of failing every cell: tools/kernels.py.
try:
    import nbval.kernel
except ImportError:  # a run without nbval
    pass
else:
    from tools.kernels import retrying

    if not hasattr(nbval.kernel.start_new_kernel, "__wrapped__"):
        nbval.kernel.start_new_kernel = retrying(nbval.kernel.start_new_kernel, what="nbval kernel")


def pytest_collection_modifyitems(config, items):
    """Under xdist (`make test`: --dist loadfile --no-loadscope-reorder), the longest files first, so that
    the two workers finish together: the browser tests (one file, about half of one worker's time), then
    the notebooks by their median run time in the version records (a notebook without one: the mean of
    the others), then every other file in collection order. Items inside a file keep their order (nbval
    runs a notebook's cells in turn). xdist itself orders files by their number of tests, which started
    the browser file 80 s in, and one worker idled for the last 25 s. A run without xdist keeps the order
    it was given; a record that cannot be read leaves the notebooks in collection order (test_records
    reports it)."""
    if not hasattr(config, "workerinput"):
        return
    import statistics

    from tools.notebooks import load_records

    seconds: dict[str, list[float]] = {}
    try:
        for rec in load_records():
            if not rec.is_gpu:
                for stem, run in rec.notebooks.items():
                    if run.get("seconds"):
                        seconds.setdefault(stem, []).append(run["seconds"])
    except Exception:  # noqa: BLE001 - a malformed record must not stop the whole run
        seconds = {}
    medians = {stem: statistics.median(s) for stem, s in seconds.items()}
    unknown = statistics.mean(medians.values()) if medians else 0.0

    def weight(item) -> float:
        if item.get_closest_marker("browser"):
            return float("inf")
        if item.path.suffix == ".ipynb":
            return medians.get(item.path.stem, unknown)
        return 0.0

    first: dict = {}  # file -> (weight, position of its first item)
    for i, item in enumerate(items):
        first.setdefault(item.path, (weight(item), i))
    items.sort(key=lambda it: (-first[it.path][0], first[it.path][1]))
