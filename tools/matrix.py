"""Which torch versions each claim holds on: run every notebook under other torch releases.

    python tools/matrix.py 2.11.0 2.15.0          # or: make matrix TORCH="2.11.0 2.15.0"
    python tools/matrix.py --here                 # record the running interpreter (a GPU runner, say)

For each version: an isolated environment outside the repository (``$FIELDNOTES_MATRIX_DIR``, default
``~/.cache/fieldnotes-matrix/torch-X.Y.Z``; reused when present, ``--drop`` deletes it after its record
is written) gets ``torch==X.Y.Z`` and the lock's other pins (``requirements.txt``). Where the lock's pins
cannot run with that torch (the releases built against NumPy 1.x), it retries with ``numpy<2`` and
unpinned others, and the record lists every package that differs from the lock. A package whose lock
version needs a newer torch than it declares gets an older version there (``UNDECLARED_TORCH``: opacus).
The pinned version itself runs in the project's own ``.venv``.

Every notebook is executed on a copy (the stored notebooks are never written) with the same executor
as ``make execute`` (:func:`tools.execute.run_notebook`), continuing past failing cells, and the
result of each claim (pass / fail with the error / not reached / skipped), and which cells printed
outputs other than the stored ones where nbval compares them (``output_mismatches``), go into
``site/verification/<label>.json`` (:class:`tools.notebooks.VerificationRecord`).
"""

from __future__ import annotations

import argparse
import concurrent.futures as cf
import datetime as dt
import importlib.metadata as im
import os
import platform
import re
import shutil
import subprocess
import sys
import time
from pathlib import Path

import nbformat
from packaging.requirements import Requirement

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))

from tools.gpu_kit import read_pins  # noqa: E402
from tools.notebooks import (  # noqa: E402
    RECORD_DIR,
    ROOT,
    VerificationRecord,
    claim_results,
    notebook_paths,
    output_mismatches,
    read,
    scrub_paths,
    skipped_claim_outputs,
    source_hash,
    version_key,
)

LOCK = ROOT / "requirements.txt"
DEFAULT_DIR = Path(os.environ.get("FIELDNOTES_MATRIX_DIR", Path.home() / ".cache" / "fieldnotes-matrix"))
VERSION_RE = re.compile(r"^\d+\.\d+\.\d+$")
#: Replaces the lock's setuptools pin: torch.utils.cpp_extension imports setuptools, and up to torch 2.1
#: its pkg_resources, which setuptools 81 removed (the record lists the difference from the lock).
SETUPTOOLS = "setuptools<81"


def lock_pins() -> dict[str, str]:
    """Package name (normalised) -> pinned version, from requirements.txt."""
    return {name: version for name, version in read_pins(LOCK).items() if version}


def pinned_torch() -> str:
    return lock_pins()["torch"]


def differing_pins() -> dict[str, str]:
    """Packages installed here whose version differs from the lock (torch excluded)."""
    out = {}
    for name, want in lock_pins().items():
        if name == "torch":
            continue
        try:
            have = im.version(name)
        except im.PackageNotFoundError:
            have = "absent"
        if have != want:
            out[name] = f"{have} (lock: {want})"
    return out


# ------------------------------------------------------------------ running inside one environment
def _execute_one(path: str, jobs: int) -> tuple[str, str | None, float]:
    """Execute a copy of one notebook (in a worker process); return (executed JSON, failure, seconds)."""
    from tools.execute import run_notebook  # noqa: PLC0415 - a worker imports lazily

    if jobs > 1:
        os.environ["OMP_NUM_THREADS"] = "1"  # as `make test`: JOBS workers x 2 threads oversubscribe 2 cores
    nb = read(Path(path))
    t0 = time.perf_counter()
    failure = None
    try:
        run_notebook(nb, timeout=600, allow_errors=True)
    except Exception as exc:  # noqa: BLE001 - a dead kernel or a timeout is recorded, not fatal
        failure = scrub_paths(f"{type(exc).__name__}: {' '.join(str(exc).split())}")[:200]
    return nbformat.writes(nb), failure, time.perf_counter() - t0


