"""The GPU kit: the wheels a lent GPU machine lacks for our notebooks, and the checks that they travel.

    python tools/gpu_kit.py list       # the kit computed from the lock: what tools/gpu/kit.txt must hold
    python tools/gpu_kit.py write      # rewrite tools/gpu/kit.txt from the lock (after `make lock`)
    python tools/gpu_kit.py download   # (make gpu-kit) cp312 manylinux wheels of kit.txt into .whl/
    python tools/gpu_kit.py check      # .whl/ holds exactly kit.txt, and the tree plus .whl/ fit 64 MiB
    python tools/gpu_kit.py rehearse   # (make gpu-rehearsal) tools/gpu/run.sh here, the device's versions

The lent machine (the tool library's ``device`` entry) runs Python 3.12 with torch and many packages
(``tools/gpu/device-packages.txt``), reaches no registry, and takes at most 64 MiB of working tree and
carried files per call. The kit is the dependency closure of :data:`ROOTS` (what the notebooks and nbval
import) in the lock's versions, less every package the device already has; ``tools/gpu/run.sh`` installs
it there with ``pip install --no-index --no-deps --target``. The closure is read from the installed
distributions' metadata (the project's ``.venv``), with environment markers evaluated for CPython 3.12 on
x86-64 Linux, so a change of the lock that changes the kit makes ``tests/test_gpu_kit.py`` fail until
``write`` is run.
"""

from __future__ import annotations

import argparse
import importlib.metadata as im
import os
import re
import shutil
import subprocess
import sys
from pathlib import Path

from packaging.markers import Marker
from packaging.requirements import Requirement

ROOT = Path(__file__).resolve().parent.parent
GPU_DIR = ROOT / "tools" / "gpu"
KIT_FILE = GPU_DIR / "kit.txt"
DEVICE_FILE = GPU_DIR / "device-packages.txt"
WHEEL_DIR = ROOT / ".whl"
LOCK = ROOT / "requirements.txt"
#: The device tool's limit on what one call carries: the working tree and the carried paths together.
TRANSFER_LIMIT = 64 * 2**20

#: What the notebooks and the nbval run import beyond what the device has (its torch, numpy, matplotlib,
#: opencv, scipy, onnx*, safetensors, psutil, pytest, pytest-xdist … are used as they are there).
ROOTS = (
    "nbval",
    "nbclient",
    "nbformat",
    "ipykernel",
    "ipython",
    "torchinfo",
    "torchviz",
    "graphviz",
    "graphviz-pure",
    "opacus",
)
#: The device's interpreter, for evaluating environment markers (``python_version < "3.12"`` …).
DEVICE_ENV = {
    "python_version": "3.12",
    "python_full_version": "3.12.3",
    "implementation_name": "cpython",
    "platform_python_implementation": "CPython",
    "sys_platform": "linux",
    "os_name": "posix",
    "platform_system": "Linux",
    "platform_machine": "x86_64",
    "extra": "",
}
#: ``pip download`` platforms: the tags the device README lists, and manylinux_2_26 for pyzmq's wheels.
PLATFORMS = (
    "manylinux_2_28_x86_64",
    "manylinux_2_27_x86_64",
    "manylinux_2_26_x86_64",
    "manylinux_2_24_x86_64",
    "manylinux_2_17_x86_64",
    "manylinux2014_x86_64",
    "manylinux1_x86_64",
)


def normalise(name: str) -> str:
    """PEP 503 name: lower case, runs of ``-_.`` as one ``-``."""
    if not isinstance(name, str) or not name.strip():
        raise ValueError(f"a package name must be a non-empty string, got {name!r}")
    return re.sub(r"[-_.]+", "-", name.strip()).lower()


def read_pins(path: Path) -> dict[str, str | None]:
    """``name==version`` (or a bare name: version unknown) per line, ``#`` comments skipped."""
    pins: dict[str, str | None] = {}
    for n, raw in enumerate(path.read_text(encoding="utf-8").splitlines(), 1):
        line = raw.split("#", 1)[0].strip()
        if not line:
            continue
        m = re.fullmatch(r"([A-Za-z0-9][A-Za-z0-9_.-]*)(?:\s*==\s*([^\s;]+))?(?:\s*;.*)?", line)
        if not m:
            raise ValueError(f"{path.name}:{n}: expected 'name' or 'name==version', got {raw!r}")
        pins[normalise(m.group(1))] = m.group(2)
    return pins


def device_packages() -> dict[str, str | None]:
    """What the lent machine already has (name -> version, None where only the name is known)."""
    return read_pins(DEVICE_FILE)


def _requires(name: str) -> list[str]:
    """The names ``name`` needs on the device (its metadata's requirements whose markers hold there)."""
    try:
        reqs = im.distribution(name).requires or []
    except im.PackageNotFoundError:
        raise ValueError(
            f"{name} is not installed here: run `make setup` (the kit is read from .venv)"
        ) from None
    out = []
    for text in reqs:
        req = Requirement(text)
        if req.marker is not None and not Marker(str(req.marker)).evaluate(DEVICE_ENV):
            continue
        out.append(normalise(req.name))
    return out


