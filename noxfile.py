"""Sessions: `tests` (fast suite, what CI runs), `lint` (ruff), `demo` (the main job),
`build` (a board bitstream behind the UART host link),
`slow` (paper-size tests kept out of CI), `synth` (the ECP5 reducer table of docs/results),
`cosim` (Verilator co-simulation of the large engines), `report` (the papers' tables
beside ours, software baselines, build/report/report.md), `asic` (sky130 / qflow / LibreLane),
`docs` (the Sphinx manual in build/docs/).

Run through ./dev (which installs nox into .venv) or any nox >= 2024.4."""

import os
from pathlib import Path

import nox

nox.options.default_venv_backend = "uv|venv"
nox.options.reuse_venv = "yes"
nox.options.sessions = ["lint", "tests"]

# Amaranth must use its bundled Yosys (>= 0.40); Debian's yosys is too old for back.verilog.
ENV = {"AMARANTH_USE_YOSYS": "builtin"}


#: The Debian packages the test suite's simulations call: (executable, package).
TEST_TOOLS = (("iverilog", "iverilog"), ("vvp", "iverilog"), ("verilator", "verilator"))


def _install(session, extras="test,toolchain"):
    """Install the package with ``extras``, its dependencies compiled to bytecode: every
    process the suite starts (the pytest workers, the CLI and the explore pool's processes)
    then reads them instead of compiling them again, even where ``PYTHONDONTWRITEBYTECODE`` is
    set (pip compiles by default, uv when asked)."""
    session.install("-e", f".[{extras}]", env={"UV_COMPILE_BYTECODE": "1"})
    session.run_install("python", "-m", "compileall", "-q", "fhe_hw", silent=True)


def _debian(session, tools):
    """Install the Debian packages of ``tools`` that are missing before the session's tests
    run, with apt-get when root (:func:`fhe_hw.debian.require_debian_tool`): no test module
    installs anything when it is imported."""
    script = ("import sys\nfrom fhe_hw.debian import require_debian_tool\n"
              "for tool in sys.argv[1:]:\n    require_debian_tool(*tool.split(':'))")
    session.run_install("python", "-c", script,
                        *(f"{executable}:{package}" for executable, package in tools),
                        silent=True)


@nox.session
def tests(session):
    """The fast test suite (CI); the asic extra so the LibreLane variable check runs."""
    _install(session, "test,toolchain,asic")
    _debian(session, TEST_TOOLS)
    session.run("pytest", "-n", "auto", "-q", *session.posargs, env=ENV)


@nox.session
def slow(session):
    """Paper-size runs marked ``slow`` (minutes each)."""
    _install(session)
    _debian(session, TEST_TOOLS)
    session.run("pytest", "-n", "auto", "-q", "-m", "slow", *session.posargs, env=ENV)


@nox.session
def lint(session):
    session.install("ruff")
    session.run("ruff", "check", "fhe_hw", "tests", "tools", "boards", "asic", "noxfile.py")


@nox.session
def demo(session):
    """The main job: generate the default units, simulate them against the golden models and
    print the report. The environment also runs ``fhe-hw explore`` (the ``explore`` extra)."""
    _install(session, "toolchain,explore")
    session.run("fhe-hw", "demo", *session.posargs, env=ENV)


@nox.session
def build(session):
    """Bitstream of a unit behind the UART host link, with its nextpnr report and build.json /
    build.md: ``nox -s build -- mod-add --modulus general32 --board icebreaker`` (default: the
    demo's 64-bit Solinas mod-mul on the ULX3S); ``nox -s build -- fits`` rebuilds the list of
    what each board fits (``fhe-hw table board-fits``)."""
    _install(session, "toolchain,host")
    if session.posargs[:1] == ["fits"]:
        session.run("fhe-hw", "table", "board-fits", *session.posargs[1:], env=ENV)
        return
    args = session.posargs or ["mod-mul", "--modulus", "solinas64", "--board", "ulx3s"]
    session.run("fhe-hw", "build", *args, env=ENV)


@nox.session
def synth(session):
    """Out-of-context ECP5 synthesis of the reducers and modular multipliers; rewrites the
    reducer table of docs/results/arith.md (``fhe-hw table reducers``)."""
    _install(session, "toolchain")
    session.run("fhe-hw", "table", "reducers", *session.posargs, env=ENV)


@nox.session
def asic(session):
    """ASIC flows (docs/asic.md): the asic tests (sky130 estimates with OpenSTA, gate-level
    simulation, qflow to GDS and its picture, the LibreLane variable check) with PDK_ROOT at the
    shared sky130 data; ``nox -s asic -- table`` regenerates the sky130 table (``fhe-hw table
    asic``).
    OpenSTA, Icarus and qflow come from Debian and are installed with apt-get when missing."""
    _install(session, "test,toolchain,asic")
    pdk = os.environ.get("PDK_ROOT") or str(Path("..", "shared", "pdk").resolve())
    env = dict(ENV, PDK_ROOT=pdk)
    if session.posargs[:1] == ["table"]:
        session.run("fhe-hw", "table", "asic", *session.posargs[1:], env=env)
        return
    session.run("pytest", "-q", *(session.posargs or ["tests/test_asic_sky130.py",
                "tests/test_asic_gatesim.py", "tests/test_asic_qflow.py",
                "tests/test_asic_librelane.py", "tests/test_asic_render.py"]), env=env)


@nox.session
def report(session):
    """``fhe-hw report``: the papers' tables beside ours with our/paper ratios, software
    baselines (GMP, FLINT, NumPy, OpenFHE) and plots, written to build/report/ (report.md,
    report.json, PNGs). By default it synthesizes nothing: every configuration, the engines
    and their ModMuls, is read from docs/results' committed blocks, with their provenance; it
    took 57 s on an idle 2-core machine and 366 s on the same machine at load average 17 to 20
    (start-up, the software baselines, the sections; the environment's set-up comes first).
    ``nox -s report -- --full`` synthesizes every configuration (hours)."""
    _install(session, "toolchain,bench,report")
    session.run("fhe-hw", "report", *session.posargs, env=ENV)


@nox.session
def cosim(session):
    """Verilator co-simulation of the large engines at paper sizes: every tools/cosim_*.py
    (``nox -s cosim -- --quick`` runs their small smoke). Verilator comes from Debian and is
    installed with apt-get when missing (fhe_hw.sim.cosim.require_verilator)."""
    _install(session, "toolchain")
    for tool in sorted(Path("tools").glob("cosim_*.py")):
        session.run("python", str(tool), *session.posargs, env=ENV)


@nox.session
def docs(session):
    """The manual: Sphinx (MyST pages in docs/, autodoc, the CLI reference from
    ``fhe_hw.cli.parser``) into build/docs/, warnings as errors; then every page's example
    (its ``testcode`` blocks) runs and its output is compared with the page's ``testoutput``
    (``sphinx.ext.doctest``, report in build/docs-doctest/output.txt)."""
    _install(session, "docs,toolchain")
    session.run("sphinx-build", "-W", "--keep-going", "-b", "html", "docs", "build/docs",
                *session.posargs, env=ENV)
    session.run("sphinx-build", "-W", "--keep-going", "-b", "doctest", "-d",
                "build/docs/.doctrees", "docs", "build/docs-doctest", *session.posargs, env=ENV)
