"""Modular arithmetic hardware (001 §3.3, 003 §3.2.1)."""

from .barrett import BarrettReducer
from .modadd import ModAdd, ModSub
from .solinas import SolinasReducer
from .special import SpecialReducer

__all__ = ["ModAdd", "ModSub", "BarrettReducer", "SpecialReducer", "SolinasReducer"]
