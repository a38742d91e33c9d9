"""The ``fhe-hw`` command.

    fhe-hw params --modulus solinas64 --k 128 --b 28     validate and print a parameter set
    fhe-hw generate UNIT [--param value ...] -o FILE.v   Verilog of a registered unit
    fhe-hw synth UNIT [--param value ...] --target ecp5  out-of-context LUT/FF/DSP/BRAM/Fmax
    fhe-hw asic-synth UNIT [--param value ...]           sky130 cells/area/FF/Fmax (OpenSTA)
    fhe-hw harden UNIT [...] --flow qflow|librelane      place and route to GDS / LibreLane macro
    fhe-hw build UNIT [--param value ...] --board ulx3s  bitstream: unit behind the UART link
    fhe-hw run --port /dev/ttyUSB0                        test vectors on a board vs the model
    fhe-hw demo                                          simulate the units against the models
    fhe-hw report [--paper 003] [--full]                 the papers' tables beside ours
    fhe-hw explore SPACE.yaml [--cluster ADDR]           design-space exploration, Pareto front
    fhe-hw table NAME [--jobs N] [--reuse]               regenerate a table of docs/results/

Every command takes ``--help``. Invalid parameters exit with status 2 and the reason.
"""

import argparse
import functools
import importlib
import json
import sys
from fractions import Fraction

from . import __version__
from .cliargs import Parser, flag_message, fraction, int_in, integer, output_file, write_text
from .flow.run import Progress, Ticker, stream_to
from .units import get_unit, to_verilog, unit_params

__all__ = ["main", "parser", "COMMANDS"]

#: Every command, in the order ``fhe-hw --help`` lists them: its one-line help and the module and
#: function that add its sub-parser (with that help) to the sub-parsers. ``fhe-hw --help`` imports
#: none of them; ``fhe-hw COMMAND ...`` imports that command's module only (tests/test_imports.py).
COMMANDS = {
    "params": ("validate and print a parameter set", __name__, "add_params_parser"),
    "generate": ("write Verilog for a unit", __name__, "add_generate_parser"),
    "synth": ("out-of-context synthesis: LUT, FF, DSP, BRAM, Fmax", "fhe_hw.flow.synth",
              "add_synth_parser"),
    "report": ("the papers' tables beside ours, software baselines, plots", "fhe_hw.report",
               "add_report_parser"),
    "table": ("regenerate a documented results table (docs/results/)", "fhe_hw.tables.cli",
              "add_table_parser"),
    "explore": ("design-space exploration: cycles, resources, Pareto front", "fhe_hw.flow.explore",
                "add_explore_parser"),
    "asic-synth": ("sky130 estimate: cells, area, FF, critical path, Fmax", "fhe_hw.asic.cli",
                   "add_asic_synth_parser"),
    "harden": ("place and route: qflow to GDS, or a LibreLane macro", "fhe_hw.asic.cli",
               "add_harden_parser"),
    "build": ("bitstream of a unit behind the UART host link", "fhe_hw.flow.build",
              "add_build_parser"),
    "run": ("send test vectors to a board and check them", "fhe_hw.flow.build", "add_run_parser"),
    "demo": ("simulate the units against the golden models", __name__, "add_demo_parser"),
}


def _modulus_arg(text):
    from . import params as P

    try:
        return P.get_modulus(text)
    except (ValueError, TypeError) as e:
        raise argparse.ArgumentTypeError(str(e)) from None


# --- params -------------------------------------------------------------------------------------

