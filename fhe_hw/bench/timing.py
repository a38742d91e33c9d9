"""The shape of one measured software baseline (:class:`Timing`), shared by the baselines timed
in Python (:mod:`.baselines`) and the OpenFHE benchmark timed in C++ (:mod:`.openfhe`)."""

import statistics

__all__ = ["Timing", "from_runs"]


class Timing(dict):
    """A dict: ``name``, ``library`` (name and version), ``params``, ``median_s``, ``min_s``,
    ``max_s``, ``runs`` (every run's seconds) and ``repeat``; or ``name`` and ``error`` (what is
    missing or wrong, and why) when nothing was measured."""


def from_runs(name, library, params, runs):
    """The :class:`Timing` of the measured ``runs`` (seconds, after the warm-up)."""
    return Timing(name=name, library=library, params=params, median_s=statistics.median(runs),
                  min_s=min(runs), max_s=max(runs), runs=list(runs), repeat=len(runs))
