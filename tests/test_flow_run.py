"""Running external tools (fhe_hw.flow.run): logs kept, progress lines, -v streaming, failures."""

import io
import sys
import time
from pathlib import Path

import pytest

from fhe_hw.flow import run
from fhe_hw.flow.run import run_logged, stream_to

PY = sys.executable


@pytest.fixture
def captured():
    stream = io.StringIO()
    stream_to(stream)
    yield stream
    stream_to(None)


def test_output_goes_to_the_log_and_is_kept_on_success(tmp_path):
    assert run_logged([PY, "-c", "print('hello'); import sys; print('err', file=sys.stderr)"],
                      tmp_path, "tool.log", "tool") == 0
    assert (tmp_path / "tool.log").read_text().split() == ["hello", "err"]


def test_a_failure_raises_with_the_log_tail_and_keeps_the_log(tmp_path):
    script = "for i in range(100): print('line', i)\nraise SystemExit(3)"
    with pytest.raises(RuntimeError, match=r"tool failed \(exit 3; log .*tool\.log\)") as info:
        run_logged([PY, "-c", script], tmp_path, "tool.log", "tool")
    lines = str(info.value).splitlines()[1:]
    assert lines == [f"line {i}" for i in range(100 - run.LOG_TAIL, 100)]
    assert len((tmp_path / "tool.log").read_text().splitlines()) == 100


def test_check_false_returns_the_status(tmp_path):
    assert run_logged([PY, "-c", "raise SystemExit(5)"], tmp_path, "t.log", "t", check=False) == 5


def test_progress_names_the_stage_elapsed_time_and_log(tmp_path):
    lines = []
    run_logged([PY, "-c", "import time; time.sleep(1.0)"], tmp_path, "slow.log", "slow tool",
               progress=lines.append, stage=lambda: "stage A", every=0.2)
    assert len(lines) >= 3
    assert all(line.startswith("slow tool: stage A, ") and line.endswith(
        f" s, log {tmp_path / 'slow.log'}") for line in lines)


def test_verbose_streams_the_tool_output_as_it_comes(tmp_path, captured):
    run_logged([PY, "-c", "print('first', flush=True); import time; time.sleep(0.5); "
                          "print('second')"], tmp_path, "v.log", "v")
    assert captured.getvalue().split() == ["first", "second"]
    assert (tmp_path / "v.log").read_text().split() == ["first", "second"]


def test_a_tool_that_runs_too_long_is_stopped(tmp_path):
    with pytest.raises(RuntimeError, match=r"sleeper ran out of time \(0.3 s; log "):
        run_logged([PY, "-c", "import time; time.sleep(30)"], tmp_path, "s.log", "sleeper",
                   timeout_s=0.3, every=0.1)


def _running(pid):
    try:
        state = Path(f"/proc/{pid}/stat").read_text().rsplit(")", 1)[1].split()[0]
    except FileNotFoundError:
        return False
    return state != "Z"


def test_a_time_out_stops_what_the_tool_started(tmp_path):
    # A board build is a shell script that starts nextpnr: stopping the shell alone would leave
    # nextpnr running.
    child = f"{PY} -c \"import os, time; open('pid', 'w').write(str(os.getpid())); time.sleep(30)\""
    with pytest.raises(RuntimeError, match="ran out of time"):
        run_logged(["sh", "-c", f"{child} & wait"], tmp_path, "s.log", "script", timeout_s=1.0,
                   every=0.1)
    pid = int((tmp_path / "pid").read_text())
    deadline = time.monotonic() + 5
    while _running(pid) and time.monotonic() < deadline:
        time.sleep(0.05)
    assert not _running(pid)


def test_log_directories_are_made(tmp_path):
    run_logged([PY, "-c", "print(1)"], tmp_path, "log/step.out", "step")
    assert (tmp_path / "log" / "step.out").read_text() == "1\n"


def test_a_tool_with_its_own_log_keeps_its_output_beside_it(tmp_path, captured):
    script = ("open('own.log', 'w').write('from the tool\\n'); print('to stdout'); "
              "raise SystemExit(1)")
    with pytest.raises(RuntimeError, match=r"(?s)exit 1; log .*own\.log\).*from the tool"
                                           r".*to stdout"):
        run_logged([PY, "-c", script], tmp_path, "own.log", "tool", own_log=True)
    assert (tmp_path / "own.log").read_text() == "from the tool\n"
    assert (tmp_path / "own.out").read_text() == "to stdout\n"
    assert captured.getvalue() == "from the tool\n"          # -v follows the tool's own log
