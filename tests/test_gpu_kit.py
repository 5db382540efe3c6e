"""The GPU kit (tools/gpu_kit.py): its pinned contents follow the lock, and the one command's contract."""

from __future__ import annotations

import re
import subprocess
from pathlib import Path

import pytest

from tools import gpu_kit

ROOT = Path(__file__).resolve().parent.parent
RUN = ROOT / "tools" / "gpu" / "run.sh"


def test_kit_file_equals_the_closure_of_the_lock() -> None:
    """kit.txt is exactly what the lock's metadata says the device lacks (run `write` after `make lock`)."""
    assert gpu_kit.kit_pins() == gpu_kit.compute_kit(), "run: python tools/gpu_kit.py write"


def test_kit_pins_the_lock_versions_and_nothing_the_device_has() -> None:
    lock = gpu_kit.read_pins(gpu_kit.LOCK)
    kit = gpu_kit.kit_pins()
    device = gpu_kit.device_packages()
    assert {n: lock[n] for n in kit} == kit
    assert not set(kit) & set(device)
    for root in gpu_kit.ROOTS:  # every root is carried, or already on the device
        assert gpu_kit.normalise(root) in set(kit) | set(device)
    assert "torch" in device and "torch" not in kit  # the device's CUDA build is used as it is


def test_kit_contents_are_pinned() -> None:
    """What the kit must carry: the Jupyter/nbval stack, torchinfo, torchviz, a `dot`, opacus."""
    kit = gpu_kit.kit_pins()
    for name in ("nbval", "nbclient", "nbformat", "ipykernel", "jupyter-client", "pyzmq", "tornado"):
        assert name in kit
    for name in ("torchinfo", "torchviz", "graphviz", "graphviz-pure", "opacus"):
        assert name in kit
    assert 30 <= len(kit) <= 45, (
        f"the kit grew or shrank to {len(kit)} packages: check ROOTS and the device list"
    )


def test_markers_are_evaluated_for_the_device_python() -> None:
    # ipython needs exceptiongroup/typing_extensions only below some Python; on 3.12 neither is in the kit.
    assert "exceptiongroup" not in gpu_kit.kit_pins()
    assert "tomli" not in gpu_kit.kit_pins()


def test_read_pins_rejects_junk(tmp_path: Path) -> None:
    p = tmp_path / "x.txt"
    p.write_text("# comment\nfoo==1.0\nBar_Baz\n")
    assert gpu_kit.read_pins(p) == {"foo": "1.0", "bar-baz": None}
    p.write_text("foo>=1\n")
    with pytest.raises(ValueError, match="x.txt:1"):
        gpu_kit.read_pins(p)
    with pytest.raises(ValueError):
        gpu_kit.normalise("  ")


def test_wheel_name() -> None:
    assert gpu_kit.wheel_name(Path("jupyter_client-8.10.0-py3-none-any.whl")) == ("jupyter-client", "8.10.0")
    with pytest.raises(ValueError):
        gpu_kit.wheel_name(Path("foo.tar.gz"))


def test_check_reports_missing_stray_and_duplicate_wheels(tmp_path: Path) -> None:
    kit = gpu_kit.kit_pins()
    name, version = next(iter(kit.items()))
    (tmp_path / f"{name}-{version}-py3-none-any.whl").write_bytes(b"")
    (tmp_path / f"{name}-0.0.1-py3-none-any.whl").write_bytes(b"")
    (tmp_path / "stray-1.0-py3-none-any.whl").write_bytes(b"")
    problems = gpu_kit.check(tmp_path)
    assert any(p.startswith(f"two wheels of {name}") for p in problems)
    assert any(p == "not in the kit: stray==1.0" for p in problems)
    assert sum(p.startswith("missing ") for p in problems) >= len(kit) - 1
    with pytest.raises(ValueError):
        gpu_kit.download(tmp_path, python="3")


def test_tree_fits_the_transfer_limit_with_room_for_the_kit() -> None:
    # The wheels are about 21 MiB; the tree must leave them room (the device takes 64 MiB in all).
    assert gpu_kit.tree_bytes() < gpu_kit.TRANSFER_LIMIT - 30 * 2**20


def test_run_script_contract() -> None:
    """The one command: valid bash, its log written as it goes, the record and nbval, files in $OUT."""
    text = RUN.read_text()
    subprocess.run(["bash", "-n", str(RUN)], check=True)
    assert re.search(r'exec > >\(tee -a "\$OUT/gpu-run\.log"\)', text)  # a killed run leaves its log
    assert "tools/matrix.py --here" in text
    assert "--nbval" in text and "--dist loadfile" in text
    assert "--no-index" in text  # nothing can be fetched on the device
    for var in ("RECORD_TIMEOUT", "NBVAL_TIMEOUT"):  # each step bounded: room for a rerun
        assert var in text