def record_here(
    asked: str | None,
    jobs: int,
    out_dir: Path,
    only: list[str] | None = None,
    save_executed: Path | None = None,
) -> VerificationRecord:
    """Run every notebook with this interpreter's torch and write its verification record (and, with
    ``save_executed``, each executed copy there: what a failing cell printed on a GPU runner)."""
    import torch  # noqa: PLC0415

    version = torch.__version__.split("+")[0]
    if asked and version != asked:
        raise SystemExit(f"asked for torch {asked} but this interpreter has {torch.__version__}")
    cuda = torch.cuda.is_available()
    device = torch.cuda.get_device_name(0) if cuda else "cpu"
    slug = "cpu" if not cuda else "cuda-" + re.sub(r"[^a-z0-9]+", "-", device.lower()).strip("-")
    rec = VerificationRecord(
        label=f"torch-{version}-{slug}",
        torch=version,
        device=device,
        date=dt.date.today().isoformat(),
        python=platform.python_version(),
        pins=differing_pins(),
        build=torch.__version__ + (f", CUDA {torch.version.cuda}" if torch.version.cuda else ""),
    )
    paths = [p for p in notebook_paths() if not only or any(p.name.startswith(o) for o in only)]
    t0 = time.perf_counter()
    print(
        f"torch {torch.__version__} · Python {rec.python} · {device} · {len(paths)} notebooks, "
        f"{jobs} at a time",
        flush=True,
    )
    with cf.ProcessPoolExecutor(max_workers=jobs) as pool:
        futures = {pool.submit(_execute_one, str(p), jobs): p for p in paths}
        for n, fut in enumerate(cf.as_completed(futures), 1):
            path = futures[fut]
            text, failure, seconds = fut.result()
            run = nbformat.reads(text, as_version=4)
            if save_executed is not None:
                save_executed.mkdir(parents=True, exist_ok=True)
                (save_executed / path.name).write_text(text, encoding="utf-8")
            results = claim_results(read(path), run, failure)
            rec.set_results(path.stem, results)
            if cuda:  # what the GPU-guarded cells printed: the page shows it under the cell
                rec.outputs[path.stem] = skipped_claim_outputs(read(path), run)
            errors = sum(
                1 for c in run.cells for o in c.get("outputs", []) if o.get("output_type") == "error"
            )
            differ = output_mismatches(read(path), run)
            rec.notebooks[path.stem] = {
                "seconds": round(seconds, 1),
                "failure": failure,
                "error_cells": errors,
                "source_hash": source_hash(read(path)),
                "output_mismatches": differ,
            }
            tally = {k: sum(r.result == k for r in results.values()) for k in ("pass", "fail", "not reached")}
            print(
                f"  [{n:2}/{len(paths)}] {path.stem:34} {seconds:5.1f} s  {tally['pass']:3} ✔  "
                f"{tally['fail']:2} ✘  {tally['not reached']:2} not reached  "
                f"{len(differ):2} outputs differ" + (f"  ({failure})" if failure else ""),
                flush=True,
            )
    rec.seconds = round(time.perf_counter() - t0, 1)
    if only:
        only = [o for o in only if o]
        existing = out_dir / f"{rec.label}.json"
        if not existing.is_file():
            print("(a partial run and no record to update: nothing written)")
            return rec
        # Update the named notebooks in the existing record, keep the others.
        old = VerificationRecord.from_json(existing.read_text(encoding="utf-8"))
        old.notebooks.update(rec.notebooks)
        old.claims.update(rec.claims)
        old.outputs.update(rec.outputs)
        old.date, old.pins, old.build, old.python = rec.date, rec.pins, rec.build, rec.python
        old.seconds = round(sum(v["seconds"] for v in old.notebooks.values()) / max(jobs, 1), 1)
        rec = old
    path = rec.save(out_dir)
    print(
        f"wrote {path.relative_to(ROOT) if path.is_relative_to(ROOT) else path}: {rec.counts()} "
        f"in {rec.seconds:.0f} s",
        flush=True,
    )
    return rec


