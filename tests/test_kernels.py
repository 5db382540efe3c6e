"""tools/kernels.py: a kernel that died at start-up is started again, and the failure is logged."""

from __future__ import annotations

import nbval.kernel
import pytest

from tools.kernels import DIED_AT_STARTUP, died_at_startup, retrying


def flaky(failures: int, message: str = DIED_AT_STARTUP):
    """A start-up call that fails ``failures`` times (writing to the stderr it is given), then succeeds."""
    calls = []

    def start(name, stderr=None):
        calls.append(stderr)
        if len(calls) <= failures:
            if stderr is not None:
                stderr.write(b"zmq.error.ZMQError: Address already in use (addr='tcp://127.0.0.1:1')\n")
                stderr.flush()
            raise RuntimeError(message)
        return f"started {name}"

    return start, calls


def test_a_kernel_that_died_at_startup_is_started_again_and_logged(tmp_path, monkeypatch):
    log = tmp_path / "kernels.log"
    monkeypatch.setenv("FIELDNOTES_KERNEL_LOG", str(log))
    start, calls = flaky(2)
    assert retrying(start, tries=3, what="nbval kernel")("python3", stderr=None) == "started python3"
    assert len(calls) == 3 and all(c is not None for c in calls)  # a file in place of nbval's devnull
    lines = log.read_text().splitlines()
    assert [ln.split(" ", 1)[1] for ln in lines if "attempt" in ln] == [
        "nbval kernel: attempt 1 died at start-up",
        "nbval kernel: attempt 2 died at start-up",
    ]
    assert sum("Address already in use" in ln for ln in lines) == 2


def test_the_last_failure_and_other_errors_propagate(tmp_path, monkeypatch):
    monkeypatch.delenv("FIELDNOTES_KERNEL_LOG", raising=False)
    start, calls = flaky(3)
    with pytest.raises(RuntimeError, match=DIED_AT_STARTUP):
        retrying(start, tries=3)("python3")
    assert len(calls) == 3
    start, calls = flaky(1, "Kernel didn't respond in 60 seconds")
    with pytest.raises(RuntimeError, match="didn't respond"):
        retrying(start, tries=3)("python3")
    assert len(calls) == 1  # not a death at start-up: no retry
    with pytest.raises(ValueError, match="at least 1"):
        retrying(start, tries=0)


def test_died_at_startup_and_nbval_is_wrapped():
    assert died_at_startup(RuntimeError(DIED_AT_STARTUP))
    assert not died_at_startup(RuntimeError("Kernel died"))  # nbclient's DeadKernelError, mid-run
    assert not died_at_startup(ValueError(DIED_AT_STARTUP))
    assert hasattr(nbval.kernel.start_new_kernel, "__wrapped__")  # conftest.py


def test_a_real_kernel_death_at_startup_is_retried(tmp_path, monkeypatch):
    """The real nbval call, its first kernel made to exit at once (a kernel spec whose first launch exits):
    the retry starts a working kernel."""
    import json
    import sys

    marker = tmp_path / "first"
    script = tmp_path / "launch.py"
    script.write_text(
        "import os, sys\n"
        f"m = {str(marker)!r}\n"
        "if not os.path.exists(m):\n"
        "    open(m, 'w').close(); sys.stderr.write('port taken\\n'); sys.exit(1)\n"
        "from ipykernel import kernelapp\n"
        "kernelapp.launch_new_instance()\n"
    )
    spec = tmp_path / "kernels" / "flaky"
    spec.mkdir(parents=True)
    (spec / "kernel.json").write_text(
        json.dumps({"argv": [sys.executable, str(script), "-f", "{connection_file}"], "language": "python"})
    )
    monkeypatch.setenv("JUPYTER_PATH", str(tmp_path))
    log = tmp_path / "kernels.log"
    monkeypatch.setenv("FIELDNOTES_KERNEL_LOG", str(log))
    km, kc = nbval.kernel.start_new_kernel(startup_timeout=60, kernel_name="flaky", stderr=None)
    try:
        assert kc.is_alive()
    finally:
        kc.stop_channels()
        km.shutdown_kernel(now=True)
    assert "attempt 1 died at start-up" in log.read_text() and "port taken" in log.read_text()
