"""Fixtures shared by several test files."""

import contextlib
import fcntl
import hashlib
import os
from pathlib import Path

import pytest

# CI: the minimal sky130 copy beside the checkout (../shared/pdk) unless PDK_ROOT is set.
SHARED_PDK = Path(__file__).resolve().parents[2] / "shared" / "pdk"


@pytest.fixture(scope="module")
def pdk_root():
    """PDK_ROOT for the ASIC flows: the environment's, else the shared sky130 copy."""
    saved = os.environ.get("PDK_ROOT")
    os.environ["PDK_ROOT"] = saved or str(SHARED_PDK)
    yield os.environ["PDK_ROOT"]
    if saved is None:
        del os.environ["PDK_ROOT"]


@pytest.fixture(scope="session")
def run_dir(tmp_path_factory):
    """A directory of this test run that every pytest-xdist worker sees (the workers' common
    base directory, named by the run's id), or the session's own without xdist: for results
    one worker computes and the others reuse, under :func:`locked`."""
    run = os.environ.get("PYTEST_XDIST_TESTRUNUID")
    if run is None:
        return tmp_path_factory.mktemp("run")
    shared = tmp_path_factory.getbasetemp().parent / f"run-{run}"
    shared.mkdir(exist_ok=True)
    return shared


@contextlib.contextmanager
def locked(path):
    """Hold an exclusive lock on ``path`` (created if missing) for the ``with`` block: one
    worker at a time computes what the others then read."""
    with open(path, "a") as lock:
        fcntl.flock(lock, fcntl.LOCK_EX)
        yield


@pytest.fixture(scope="session")
def shared_verilog(run_dir):
    """``shared_verilog(key, make)``: the Verilog text ``make()`` returns, made once per test
    run for ``key`` and reused by every test and worker that asks with the same key. The key
    must name everything the text depends on (unit, parameters, any wrapper or platform);
    ``repr(key)`` is hashed, so its parts need a stable ``repr``."""
    cache = run_dir / "verilog"
    cache.mkdir(exist_ok=True)

    def get(key, make):
        path = cache / (hashlib.sha256(repr(key).encode()).hexdigest()[:32] + ".v")
        with locked(path.with_suffix(".lock")):
            if not path.exists():
                text = make()
                path.with_suffix(".tmp").write_text(text)
                path.with_suffix(".tmp").rename(path)
            return path.read_text()
    return get


@pytest.fixture(scope="session", autouse=True)
def verilog_of_a_unit_once(shared_verilog):
    """The Verilog of a registered unit's Component, built from its plan, is converted once per
    test run (by any test or worker) and reused: Amaranth's conversion takes most of the time
    of many tests. :func:`fhe_hw.units.verilog_key` says which conversions are reused and under
    what key; anything else (wrappers, harnesses, vendor platforms) is converted each time."""
    from fhe_hw.units import verilog_store

    with verilog_store(shared_verilog):
        yield


@pytest.fixture
def header_only(monkeypatch):
    """``generate`` writes the header it would put on the Verilog, above the top module's
    first line, without converting the unit (``test_cli.py`` converts every unit): for the
    tests of what the header says."""
    from fhe_hw import cli
    from fhe_hw.units import top_name

    def header_and_top(component, unit_name, header=()):
        return "".join(f"// {line}\n" for line in header) + f"module {top_name(unit_name)}(\n"
    monkeypatch.setattr(cli, "to_verilog", header_and_top)
