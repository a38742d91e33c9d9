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
import json
import sys
from fractions import Fraction

from . import __version__
from . import params as P
from .asic.cli import add_asic_synth_parser, add_harden_parser
from .boards import BOARDS, DEFAULT_BOARD
from .cliargs import Parser, flag_message, fraction, int_in, integer, output_file, write_text
from .demo import run_demo
from .flow.build import add_build_parser, add_run_parser
from .flow.explore import add_explore_parser
from .flow.run import Progress, Ticker, stream_to
from .flow.synth import add_synth_parser
from .link.host import LinkError
from .report import add_report_parser
from .rns.common import MAX_BITS, MAX_N, MAX_RESIDUES, default_bases
from .tables.cli import add_table_parser
from .units import add_unit_subcommands, get_unit, to_verilog, unit_params, units

__all__ = ["main"]


def _modulus_arg(text):
    try:
        return P.get_modulus(text)
    except (ValueError, TypeError) as e:
        raise argparse.ArgumentTypeError(str(e)) from None


# --- params -------------------------------------------------------------------------------------

def _params_report(args):
    """The parameter set as a dict of printable values; raises ValueError on invalid input."""
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
    n, bits, l, k = args.rns_n, args.rns_bits, args.source, args.target
    common = {"bits": bits, "n": n, "l": l, "k": k}
    report = {"RNS N": n}
    for name in ("shenoy-kumaresan", "fast-base-conversion", "mixed-radix", "kawamura"):
        for label, value in units()[name].describe(common).items():
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
    return run_demo(seed=args.seed, vectors=args.vectors, board=args.board,
                    build=not args.no_build)


def _parser():
    """The ``fhe-hw`` argument parser, built once per set of registered units (``main`` runs
    many times in one process in the tests; building it takes a quarter of a second)."""
    return _build_parser(tuple(units()))


@functools.cache
def _build_parser(unit_names):
    parser = Parser(prog="fhe-hw", description="Generate, check, synthesize and build FHE "
                    "arithmetic hardware, and reproduce the papers' tables. Every command's -h "
                    "shows its options with their defaults; invalid parameters exit with "
                    "status 2 and the reason.")
    parser.add_argument("--version", action="version", version=f"fhe-hw {__version__}")
    sub = parser.add_subparsers(dest="command", required=True)

    p = sub.add_parser("params", help="validate and print a parameter set",
                       description="Validate and print an Integer-FFT / NTT / RNS parameter set.")
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

    g = sub.add_parser("generate", help="write Verilog for a unit",
                       description="Write Verilog (top fhe_hw_<unit>) for a registered unit.")
    for u in add_unit_subcommands(g).values():
        u.add_argument("-o", "--output", type=output_file, help="output file (default: stdout)")
    g.set_defaults(func=cmd_generate)

    add_synth_parser(sub)
    add_report_parser(sub)
    add_table_parser(sub)
    add_explore_parser(sub)
    add_asic_synth_parser(sub)
    add_harden_parser(sub)
    add_build_parser(sub)
    add_run_parser(sub)

    d = sub.add_parser("demo", help="simulate the units against the golden models",
                       description="Elaborate and simulate every unit against its golden model "
                                   "and print a summary table; then simulate the default unit "
                                   "behind the board's UART link and build its bitstream.")
    d.add_argument("--seed", type=integer, default=1, help="seed of the random vectors")
    d.add_argument("--vectors", type=int_in(0, 100_000), default=200,
                   help="random vectors per fixed-latency unit, besides the edge values")
    d.add_argument("--board", choices=BOARDS, default=DEFAULT_BOARD,
                   help="board of the bitstream build")
    d.add_argument("--no-build", action="store_true", help="skip the bitstream build")
    d.set_defaults(func=cmd_demo)
    return parser


parser = _parser  # public name for sphinx-argparse (docs/cli.md): ``fhe_hw.cli.parser()``


#: The pip extra that brings each optional module.
EXTRAS = {"serial": "host", "yaml": "report", "dask": "cluster", "distributed": "cluster",
          "gmpy2": "bench", "flint": "bench", "numpy": "bench", "matplotlib": "report",
          "librelane": "asic", "pyosys": "asic"}


def main(argv=None):
    """Run ``fhe-hw`` with ``argv``; return the exit status. User errors (bad values, files
    that cannot be read or written, a missing optional extra, a board that does not answer)
    are one line on stderr and status 2, never a traceback."""
    argv = sys.argv[1:] if argv is None else list(argv)
    args = _parser().parse_args(argv)
    flags = {word.split("=")[0] for word in argv if word.startswith("--")}
    if getattr(args, "unit", None) in units():
        flags |= {f"--{opt.name}" for opt in get_unit(args.unit).options}
    where = f"fhe-hw {args.command}: error"
    stream_to(sys.stderr if getattr(args, "verbose", False) else None)
    try:
        return args.func(args)
    except (ValueError, TypeError, LinkError) as e:
        print(f"{where}: {flag_message(str(e), flags)}", file=sys.stderr)
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
    finally:
        stream_to(None)
    return 2


if __name__ == "__main__":
    sys.exit(main())
