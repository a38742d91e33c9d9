"""The registry of generatable hardware units.

A unit module registers its unit with :func:`register`; the CLI (`fhe-hw generate`, `synth`, ...)
builds one sub-command per unit with its options. Options are parsed to Python values by the
``type`` callable and passed on as keyword arguments, so bad values reach the unit's own
validation and raise its ``ValueError`` before any hardware is built.

A unit is registered as a (plan, component) pair, ``register(name, plan=ModMulPlan,
component=ModMul, description=...)`` (:mod:`fhe_hw.plan`): its options come from the plan's
fields, its timing contract from the plan's ``latency``, ``cycles()`` and ``describe()``, and the
component is built from the plan.

:func:`to_verilog` converts a component to Verilog; within :func:`verilog_store` it reuses the
text of a registered unit's Component converted before (:func:`verilog_key`), as the test suite
does across its workers.
"""

import argparse
import contextlib
import dataclasses
import importlib
import os
import types
from dataclasses import dataclass

from . import __version__
from .cliargs import integer, shown_default

__all__ = ["Option", "Unit", "register", "plan_options", "plan_defaults", "units", "get_unit",
           "top_name", "verilog_header", "to_verilog", "port_values", "parse_bool",
           "add_unit_options", "add_unit_subcommands", "unit_params", "verilog_key",
           "verilog_store"]

# Modules whose import registers units; later packages add themselves here.
_UNIT_MODULES = ["fhe_hw.arith", "fhe_hw.ntt", "fhe_hw.karatsuba", "fhe_hw.rns", "fhe_hw.bigint",
                 "fhe_hw.largeint", "fhe_hw.encrypt", "fhe_hw.poly"]


def parse_bool(text):
    """Command-line boolean: true/false, yes/no, 1/0, on/off."""
    value = {"true": True, "yes": True, "1": True, "on": True,
             "false": False, "no": False, "0": False, "off": False}.get(str(text).lower())
    if value is None:
        raise ValueError(f"value must be true or false, not {text!r}")
    return value


parse_bool.__name__ = "boolean"     # argparse: "invalid boolean value: 'x'"


@dataclass(frozen=True)
class Option:
    """One generate-time parameter: ``--name`` on the command line, ``name`` (with ``_``) for
    the factory."""

    name: str
    type: object = int
    default: object = None
    help: str = ""

    @property
    def dest(self):
        return self.name.replace("-", "_")


@dataclass(frozen=True)
class Unit:
    """A registered unit: its name, its component class (``factory``), its plan class and the
    options derived from the plan's fields.

    The timing contract is the plan's, pure Python, building no hardware: :meth:`latency`, the
    cycles from an input transfer to its output transfer of a fixed-latency unit, or ``None``
    for a stream engine whose timing depends on the run; :meth:`cycles`, the exact cycles from
    the first input transfer to the last output transfer, both included, of a run described by
    the plan's own keywords (the defaults describe one operation). ``params`` are the plan's
    keyword arguments (:meth:`resolve` fills in the options' defaults); the plan raises
    ``ValueError``/``TypeError`` for parameters it refuses, so :meth:`build` checks them before
    any hardware exists.
    """

    name: str
    factory: type
    description: str
    options: tuple
    plan: type

    def make_plan(self, params=None):
        """The plan of ``params`` (see :meth:`resolve`) of a unit registered with a plan;
        raises the plan's ``ValueError``/``TypeError`` for refused parameters."""
        return self.plan(**self.resolve(params))

    def resolve(self, params=None):
        """The factory keyword arguments for ``params`` (a dict keyed by option ``dest`` or
        ``--name``): the options' defaults, overridden by ``params``, with ``None`` values left
        out so that the factory's own defaults apply. Unknown names raise ``ValueError``."""
        known = {opt.dest: opt for opt in self.options}
        merged = {dest: opt.default for dest, opt in known.items()}
        for key, value in (params or {}).items():
            dest = key.replace("-", "_")
            if dest not in known:
                raise ValueError(f"{self.name} has no parameter {key!r}; it takes "
                                 f"{', '.join('--' + o.name for o in self.options)}")
            merged[dest] = value
        return {k: v for k, v in merged.items() if v is not None}

    def build(self, **params):
        """Construct the Component from the plan of ``params`` (see :meth:`resolve`), so that
        refused parameters raise before any hardware exists."""
        return self.factory(self.make_plan(params))

    def latency(self, params=None):
        """Latency in cycles for ``params``, or ``None`` for a stream engine."""
        return self.make_plan(params).latency

    def cycles(self, params=None, **kw):
        """Exact cycles of the run ``kw`` (default: one operation) for ``params``."""
        return self.make_plan(params).cycles(**kw)

    def factory_defaults(self):
        """``{name: default}`` of the plan's parameter fields that have a default (the Python
        class's own, which an option's ``None`` default leaves in force)."""
        return plan_defaults(self.plan)

    def describe(self, params=None):
        """``{label: value}`` of what the unit bakes in besides its parameters (for example the
        RNS bases it was built for: the plan's :meth:`~fhe_hw.plan.Plan.describe`); ``{}`` for
        most units."""
        return dict(self.make_plan(params).describe())

    def summary(self, params=None):
        """Lines that say what a generated design is: unit, parameters, timing, what it bakes
        in, and the fhe_hw version (the header of ``fhe-hw generate``'s Verilog)."""
        resolved = self.resolve(params)
        shown = ", ".join(f"{k}={v}" for k, v in resolved.items()) or "defaults"
        latency = self.latency(resolved)
        lines = [f"fhe_hw {__version__}: unit {self.name} (top module {top_name(self.name)})",
                 f"parameters: {shown}",
                 (f"latency: {latency} cycles; " if latency is not None else "stream engine; ")
                 + f"cycles() of one operation: {self.cycles(resolved)}"]
        lines += [f"{label}: {value}" for label, value in self.describe(resolved).items()]
        return lines


