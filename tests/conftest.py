"""Fixtures shared by several test files."""

import os
from pathlib import Path

import pytest

# CI: the minimal sky130 copy beside the checkout (../shared/pdk) unless PDK_ROOT is set.
SHARED_PDK = Path(__file__).resolve().parents[2] / "shared" / "pdk"


@pytest.fixture(scope="module")
def pdk_root():
    """PDK_ROOT for the ASIC flows: the environment's, else the shared sky130 copy."""
    saved = os.environ.get("PDK_ROOT")
    os.environ["PDK_ROOT"] = saved or str(SHARED_PDK)
    yield os.environ["PDK_ROOT"]
    if saved is None:
        del os.environ["PDK_ROOT"]
