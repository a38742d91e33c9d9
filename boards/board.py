"""What the build flow needs to know about a board."""

from dataclasses import dataclass, field

__all__ = ["Board"]


@dataclass(frozen=True)
class Board:
    """One supported board.

    ``name`` (the ``--board`` value), ``description``, ``platform`` (a callable returning the
    amaranth-boards platform), ``family`` (``ecp5``, ``ice40`` or ``gowin``: selects how
    reports are read), ``tools`` (environment variable → YoWASP executable for the platform's
    build script), ``overrides`` (extra ``platform.build`` keyword arguments), ``bitstream``
    (the file name the build produces, ``{name}`` replaced), ``wrappers`` (environment
    variable → ``module`` of ``fhe_hw.boards`` with a ``main(argv)``, run through a small
    executable script the build writes; for tools whose flags need translating), ``loader``
    (openFPGALoader's ``--board`` name for it)."""

    name: str
    description: str
    platform: object
    family: str
    tools: dict
    overrides: dict = field(default_factory=dict)
    bitstream: str = "{name}.bit"
    wrappers: dict = field(default_factory=dict)
    loader: str = ""