def compute_kit(roots: tuple[str, ...] = ROOTS, have: set[str] | None = None) -> dict[str, str]:
    """The closure of ``roots`` less what the device has, each at the lock's version (name -> version)."""
    have = set(device_packages()) if have is None else {normalise(h) for h in have}
    pins = {k: v for k, v in read_pins(LOCK).items() if v}
    kit: dict[str, str] = {}
    todo = [normalise(r) for r in roots]
    while todo:
        name = todo.pop()
        if name in kit or name in have:
            continue
        if name not in pins:
            raise ValueError(f"{name} is needed on the device but not pinned in requirements.txt")
        kit[name] = pins[name]
        todo.extend(_requires(name))
    return dict(sorted(kit.items()))


def kit_pins() -> dict[str, str]:
    """The committed kit (tools/gpu/kit.txt)."""
    pins = read_pins(KIT_FILE)
    unpinned = [k for k, v in pins.items() if not v]
    if unpinned:
        raise ValueError(f"kit.txt must pin every package: {unpinned}")
    return {k: v for k, v in pins.items() if v}


def write_kit() -> Path:
    kit = compute_kit()
    header = (
        "# The GPU kit: what the lent GPU machine lacks for the notebooks and nbval (lock versions).\n"
        "# Generated by `python tools/gpu_kit.py write` (tests/test_gpu_kit.py keeps it equal to the lock).\n"
    )
    KIT_FILE.write_text(header + "".join(f"{k}=={v}\n" for k, v in kit.items()), encoding="utf-8")
    return KIT_FILE


def download(dest: Path = WHEEL_DIR, python: str = "3.12") -> list[Path]:
    """Fetch every kit wheel (manylinux x86-64 for CPython ``python``, no dependencies) into ``dest``;
    drop strays. A rehearsal on another Python fetches the same versions for its own ABI."""
    if not re.fullmatch(r"3\.\d+", python):
        raise ValueError(f"python must look like '3.12', got {python!r}")
    kit = kit_pins()
    dest.mkdir(exist_ok=True)
    cmd = [sys.executable, "-m", "pip", "download", "-q", "--disable-pip-version-check", "--no-deps"]
    cmd += ["--only-binary=:all:", "--python-version", python, "--implementation", "cp", "-d", str(dest)]
    for plat in PLATFORMS:
        cmd += ["--platform", plat]
    # pip warns about this machine's own index settings once per package: keep only its errors.
    res = subprocess.run([*cmd, *(f"{k}=={v}" for k, v in kit.items())], capture_output=True, text=True)
    if res.returncode:
        raise SystemExit(f"pip download failed:\n{res.stdout}{res.stderr}")
    for wheel in dest.glob("*.whl"):
        name, version = wheel_name(wheel)
        if kit.get(name) != version:
            wheel.unlink()  # a kit of an earlier lock: two versions of one package stop the install there
    return sorted(dest.glob("*.whl"))


def wheel_name(path: Path) -> tuple[str, str]:
    """(normalised name, version) from a wheel's file name (PEP 427)."""
    parts = path.name.split("-")
    if not path.name.endswith(".whl") or len(parts) < 5:
        raise ValueError(f"not a wheel file name: {path.name}")
    return normalise(parts[0]), parts[1]


#: What the notebooks use of the device's own packages (besides what the kit's closure needs of it): a
#: rehearsal installs these at the device's versions.
DEVICE_USED = (
    "torch",
    "numpy",
    "matplotlib",
    "opencv-python-headless",
    "scipy",
    "pillow",
    "psutil",
    "safetensors",
    "onnx",
    "onnx-ir",
    "onnxscript",
    "onnxruntime",
    "pytest",
    "pytest-xdist",
    "filelock",
    "setuptools",
)
REHEARSAL_DIR = (
    Path(os.environ.get("FIELDNOTES_MATRIX_DIR", Path.home() / ".cache" / "fieldnotes-matrix"))
    / "gpu-rehearsal"
)


def device_boundary() -> list[str]:
    """The device's own packages that the rehearsal must install: :data:`DEVICE_USED` and every device
    package a kit package requires (attrs for jsonschema, pytest for nbval …)."""
    device = device_packages()
    needed = {normalise(n) for n in DEVICE_USED}
    for name in kit_pins():
        needed |= {r for r in _requires(name) if r in device}
    return sorted(needed)


def _uv(*args: str) -> subprocess.CompletedProcess[str]:
    uv = Path(sys.executable).parent / "uv"
    return subprocess.run([str(uv), *args], capture_output=True, text=True, check=False)