# ------------------------------------------------------------------ building environments
def _uv() -> list[str]:
    exe = shutil.which("uv", path=os.path.dirname(sys.executable)) or shutil.which("uv")
    if not exe:
        raise SystemExit("uv not found: run `make setup` (it is in the lock)")
    return [exe]


def _python311() -> str:
    """The interpreter the project's venv was made from (Python 3.11 here)."""
    return str(Path(sys.base_prefix) / "bin" / f"python{sys.version_info.major}.{sys.version_info.minor}")


def _probe(py: Path) -> str | None:
    """None when torch imports and talks to NumPy without a warning; else what went wrong."""
    code = (
        "import warnings; warnings.simplefilter('error'); import torch, numpy; "
        "torch.from_numpy(numpy.zeros(2)); torch.zeros(2).numpy(); print(torch.__version__)"
    )
    res = subprocess.run([str(py), "-c", code], capture_output=True, text=True, check=False)
    if res.returncode == 0:
        return None
    return (res.stderr.strip().splitlines() or ["exit %d" % res.returncode])[-1][:300]


LOCK_PINS = "the lock's pins"
TORCH_DEPS_FREE = "the lock's pins, torch's own dependencies unpinned"
FALLBACK = "numpy<2, other packages unpinned"
#: What torch itself pins (torch 2.5 and 2.6 require sympy==1.13.1): the second try leaves them unpinned.
TORCH_DEPS = {
    "filelock",
    "typing-extensions",
    "typing_extensions",
    "sympy",
    "mpmath",
    "networkx",
    "jinja2",
    "fsspec",
}


#: Packages whose lock version needs a newer torch than it declares: name -> (the first torch release it runs
#: on, what an older torch gets instead). opacus 1.5.4 registers a grad sampler for nn.RMSNorm (new in torch
#: 2.4) yet requires only torch>=2.0 (meta-pytorch/opacus#769): `import opacus` fails on torch 2.0-2.3, and
#: notebook 03 with it; 1.5.3 imports there. The record lists the difference from the lock.
UNDECLARED_TORCH = {"opacus": ("2.4", "opacus<1.5.4")}


def _name(requirement: str) -> str:
    """The package a requirement line names (``opacus==1.6.0`` -> ``opacus``)."""
    return Requirement(requirement).name


def _requirements(version: str, how: str) -> list[str]:
    """What an environment for ``version`` installs: the lock with this torch, or the NumPy 1.x fallback;
    a package of UNDECLARED_TORCH gets its older spec where this torch is too old for the lock's version."""
    others = [
        ln
        for ln in LOCK.read_text().splitlines()
        if ln and not ln.startswith(("#", "torch==", "setuptools=="))
    ]
    for name, (release, spec) in UNDECLARED_TORCH.items():
        if version_key(version) < version_key(release):
            others = [spec if _name(ln).lower() == name else ln for ln in others]
    if how == TORCH_DEPS_FREE:
        kept = [ln for ln in others if _name(ln).lower() not in TORCH_DEPS]
        names = [_name(ln) for ln in others if ln not in kept]
        return [f"torch=={version}", *kept, *names, SETUPTOOLS]
    if how == FALLBACK:
        kept = {spec for _, spec in UNDECLARED_TORCH.values()}
        names = [ln if ln in kept else _name(ln) for ln in others]
        return [f"torch=={version}", "numpy<2", *(n for n in names if n.lower() != "numpy"), SETUPTOOLS]
    return [f"torch=={version}", *others, SETUPTOOLS]


def _install(py: Path, req: Path, lines: list[str], log) -> bool:
    req.write_text("\n".join(lines) + "\n")
    cmd = [*_uv(), "pip", "install", "--python", str(py), "-r", str(req)]
    return subprocess.run(cmd, stdout=log, stderr=log, check=False).returncode == 0


