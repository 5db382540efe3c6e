"""Build the static site: plain `sphinx-build` on site/ (site/conf.py loads this package, the extension
that generates the pages). Used by `make site` and the browser tests, so both
exercise exactly the command the README gives; prints the time taken.

A build whose inputs have not changed since the last successful one is skipped: the inputs are every file
of the checkout that git sees (tracked, or untracked and not ignored; the tests excepted), the Python that
runs the build with the version of every package installed in it, and SOURCE_DATE_EPOCH, hashed into
``_build/html.inputs`` after a build succeeds. Every Sphinx run into that folder deletes the stamp first
(the extension, at ``builder-inited``), so a plain ``sphinx-build`` in between is never taken for this
build. A fresh clone, or any edit, builds in full (Sphinx's own incremental build re-reads everything
here: the generated pages depend on data that Sphinx does not track). ``--force`` builds regardless."""

from __future__ import annotations

import argparse
import hashlib
import importlib.metadata
import os
import subprocess
import sys
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]
HTML = ROOT / "_build" / "html"


def stamp_path(out: Path) -> Path:
    """Where the inputs of the build in ``out`` are stamped: beside it (``_build/html.inputs``), not in the
    published folder."""
    return out.parent / f"{out.name}.inputs"


def inputs_digest(root: Path = ROOT) -> str | None:
    """SHA-256 of what a build reads: the Python (its version and prefix), every installed package and its
    version, SOURCE_DATE_EPOCH, then every file git lists in ``root`` (tracked, or untracked and not
    ignored) except ``tests/``, each as its path and its bytes (a link as its target). None where git
    cannot list the files (not a checkout, no git): then every build runs."""
    try:
        listed = subprocess.run(
            ["git", "-C", str(root), "ls-files", "-z", "--cached", "--others", "--exclude-standard"],
            capture_output=True,
            check=True,
        ).stdout
    except (OSError, subprocess.CalledProcessError):
        return None
    packages = sorted(f"{d.metadata['Name']}=={d.version}" for d in importlib.metadata.distributions())
    context = [sys.version, sys.prefix, os.environ.get("SOURCE_DATE_EPOCH", ""), *packages]
    digest = hashlib.sha256("\n".join(context).encode())
    for name in sorted(set(listed.split(b"\0")) - {b""}):
        if name.startswith(b"tests/"):
            continue
        path = root / os.fsdecode(name)
        if path.is_symlink():
            data = b"-> " + os.fsencode(os.readlink(path))
        else:  # a deleted, still tracked file counts as missing
            data = path.read_bytes() if path.is_file() else b"<missing>"
        for part in (name, data):
            digest.update(len(part).to_bytes(8, "big") + part)
    return digest.hexdigest()


def build(strict: bool = False, out: Path = HTML, force: bool = False) -> int:
    """``sphinx-build -b html site OUT``; ``strict`` turns warnings into errors (and reports them all).
    Skipped (returns 0) when ``out`` holds a build of the same inputs that succeeded at least as strictly,
    unless ``force``."""
    t0 = time.perf_counter()
    digest = inputs_digest()
    stamp = stamp_path(out)
    wanted = {f"{digest} strict"} | ({f"{digest} lenient"} if not strict else set())
    if digest and not force and stamp.is_file() and stamp.read_text(encoding="utf-8") in wanted:
        print(f"site up to date (its inputs have not changed since its last build): {out / 'index.html'}")
        return 0
    stamp.unlink(missing_ok=True)  # a build that fails leaves no stamp behind
    cmd = [sys.executable, "-m", "sphinx", "-b", "html", "-q", str(ROOT / "site"), str(out)]
    if strict:
        cmd += ["-W", "--keep-going"]
    if subprocess.run(cmd).returncode:
        print("site build FAILED", file=sys.stderr)
        return 1
    if digest and digest == inputs_digest():  # an edit made during the build is not stamped as built
        stamp.write_text(f"{digest} {'strict' if strict else 'lenient'}", encoding="utf-8")
    print(f"site built in {time.perf_counter() - t0:.1f} s: {out / 'index.html'}")
    return 0


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--strict", action="store_true", help="turn Sphinx warnings into errors")
    ap.add_argument("--force", action="store_true", help="build even when the inputs have not changed")
    args = ap.parse_args(argv)
    return build(strict=args.strict, force=args.force)


if __name__ == "__main__":
    sys.exit(main())
