"""Test vectors with golden-model results, per registered unit.

A family module registers, for a unit name, a function ``vectors(component, rng, count) ->
(inputs, expected)``: ``inputs`` maps each input port to its payloads, ``expected`` each output
port to the payloads the golden model gives for them. ``count`` is the number of random vectors
besides the edge values (engines that take a whole polynomial ignore it). The demo, the host link
(``fhe-hw run``) and the board demo draw their vectors from here, so all three check the same
things.

The families' modules are imported by name on first use, as :func:`fhe_hw.units.units` does.
"""

import importlib

__all__ = ["register_vectors", "vectors_for", "vector_units"]

_VECTOR_MODULES = ["fhe_hw.arith.vectors", "fhe_hw.ntt.vectors", "fhe_hw.rns.vectors"]
_VECTORS = {}


def register_vectors(unit_name):
    """Decorator: register ``vectors(component, rng, count)`` for ``unit_name``."""
    def decorate(fn):
        if unit_name in _VECTORS:
            raise ValueError(f"unit name must have one vector source, not {unit_name!r} again")
        _VECTORS[unit_name] = fn
        return fn
    return decorate


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