def build_env(version: str, base: Path, log) -> tuple[Path | None, str]:
    """Create the environment for ``version``, or bring a cached one up to the current lock (a no-op when it
    already matches); return (its python, how it was pinned), or (None, why it cannot run)."""
    env = base / f"torch-{version}"
    py = env / "bin" / "python"
    ready = env / ".fieldnotes-ready"
    req = env / "requirements-matrix.txt"
    t0 = time.perf_counter()
    if ready.is_file():
        how = ready.read_text().strip()
        if _install(py, req, _requirements(version, how), log) and not _probe(py):
            return py, how
        print("    the cached environment no longer installs cleanly: rebuilding it", flush=True)
    shutil.rmtree(env, ignore_errors=True)
    subprocess.run(
        [*_uv(), "venv", "-q", "--python", _python311(), str(env)], check=True, stdout=log, stderr=log
    )
    how = LOCK_PINS
    ok = _install(py, req, _requirements(version, how), log)
    problem = _probe(py) if ok else "could not install with the lock's pins"
    if problem and not ok:
        print(f"    {problem}; retrying with torch's own dependencies unpinned", flush=True)
        how = TORCH_DEPS_FREE
        ok = _install(py, req, _requirements(version, how), log)
        problem = _probe(py) if ok else "could not install with torch's own dependencies unpinned"
    if problem:
        print(f"    {problem}; retrying with numpy<2 and the other packages unpinned", flush=True)
        how = FALLBACK
        if not _install(py, req, _requirements(version, how), log):
            return None, f"could not install: see {log.name}"
        problem = _probe(py)
        if problem:
            return None, f"torch {version} does not run here: {problem}"
    # As `make setup`: `import helpers` from any directory, and torchviz's `dot` from graphviz-pure.
    purelib = subprocess.run(
        [str(py), "-c", "import sysconfig; print(sysconfig.get_paths()['purelib'])"],
        capture_output=True,
        text=True,
        check=True,
    ).stdout.strip()
    Path(purelib, "fieldnotes.pth").write_text(str(ROOT) + "\n")
    dot = env / "bin" / "dot"
    if not dot.exists():
        dot.symlink_to("graphviz-pure")
    ready.write_text(how + "\n")
    print(
        f"    installed in {time.perf_counter() - t0:.0f} s ({how}); {_size(env) / 2**30:.1f} GiB", flush=True
    )
    return py, how


def _size(path: Path) -> int:
    return sum(f.stat().st_size for f in path.rglob("*") if f.is_file() and not f.is_symlink())


def _record_at(path: Path) -> VerificationRecord | None:
    """The record saved at ``path``; None where there is none."""
    return VerificationRecord.from_json(path.read_text(encoding="utf-8")) if path.is_file() else None


def stale_notebooks(record: Path) -> list[str] | None:
    """Notebooks (stems) whose record entry ran other sources than the notebook has now; None: no record."""
    rec = _record_at(record)
    if rec is None:
        return None
    return [
        p.stem
        for p in notebook_paths()
        if rec.notebooks.get(p.stem, {}).get("source_hash") != source_hash(read(p))
    ]


