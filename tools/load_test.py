"""Load test: do the timing claims hold on a busy machine, as a reader's laptop is?

Usage: python tools/load_test.py [--runs 10] [--hogs 2] [NOTEBOOK ...]

Starts ``--hogs`` CPU-bound processes that compete for the cores, then executes each
notebook ``--runs`` times in a row with the project's own executor (a fresh kernel per
run, default torch threads: OMP_NUM_THREADS is unset, as in `make lab`). Nothing is
written to the notebooks. Without arguments it runs every notebook that times
something. Prints one line per run and a summary; exits 1 if any run failed.
"""

from __future__ import annotations

import argparse
import multiprocessing as mp
import os
import re
import sys
import time
from pathlib import Path

import nbformat

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))

from tools.execute import run_notebook  # noqa: E402
from tools.notebooks import ROOT, notebook_paths, read  # noqa: E402

TIMING_RE = re.compile(r"\b(time_fn|time_interleaved|perf_counter|timeit)\b")


def _hog(stop: mp.Event) -> None:  # type: ignore[valid-type]
    """Burn one core in pure Python until told to stop."""
    x = 0
    while not stop.is_set():
        for _ in range(100_000):
            x = (x * 1103515245 + 12345) & 0xFFFFFFFF


def timing_notebooks() -> list[Path]:
    """Notebooks whose code times something (their claims are the ones load can disturb)."""
    return [
        p
        for p in notebook_paths()
        if any(c.cell_type == "code" and TIMING_RE.search(c.source) for c in read(p).cells)
    ]


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("notebooks", nargs="*", type=Path, help="default: every notebook that times something")
    ap.add_argument("--runs", type=int, default=10, help="consecutive executions per notebook")
    ap.add_argument("--hogs", type=int, default=2, help="CPU-bound competing processes")
    args = ap.parse_args(argv)
    if args.runs < 1 or args.hogs < 0:
        ap.error("--runs must be >= 1 and --hogs >= 0")
    paths = [p.resolve() for p in args.notebooks] or timing_notebooks()
    missing = [str(p) for p in paths if not p.is_file()]
    if missing:
        ap.error(f"no such notebook: {', '.join(missing)}")
    os.environ.pop("OMP_NUM_THREADS", None)  # default threads, as a reader's kernel has

    stop = mp.Event()
    hogs = [mp.Process(target=_hog, args=(stop,), daemon=True) for _ in range(args.hogs)]
    for h in hogs:
        h.start()
    print(
        f"{args.hogs} CPU-bound processes competing; {args.runs} runs each of "
        f"{', '.join(p.name for p in paths)}",
        flush=True,
    )
    results: dict[str, list[tuple[bool, float, str]]] = {}
    try:
        for p in paths:
            for i in range(1, args.runs + 1):
                nb = nbformat.read(p, as_version=4)
                t0 = time.perf_counter()
                try:
                    run_notebook(nb)
                    ok, why = True, ""
                except Exception as exc:  # noqa: BLE001 - record and go on
                    ok, why = False, (str(exc).strip().splitlines() or [type(exc).__name__])[-1][:300]
                secs = time.perf_counter() - t0
                results.setdefault(p.name, []).append((ok, secs, why))
                print(
                    f"  {p.relative_to(ROOT)} run {i}/{args.runs}: {'pass' if ok else 'FAIL'} "
                    f"{secs:5.1f} s {why}",
                    flush=True,
                )
    finally:
        stop.set()
        for h in hogs:
            h.join(timeout=5)
            if h.is_alive():
                h.terminate()
    print("summary (passed/runs, median seconds):")
    failed = 0
    for name, rs in results.items():
        passed = sum(ok for ok, _, _ in rs)
        failed += len(rs) - passed
        secs = sorted(s for _, s, _ in rs)
        print(f"  {name}: {passed}/{len(rs)}, median {secs[len(secs) // 2]:.1f} s")
    return 1 if failed else 0


if __name__ == "__main__":
    sys.exit(main())
