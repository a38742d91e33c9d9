"""Unit plans: a unit's parameters as one frozen dataclass that validates itself.

A plan says what a unit is without building any hardware: its fields are the parameters,
``__post_init__`` refuses bad ones with ``ValueError``/``TypeError`` in one message style
(``name must be ..., not value``, naming the parameter and the accepted range), and
:attr:`Plan.latency` and :meth:`Plan.cycles` are pure. The Component takes the plan
(``ModMul(plan)``); it also accepts the plan's own arguments (``ModMul("solinas64",
tiled=False)``), which :meth:`Plan.coerce` turns into the plan in one step.

A field declared with :func:`param` carries its command-line metadata (help text, parser,
range); the unit registry (:func:`fhe_hw.units.register` with ``plan=``) derives the unit's
``--options`` from them (:func:`fhe_hw.units.plan_options`, which reads the fields' metadata
and imports nothing of this module, so that the command line starts without the parameter
checks), so a parameter is declared once. Every registered unit follows this pattern.

A stream engine's plan derives from :class:`StreamPlan`: no fixed latency, and where one run has
a fixed number of beats, :attr:`StreamPlan.input_beats` and :attr:`StreamPlan.output_beats`.
"""

import dataclasses
import types

from .params import check_bool, require_int

__all__ = ["Plan", "StreamPlan", "param"]

def param(default=dataclasses.MISSING, *, help, parse=None, range=None,
          cli_default=dataclasses.MISSING, kw_only=False):
    """A plan field that is also a command-line option ``--name``.

    Parameters
    ----------
    default
        The plan's default (none: the parameter is required in Python).
    help : str
        The option's help text.
    parse : callable or None
        Turns the command-line text into the value; None: from the field's type (``int``,
        ``bool`` or ``str``).
    range : (int or None, int or None) or None
        The accepted ``[minimum, maximum]`` of an ``int`` field, checked by
        :meth:`Plan.__post_init__` (``None`` values of an optional field pass).
    cli_default
        The option's default when it differs from the plan's: the value a required parameter
        takes on the command line, or ``None`` to leave the plan's own default in force and out
        of the parameters a generated file's header lists.
    kw_only : bool
        A keyword-only parameter.
    """
    metadata = {"help": help, "parse": parse, "range": range, "cli_default": cli_default}
    return dataclasses.field(default=default, kw_only=kw_only, metadata=metadata)


def _is_param(f):
    """Whether ``f`` was declared with :func:`param` (the registry's test is the same)."""
    return f.init and "help" in f.metadata


def _base_type(f):
    """``int`` for ``int`` or ``int | None``; the annotation otherwise."""
    t = f.type
    if isinstance(t, types.UnionType):
        args = [a for a in t.__args__ if a is not type(None)]
        t = args[0] if len(args) == 1 else t
    return t


@dataclasses.dataclass(frozen=True)
class Plan:
    """Base of the unit plans: a frozen dataclass whose :func:`param` fields are checked by type
    (``bool`` fields must be ``bool``; ``int`` fields integers within their ``range``) in
    ``__post_init__``; subclasses extend ``__post_init__`` with their own checks (calling this
    one first) and define :attr:`latency`.
    """

    def __post_init__(self):
        for f in dataclasses.fields(self):
            if not _is_param(f):
                continue
            value, kind = getattr(self, f.name), _base_type(f)
            if value is None and f.default is None:
                continue
            if kind is bool:
                check_bool(f.name, value)
            elif kind is int:
                low, high = f.metadata["range"] or (None, None)
                require_int(f.name, value, minimum=low, maximum=high)

    def _set(self, **derived):
        """Store values derived in ``__post_init__`` in the frozen instance (fields declared
        with ``field(init=False, repr=False, compare=False)``)."""
        for name, value in derived.items():
            object.__setattr__(self, name, value)

    @classmethod
    def coerce(cls, *args, **kw):
        """``args[0]`` when it is the only argument and a plan of this class, else the plan of
        ``args`` and ``kw``: what a Component's ``__init__`` takes."""
        if len(args) == 1 and not kw and isinstance(args[0], cls):
            return args[0]
        return cls(*args, **kw)

    @property
    def latency(self):
        """Cycles from an input transfer to its output transfer, or ``None`` for a stream
        engine whose timing depends on the run (:meth:`cycles` tells)."""
        raise NotImplementedError(f"{type(self).__name__} defines no latency")

    def cycles(self, count=1, **kw):
        """Exact cycles from the first input transfer to the last output transfer, both
        included, of ``count`` back-to-back operations of a fixed-latency unit (one result per
        cycle); other keywords raise ``TypeError``. Stream engines override it with the
        keywords that describe their runs."""
        if kw:
            raise TypeError(f"{type(self).__name__}.cycles() takes only count, not "
                            f"{', '.join(kw)}")
        require_int("count", count, minimum=1)
        if self.latency is None:
            raise TypeError(f"{type(self).__name__} is a stream engine without a cycles "
                            f"contract")
        return count + self.latency

    def describe(self):
        """``{label: value}`` of what the unit bakes in besides its parameters (the RNS bases it
        was built for, the root of unity an NTT resolved): a generated file's header shows it;
        ``{}`` for most units."""
        return {}

    def params(self):
        """``{name: value}`` of the plan's :func:`param` fields."""
        return {f.name: getattr(self, f.name) for f in dataclasses.fields(self) if _is_param(f)}


@dataclasses.dataclass(frozen=True)
class StreamPlan(Plan):
    """Base of the plans of stream engines, whose timing depends on the run: :attr:`latency`
    is ``None`` and :meth:`cycles` counts a run described by the engine's own keywords.

    An engine whose run is fixed by its parameters (one transform, one conversion, one
    product: what :meth:`cycles` counts by default) defines :attr:`input_beats` and
    :attr:`output_beats`, the beats of that run on ``i`` and on ``o``; what the host link's
    memories must hold to drive one run (``fhe-hw table board-fits``).
    """

    @property
    def latency(self):
        """``None``: a stream engine, timed by :meth:`cycles`."""
        return None

    @property
    def input_beats(self):
        """Beats on ``i`` of the run :meth:`cycles` counts by default."""
        raise NotImplementedError(f"{type(self).__name__} has no fixed run: no input_beats")

    @property
    def output_beats(self):
        """Beats on ``o`` of the run :meth:`cycles` counts by default."""
        raise NotImplementedError(f"{type(self).__name__} has no fixed run: no output_beats")
