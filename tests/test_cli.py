"""The fhe-hw command: params, generate, demo."""

import json
import subprocess
import sys

import pytest

import fhe_hw
from fhe_hw import params as P
from fhe_hw.cli import main
from fhe_hw.cliargs import shown_default
from fhe_hw.params import MODULI, ntt_primes
from fhe_hw.sim.vectors import small_params
from fhe_hw.units import units


def run(capsys, *argv):
    code = main(list(argv))
    out, err = capsys.readouterr()
    return code, out, err


@pytest.mark.parametrize("name", MODULI)
def test_params_prints_root_kinv_and_b_bound_for_table2(capsys, name):
    mod = MODULI[name]
    argv = ("params", "--modulus", name, "--k", str(mod.table_k), "--b", str(mod.table_b))
    code, out, _ = run(capsys, *argv, "--json")
    assert code == 0
    report = json.loads(out)
    p, k = mod.value, mod.table_k
    omega, kinv = report["omega (primitive k-th root)"], report["k^-1"]
    assert pow(omega, k, p) == 1 and pow(omega, k // 2, p) != 1
    assert kinv * k % p == 1
    assert report["b bound k(2^b-1)^2/2 < p"] == "holds"
    code, text, _ = run(capsys, *argv)
    assert code == 0 and str(omega) in text and str(kinv) in text


def test_params_accepts_a_plain_integer_modulus(capsys):
    code, out, _ = run(capsys, "params", "--modulus", str(2**64 - 2**32 + 1), "--k", "128",
                       "--b", "28", "--json")
    assert code == 0 and '"k^-1"' in out


def test_params_rejects_k_not_dividing_a_factor(capsys):
    code, _, err = run(capsys, "params", "--modulus", "4294967297", "--k", "256")
    assert code == 2 and "256 does not divide 641 - 1" in err


def test_params_rejects_b_too_large(capsys):
    code, _, err = run(capsys, "params", "--modulus", "solinas64", "--k", "128", "--b", "30")
    assert code == 2 and "b = 30 is too large" in err


def test_params_prints_rns_constants_and_checks_kawamura(capsys):
    code, out, _ = run(capsys, "params", "--modulus", "general32", "--rns-n", "4096",
                       "--source", "4", "--target", "3", "--rho", "16")
    assert code == 0 and "shenoy-kumaresan: redundant modulus q_l" in out and "Kawamura" in out
    code, _, err = run(capsys, "params", "--modulus", "general32", "--rns-n", "4096",
                       "--source", "4", "--target", "3", "--rho", "2")
    assert code == 2 and "Kawamura error bound violated" in err


def test_params_unknown_modulus_name_exits_with_usage_error(capsys):
    with pytest.raises(SystemExit) as e:
        main(["params", "--modulus", "nope"])
    assert e.value.code == 2


def small_argv(name):
    """The ``--option value`` pairs of ``name``'s small configuration (the one its test vectors
    run at, :func:`fhe_hw.sim.vectors.small_params`), as a user would type them."""
    flag = {opt.dest: f"--{opt.name}" for opt in units()[name].options}
    return [word for dest, value in small_params(name).items()
            for word in (flag[dest], shown_default(value))]


def _generate_cases():
    """Every unit at its small configuration; with its defaults (paper sizes for the engines:
    minutes of conversion) in the slow suite where they differ. four-step-ntt's smallest
    configuration is its default 4,096 points: slow."""
    for name in sorted(units()):
        unit = units()[name]
        if unit.resolve(small_params(name)) == unit.resolve():
            yield pytest.param(name, "defaults", marks=[pytest.mark.slow] * (name in SLOW))
        else:
            yield name, "small"
            yield pytest.param(name, "defaults", marks=pytest.mark.slow)


SLOW = {"four-step-ntt"}


@pytest.mark.parametrize("name,size", list(_generate_cases()))
def test_generate_writes_verilog_with_the_documented_top_and_ports(tmp_path, name, size):
    out = tmp_path / "unit.v"
    argv = small_argv(name) if size == "small" else []
    assert main(["generate", name, *argv, "-o", str(out)]) == 0
    text = out.read_text()
    top = "fhe_hw_" + name.replace("-", "_")
    assert f"module {top}(" in text
    for port in ("clk", "rst", "i__payload", "i__valid", "o__payload", "o__valid"):
        assert f" {port};" in text


def test_a_slow_generation_prints_its_stage_and_elapsed_time(tmp_path, capsys, monkeypatch):
    """A conversion that takes longer than the progress interval (made 0.05 s here) is told
    on standard error while it runs: the stage, the elapsed time, then done."""
    import time

    from fhe_hw import cli
    from fhe_hw.flow import run as flow_run

    def slow_to_verilog(component, name, header=()):
        time.sleep(0.3)
        return "module fhe_hw_mod_add(); endmodule\n"
    monkeypatch.setattr(flow_run, "PROGRESS_EVERY_S", 0.05)
    monkeypatch.setattr(cli, "to_verilog", slow_to_verilog)
    out = tmp_path / "x.v"
    code, _, err = run(capsys, "generate", "mod-add", "-o", str(out))
    assert code == 0 and out.read_text().startswith("module fhe_hw_mod_add")
    lines = err.splitlines()
    ticks = [line for line in lines if "] generate mod-add: converting to Verilog" in line]
    assert ticks and ticks[0].startswith("[") and " s] " in ticks[0]
    assert lines.index(ticks[-1]) < next(i for i, line in enumerate(lines)
                                         if line.endswith("] generate mod-add: done"))


def test_a_quick_generation_prints_no_progress(tmp_path, capsys, monkeypatch):
    from fhe_hw.flow import run as flow_run
    monkeypatch.setattr(flow_run, "PROGRESS_EVERY_S", 600.0)   # quicker than that: silent
    code, _, err = run(capsys, "generate", "mod-add", "-o", str(tmp_path / "x.v"))
    assert code == 0 and "] generate" not in err


def test_generate_rejects_bad_parameters_without_writing(tmp_path, capsys):
    out = tmp_path / "x.v"
    code = main(["generate", "solinas-reducer", "--modulus", "general32", "-o", str(out)])
    assert code == 2 and not out.exists()
    assert "modulus must be 2^64 - 2^32 + 1" in capsys.readouterr().err


def test_every_command_has_help(capsys):
    result = subprocess.run([sys.executable, "-m", "fhe_hw.cli", "--help"], capture_output=True,
                            text=True)
    assert result.returncode == 0 and "usage: fhe-hw" in result.stdout
    for argv in (["params", "--help"], ["generate", "--help"], ["demo", "--help"],
                 ["generate", "mod-mul", "--help"]):
        with pytest.raises(SystemExit) as e:
            main(argv)
        assert e.value.code == 0 and "usage: fhe-hw" in capsys.readouterr().out


@pytest.mark.slow
def test_demo_passes_with_few_vectors(capsys):
    """Every configuration of the main job (minutes in pysim; each unit is also checked against
    its model at a small configuration from reset in Icarus, tests/test_reset.py)."""
    code, out, _ = run(capsys, "demo", "--vectors", "20", "--no-build")
    assert code == 0 and "FAIL" not in out
    assert "20 of 20 configurations match their models" in out
    for family in ("mod-mul", "ntt", "shenoy-kumaresan", "karatsuba", "integer-fft-mul",
                   "large-int-mul", "transform-encrypt"):
        assert f"\n  {family} (" in out, family


def test_demo_of_the_units_named_runs_their_configurations_and_the_board_path(capsys):
    from fhe_hw.sim.vectors import demo_configurations

    names = ("mod-add", "solinas-reducer")
    want = sum(name in names for name, _, _ in demo_configurations())
    code, out, _ = run(capsys, "demo", "--vectors", "20", "--no-build",
                       *(word for name in names for word in ("--unit", name)))
    assert code == 0 and "FAIL" not in out
    assert f"{want} of {want} configurations match their models" in out and want >= 2
    assert all(f"\n  {name} (" in out for name in names)
    assert "simulated board top over UART bits (host driver): " in out


def test_demo_refuses_a_unit_it_does_not_run_before_simulating(capsys):
    code, out, err = run(capsys, "demo", "--no-build", "--unit", "nope")
    assert code == 2 and out == ""
    assert err.strip().startswith("fhe-hw demo: error: --unit must be one of ")
    assert err.strip().endswith("not 'nope'") and len(err.strip().splitlines()) == 1


def test_version_is_the_package_version(capsys):
    with pytest.raises(SystemExit) as e:
        main(["--version"])
    assert e.value.code == 0
    assert capsys.readouterr().out.strip() == f"fhe-hw {fhe_hw.__version__}"


@pytest.mark.parametrize("n,l,k,bits", [(64, 2, 2, 32), (1024, 4, 3, 60), (256, 3, 5, 30)])
def test_params_and_generate_agree_on_the_rns_bases(capsys, n, l, k, bits):
    code = main(["params", "--modulus", "general32", "--rns-n", str(n), "--rns-bits", str(bits),
                 "--source", str(l), "--target", str(k), "--json"])
    assert code == 0
    printed = json.loads(capsys.readouterr().out)
    common = {"prime_bits": bits, "n": n, "source_limbs": l, "target_limbs": k}
    for name in ("shenoy-kumaresan", "fast-base-conversion", "mixed-radix", "kawamura"):
        component = units()[name].build(**common)      # what generate builds
        assert list(component.source) == printed[f"{name}: source base (l residues)"], name
        assert list(component.target) == printed[f"{name}: target base (k residues)"], name
        if name == "shenoy-kumaresan":
            assert component.redundant == printed[f"{name}: redundant modulus q_l"]


def test_generated_verilog_starts_with_what_it_is(tmp_path, capsys, header_only):
    out = tmp_path / "sk.v"
    assert main(["generate", "shenoy-kumaresan", "--n", "16", "--source-limbs", "2",
                 "--target-limbs", "2", "--lanes", "2", "-o", str(out)]) == 0
    head = out.read_text().splitlines()[:6]
    assert head[0].startswith(f"// fhe_hw {fhe_hw.__version__}: unit shenoy-kumaresan")
    assert head[2].startswith("// stream engine; cycles() of one operation: ")
    assert head[3].startswith("// source base (l residues): [")
    assert "redundant modulus q_l" in capsys.readouterr().err


#: LastPrime(60, 512) and the root OpenFHE 1.6.1 picks for it, RootOfUnity(512, q), as
#: tests/interop/openfhe_ntt.cpp prints them (ILNativeParams(512, q).GetRootOfUnity()).
OPENFHE_Q, OPENFHE_PSI = 1152921504606844417, 11821407031913010


def test_params_prints_the_root_of_each_convention(capsys):
    code, out, _ = run(capsys, "params", "--modulus", str(OPENFHE_Q), "--k", "256", "--negacyclic",
                       "--json")
    printed = json.loads(out)
    assert code == 0 and printed["psi, --root openfhe"] == OPENFHE_PSI
    assert printed["psi, --root generator"] == printed["psi (primitive 2k-th root)"] != OPENFHE_PSI


def test_params_prints_the_four_step_units_roots(capsys):
    """The four-step units' modulus at their n: each convention's root, the Wang–Huang one
    (their default) included, with no --b needed (Table 2's b belongs to its k = 128)."""
    code, out, _ = run(capsys, "params", "--modulus", "solinas64", "--k", "4096", "--json")
    printed = json.loads(out)
    assert code == 0 and "b" not in printed
    for root in ("generator", "openfhe", "wang-huang"):
        assert printed[f"omega, --root {root}"] == P.convention_root(P.SOLINAS64, 4096, root)
    assert printed["omega, --root wang-huang"] == P.wang_huang_root(4096)
    assert pow(printed["omega, --root openfhe"], 2048, P.SOLINAS64) == P.SOLINAS64 - 1


def test_generate_four_step_units_take_the_root_and_name_it(tmp_path, header_only):
    want = P.convention_root(P.SOLINAS64, 64, "openfhe")        # psi of n = 32
    out = tmp_path / "fs.v"
    assert main(["generate", "four-step-stream", "--n", "32", "--inner-n", "4", "--lanes", "2",
                 "--negacyclic", "true", "--root", "openfhe", "-o", str(out)]) == 0
    assert f"// root of unity: psi = {want}" in out.read_text().splitlines()[:6]
    w = pow(P.wang_huang_root(8), 3, P.SOLINAS64)
    assert main(["generate", "shift-ntt", "--n", "8", "--omega", str(w), "-o",
                 str(out)]) == 0
    assert f"// root of unity: omega = {w}" in out.read_text().splitlines()[:6]


def test_generate_ntt_takes_the_root_and_names_it(tmp_path, capsys, header_only):
    q = ntt_primes(30, 16, 1)[0]
    psi = pow(P.ntt_params(q, 16, negacyclic=True).psi, 3, q)
    for root, want in ((["--psi", str(psi)], psi),
                       (["--root", "openfhe"], P.smallest_primitive_root(q, 32))):
        out = tmp_path / "ntt.v"
        assert main(["generate", "ntt", "--n", "16", "--modulus", str(q), "--negacyclic", "true",
                     *root, "-o", str(out)]) == 0
        assert f"// root of unity: psi = {want}" in out.read_text().splitlines()[:6]
