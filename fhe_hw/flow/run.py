"""Running an external tool (Yosys, nextpnr, OpenSTA, qflow, a board's build script, Icarus).

:func:`run_logged` sends the tool's standard output and error to a log file as they come and
keeps it whatever the outcome; while the tool runs it tells ``progress`` the stage, the elapsed
time and the log's path every 10 s; after :func:`stream_to` (``fhe-hw ... -v``) it also copies
the tool's output to that stream as it is written. A tool that exits non-zero raises
``RuntimeError`` with the log's last lines, unless the caller asks for the exit status.
:class:`Progress` is the commands' progress printer (elapsed time and a name before each line);
:class:`Ticker` repeats a stage to it every 10 s while work in this process runs.
"""

import os
import signal
import subprocess
import sys
import threading
import time
from pathlib import Path

__all__ = ["run_logged", "stream_to", "Progress", "Ticker", "LOG_TAIL", "PROGRESS_EVERY_S"]

#: Lines of the log quoted in a tool failure's message.
LOG_TAIL = 25
#: Seconds between progress lines while a tool runs.
PROGRESS_EVERY_S = 10.0
#: Seconds between copies of new log text to the verbose stream.
_FOLLOW_S = 0.2

_stream = None


def stream_to(stream):
    """Copy every tool's output to ``stream`` (a text file such as ``sys.stderr``) from now on;
    ``None`` stops it. Worker processes started later by ``fork`` inherit the setting."""
    global _stream
    _stream = stream


class Progress:
    """``progress(text)`` prints ``[<elapsed> s] <name>: <text>`` to standard error, the time
    counted from ``start`` (a :func:`time.monotonic` reading; default now). A class, not a
    closure, so that worker processes can be handed it and report their tools' stages (time
    and log path) while they run."""

    def __init__(self, name, start=None):
        self.name = name
        self.start = time.monotonic() if start is None else start

    def __call__(self, text):
        print(f"[{time.monotonic() - self.start:6.0f} s] {self.name}: {text}", file=sys.stderr,
              flush=True)


class Ticker:
    """While a ``with`` block runs, tell ``progress`` the current ``stage`` (an attribute the
    block sets as it goes) every ``every`` seconds from a background thread: nothing when the
    block ends sooner, and ``"done"`` at its end when it has ticked (``every`` defaults to
    :data:`PROGRESS_EVERY_S`). For work that runs in this
    process (elaboration, Verilog conversion), where :func:`run_logged` cannot watch a tool."""

    def __init__(self, progress, stage, every=None):
        self.progress, self.stage = progress, stage
        self.every = PROGRESS_EVERY_S if every is None else every
        self.ticked = False
        self._done = threading.Event()
        self._thread = threading.Thread(target=self._run, daemon=True)

    def _run(self):
        while not self._done.wait(self.every):
            self.ticked = True
            self.progress(self.stage)

    def __enter__(self):
        self._thread.start()
        return self

    def __exit__(self, *exc):
        self._done.set()
        self._thread.join()
        if self.ticked and exc[0] is None:
            self.progress("done")
        return False


def _stop(process):
    """Kill ``process`` and everything it started (its process group)."""
    try:
        os.killpg(process.pid, signal.SIGKILL)
    except ProcessLookupError:
        pass
    process.wait()


def run_logged(argv, cwd, log, what, *, env=None, progress=None, stage=None, timeout_s=None,
               check=True, own_log=False, every=PROGRESS_EVERY_S):
    """Run ``argv`` in ``cwd`` with its output going to ``log`` (a path, relative to ``cwd``
    when relative); return its exit status.

    ``own_log``: the tool writes ``log`` itself (Yosys ``-l``, nextpnr ``-l``); its standard
    output and error then go to the same name with the suffix ``.out`` (YoWASP Yosys loses the
    rest of its standard output once it has run ABC, its own log does not). ``progress(line)``,
    if given, hears ``"<what>: <stage()>, <n> s, log <path>"`` every ``every`` seconds while
    the tool runs. ``timeout_s`` stops the tool and raises ``RuntimeError`` when it runs longer.
    The tool runs in a process group of its own, and a time-out or an interruption of the
    caller stops the whole group (a build script's nextpnr as well as the shell).
    ``check`` raises ``RuntimeError`` (exit status and the log's last :data:`LOG_TAIL` lines)
    when it exits non-zero; with ``check=False`` the caller reads the status."""
    log = Path(cwd, log)
    log.parent.mkdir(parents=True, exist_ok=True)
    log.unlink(missing_ok=True)  # a stale log must not stand in for this run's
    captured = log.with_suffix(".out") if own_log else log
    start = last = time.monotonic()
    follow = None
    with open(captured, "w") as out:
        process = subprocess.Popen(argv, cwd=cwd, env=env, stdout=out,
                                   stderr=subprocess.STDOUT, text=True, start_new_session=True)
        try:
            while True:
                try:
                    code = process.wait(timeout=_FOLLOW_S if _stream else every)
                except subprocess.TimeoutExpired:
                    code = None
                if _stream is not None:
                    if follow is None and log.exists():
                        follow = open(log, errors="replace")
                    if follow is not None:
                        _stream.write(follow.read())
                        _stream.flush()
                if code is not None:
                    break
                now = time.monotonic()
                if timeout_s is not None and now - start > timeout_s:
                    raise RuntimeError(f"{what} ran out of time ({timeout_s:g} s; log {log})")
                if progress is not None and now - last >= 0.95 * every:
                    last = now
                    progress(f"{what}: {stage() if stage else 'running'}, "
                             f"{now - start:.0f} s, log {log}")
        except BaseException:
            _stop(process)
            raise
        finally:
            if follow is not None:
                follow.close()
    if code != 0 and check:
        text = log.read_text(errors="replace") if log.exists() else ""
        if own_log:
            text += captured.read_text(errors="replace")
        tail = "\n".join(text.splitlines()[-LOG_TAIL:])
        raise RuntimeError(f"{what} failed (exit {code}; log {log}):\n{tail}")
    return code
