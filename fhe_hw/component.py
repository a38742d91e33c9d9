"""The base class of every fhe_hw hardware unit."""

import functools

from amaranth.lib import wiring

__all__ = ["Component"]


class Component(wiring.Component):
    """An ``amaranth.lib.wiring.Component`` whose constructor validates its parameters first.

    When a subclass's ``__init__`` rejects its parameters (``TypeError``/``ValueError``), the
    half-built object is marked as used, so the caller sees only the error and not also
    Amaranth's "created but never used" warning for an object that never existed.
    """

    def __init_subclass__(cls, **kwargs):
        super().__init_subclass__(**kwargs)
        init = cls.__dict__.get("__init__")
        if init is None:
            return

        @functools.wraps(init)
        def validated_init(self, *args, **kw):
            try:
                init(self, *args, **kw)
            except (TypeError, ValueError):
                self._MustUse__used = True
                raise

        cls.__init__ = validated_init
