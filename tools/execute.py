"""Execute notebooks with nbclient and store outputs + verification metadata.

Usage: python tools/execute.py [--all] [NOTEBOOK ...]

By default only notebooks whose sources changed since their last execution are
run (a hash of every cell's source and tags is kept in the notebook metadata).
Figures are written to figures/ during execution only (FIELDNOTES_SAVE_FIGURES=1).
"""

from __future__ import annotations

import argparse
import atexit
import datetime as dt
import os
import platform
import sys
import time
from pathlib import Path

import nbformat
from nbclient import NotebookClient

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))

from tools.kernels import retrying  # noqa: E402
from tools.notebooks import NB_DIR, ROOT, ledger, metadata, source_hash, stamp_metadata  # noqa: E402

# The kernel inherits PATH: make the venv's tools (e.g. `dot`) visible without activating it.
os.environ["PATH"] = os.path.dirname(sys.executable) + os.pathsep + os.environ.get("PATH", "")


#: A cell that runs longer than SLOW_S seconds must follow a markdown cell containing SLOW_MARK.
SLOW_S = 10.0
SLOW_MARK = "⏱"


def slow_cells_without_notice(nb: nbformat.NotebookNode) -> list[tuple[int, float]]:
    """(index, seconds) of code cells that ran > SLOW_S s with no SLOW_MARK note in the markdown above."""
    out = []
    for i, cell in enumerate(nb.cells):
        ex = cell.get("metadata", {}).get("execution", {})
        start, end = ex.get("iopub.execute_input"), ex.get("shell.execute_reply")
        if cell.cell_type != "code" or not (start and end):
            continue
        secs = (
            dt.datetime.fromisoformat(end.replace("Z", "+00:00"))
            - dt.datetime.fromisoformat(start.replace("Z", "+00:00"))
        ).total_seconds()
        above = next((c for c in reversed(nb.cells[:i]) if c.cell_type == "markdown"), None)
        if secs > SLOW_S and not (above is not None and SLOW_MARK in above.source):
            out.append((i, secs))
    return out


def device_label() -> str:
    import torch

    return f"cuda ({torch.cuda.get_device_name(0)})" if torch.cuda.is_available() else "cpu"


def run_notebook(nb: nbformat.NotebookNode, timeout: int = 600, allow_errors: bool = False) -> None:
    """Execute ``nb`` in place with the project's kernel settings (also used by tools/load_test.py). A
    kernel that dies at start-up is started again (tools/kernels.py); no cell has run then. Its stderr is
    this process's own (the run's log), so the retry log names the attempt only."""
    retrying(_run_once, what="notebook kernel")(nb, timeout, allow_errors)


def _run_once(nb: nbformat.NotebookNode, timeout: int, allow_errors: bool) -> None:
    client = NotebookClient(
        nb,
        timeout=timeout,
        kernel_name="python3",
        allow_errors=allow_errors,
        resources={"metadata": {"path": str(NB_DIR)}},
        # read for the slow-cell check, then removed by execute() (they would churn diffs)
        record_timing=True,
        # one stdout (stderr) output per cell, its chunks joined exactly: a line printed in two chunks (a
        # flush between them) stays one line (myst-nb's own merge would add a newline between chunks)
        coalesce_streams=True,
        # ipykernel 7 logs a TCP-transport warning to the terminal; it says nothing about the notebook.
        # xmode=Minimal stores an error as "Type: message" only: tracebacks would publish this
        # machine's install paths (nbval ignores tracebacks; interactive runs keep full ones).
        extra_arguments=["--IPKernelApp.log_level=ERROR", "--InteractiveShell.xmode=Minimal"],
    )
    try:
        client.execute()
    except RuntimeError:
        # nbclient registers its kernel cleanup at exit before the start can fail, and a failed start has
        # already cleaned up: that handler would then fail at exit (an AssertionError per failed start)
        atexit.unregister(client._cleanup_kernel)
        raise


def execute(path: Path, timeout: int) -> tuple[float, int]:
    import torch

    nb = nbformat.read(path, as_version=4)
    env_before = os.environ.get("FIELDNOTES_SAVE_FIGURES")
    os.environ["FIELDNOTES_SAVE_FIGURES"] = "1"
    t0 = time.perf_counter()
    try:
        run_notebook(nb, timeout)
    finally:
        if env_before is None:
            os.environ.pop("FIELDNOTES_SAVE_FIGURES", None)
        else:
            os.environ["FIELDNOTES_SAVE_FIGURES"] = env_before
    seconds = time.perf_counter() - t0
    for i, cell_seconds in slow_cells_without_notice(nb):
        print(
            f"\n    warning: cell {i} ran {cell_seconds:.0f} s; say so before it starts "
            f"(a markdown cell above it with '{SLOW_MARK}' and the expected time)",
            end="",
        )
    for cell in nb.cells:
        cell.metadata.pop("execution", None)
    stamp_metadata(
        nb, seconds, torch_version=torch.__version__, python=platform.python_version(), device=device_label()
    )
    nbformat.write(nb, path)
    return seconds, len(ledger(nb))


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("notebooks", nargs="*", type=Path, help="notebooks to run (default: changed ones)")
    ap.add_argument("--all", action="store_true", help="re-execute every notebook")
    ap.add_argument("--timeout", type=int, default=600, help="per-cell timeout in seconds")
    args = ap.parse_args(argv)

    paths = [p.resolve() for p in args.notebooks] or sorted(NB_DIR.glob("[0-9][0-9]_*.ipynb"))
    missing = [p for p in paths if not p.is_file()]
    if missing:
        ap.error(f"no such notebook: {', '.join(map(str, missing))}")
    if not args.all and not args.notebooks:
        todo = []
        for p in paths:
            nb = nbformat.read(p, as_version=4)
            if metadata(nb).get("source_hash") != source_hash(nb):
                todo.append(p)
        skipped = len(paths) - len(todo)
        if skipped:
            print(f"{skipped} notebook(s) unchanged since their last execution (use ALL=1 to force)")
        paths = todo
    if not paths:
        print("nothing to execute")
        return 0
    failed = 0
    for i, p in enumerate(paths, 1):
        rel = p.relative_to(ROOT)
        print(f"[{i}/{len(paths)}] {rel} ...", end=" ", flush=True)
        try:
            seconds, n_claims = execute(p, args.timeout)
        except Exception as exc:  # noqa: BLE001 - report and continue with the others
            failed += 1
            print(f"FAILED\n    {type(exc).__name__}: {str(exc).strip().splitlines()[-1][:300]}")
            continue
        print(f"{seconds:5.1f} s, {n_claims} claims verified")
    if failed:
        print(f"{failed} notebook(s) failed; their files were left unchanged")
    return 1 if failed else 0


if __name__ == "__main__":
    sys.exit(main())
