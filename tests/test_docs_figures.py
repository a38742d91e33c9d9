"""The manual's figures: every cycle count and latency that README.md and the manual's pages
quote in prose is tied to the code that computes it, and this test recomputes it (CI runs it in
the fast suite, before the Sphinx build of ``.ci/run``).

A quoted figure carries a marker right after it (an HTML comment: GitHub and Sphinx show
nothing), written like the command line of ``fhe-hw generate``::

    6,310 cycles<!-- figure: cycles ntt --n 1024 -->
    latency 10<!-- figure: latency mod-mul --modulus solinas64 -->

``latency UNIT [--option VALUE]...`` is ``get_unit(UNIT).latency(params)``; ``cycles UNIT
[--option VALUE]...`` is ``get_unit(UNIT).cycles(params, **run)``, where ``--option`` that
the unit does not have (``--transforms 3``, ``--products 729``, ``--program 0``) describe the
run. Option values go through the option's own type, as on the command line; run values are
integers. The number before the marker (thousands separated by commas, an optional
"cycle(s)" between) must equal the result. Two more kinds: ``= EXPR`` (arithmetic on number
literals, for a figure derived by a formula on the page, e.g. ``2n/16 = 8192``) and
``paper`` (a figure quoted from a paper, which no code here computes). In ``= EXPR`` a
``{latency ...}`` or ``{cycles ...}`` stands for that marker's value, so
``= ({cycles four-step-stream --transforms 3} - {cycles four-step-stream}) / 2`` is the
cycles each further transform adds. ``A == B`` requires both sides to give the figure:
``cycles ntt --n 1024 == 2*1024//2 + 10*(512 + 11 + 2 + 2 + 1) + 3 + 3`` ties a formula on
the page, at the values it names, to the code.

Scope: README.md and docs/*.md, docs/results/*.md, outside the generated blocks
(``<!-- table:NAME:begin -->`` … ``end``, written by ``fhe-hw table``, whose numbers come from
the code by construction) and outside code fences. In that prose every "N cycle(s)",
"latency N", "latency: N" and "latency of N" must carry a marker, so no figure of that shape
escapes unchecked; in hand-written tables (prose too) a cell that quotes cycles carries a
marker, but a bare number in a cell is not found by these patterns. Measured figures (MHz, LUT,
DSP, area) are not checked here: the pages point at the generated tables for them. A page
must not carry notebook text either (a commit hash, a run's memory, "this machine", "so far",
an issue's goal: :func:`test_the_pages_carry_no_notebook_text`). The pages' examples are
``testcode`` blocks that the docs session runs (``sphinx-build -b doctest``), comparing their
output with the page's ``testoutput``; here only their presence is checked (the README's
example runs in test_readme.py).
docs/changelog.md is a record of what was measured when (its last section the design notes'
history), not claims about today's code, and is left out; docs/design-notes.md states today's
design decisions and is checked like any page.
"""

import ast
import functools
import operator
import re
from pathlib import Path

import pytest

from fhe_hw.units import get_unit

ROOT = Path(__file__).resolve().parent.parent
RECORDS = {"changelog.md"}
PAGES = [ROOT / "README.md"] + sorted(
    p for p in [*(ROOT / "docs").glob("*.md"), *(ROOT / "docs" / "results").glob("*.md")]
    if p.name not in RECORDS or p.parent.name == "results")

NUMBER = r"(?<![\w.,^·×−-])((?:\d{1,3}(?:,\d{3})+|\d+)(?:\.\d+)?)(?!\w|[.,]\d)"
MARKER = re.compile(NUMBER + r"(\s+cycles?)?\s*<!-- figure: (.*?) -->")
CLAIMS = [re.compile(NUMBER + r"\s+cycles?\b"),
          re.compile(r"\blatency(?::| of)?\s+" + NUMBER + r"(?!\s*[µmn]?s\b)")]
GENERATED = re.compile(r"<!-- table:([\w-]+):begin -->.*?<!-- table:\1:end -->", re.S)
FENCE = re.compile(r"^(```|~~~).*?^\1", re.S | re.M)


def _prose(text):
    """``text`` with generated blocks and code fences blanked, line numbers kept."""
    def blank(match):
        return re.sub(r"[^\n]", " ", match.group(0))
    return FENCE.sub(blank, GENERATED.sub(blank, text))


def _line(text, pos):
    return text.count("\n", 0, pos) + 1


_OPS = {ast.Add: operator.add, ast.Sub: operator.sub, ast.Mult: operator.mul,
        ast.FloorDiv: operator.floordiv, ast.Div: operator.truediv, ast.Pow: operator.pow}
CALL = re.compile(r"\{([^{}]*)\}")


def _arithmetic(node):
    """An expression of integer literals and + - * / // ** (nothing else is evaluated)."""
    if isinstance(node, ast.Expression):
        return _arithmetic(node.body)
    if isinstance(node, ast.Constant) and type(node.value) is int:
        return node.value
    if isinstance(node, ast.BinOp) and type(node.op) in _OPS:
        return _OPS[type(node.op)](_arithmetic(node.left), _arithmetic(node.right))
    raise ValueError(f"not integer arithmetic: {ast.dump(node)}")


