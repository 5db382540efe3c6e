"""Build the static site: plain `sphinx-build` on site/ (site/conf.py loads this package, the extension
that generates the pages). Used by `make site` and the browser tests, so both
exercise exactly the command the README gives; prints the time taken."""

from __future__ import annotations

import argparse
import subprocess
import sys
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]
HTML = ROOT / "_build" / "html"


def build(strict: bool = False, out: Path = HTML) -> int:
    """``sphinx-build -b html site OUT``; ``strict`` turns warnings into errors (and reports them all)."""
    t0 = time.perf_counter()
    cmd = [sys.executable, "-m", "sphinx", "-b", "html", "-q", str(ROOT / "site"), str(out)]
    if strict:
        cmd += ["-W", "--keep-going"]
    if subprocess.run(cmd).returncode:
        print("site build FAILED", file=sys.stderr)
        return 1
    print(f"site built in {time.perf_counter() - t0:.1f} s: {out / 'index.html'}")
    return 0


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description=__doc__)
    ap.add_argument("--strict", action="store_true", help="turn Sphinx warnings into errors")
    return build(strict=ap.parse_args(argv).strict)


if __name__ == "__main__":
    sys.exit(main())
