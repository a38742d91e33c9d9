"""The root-of-unity fields of the NTT plans: ``root`` (a convention), ``psi`` and ``omega``
(a root given), declared once for every unit (:func:`fhe_hw.plan.param`), and the line a
generated file's header shows for the root a plan resolved."""

from ..cliargs import int_in
from ..params import ROOT_CONVENTIONS
from ..plan import param

__all__ = ["root_param", "psi_param", "omega_param", "root_description"]

_CONVENTIONS = " or ".join(ROOT_CONVENTIONS)


def root_param(solinas=False):
    """The plan field ``root``, a convention of :data:`~fhe_hw.params.ROOT_CONVENTIONS` or
    None: :func:`~fhe_hw.params.ntt_params`'s default (``generator``), or with ``solinas`` the
    shift-only units' (:func:`~fhe_hw.params.solinas_ntt_params`, ``wang-huang``)."""
    if solinas:
        text = (f"root-of-unity convention: {_CONVENTIONS} (default wang-huang: [Wang13]'s "
                "omega_64 = 8, omega_16 = 4096; generator: 7^((p-1)/order); openfhe: the "
                "smallest primitive root, OpenFHE's rule applied to 2^64 - 2^32 + 1)")
    else:
        text = (f"root-of-unity convention: {_CONVENTIONS} (default generator: g^((q-1)/order) "
                "for the modulus's generator g; openfhe: the smallest primitive root, as "
                "OpenFHE's RootOfUnity; wang-huang: solinas64 only, the four-step units' roots)")
    return param(None, help=text, parse=str, kw_only=True)


def psi_param():
    """The plan field ``psi``: the negacyclic transform's primitive 2n-th root, or None."""
    return param(None, help="negacyclic: the primitive root of unity of order twice the size to "
                 "use instead of --root (default: none, --root applies)", parse=int_in(1),
                 kw_only=True)


def omega_param():
    """The plan field ``omega``: the cyclic transform's primitive n-th root, or None."""
    return param(None, help="cyclic: the primitive root of unity of the size's order to use "
                 "instead of --root (default: none, --root applies)", parse=int_in(1),
                 kw_only=True)


def root_description(params):
    """``{"root of unity": "psi = ..."}`` (negacyclic) or ``"omega = ..."`` of the
    :class:`~fhe_hw.params.NTTParams` ``params``: what a plan's ``describe()`` shows."""
    shown = f"psi = {params.psi}" if params.psi is not None else f"omega = {params.omega}"
    return {"root of unity": shown}
