"""Unit tests for helpers/cuda_errors.py (notebook 12, C33 and C34; notebook 08, C19).

They run on CPU.
"""

import pickle
import subprocess

import pytest
import torch
from torch.utils.data import DataLoader

from helpers.cuda_errors import SquaresOn, marked_lines, no_failure, where_it_fails


def test_items_are_squares_on_the_device_asked_for():
    ds = SquaresOn(4, device="cpu")
    assert len(ds) == 4 and ds.device == torch.device("cpu")
    items = [ds[i] for i in range(4)]
    assert all(t.dtype == torch.float32 and t.shape == () and t.device.type == "cpu" for t in items)
    assert [t.item() for t in items] == [0.0, 1.0, 4.0, 9.0]
    assert ds[torch.tensor(3)].item() == 9.0


def test_building_for_cuda_does_not_touch_cuda():
    ds = SquaresOn(2)  # the default device is cuda; only the name is parsed
    assert ds.device == torch.device("cuda") and len(ds) == 2


@pytest.mark.parametrize("bad", [0, -1, 2.0, True])
def test_validates_length(bad):
    with pytest.raises(ValueError, match="positive int"):
        SquaresOn(bad, device="cpu")


def test_checks_its_index_and_device_name():
    with pytest.raises(IndexError, match="out of range"):
        SquaresOn(2, device="cpu")[2]
    with pytest.raises(RuntimeError):
        SquaresOn(2, device="nonsense")


@pytest.mark.skipif(torch.cuda.is_available(), reason="checks the machine without CUDA")
def test_a_cuda_item_fails_without_cuda():
    # CPU-only build: AssertionError 'Torch not compiled with CUDA enabled'; CUDA build without a
    # driver or device: RuntimeError. Either way the item is never made on the CPU instead.
    with pytest.raises((AssertionError, RuntimeError)):
        SquaresOn(1)[0]


def test_pickles_by_module_path():
    # what spawn/forkserver workers need: the pickle names the class by module path, not its code
    data = pickle.dumps(SquaresOn(3, device="cpu"))
    assert b"helpers.cuda_errors" in data and b"SquaresOn" in data
    copy = pickle.loads(data)
    assert type(copy) is SquaresOn and (copy.n, copy.device) == (3, torch.device("cpu"))


def test_loads_in_a_spawned_worker():
    loader = DataLoader(
        SquaresOn(4, device="cpu"), batch_size=2, num_workers=1, multiprocessing_context="spawn", timeout=120
    )
    assert [b.tolist() for b in loader] == [[0.0, 1.0], [4.0, 9.0]]


# where_it_fails / marked_lines (notebook 08, C19) ---------------------------------

OUT_OF_RANGE = """\
import sys
import torch
import torch.nn.functional as F

logits = torch.zeros(4, 3, device=sys.argv[1])
target = torch.tensor([0, 1, 2, 3], device=sys.argv[1])
loss = F.cross_entropy(logits, target)  # LOSS
print("loss", loss.item())  # ITEM
"""


def test_marked_lines_counts_from_one():
    assert marked_lines(OUT_OF_RANGE, "LOSS", "ITEM") == {"LOSS": 7, "ITEM": 8}
    assert marked_lines("a = 1  # A   \n", "A") == {"A": 1}  # trailing blanks ignored


@pytest.mark.parametrize(
    ("script", "marks"),
    [
        ("x = 1\n", ("LOSS",)),
        ("x = 1  # A\ny = 2  # A\n", ("A",)),
        ("x = 1  # A\n", ()),
    ],
)
def test_marked_lines_wants_each_mark_on_exactly_one_line(script, marks):
    with pytest.raises(ValueError):
        marked_lines(script, *marks)


def test_marked_lines_validates_its_inputs():
    with pytest.raises(TypeError):
        marked_lines(b"x = 1  # A", "A")
    with pytest.raises(ValueError):
        marked_lines("x = 1  # A", "")


def test_reports_the_line_that_raised_on_the_cpu():
    report, _ = where_it_fails(OUT_OF_RANGE, "cpu")
    assert report["line"] == marked_lines(OUT_OF_RANGE, "LOSS")["LOSS"]
    assert report["type"] == "IndexError" and not report["runtime_error"]
    assert report["first"] == "Target 3 is out of bounds." == report["message"]
    assert not report["device_side"] and not report["async_hint"]


def test_a_script_that_runs_gets_the_full_no_error_report():
    report, stderr = where_it_fails("import sys\nprint(sys.argv[1:])\n", "a", "b")
    assert report == no_failure() and set(report) == set(no_failure())
    assert report["type"] == "no error" and report["line"] is None and stderr == ""


def test_innermost_frame_in_the_script_and_the_message_flags():
    script = (
        "def inner():\n"
        "    raise RuntimeError('CUDA error: device-side assert triggered\\n'\n"
        "                       'might be asynchronously reported')\n"
        "inner()  # CALL\n"
    )
    report, _ = where_it_fails(script)
    assert report["line"] == 2 and report["type"] == "RuntimeError"
    assert report["runtime_error"]
    assert report["first"] == "CUDA error: device-side assert triggered"
    assert report["device_side"] and report["async_hint"]
    # an error raised outside the script's own lines still names the script's last line
    report, _ = where_it_fails("import json\njson.loads('{')  # HERE\n")
    assert report["line"] == 2 and report["type"] == "JSONDecodeError"


@pytest.mark.parametrize("blocking", [False, True])
def test_sets_cuda_launch_blocking_only_when_asked(blocking, monkeypatch):
    monkeypatch.setenv("CUDA_LAUNCH_BLOCKING", "inherited")  # never passed on
    script = "import os\nraise KeyError(os.getenv('CUDA_LAUNCH_BLOCKING', 'unset'))\n"
    report, _ = where_it_fails(script, blocking=blocking)
    assert report["first"] == ("'1'" if blocking else "'unset'")


def test_returns_the_scripts_stderr():
    _, stderr = where_it_fails("import sys\nsys.stderr.write('kernel says no')\n")
    assert stderr == "kernel says no"


@pytest.mark.parametrize("leave", ["import sys\nsys.exit(3)", "import os\nos._exit(0)"])
def test_no_report_is_an_error(leave):
    with pytest.raises(RuntimeError, match="no report"):
        where_it_fails(leave)


def test_timeout():
    with pytest.raises(subprocess.TimeoutExpired):
        where_it_fails("import time\ntime.sleep(30)\n", timeout=1)


@pytest.mark.parametrize(
    ("args", "kwargs", "exc"),
    [
        (("",), {}, ValueError),
        ((b"x = 1",), {}, ValueError),
        (("x = 1", 0), {}, TypeError),
        (("x = 1",), {"blocking": 1}, TypeError),
        (("x = 1",), {"timeout": 0}, ValueError),
        (("x = 1",), {"timeout": True}, ValueError),
        (("x = 1",), {"timeout": "60"}, ValueError),
    ],
)
def test_where_it_fails_validates_its_inputs(args, kwargs, exc):
    with pytest.raises(exc):
        where_it_fails(*args, **kwargs)
