"""Debian packages the flows call (Verilator, Icarus, OpenSTA, qflow, openFPGALoader): found on
``PATH``, or installed with ``apt-get`` by the session that needs them when it runs as root."""

import fcntl
import os
import shutil
import subprocess
import tempfile
from pathlib import Path

__all__ = ["require_debian_tool"]


def require_debian_tool(executable, package):
    """Path of ``executable``; when it is missing and we are root on Debian, install
    ``package`` with apt-get first. RuntimeError if it is still missing."""
    path = shutil.which(executable)
    if path is None and os.geteuid() == 0 and shutil.which("apt-get"):
        # One installation at a time (parallel test workers): apt-get holds dpkg's lock.
        with open(Path(tempfile.gettempdir(), "fhe_hw_apt.lock"), "w") as lock:
            fcntl.flock(lock, fcntl.LOCK_EX)
            path = shutil.which(executable)
            if path is None:
                env = dict(os.environ, DEBIAN_FRONTEND="noninteractive")
                subprocess.run(["apt-get", "update", "-qq"], check=True, env=env,
                               capture_output=True)
                subprocess.run(["apt-get", "install", "-y", "-qq", package], check=True,
                               env=env, capture_output=True)
                path = shutil.which(executable)
    if path is None:
        raise RuntimeError(f"{executable} is not installed: run `apt-get install {package}`")
    return path
