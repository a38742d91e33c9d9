"""Sessions: `tests` (fast suite, what CI runs), `lint` (ruff), `demo` (the main job).

Run through ./dev (which installs nox into .venv) or any nox >= 2024.4."""

import nox

nox.options.default_venv_backend = "uv|venv"
nox.options.reuse_venv = "yes"
nox.options.sessions = ["lint", "tests"]

# Amaranth must use its bundled Yosys (>= 0.40); Debian's yosys is too old for back.verilog.
ENV = {"AMARANTH_USE_YOSYS": "builtin"}


@nox.session
def tests(session):
    """The fast test suite (CI)."""
    session.install("-e", ".[test]")
    session.run("pytest", "-n", "auto", "-q", *session.posargs, env=ENV)


@nox.session
def lint(session):
    session.install("ruff")
    session.run("ruff", "check", "fhe_hw", "tests", "noxfile.py")


@nox.session
def demo(session):
    """The main job: generate the default units, simulate them against the golden models and
    print the report."""
    session.install("-e", ".")
    session.run("fhe-hw", "demo", *session.posargs, env=ENV)
