"""pytest configuration shared by every entry point (make test, plain `pytest --nbval notebooks/`)."""

import os
import sys

# Kernels started by nbval inherit this PATH: put the running interpreter's bin/ first so tools
# installed in the venv (e.g. `dot` from graphviz-pure) are found without activating it.
_bin = os.path.dirname(sys.executable)
if _bin not in os.environ.get("PATH", "").split(os.pathsep):
    os.environ["PATH"] = _bin + os.pathsep + os.environ.get("PATH", "")


def pytest_collection_modifyitems(config, items):
    """Longest files first, so that `make test`'s two workers (xdist --dist loadfile, with
    --no-loadscope-reorder) finish together: the browser tests (one file, about half of one
    worker's time), then the notebooks by their median run time in the version records, then
    every other file in collection order. Items inside a file keep their order (nbval runs a
    notebook's cells in turn). Without this xdist orders files by their number of tests, which
    started the browser file 80 s in, and one worker idled for the last 25 s."""
    import statistics
    from pathlib import Path

    from tools.notebooks import load_records

    seconds: dict[str, list[float]] = {}
    for rec in load_records():
        if not rec.is_gpu:
            for stem, run in rec.notebooks.items():
                if run.get("seconds"):
                    seconds.setdefault(stem, []).append(run["seconds"])

    def weight(item) -> float:
        path = Path(str(item.fspath))
        if item.get_closest_marker("browser"):
            return float("inf")
        if path.suffix == ".ipynb":
            return statistics.median(seconds.get(path.stem, [0.0]))
        return 0.0

    first = {}  # file -> (weight, position of its first item)
    for i, item in enumerate(items):
        first.setdefault(str(item.fspath), (weight(item), i))
    items.sort(key=lambda it: (-first[str(it.fspath)][0], first[str(it.fspath)][1]))
