"""RNS polynomials from a library's side: OpenFHE's layout as NumPy arrays in and out of an
``rns-poly-ntt``, ``rns-poly-product`` or ``rns-poly-extend`` device.

A polynomial is a ``uint64`` array of shape (L, n), tower j (row j) its residues mod the unit's
j-th prime, as OpenFHE's ``DCRTPoly`` holds its towers; several polynomials are an array of
shape (k, L, n), sent back to back. :class:`PolyDevice` speaks to the device through a
:class:`~fhe_hw.link.host.Host`: over a serial port to a board built with ``fhe-hw build``, or
over :func:`simulated`, the Amaranth simulation of the same board top (its UART link core).
The host memories of the board must hold the k polynomials' beats per port (L·n/lanes, and
(L + K)·n/lanes out of an extension).

Example (the simulated board)::

    device = simulated("rns-poly-ntt", n=16, limbs=3)
    evaluated = device.transform(towers)       # towers: uint64, shape (3, 16)
"""

import numpy as np

from ..link import HostLinkTop
from ..link.host import Host, SimTransport, rebuild_unit
from ..units import get_unit

__all__ = ["PolyDevice", "simulated", "UNITS"]

#: The units a :class:`PolyDevice` drives.
UNITS = ("rns-poly-ntt", "rns-poly-product", "rns-poly-extend")


class PolyDevice:
    """An RNS polynomial unit behind the host link.

    Parameters
    ----------
    host : Host
        The link to the device (a board, or :func:`simulated`).
    unit : RNSPolyNTT, RNSPolyProduct, RNSPolyExtend or None
        A local instance of the device's unit (default: rebuilt from its IDENTIFY descriptor).

    Attributes
    ----------
    name : str
        The device's unit, one of :data:`UNITS`.
    towers : tuple of int
        Its primes, in tower order.
    capacity : int
        The most polynomials one call may send (the host memories' depth in beats).
    """

    def __init__(self, host, unit=None):
        desc = host.identify()
        if desc["unit"] not in UNITS:
            raise ValueError(f"the device's unit must be one of {', '.join(UNITS)}, not "
                             f"{desc['unit']!r}")
        self.host, self.name = host, desc["unit"]
        self.unit = rebuild_unit(desc) if unit is None else unit
        self.towers = self.unit.towers
        depth = min(m["depth"] for m in desc["mems"])
        plan = self.unit.plan
        self.capacity = depth // max(plan.input_beats, plan.output_beats)
        self._clk_hz = desc["clk_hz"]

    def transform(self, polys):
        """The forward (or, for a unit built with ``inverse``, the inverse) NTT of every tower:
        ``polys`` (L, n) or (k, L, n), ``uint64`` residues; the same shape out."""
        self._require("rns-poly-ntt", "transform")
        return self._run({"i": polys})

    def product(self, a, b):
        """a·b mod x^n + 1 in every tower: ``a`` and ``b`` (L, n) or (k, L, n), ``uint64``
        residues (``b`` in evaluation form for a unit built with ``b_evaluated``); the product
        in coefficient form, the same shape (with L + K towers, Q's then B's, for a unit built
        with ``extend_limbs``)."""
        self._require("rns-poly-product", "product")
        if np.shape(a) != np.shape(b):
            raise ValueError(f"b must have the shape of a {np.shape(a)}, not {np.shape(b)}")
        return self._run({"i_a": a, "i_b": b})

    def extend(self, polys):
        """The exact base extension Q → Q ∪ B of every polynomial: ``polys`` (L, n) or
        (k, L, n), ``uint64`` residues in coefficient form; (L + K, n) or (k, L + K, n) out,
        Q's towers then B's."""
        self._require("rns-poly-extend", "extend")
        return self._run({"i": polys})

    def _require(self, name, method):
        if self.name != name:
            raise ValueError(f"{method}() needs an {name} device, not {self.name}")

    def _run(self, arrays):
        ports = {port: self._polys(port, x) for port, x in arrays.items()}
        k = len(next(iter(ports.values())))
        beats = {port: self.unit.plan.stream_beats(x.tolist()) for port, x in ports.items()}
        count = k * self.unit.plan.output_beats
        # Poll the status once per run's own cycles (cycles()), not per response time-out.
        poll = self.unit.cycles(k) / self._clk_hz
        got, _ = self.host.run_payloads(self.unit, beats, {"o": count}, poll=poll)
        out = np.array(self.unit.plan.stream_polynomials(got["o"]), dtype=np.uint64)
        return out if np.ndim(next(iter(arrays.values()))) == 3 else out[0]

    def _polys(self, name, x):
        """``x`` as a (k, L, n) ``uint64`` array of residues; ``ValueError``/``TypeError``
        naming ``name`` otherwise."""
        x = np.asarray(x)
        if x.dtype != np.uint64:
            raise TypeError(f"{name} must be a uint64 array (OpenFHE's layout), not {x.dtype}")
        shape = (len(self.towers), self.unit.n)
        if x.shape[-2:] != shape or x.ndim not in (2, 3):
            raise ValueError(f"{name} must have the shape (towers, n) = {shape} or "
                             f"(k, {shape[0]}, {shape[1]}), not {x.shape}")
        x = x.reshape(-1, *shape)
        if not 1 <= len(x) <= self.capacity:
            raise ValueError(f"{name} must hold 1 to {self.capacity} polynomials (the device's "
                             f"memories), not {len(x)}")
        for j, q in enumerate(self.towers):
            if (x[:, j] >= np.uint64(q)).any():
                raise ValueError(f"{name}: tower {j} must hold residues below its prime {q}")
        return x


def simulated(unit_name, *, polys=1, level="byte", clk_hz=4e6, baud=1e6, **params):
    """A :class:`PolyDevice` over the Amaranth simulation of the board top of ``unit_name``
    (one of :data:`UNITS`) at ``params``, its memories deep enough for ``polys`` polynomials
    per call: ``level="byte"`` simulates the link core byte by byte, ``"uart"`` the UART pins
    bit by bit (:class:`~fhe_hw.link.host.SimTransport`)."""
    if unit_name not in UNITS:
        raise ValueError(f"unit_name must be one of {', '.join(UNITS)}, not {unit_name!r}")
    unit = get_unit(unit_name).build(**params)
    depth = polys * max(unit.plan.input_beats, unit.plan.output_beats)
    top = HostLinkTop(unit, unit_name, params, clk_hz=clk_hz, baud=baud, depth=depth)
    return PolyDevice(Host(SimTransport(top, level=level)), unit)
