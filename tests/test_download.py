"""A notebook downloaded from the site runs where the project is not installed (Colab, a fresh directory).

Not a browser test: it needs no built site (the download is the repository's file, which the browser tests
check byte for byte), so it runs in parallel with them under xdist.
"""

from __future__ import annotations

import json
import shutil
from pathlib import Path

import pytest

from tools.notebooks import ledger, read


def test_downloaded_notebook_runs_in_a_fresh_directory(tmp_path):
    """A downloaded notebook, run outside the repository by a Python that cannot import `helpers`: its setup
    cell installs the project (here from a wheel built from this checkout, named by FIELDNOTES_INSTALL, as
    Colab installs it from the repository URL) and every claim holds. Without the setup cell's install the
    same notebook stops at `import helpers` (the counterfactual)."""
    import os
    import subprocess
    import sys
    import sysconfig

    import nbformat
    from jupyter_client.kernelspec import KernelSpecManager
    from jupyter_client.manager import KernelManager
    from nbclient import NotebookClient
    from nbclient.exceptions import CellExecutionError

    root = Path(__file__).resolve().parent.parent
    name = "05_dropout.ipynb"
    nb_file = tmp_path / "reader" / name
    nb_file.parent.mkdir()
    # the site serves the repository's file byte for byte (test_site_browser checks it): read it from here
    nb_file.write_bytes((root / "notebooks" / name).read_bytes())
    # the project as a wheel, built from a copy (a build in the checkout would leave build/ behind)
    src = tmp_path / "src"
    for package in ("helpers", "fieldnotes"):
        shutil.copytree(root / package, src / package, ignore=shutil.ignore_patterns("__pycache__"))
    for f in ("pyproject.toml", "README.md"):
        shutil.copy(root / f, src / f)
    wheels = tmp_path / "wheels"
    env = {**os.environ, "PIP_DISABLE_PIP_VERSION_CHECK": "1", "PIP_NO_INDEX": "1"}
    subprocess.run(
        [sys.executable, "-m", "pip", "wheel", "-q", "--no-deps", "--no-build-isolation", "-w", wheels, src],
        check=True,
        env=env,
    )
    wheel = next(wheels.glob("pytorch_field_notes-*.whl"))
    # a fresh Python: the project's packages (torch, ipykernel, pip, …) but not its .pth that finds
    # `helpers`; without a pip of its own (ensurepip cost 3 of the test's 10 s): the setup cell's
    # `python -m pip` is the project's, and installs into the fresh environment (the Python it runs in)
    fresh = tmp_path / "env"
    subprocess.run([sys.executable, "-m", "venv", "--without-pip", fresh], check=True)
    purelib = subprocess.run(
        [fresh / "bin" / "python", "-c", "import sysconfig; print(sysconfig.get_paths()['purelib'])"],
        capture_output=True,
        text=True,
        check=True,
    ).stdout.strip()
    Path(purelib, "project_packages.pth").write_text(sysconfig.get_paths()["purelib"] + "\n")
    probe = subprocess.run(
        [fresh / "bin" / "python", "-c", "import torch, helpers"], capture_output=True, cwd=nb_file.parent
    )
    assert b"No module named 'helpers'" in probe.stderr, "the fresh Python must not find helpers"
    pip = subprocess.run([fresh / "bin" / "python", "-m", "pip", "--version"], capture_output=True)
    assert pip.returncode == 0, f"the fresh Python finds no pip through the project's packages: {pip.stderr}"
    spec = tmp_path / "kernels" / "fresh"
    spec.mkdir(parents=True)
    argv = [str(fresh / "bin" / "python"), "-m", "ipykernel_launcher", "-f", "{connection_file}"]
    (spec / "kernel.json").write_text(
        json.dumps({"argv": argv, "display_name": "fresh", "language": "python"})
    )

    def run(install: str | None) -> nbformat.NotebookNode:
        km = KernelManager(
            kernel_name="fresh",
            kernel_spec_manager=KernelSpecManager(kernel_dirs=[str(tmp_path / "kernels")]),
        )
        nb = nbformat.read(nb_file, as_version=4)
        client = NotebookClient(nb, km=km, timeout=300, resources={"metadata": {"path": str(nb_file.parent)}})
        extra = {"FIELDNOTES_INSTALL": install} if install else {}
        return client.execute(env={**env, "OMP_NUM_THREADS": "1", **extra})

    with pytest.raises(CellExecutionError, match="No module named 'helpers'"):
        run(None)
    done = run(str(wheel))
    assert [e.cid for e in ledger(done)] == [e.cid for e in ledger(read(root / "notebooks" / name))]
    assert not (nb_file.parent / "figures").exists()


# ---------------------------------------------------------------------------------------- reading
