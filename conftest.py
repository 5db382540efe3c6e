"""pytest configuration shared by every entry point (make test, plain `pytest --nbval notebooks/`)."""

import os
import sys

# Kernels started by nbval inherit this PATH: put the running interpreter's bin/ first so tools
# installed in the venv (e.g. `dot` from graphviz-pure) are found without activating it.
_bin = os.path.dirname(sys.executable)
if _bin not in os.environ.get("PATH", "").split(os.pathsep):
    os.environ["PATH"] = _bin + os.pathsep + os.environ.get("PATH", "")