_REGISTRY = {}

def register(name, *, plan, component, description):
    """Register unit ``name``: the :class:`~fhe_hw.plan.Plan` subclass ``plan`` and the
    Component class ``component`` that takes it, with its options derived from the plan's fields
    (:func:`plan_options`) and its timing contract the plan's."""
    if not (isinstance(plan, type) and dataclasses.is_dataclass(plan)):
        raise TypeError(f"unit {name!r}: plan must be a Plan class, not {plan!r}")
    if not isinstance(component, type):
        raise TypeError(f"unit {name!r}: component must be a class, not {component!r}")
    if name in _REGISTRY:
        raise ValueError(f"unit name must be unique, not {name!r} again")
    _REGISTRY[name] = Unit(name, component, description, plan_options(plan), plan)


def _param_fields(plan_cls):
    """The fields of ``plan_cls`` declared with :func:`fhe_hw.plan.param` (an ``init`` field
    whose metadata has ``help``), in field order."""
    return [f for f in dataclasses.fields(plan_cls) if f.init and "help" in f.metadata]


def plan_defaults(plan_cls):
    """``{name: default}`` of the parameter fields of ``plan_cls`` that have a default."""
    return {f.name: f.default for f in _param_fields(plan_cls)
            if f.default is not dataclasses.MISSING}


def plan_options(plan_cls):
    """The :class:`Option` of each parameter field of ``plan_cls`` (:func:`fhe_hw.plan.param`),
    in field order: ``--name`` with ``-`` for ``_``; the field's ``parse``, else from its type
    (``int``, ``str``; ``bool``: :func:`parse_bool`); its ``cli_default``, else its default,
    else ``None``; its help."""
    options = []
    for f in _param_fields(plan_cls):
        meta, kind = f.metadata, f.type
        if isinstance(kind, types.UnionType):        # int | None
            kind = next(a for a in kind.__args__ if a is not type(None))
        parse = meta["parse"] or {bool: parse_bool, int: int, str: str}.get(kind)
        if parse is None:
            raise TypeError(f"{plan_cls.__name__}.{f.name}: a field of type {f.type!r} needs "
                            f"parse=")
        default = meta["cli_default"]
        if default is dataclasses.MISSING:
            default = None if f.default is dataclasses.MISSING else f.default
        options.append(Option(f.name.replace("_", "-"), parse, default, meta["help"]))
    return tuple(options)


def units():
    """All registered units, by name."""
    for module in _UNIT_MODULES:
        importlib.import_module(module)
    return dict(sorted(_REGISTRY.items()))


def get_unit(name):
    known = units()
    if name not in known:
        raise ValueError(f"unit must be one of {', '.join(known)}, not {name!r}")
    return known[name]


def add_unit_options(parser, unit):
    """Add one ``--<name>`` argument per :class:`Option` of ``unit`` to an argparse parser.
    ``--help`` shows each default (:class:`fhe_hw.cliargs.HelpFormatter`); an option whose
    default is ``None`` shows the factory's own, unless its text says what applies. An ``int``
    option reads ASCII decimal digits or ``0x`` hex only (:func:`fhe_hw.cliargs.integer`:
    ``int()`` would also take ``1_000``, ``' 7 '`` and ``５``). A ``ValueError`` of an option's
    type becomes argparse's one-line error with the type's own message (the accepted values)."""
    factory_defaults = unit.factory_defaults()
    for opt in unit.options:
        text = opt.help
        fallback = factory_defaults.get(opt.dest)
        if opt.default is None and fallback is not None and "default" not in text:
            text = f"{text} (default: {shown_default(fallback)})"
        parser.add_argument(f"--{opt.name}", type=_option_type(opt), default=opt.default,
                            help=text)


