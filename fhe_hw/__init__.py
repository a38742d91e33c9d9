"""fhe_hw: hardware generators for the arithmetic of fully homomorphic encryption."""

__version__ = "0.1.0"