def _params_report(args):
    """The parameter set as a dict of printable values; raises ValueError on invalid input."""
    from . import params as P

    mod = args.modulus
    report = {"modulus": str(mod), "p": mod.value, "m (bits)": mod.bits,
              "kind": mod.kind, "factors": " * ".join(map(str, sorted(mod.factors))),
              "largest k": mod.max_k()}
    k = args.k if args.k is not None else mod.table_k
    if k is not None:
        ntt = P.ntt_params(mod, k, negacyclic=args.negacyclic)
        report.update({"k": k, "omega (primitive k-th root)": ntt.omega,
                       "omega^-1": ntt.omega_inv, "k^-1": ntt.k_inv})
        if ntt.psi is not None:
            report["psi (primitive 2k-th root)"] = ntt.psi
        report.update(_root_report(mod, k, args.negacyclic))
        # [Cao14] Table 2's digit width belongs to its k: another k (the four-step NTTs' 4096,
        # say) checks b only when --b is given
        b = args.b if args.b is not None else (mod.table_b if k == mod.table_k else None)
        if b is not None:
            P.check_digit_bits(mod, k, b)
            report.update({"b": b, "b bound k(2^b-1)^2/2 < p": "holds",
                           "largest b": P.max_digit_bits(mod, k)})
    bc = P.barrett_constants(mod)
    report.update({"barrett alpha, beta": f"{bc.alpha}, {bc.beta}", "barrett mu": bc.mu})
    if args.word is not None:
        mc = P.montgomery_constants(mod, args.word)
        report.update({"montgomery word, nu": f"{mc.word}, {mc.nu}", "montgomery q_H": mc.q_high,
                       "montgomery R mod q": mc.R_mod_q})
    if args.rns_n is not None:
        try:
            report.update(_rns_report(args))
        except (ValueError, TypeError) as e:
            raise type(e)(flag_message(str(e), (), _RNS_FLAGS)) from None
    return report


def _root_report(mod, k, negacyclic):
    """The root each convention of :data:`fhe_hw.params.ROOT_CONVENTIONS` gives: ψ (negacyclic)
    or ω, as ``--root NAME`` of the NTT units picks it."""
    from . import params as P

    name, order = ("psi", 2 * k) if negacyclic else ("omega", k)
    out = {}
    for root in P.ROOT_CONVENTIONS:
        try:
            value = P.convention_root(mod, order, root)
        except ValueError as e:
            value = f"none ({e})"
        out[f"{name}, --root {root}"] = value
    return out


#: The options of ``params`` that set the RNS units' parameters (their names in the messages).
_RNS_FLAGS = {"n": "--rns-n", "bits": "--rns-bits", "l": "--source", "k": "--target"}


def _rns_report(args):
    """The RNS bases exactly as ``fhe-hw generate`` builds each base-extension unit for these
    N, bits, l and k (each unit's :meth:`~fhe_hw.units.Unit.describe`, from
    :func:`fhe_hw.rns.default_bases`), and the constants of the Shenoy–Kumaresan bases."""
    from . import params as P
    from .rns.common import default_bases
    from .units import units

    n, bits, l, k = args.rns_n, args.rns_bits, args.source, args.target
    common = {"prime_bits": bits, "n": n, "source_limbs": l, "target_limbs": k}
    report = {"RNS N": n}
    for name in ("shenoy-kumaresan", "fast-base-conversion", "mixed-radix", "kawamura"):
        # the bases do not depend on mixed-radix's rounds; the shallow ones fit every word
        params = {**common, "deep": False} if name == "mixed-radix" else common
        for label, value in units()[name].describe(params).items():
            report[f"{name}: {label}"] = value
    source, target, redundant = default_bases(bits, n, l, k, redundant=True)
    if args.redundant is not None:
        redundant = args.redundant
    sk = P.ShenoyKumaresanConstants.build(source, target, redundant)
    report.update({"log2 Q (shenoy-kumaresan)": sk.source.Q.bit_length(),
                   "SK |Q^-1|_{q_l}": sk.Q_inv_mod_ql,
                   "SK stored terms ([Kir25] Table 3.1)": sk.term_counts})
    P.MixedRadixConstants.build(*default_bases(bits, n, l, k))
    if args.rho is not None:
        kc = P.KawamuraConstants.build(*default_bases(bits, n, l, k, source_high=True),
                                       args.rho, args.delta)
        report.update({"Kawamura r, rho, delta": f"{kc.r}, {kc.rho}, {kc.delta}",
                       "Kawamura l(eps+lambda)": float(l * (kc.epsilon + kc.lam)),
                       "Kawamura max input": kc.max_input})
    return report


def cmd_params(args):
    report = _params_report(args)
    if args.json:
        print(json.dumps(report, indent=2, default=str))
    else:
        width = max(map(len, report))
        for key, value in report.items():
            print(f"{key:<{width}}  {value}")
    return 0


