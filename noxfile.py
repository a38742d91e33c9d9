"""Sessions: `tests` (fast suite, what CI runs), `lint` (ruff), `demo` (the main job),
`slow` (paper-size tests kept out of CI), `synth` (the README's ECP5 reducer table),
`cosim` (Verilator co-simulation of the large engines).

Run through ./dev (which installs nox into .venv) or any nox >= 2024.4."""

from pathlib import Path

import nox

nox.options.default_venv_backend = "uv|venv"
nox.options.reuse_venv = "yes"
nox.options.sessions = ["lint", "tests"]

# Amaranth must use its bundled Yosys (>= 0.40); Debian's yosys is too old for back.verilog.
ENV = {"AMARANTH_USE_YOSYS": "builtin"}


def _install(session, extras="test,toolchain"):
    session.install("-e", f".[{extras}]")


@nox.session
def tests(session):
    """The fast test suite (CI)."""
    _install(session)
    session.run("pytest", "-n", "auto", "-q", *session.posargs, env=ENV)


@nox.session
def slow(session):
    """Paper-size runs marked ``slow`` (minutes each)."""
    _install(session)
    session.run("pytest", "-n", "auto", "-q", "-m", "slow", *session.posargs, env=ENV)


@nox.session
def lint(session):
    session.install("ruff")
    session.run("ruff", "check", "fhe_hw", "tests", "tools", "noxfile.py")


@nox.session
def demo(session):
    """The main job: generate the default units, simulate them against the golden models and
    print the report."""
    _install(session, "toolchain")
    session.run("fhe-hw", "demo", *session.posargs, env=ENV)


@nox.session
def synth(session):
    """Out-of-context ECP5 synthesis of the reducers and modular multipliers; rewrites the
    README's reducer table."""
    _install(session, "toolchain")
    session.run("python", "tools/reducer_table.py", *session.posargs, env=ENV)


@nox.session
def cosim(session):
    """Verilator co-simulation of the large engines at paper sizes: every tools/cosim_*.py
    (``nox -s cosim -- --quick`` runs their small smoke). Verilator comes from Debian and is
    installed with apt-get when missing (fhe_hw.cosim.require_verilator)."""
    _install(session, "toolchain")
    for tool in sorted(Path("tools").glob("cosim_*.py")):
        session.run("python", str(tool), *session.posargs, env=ENV)
