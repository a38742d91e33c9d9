"""Test vectors with golden-model results, per registered unit.

A family module registers, for a unit name, a function ``vectors(component, rng, count) ->``
:class:`Vectors`: ``inputs`` maps each input port to its payloads, ``expected`` each output
port to the payloads the golden model gives for them, and ``run`` holds the keyword arguments
of the unit's ``cycles()`` that describe this run. ``count`` is the number of random vectors
besides the edge values (engines that take a whole polynomial ignore it). The demo, the host link
(``fhe-hw run``) and the board demo draw their vectors from here, so all three check the same
things.

The families' modules are imported by name on first use, as :func:`fhe_hw.units.units` does.
"""

import importlib
from typing import NamedTuple

from ..units import get_unit

__all__ = ["Vectors", "register_vectors", "vectors_for", "vector_units", "small_params",
           "documented_cycles", "demo_configurations"]

_VECTOR_MODULES = ["fhe_hw.arith.vectors", "fhe_hw.ntt.vectors", "fhe_hw.rns.vectors",
                   "fhe_hw.karatsuba.vectors", "fhe_hw.bigint.vectors", "fhe_hw.largeint.vectors",
                   "fhe_hw.encrypt.vectors", "fhe_hw.poly.vectors"]
_VECTORS = {}
_SMALL = {}


class Vectors(NamedTuple):
    """One run's input payloads and golden outputs, by port, and its ``cycles()`` keywords.

    Units with memory ports run inside a ``harness(component)`` (their RAM), whose output
    carries the unit's own cycle count; ``run`` is then ``None``."""

    inputs: dict
    expected: dict
    run: dict | None
    harness: object = None


def register_vectors(unit_name, *, small=None):
    """Decorator: register ``vectors(component, rng, count)`` for ``unit_name``; ``small`` is
    a configuration of the unit (parameters) that simulates in seconds, for the checks that
    run every unit (``{}``: the command line's defaults)."""
    def decorate(fn):
        if unit_name in _VECTORS:
            raise ValueError(f"unit name must have one vector source, not {unit_name!r} again")
        _VECTORS[unit_name] = fn
        _SMALL[unit_name] = dict(small or {})
        return fn
    return decorate


def small_params(unit_name):
    """The small configuration registered with the vectors of ``unit_name``."""
    vectors_for(unit_name)
    return dict(_SMALL[unit_name])


def vector_units():
    """The names of the units that have test vectors, sorted."""
    for module in _VECTOR_MODULES:
        importlib.import_module(module)
    return sorted(_VECTORS)


def vectors_for(unit_name):
    """The vector function of ``unit_name``; ``ValueError`` if it has none."""
    known = vector_units()
    if unit_name not in known:
        raise ValueError(f"unit must have test vectors ({', '.join(known)}), not {unit_name!r}")
    return _VECTORS[unit_name]


def documented_cycles(unit_name, params, run):
    """The cycles unit ``unit_name`` documents, through the registry's timing contract, for
    the run ``run`` (a :class:`Vectors`'s ``run``) at ``params``."""
    return get_unit(unit_name).cycles(params, **run)


def demo_configurations():
    """(unit, label, parameters) of every configuration the demo runs: each family module's
    ``DEMO`` list, in the order of the families."""
    return [entry for module in _VECTOR_MODULES
            for entry in importlib.import_module(module).DEMO]