def run_version(
    version: str,
    base: Path,
    jobs: int,
    drop: bool,
    out_dir: Path,
    install_only: bool = False,
    only: list[str] | None = None,
    stale: bool = False,
) -> int:
    print(f"== torch {version}", flush=True)
    if stale:
        only = stale_notebooks(out_dir / f"torch-{version}-cpu.json")
        if only is not None and not only:
            print("    its record is current: nothing to run", flush=True)
            return 0
        print(f"    re-running {', '.join(only) if only else 'everything (no record yet)'}", flush=True)
    if version == pinned_torch():
        print("    the pinned version: the project's own environment", flush=True)
        py = Path(sys.executable)
    else:
        base.mkdir(parents=True, exist_ok=True)
        with open(base / f"torch-{version}.log", "a") as log:
            py, how = build_env(version, base, log)
        if py is None:
            previous = _record_at(out_dir / f"torch-{version}-cpu.json")
            if previous is not None and previous.notebooks:
                # a failed install (a full disk, a registry down) must not replace the results of a real run
                print(f"    {how}; the record of the last run is kept", flush=True)
                return 1
            rec = VerificationRecord(
                label=f"torch-{version}-cpu",
                torch=version,
                device="cpu",
                date=dt.date.today().isoformat(),
                status=how,
            )
            print(f"    {how}; recorded as such", flush=True)
            rec.save(out_dir)
            return 1
    if install_only:
        return 0
    env = {**os.environ, "PATH": f"{py.parent}{os.pathsep}{os.environ.get('PATH', '')}"}
    env.pop("VIRTUAL_ENV", None)
    res = subprocess.run(
        [
            str(py),
            str(Path(__file__).resolve()),
            "--here",
            "--torch",
            version,
            "--jobs",
            str(jobs),
            "--out",
            str(out_dir),
            *(["--only", *only] if only else []),
        ],
        env=env,
        check=False,
    )
    if drop and py != Path(sys.executable):
        shutil.rmtree(base / f"torch-{version}", ignore_errors=True)
        print(f"    removed {base / f'torch-{version}'}", flush=True)
    prune_cache()
    return res.returncode


def prune_cache() -> None:
    """``uv cache prune``: uv keeps a new build of an sdist-only package (jieba, ~130 MB) for every
    environment it installs it into, and the cache kept them all. Measured 2026-12-01: 16 GB of jieba
    builds filled the disk in the middle of a 16-release run (every later install failed); pruning keeps
    the build in use and takes a few seconds."""
    subprocess.run(
        [*_uv(), "cache", "prune", "--quiet"],
        check=False,
        stdout=subprocess.DEVNULL,
        stderr=subprocess.DEVNULL,
    )


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("versions", nargs="*", help="torch versions, e.g. 2.11.0 2.15.0")
    ap.add_argument("--here", action="store_true", help="record the running interpreter's torch")
    ap.add_argument("--torch", help="with --here: the version that must be installed")
    ap.add_argument("--jobs", type=int, default=2, help="notebooks run at a time (default 2)")
    ap.add_argument("--dir", type=Path, default=DEFAULT_DIR, help=f"where environments live ({DEFAULT_DIR})")
    ap.add_argument("--drop", action="store_true", help="delete each environment once its record is written")
    ap.add_argument("--out", type=Path, default=RECORD_DIR, help="where records are written")
    ap.add_argument(
        "--stale", action="store_true", help="re-run only notebooks changed since each version's record"
    )
    ap.add_argument("--install-only", action="store_true", help="build the environments, run nothing")
    ap.add_argument(
        "--only",
        nargs="*",
        help="notebook prefixes to run (e.g. 02 16): updates those notebooks in an existing record",
    )
    ap.add_argument("--save-executed", type=Path, help="with --here: keep each executed notebook there")
    args = ap.parse_args(argv)
    if args.jobs < 1:
        ap.error("--jobs must be >= 1")
    if args.here:
        rec = record_here(args.torch, args.jobs, args.out, args.only, args.save_executed)
        return 0 if rec.counts()["fail"] == 0 else 1
    if not args.versions:
        ap.error("name at least one torch version (e.g. 2.15.0), or --here")
    bad = [v for v in args.versions if not VERSION_RE.match(v)]
    if bad:
        ap.error(f"versions must look like 2.15.0 (the newest patch of a minor), got {bad}")
    if args.dir.resolve().is_relative_to(ROOT):
        ap.error("keep matrix environments outside the repository (--dir)")
    failed = [
        v
        for v in args.versions
        if run_version(v, args.dir, args.jobs, args.drop, args.out, args.install_only, args.only, args.stale)
    ]
    print(
        f"== {len(args.versions) - len(failed)}/{len(args.versions)} versions without a failing claim"
        + (f"; with failures: {' '.join(failed)}" if failed else "")
    )
    return 0


if __name__ == "__main__":
    sys.exit(main())
