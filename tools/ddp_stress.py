"""Stress test for notebook 13: N consecutive 2-rank DDP runs inside ONE Jupyter kernel.

    python tools/ddp_stress.py [--runs 50]

A green notebook run proves little for multiprocessing: worker exits can abort at random
(about 1 run in 40 before helpers.ddp ended workers with os._exit). This executes the
notebook's spawn path repeatedly in a real kernel (nbclient) and reports failures and time.
"""

from __future__ import annotations

import argparse
import json
import sys
import time
from pathlib import Path

import nbformat
from nbclient import NotebookClient

ROOT = Path(__file__).resolve().parent.parent

CELL = """
import json, time
from helpers import ddp
jobs = [("train", {}), ("init_broadcast", {}), ("layerdrop", {"mode": "find_unused"})]
outcomes, times = [], []
for i in range(RUNS):
    t0 = time.perf_counter()
    try:
        res = ddp.run("batch", jobs=jobs, join_timeout_s=60)
        outcomes.append("ok" if all(status == "ok" for status, _ in res) else f"worker error: {res}")
    except Exception as exc:
        outcomes.append(f"{type(exc).__name__}: {exc}")
    times.append(time.perf_counter() - t0)
print(json.dumps({"outcomes": outcomes, "times": times}))
"""


def main() -> int:
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--runs", type=int, default=50)
    args = ap.parse_args()
    nb = nbformat.v4.new_notebook(cells=[nbformat.v4.new_code_cell(CELL.replace("RUNS", str(args.runs)))])
    t0 = time.perf_counter()
    NotebookClient(
        nb,
        timeout=args.runs * 90,
        kernel_name="python3",
        resources={"metadata": {"path": str(ROOT)}},
        extra_arguments=["--IPKernelApp.log_level=ERROR"],
    ).execute()
    text = "".join(o.get("text", "") for o in nb.cells[0].outputs if o.get("name") == "stdout")
    data = json.loads(text.strip().splitlines()[-1])
    failures = [(i, o) for i, o in enumerate(data["outcomes"]) if o != "ok"]
    times = sorted(data["times"])
    passed, runs = len(data["outcomes"]) - len(failures), len(data["outcomes"])
    print(
        f"{passed}/{runs} consecutive runs passed in one kernel; "
        f"median {times[len(times) // 2]:.2f} s per run, max {times[-1]:.2f} s; "
        f"total {time.perf_counter() - t0:.0f} s"
    )
    for i, o in failures[:10]:
        print(f"  run {i}: {o}")
    return 1 if failures else 0


if __name__ == "__main__":
    sys.exit(main())
