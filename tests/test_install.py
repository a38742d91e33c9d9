"""The installed package works without a checkout and without activating its environment: a
wheel built from this tree, installed with its toolchain extra into a fresh virtual environment,
run by path from a folder outside the checkout (the tools are found beside that environment's
Python, not on PATH), with PDK_ROOT given relative to that folder."""

import os
import subprocess
import sys
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parent.parent
PDK = ROOT.parent / "shared" / "pdk"


def _uv(*args, **kw):
    return subprocess.run([sys.executable, "-m", "uv", *args], check=True, capture_output=True,
                          text=True, **kw)


@pytest.fixture(scope="module")
def installed(tmp_path_factory):
    """The ``fhe-hw`` executable of a fresh environment with the built wheel installed."""
    base = tmp_path_factory.mktemp("install")
    _uv("build", "--wheel", "--out-dir", str(base / "dist"), str(ROOT))
    wheel, = (base / "dist").glob("fhe_hw-*.whl")
    _uv("venv", "--python", sys.executable, str(base / "venv"))
    _uv("pip", "install", "--python", str(base / "venv" / "bin" / "python"),
        f"fhe-hw[toolchain] @ {wheel.as_uri()}")
    return base / "venv" / "bin" / "fhe-hw"


@pytest.fixture
def outside(tmp_path):
    """A working folder outside the checkout, and an environment without the venv on PATH."""
    work = tmp_path / "work"
    work.mkdir()
    env = {k: v for k, v in os.environ.items() if k not in ("VIRTUAL_ENV", "PYTHONPATH")}
    env["PATH"] = "/usr/local/sbin:/usr/local/bin:/usr/sbin:/usr/bin:/sbin:/bin"
    return work, env


def _run(exe, args, cwd, env):
    done = subprocess.run([str(exe), *args], cwd=cwd, env=env, capture_output=True, text=True,
                          timeout=900)
    assert done.returncode == 0, done.stdout[-2000:] + done.stderr[-3000:]
    assert "Traceback" not in done.stderr
    return done


def test_the_installed_package_is_not_the_checkout(installed, outside):
    work, env = outside
    done = _run(installed.parent / "python", ["-c", "import fhe_hw.asic, fhe_hw.boards, fhe_hw; "
                                              "print(fhe_hw.__file__)"], work, env)
    assert not done.stdout.strip().startswith(str(ROOT))
    # The OpenFHE benchmark's C++ source and the header it shares are package data.
    done = _run(installed.parent / "python", ["-c", "from fhe_hw.bench.openfhe import SOURCE, "
                                              "COMMON; print(SOURCE.is_file(), COMMON.is_file(), "
                                              "SOURCE)"], work, env)
    assert done.stdout.startswith("True True ") and str(ROOT) not in done.stdout
    assert _run(installed, ["--version"], work, env).stdout.startswith("fhe-hw ")


def test_generate_synth_and_program_dry_run_from_outside(installed, outside):
    work, env = outside
    _run(installed, ["generate", "special-reducer", "--modulus-bits", "17", "-o", "special.v"],
         work, env)
    assert (work / "special.v").read_text().startswith("// fhe_hw ")
    done = _run(installed, ["synth", "special-reducer", "--modulus-bits", "17", "--json",
                            "r.json"], work, env)
    assert (work / "r.json").exists() and "Fmax" in done.stdout
    done = _run(installed, ["build", "mod-add", "--board", "icebreaker", "--program",
                            "--dry-run"], work, env)
    assert done.stdout.splitlines()[-1].startswith("openFPGALoader --board icebreaker ")


def test_asic_synth_with_a_relative_pdk_root(installed, outside):
    work, env = outside
    assert PDK.exists(), "the shared sky130 data is beside the checkout"
    env["PDK_ROOT"] = os.path.relpath(PDK, work)
    done = _run(installed, ["asic-synth", "special-reducer", "--modulus-bits", "17", "--json",
                            "a.json"], work, env)
    assert (work / "a.json").exists() and "sky130" in done.stdout + done.stderr
