"""Package list only (everything else is in pyproject.toml): the library ``fhe_hw`` and the
top-level ``boards/`` and ``asic/`` folders, installed as ``fhe_hw.boards`` and ``fhe_hw.asic``
so an installed
``fhe-hw`` can build bitstreams without a checkout-relative path and no generic top-level
import name is claimed. pyproject's ``[tool.setuptools]`` tables cannot map a package found by
``packages.find`` to a folder outside its parent, hence this file."""

from setuptools import find_packages, setup

setup(packages=find_packages(include=["fhe_hw", "fhe_hw.*"]) + ["fhe_hw.boards", "fhe_hw.asic"],
      package_dir={"fhe_hw.boards": "boards", "fhe_hw.asic": "asic"},
      package_data={"fhe_hw.asic": ["*.md", "*.v"]})