@functools.cache
def evaluate(spec):
    """The value a marker names, or ``None`` for ``paper``."""
    spec = spec.strip()
    if " == " in spec:
        values = {evaluate(part) for part in spec.split(" == ")}
        if len(values) != 1:
            raise ValueError(f"the sides of {spec!r} disagree: {sorted(values)}")
        return values.pop()
    if spec == "paper" or spec.startswith("paper "):
        return None
    if spec.startswith("=") or spec[:1].isdigit() or spec[:1] == "(":
        expr = CALL.sub(lambda m: str(evaluate(m.group(1))), spec.lstrip("= "))
        return _arithmetic(ast.parse(expr, mode="eval"))
    kind, name, *args = spec.split()
    if kind not in ("latency", "cycles") or len(args) % 2:
        raise ValueError(f"a figure marker is 'latency|cycles UNIT [--option VALUE]...', "
                         f"'= EXPR' or 'paper', not {spec!r}")
    unit = get_unit(name)
    options = {opt.name: opt for opt in unit.options}
    params, run = {}, {}
    for flag, value in zip(args[::2], args[1::2]):
        if not flag.startswith("--"):
            raise ValueError(f"{flag!r} in {spec!r} is not an --option")
        if flag[2:] in options:
            params[flag[2:]] = options[flag[2:]].type(value)
        elif kind == "cycles":
            run[flag[2:].replace("-", "_")] = int(value)
        else:
            raise ValueError(f"{name} has no option {flag} (in {spec!r})")
    return unit.latency(params) if kind == "latency" else unit.cycles(params, **run)


def figures():
    """Every marked figure: (page:line, number written, marker)."""
    out = []
    for page in PAGES:
        text = _prose(page.read_text())
        for match in MARKER.finditer(text):
            where = f"{page.relative_to(ROOT)}:{_line(text, match.start())}"
            out.append((where, float(match.group(1).replace(",", "")), match.group(3)))
    return out


def test_the_quoted_figures_are_what_the_code_computes():
    """One test over every marker (the contracts share work, e.g. the four-step control model),
    listing every figure that disagrees."""
    found, wrong = figures(), []
    assert len(found) >= 80, "the pages lost their figure markers"
    for where, written, spec in found:
        try:
            computed = evaluate(spec)
        except (ValueError, TypeError) as error:
            wrong.append(f"{where}: {spec!r} is refused: {error}")
            continue
        if computed is not None and written != computed:
            wrong.append(f"{where}: the page says {written:g}, {spec} gives {computed:g}")
    assert not wrong, "figures that disagree with the code:\n" + "\n".join(wrong)


def test_every_cycle_or_latency_figure_in_prose_is_marked():
    unmarked = []
    for page in PAGES:
        text = _prose(page.read_text())
        marked = {m.start(1) for m in MARKER.finditer(text)}
        for claim in CLAIMS:
            for match in claim.finditer(text):
                if match.start(1) not in marked:
                    line = text.splitlines()[_line(text, match.start()) - 1].strip()
                    unmarked.append(f"{page.relative_to(ROOT)}:{_line(text, match.start())}: "
                                    f"{match.group(0)!r} in {line[:100]!r}")
    assert not unmarked, "figures without a <!-- figure: ... --> marker:\n" + "\n".join(unmarked)


NOTEBOOK = [re.compile(p) for p in (
    r"`(?=[0-9a-f]*[a-f])(?=[0-9a-f]*[0-9])[0-9a-f]{7,40}`",  # a commit hash in prose
    r"this (?:24 GiB )?machine",              # this machine's memory, cores, time
    r"\d[\d.,]* GB\b",                         # a run's memory
    r"so far\b",                              # the state of an ongoing run
    r"the issue's",                           # an issue's goal
)]


def test_the_pages_carry_no_notebook_text():
    """Commit hashes, this-machine figures, "so far" and issue goals belong in the changelog,
    not in the manual's pages (generated blocks name their commit)."""
    found = []
    for page in PAGES:
        text = _prose(page.read_text())
        for pattern in NOTEBOOK:
            for match in pattern.finditer(text):
                found.append(f"{page.relative_to(ROOT)}:{_line(text, match.start())}: "
                             f"{match.group(0)!r}")
    assert not found, "notebook text in the manual:\n" + "\n".join(found)


@pytest.mark.parametrize("bad", ["latency nosuch-unit", "cycles ntt --n", "latency ntt --nope 1",
                                 "= __import__('os')", "speed ntt",
                                 "cycles ntt --n 1024 == 2*1024//2 + 10*(512 + 11 + 2) + 3"])
def test_a_malformed_marker_is_refused(bad):
    with pytest.raises(ValueError):
        evaluate(bad)


def test_a_wrong_figure_fails():
    page = "README says 6,277 cycles<!-- figure: cycles ntt --n 1024 --> today"
    (match,) = MARKER.finditer(page)
    assert float(match.group(1).replace(",", "")) != evaluate(match.group(3))


#: The family pages, each opening with an example that ``nox -s docs`` runs
#: (``sphinx-build -b doctest``), and the other pages with an example.
FAMILY_PAGES = ["arith.md", "ntt.md", "rns.md", "bigint.md", "largeint.md", "karatsuba.md",
                "encrypt.md", "link.md"]
EXAMPLE = re.compile(r"^```\{testcode\}\n(.*?)^```\n.*?^```\{testoutput\}\n(.*?)^```", re.S | re.M)


@pytest.mark.parametrize("page", FAMILY_PAGES + ["getting-started.md", "openfhe.md"])
def test_the_pages_show_an_example_the_docs_build_runs(page):
    """The page has a ``testcode`` block followed by the ``testoutput`` it prints (the docs
    session's doctest build runs the one and compares the other); a family page has it before
    its second section, and its code prints what it computes."""
    text = (ROOT / "docs" / page).read_text()
    example = EXAMPLE.search(text)
    assert example, f"{page} must show a testcode block and its testoutput"
    assert "print(" in example.group(1) and example.group(2).strip()
    if page in FAMILY_PAGES:
        sections = [m.start() for m in re.finditer(r"^## ", text, re.M)]
        assert len(sections) >= 2 and example.start() < sections[1], \
            f"{page} must open with its example (in its first section)"
