"""Record a GPU verification run for the site's claim ledger (GPU column).

Run on a CUDA machine after `make test` passed there:

    .venv/bin/python tools/record_gpu.py --out site/verification

Executes each notebook on a temporary copy (the stored notebooks are never modified), collects
the claims that printed a ledger line (GPU-only claims included, since CUDA is present), and
writes site/verification/<date>-<device>.json. Commit that file; `make site` shows it.
"""

from __future__ import annotations

import argparse
import datetime as dt
import json
import os
import re
import sys
import time
from pathlib import Path

import nbformat
from nbclient import NotebookClient

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))
os.environ["PATH"] = os.path.dirname(sys.executable) + os.pathsep + os.environ.get("PATH", "")

from tools.notebooks import ledger, notebook_paths  # noqa: E402


def main() -> int:
    import torch

    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--out", type=Path, default=ROOT / "site" / "verification")
    ap.add_argument("--allow-cpu", action="store_true", help="record even without CUDA (for testing the tool)")
    args = ap.parse_args()
    if not torch.cuda.is_available() and not args.allow_cpu:
        print("no CUDA device: nothing to record (use --allow-cpu to test the tool)", file=sys.stderr)
        return 2
    device = torch.cuda.get_device_name(0) if torch.cuda.is_available() else "cpu"
    record = {"date": dt.date.today().isoformat(), "torch": torch.__version__, "cuda": torch.version.cuda,
              "device": device, "device_count": torch.cuda.device_count(), "notebooks": {}}
    for path in notebook_paths():
        nb = nbformat.read(path, as_version=4)
        t0 = time.perf_counter()
        try:
            NotebookClient(nb, timeout=900, kernel_name="python3", resources={"metadata": {"path": str(path.parent)}},
                           record_timing=False, extra_arguments=["--IPKernelApp.log_level=ERROR"]).execute()
            status = "pass"
        except Exception as exc:  # noqa: BLE001 - a failing notebook is recorded, not fatal
            status = f"fail: {type(exc).__name__}: {str(exc).strip().splitlines()[-1][:200]}"
        claims = [e.cid for e in ledger(nb)]
        record["notebooks"][path.stem] = {"status": status, "seconds": round(time.perf_counter() - t0, 1),
                                          "claims": claims}
        print(f"{path.stem:32} {status[:60]:60} {len(claims)} claims")
    args.out.mkdir(parents=True, exist_ok=True)
    slug = re.sub(r"[^a-z0-9]+", "-", device.lower()).strip("-")
    out = args.out / f"{record['date']}-{slug}.json"
    out.write_text(json.dumps(record, indent=1) + "\n", encoding="utf-8")
    print("wrote", out.relative_to(ROOT) if out.is_relative_to(ROOT) else out)
    return 0 if all(v["status"] == "pass" for v in record["notebooks"].values()) else 1


if __name__ == "__main__":
    sys.exit(main())
