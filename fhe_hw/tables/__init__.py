"""The documented results tables and ``fhe-hw table NAME``.

Each table is in a module of this package whose ``TABLES`` holds its tables by name (a module
with one also calls it ``TABLE``), each a :class:`~.pages.TableSpec`: its name, the results
page under ``docs/results/`` that holds its block, a title, and a ``generate(args)`` that
returns the block's Markdown (the rows come from the families'
``configs`` modules, the synthesis from :mod:`fhe_hw.flow.synth`). :func:`~.pages.write_block`
puts the block, ending with a provenance line, between the page's
``<!-- table:NAME:begin -->`` / ``<!-- table:NAME:end -->`` markers.
"""

import importlib

__all__ = ["MODULES", "get_table", "tables"]

#: table name -> module of this package (in the order ``fhe-hw table --help`` lists them).
MODULES = {
    "reducers": "reducers",
    "engine-modmuls": "reducers",
    "rns": "rns",
    "rns-side-by-side": "rns",
    "karatsuba": "karatsuba",
    "ntt": "ntt",
    "butterflies": "ntt",
    "ntt-streaming": "ntt_streaming",
    "ntt-cosim": "ntt_cosim",
    "ntt-four-step": "ntt_cosim",
    "rns-poly": "poly",
    "rns-poly-asic": "poly",
    "rns-poly-extend": "poly",
    "rns-poly-product": "poly",
    "large-int": "large_int",
    "large-int-asic": "large_int",
    "bigint": "bigint",
    "encrypt-plans": "transform_encrypt",
    "encrypt-asic": "transform_encrypt",
    "asic": "asic",
    "board-builds": "board_builds",
    "board-fits": "board_fits",
}


def get_table(name):
    """The :class:`~.pages.TableSpec` of table ``name``; ValueError naming the choices."""
    if name not in MODULES:
        raise ValueError(f"table must be one of {', '.join(MODULES)}, not {name!r}")
    module = importlib.import_module(f".{MODULES[name]}", __name__)
    return module.TABLES[name]


def tables():
    """Every table, by name."""
    return {name: get_table(name) for name in MODULES}