# --- generate -----------------------------------------------------------------------------------

def cmd_generate(args):
    unit = get_unit(args.unit)
    params = unit_params(unit, args)
    # A large unit takes minutes to build and convert: a line every 10 s says which stage.
    with Ticker(Progress(f"generate {unit.name}"), "building the unit") as ticker:
        summary = unit.summary(params)
        component = unit.build(**params)
        ticker.stage = "converting to Verilog"
        text = to_verilog(component, unit.name, header=summary)
    if args.output in (None, "-"):
        sys.stdout.write(text)
    else:
        write_text(args.output, text)
        print(f"wrote {args.output}", file=sys.stderr)
    for line in summary:
        print(f"  {line}", file=sys.stderr)
    return 0


def cmd_demo(args):
    from .demo import run_demo

    return run_demo(seed=args.seed, vectors=args.vectors, board=args.board,
                    build=not args.no_build, units=args.units)


def add_params_parser(subparsers):
    """Add ``params`` to the ``fhe-hw`` sub-command parsers."""
    from . import params as P
    from .rns.common import MAX_BITS, MAX_N, MAX_RESIDUES

    p = subparsers.add_parser("params", help=COMMANDS["params"][0],
                              description="Validate and print an Integer-FFT / NTT / RNS "
                                          "parameter set.")
    p.add_argument("--modulus", type=_modulus_arg, required=True,
                   help=f"one of {', '.join(P.MODULI)} or an integer (decimal or 0x...)")
    p.add_argument("--k", type=int_in(2, 1 << 24),
                   help="transform size (default: [Cao14] Table 2's k)")
    p.add_argument("--b", type=int_in(1, 1024), help="digit bits (default: [Cao14] Table 2's b)")
    p.add_argument("--negacyclic", action="store_true", help="also need a 2k-th root psi")
    p.add_argument("--word", type=int_in(1, 64),
                   help="word-level Montgomery word size w (default: no Montgomery constants)")
    p.add_argument("--rns-n", type=int_in(2, MAX_N),
                   help="ring degree N of an RNS base (q = 1 mod 2N; default: no RNS bases)")
    p.add_argument("--rns-bits", type=int_in(8, MAX_BITS), default=32,
                   help="bits of the RNS primes")
    p.add_argument("--source", type=int_in(1, MAX_RESIDUES), default=4, help="source residues l")
    p.add_argument("--target", type=int_in(1, MAX_RESIDUES), default=4, help="target residues k")
    p.add_argument("--redundant", type=int_in(3), help="redundant modulus q_l (default: a prime)")
    p.add_argument("--rho", type=int_in(1, 64),
                   help="Kawamura truncation bits (enables the check; default: not checked)")
    p.add_argument("--delta", type=fraction, default=Fraction(1, 8),
                   help="Kawamura offset delta (fraction)")
    p.add_argument("--json", action="store_true", help="print JSON")
    p.set_defaults(func=cmd_params)


def add_generate_parser(subparsers):
    """Add ``generate UNIT`` (one sub-command per registered unit) to the sub-command parsers."""
    from .units import add_unit_subcommands

    g = subparsers.add_parser("generate", help=COMMANDS["generate"][0],
                              description="Write Verilog (top fhe_hw_<unit>) for a registered "
                                          "unit.")
    for u in add_unit_subcommands(g).values():
        u.add_argument("-o", "--output", type=output_file, help="output file (default: stdout)")
    g.set_defaults(func=cmd_generate)


