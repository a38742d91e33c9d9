"""The README's Python example and its length: what a newcomer copies first must run."""

import re
from pathlib import Path

README = Path(__file__).resolve().parent.parent / "README.md"


def test_the_python_example_runs(capsys):
    code = re.search(r"```python\n(.*?)```", README.read_text(), re.S).group(1)
    exec(compile(code, str(README), "exec"), {})
    assert capsys.readouterr().out.strip() == "latency: 10"


def test_the_readme_stays_short():
    assert len(README.read_text().splitlines()) <= 150