def rehearse(env_dir: Path = REHEARSAL_DIR, out: Path = ROOT / "_build" / "gpu-rehearsal") -> int:
    """Build an environment like the device's (its torch, a CUDA build that runs on CPU here, and its
    versions of what the notebooks use), fetch the kit for that Python, and run tools/gpu/run.sh there.

    This machine has only Python 3.11 (no registry here serves a 3.12 interpreter), so the rehearsal runs
    3.11 with the kit's same versions built for it; a device version with no 3.11 wheel (numpy 2.5) is
    replaced by the lock's, and the substitution is printed."""
    if env_dir.resolve().is_relative_to(ROOT):
        raise ValueError("keep the rehearsal environment outside the repository")
    device, lock = device_packages(), read_pins(LOCK)
    py = env_dir / "bin" / "python"
    if not py.exists():
        res = _uv("venv", "-q", "--python", sys.executable, str(env_dir))
        if res.returncode:
            raise SystemExit(res.stderr)
    reqs, substituted = [], []
    for name in device_boundary():
        version = device.get(name)
        if (
            version
            and _uv("pip", "install", "--dry-run", "--python", str(py), f"{name}=={version}").returncode
        ):
            substituted.append(f"{name} {version} -> {lock.get(name) or 'any'}")
            version = lock.get(name)
        reqs.append(f"{name}=={version}" if version else name)
    print("rehearsal environment:", " ".join(reqs), flush=True)
    if substituted:
        print("  not installable on this Python, the lock's version instead:", "; ".join(substituted))
    res = _uv("pip", "install", "-q", "--python", str(py), "pip", *reqs)
    if res.returncode:
        raise SystemExit(f"could not build the rehearsal environment:\n{res.stderr}")
    wheels = env_dir / "kit-wheels"
    shutil.rmtree(wheels, ignore_errors=True)
    version = subprocess.run(
        [str(py), "-c", "import sys; print(f'{sys.version_info[0]}.{sys.version_info[1]}')"],
        capture_output=True,
        text=True,
        check=True,
    ).stdout.strip()
    download(wheels, python=version)
    shutil.rmtree(out, ignore_errors=True)
    env = {
        **os.environ,
        "OUT": str(out),
        "FIELDNOTES_PYTHON": str(py),
        "KIT_WHEELS": str(wheels),
        "FIELDNOTES_KIT_DIR": str(env_dir / "kit"),
    }
    env.pop("VIRTUAL_ENV", None)
    return subprocess.run(["bash", str(GPU_DIR / "run.sh")], env=env, check=False).returncode


def tree_bytes() -> int:
    """Bytes of what a device call sends besides carried paths: tracked and untracked, not ignored."""
    out = subprocess.run(
        ["git", "ls-files", "-z", "--cached", "--others", "--exclude-standard"],
        cwd=ROOT,
        capture_output=True,
        check=True,
    ).stdout
    files = (ROOT / p for p in out.decode().split("\0") if p)
    return sum(f.stat().st_size for f in files if f.is_file() and not f.is_symlink())


def check(dest: Path = WHEEL_DIR) -> list[str]:
    """Problems with the downloaded kit (empty when it is complete, exact, and fits the transfer limit)."""
    kit = kit_pins()
    wheels = sorted(dest.glob("*.whl")) if dest.is_dir() else []
    have = {}
    problems = []
    for w in wheels:
        name, version = wheel_name(w)
        if name in have:
            problems.append(f"two wheels of {name}: {have[name]} and {version}")
        have[name] = version
        if "cp312" not in w.name and "py3" not in w.name and "abi3" not in w.name:
            problems.append(f"{w.name} is not for CPython 3.12")
    for name, version in kit.items():
        if have.get(name) != version:
            problems.append(f"missing {name}=={version} (have {have.get(name, 'none')})")
    problems += [f"not in the kit: {n}=={v}" for n, v in have.items() if n not in kit]
    total = tree_bytes() + sum(w.stat().st_size for w in wheels)
    if total > TRANSFER_LIMIT:
        problems.append(f"tree + kit = {total / 2**20:.1f} MiB, over the device's {TRANSFER_LIMIT >> 20} MiB")
    return problems


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("action", choices=["list", "write", "download", "check", "rehearse"])
    ap.add_argument("--python", default="3.12", help="download: the Python the wheels are for (a rehearsal)")
    ap.add_argument("--dest", type=Path, default=WHEEL_DIR, help="download: where the wheels go")
    args = ap.parse_args(argv)
    if args.action == "list":
        for k, v in compute_kit().items():
            print(f"{k}=={v}")
        return 0
    if args.action == "rehearse":
        return rehearse()
    if args.action == "write":
        print(f"wrote {write_kit().relative_to(ROOT)}")
        return 0
    if args.action == "download":
        wheels = download(args.dest, args.python)
        size = sum(w.stat().st_size for w in wheels)
        print(f"{len(wheels)} wheels in {args.dest}/ ({size / 2**20:.1f} MiB)")
        if args.dest.resolve() != WHEEL_DIR.resolve():
            return 0
    problems = check()
    for p in problems:
        print("kit:", p)
    if not problems:
        size = tree_bytes() + sum(w.stat().st_size for w in WHEEL_DIR.glob("*.whl"))
        print(f"kit complete: tree + kit = {size / 2**20:.1f} MiB of the device's {TRANSFER_LIMIT >> 20} MiB")
    return 1 if problems else 0


if __name__ == "__main__":
    sys.exit(main())