def _option_type(opt):
    """``opt.type`` for argparse: :func:`~fhe_hw.cliargs.integer` for ``int``, and a
    ``ValueError`` of the others turned into ``ArgumentTypeError`` with its message."""
    if opt.type is int:
        return integer

    def parse(text):
        try:
            return opt.type(text)
        except ValueError as e:
            raise argparse.ArgumentTypeError(str(e)) from None
    parse.__name__ = getattr(opt.type, "__name__", "value")
    return parse


def add_unit_subcommands(parser, parents=()):
    """Under ``parser``, one sub-command per registered unit (``args.unit`` names it) with the
    unit's options and those of the ``parents`` parsers; returns the sub-parsers by name."""
    sub = parser.add_subparsers(dest="unit", required=True, metavar="UNIT")
    out = {}
    for unit in units().values():
        out[unit.name] = sub.add_parser(unit.name, parents=list(parents), help=unit.description,
                                        description=unit.description)
        add_unit_options(out[unit.name], unit)
    return out


def unit_params(unit, args):
    """The factory keyword arguments parsed by :func:`add_unit_options`, from an argparse
    namespace: ``unit.build(**unit_params(unit, args))``."""
    return {opt.dest: getattr(args, opt.dest) for opt in unit.options}


def top_name(unit_name):
    """Verilog top-module name of a unit: ``fhe_hw_<name with _>``."""
    return "fhe_hw_" + unit_name.replace("-", "_")


def verilog_header(unit_name, params=None, notes=()):
    """The comment lines that open a generated Verilog file: :meth:`Unit.summary` for a
    registered unit (the fhe_hw version, unit, parameters, latency and cycles(), what it bakes
    in), else the fhe_hw version, the design's name and ``params``; then ``notes`` (what was
    wrapped around the unit, for example)."""
    if unit_name in units():
        lines = get_unit(unit_name).summary(params)
    else:
        shown = ", ".join(f"{k}={v}" for k, v in dict(params or {}).items()) or "none"
        lines = [f"fhe_hw {__version__}: {unit_name} (top module {top_name(unit_name)})",
                 f"parameters: {shown}"]
    return [*lines, *notes]


def to_verilog(component, unit_name, header=(), *, platform=None):
    """Verilog text of ``component`` with top module :func:`top_name` and ports ``clk``, ``rst``
    and the signature's ``i__payload``, ``i__valid``, ``o__payload``, ... ; ``header`` lines
    (e.g. :meth:`Unit.summary`) come first as ``//`` comments. ``platform`` is what the
    units' ``elaborate`` receive (None: portable Verilog without vendor primitives). Within
    :func:`verilog_store`, the text of a component with a :func:`verilog_key` comes from the
    store."""
    key = verilog_key(component, unit_name, platform) if _store else None
    text = (_store(key, lambda: _convert(component, unit_name, platform)) if key is not None
            else _convert(component, unit_name, platform))
    return "".join(f"// {line}\n" for line in header) + text


#: The store of :func:`verilog_store`, or None.
_store = None


def verilog_key(component, unit_name, platform=None):
    """What the Verilog text of ``component`` (without header) depends on, where that is known:
    ``("to_verilog", unit_name, the Component class's qualified name, repr of its plan)`` for
    the registered unit ``unit_name``'s own Component, which is built from its plan alone and
    whose plan's ``repr`` holds every parameter, converted without a platform; ``None`` for
    anything else (wrappers, harnesses, vendor platforms). The key does not name the code that
    turns the plan into Verilog: it holds within one run of one source tree."""
    unit = units().get(unit_name)
    if platform is not None or unit is None or type(component) is not unit.factory:
        return None
    return ("to_verilog", unit_name, type(component).__qualname__, repr(component.plan))


@contextlib.contextmanager
def verilog_store(store):
    """Within the ``with`` block, :func:`to_verilog` asks ``store(key, make)`` for the text of
    each component with a :func:`verilog_key`: ``store`` returns the text it holds for ``key``,
    else stores and returns ``make()`` (the conversion). A store serves one run (the tests'
    shares each conversion among the run's workers through a directory of that run); the
    command line uses none."""
    global _store
    saved, _store = _store, store
    try:
        yield store
    finally:
        _store = saved


def _convert(component, unit_name, platform):
    """The Verilog text of ``component`` (:func:`to_verilog` without the header)."""
    from amaranth.back import verilog

    # Amaranth must use its bundled Yosys (>= 0.40), not an older one on PATH.
    os.environ.setdefault("AMARANTH_USE_YOSYS", "builtin")
    return verilog.convert(component, name=top_name(unit_name), platform=platform,
                           ports=port_values(component), emit_src=False)


def port_values(component):
    """The Amaranth values of ``component``'s ports, without the constant ones (the ``ready``
    of an always-ready stream is not a port)."""
    from amaranth.hdl import Const, Value

    ports = [Value.cast(value) for _, _, value in component.signature.flatten(component)]
    return [port for port in ports if not isinstance(port, Const)]