def add_demo_parser(subparsers):
    """Add ``demo`` to the ``fhe-hw`` sub-command parsers."""
    from .boards import BOARDS, DEFAULT_BOARD

    d = subparsers.add_parser("demo", help=COMMANDS["demo"][0],
                              description="Elaborate and simulate every unit against its golden "
                                          "model and print a summary table; then simulate the "
                                          "default unit behind the board's UART link and build "
                                          "its bitstream.")
    d.add_argument("--seed", type=integer, default=1, help="seed of the random vectors")
    d.add_argument("--vectors", type=int_in(0, 100_000), default=200,
                   help="random vectors per fixed-latency unit, besides the edge values (the "
                        "board path sends at most 64 through its simulated UART)")
    d.add_argument("--unit", action="append", metavar="UNIT", dest="units",
                   help="simulate only this unit's configurations (repeatable; default: every "
                        "unit the demo runs)")
    d.add_argument("--board", choices=BOARDS, default=DEFAULT_BOARD,
                   help="board of the bitstream build")
    d.add_argument("--no-build", action="store_true", help="skip the bitstream build")
    d.set_defaults(func=cmd_demo)


def parser(command=None):
    """The ``fhe-hw`` argument parser with every command's options (sphinx-argparse's, in
    docs/cli.md), or, for ``command``, with that command's options only: the others are listed
    with their help and parse nothing. Built once per ``command`` (``main`` runs many times in
    one process in the tests; the full parser takes a quarter of a second)."""
    return _build_parser(tuple(COMMANDS) if command is None else (command,))


@functools.cache
def _build_parser(populated):
    top = Parser(prog="fhe-hw", description="Generate, check, synthesize and build FHE "
                 "arithmetic hardware, and reproduce the papers' tables. Every command's -h "
                 "shows its options with their defaults; invalid parameters exit with "
                 "status 2 and the reason.")
    top.add_argument("--version", action="version", version=f"fhe-hw {__version__}")
    sub = top.add_subparsers(dest="command", required=True)
    for name, (text, module, function) in COMMANDS.items():
        if name in populated:
            getattr(importlib.import_module(module), function)(sub)
        else:
            sub.add_parser(name, help=text)
    return top


def _command(argv):
    """The command ``argv`` names (its first word that is not an option), or None."""
    return next((word for word in argv if not word.startswith("-")), None)


#: The pip extra that brings each optional module.
EXTRAS = {"serial": "host", "yaml": "report", "dask": "cluster", "distributed": "cluster",
          "gmpy2": "bench", "flint": "bench", "numpy": "bench", "matplotlib": "report",
          "librelane": "asic", "pyosys": "asic"}


def main(argv=None):
    """Run ``fhe-hw`` with ``argv``; return the exit status. User errors (bad values, files
    that cannot be read or written, a missing optional extra, a board that does not answer)
    are one line on stderr and status 2, never a traceback."""
    argv = sys.argv[1:] if argv is None else list(argv)
    command = _command(argv)
    args = _build_parser((command,) if command in COMMANDS else ()).parse_args(argv)
    flags = {word.split("=")[0] for word in argv if word.startswith("--")}
    if getattr(args, "unit", None) is not None:
        flags |= {f"--{opt.name}" for opt in get_unit(args.unit).options}
    where = f"fhe-hw {args.command}: error"
    stream_to(sys.stderr if getattr(args, "verbose", False) else None)
    try:
        return args.func(args)
    except ModuleNotFoundError as e:
        top = (e.name or "").split(".")[0]
        extra = EXTRAS.get(top)
        if extra is None:
            raise
        print(f"{where}: this needs the Python module {top!r}: install the {extra!r} extra "
              f"(pip install 'fhe-hw[{extra}]')", file=sys.stderr)
    except OSError as e:
        name = f"{e.filename}: " if e.filename else ""
        print(f"{where}: {name}{e.strerror or e}", file=sys.stderr)
    except KeyboardInterrupt:
        print(f"{where}: interrupted", file=sys.stderr)
        return 130
    except Exception as e:
        if not _user_error(e):
            raise
        print(f"{where}: {flag_message(str(e), flags)}", file=sys.stderr)
    finally:
        stream_to(None)
    return 2


def _user_error(e):
    """Whether ``e`` is a user's error: a refused value (``ValueError``, ``TypeError``) or a board
    that answers with an error or not at all (:class:`fhe_hw.link.host.LinkError`, loaded only by
    the commands that talk to a board)."""
    link = sys.modules.get("fhe_hw.link.host")
    return isinstance(e, (ValueError, TypeError)) or (link is not None
                                                      and isinstance(e, link.LinkError))


if __name__ == "__main__":
    sys.exit(main())
