"""The word-serial ALU of the super-size engines (fhe_hw.bigint.wordalu.WordALU) on its own, in
pysim with its RAM: every operation against Python integers (the documented semantics of
ALUOp), with operands shorter than the result, in place, carries and borrows through every
word, the flag's boundary (a - b - c = 0 and -1) and a subtrahend larger than the minuend;
cycles equal alu_cycles."""

import pytest
from helpers import rng_for

from fhe_hw.bigint.ram import from_words, to_words
from fhe_hw.bigint.run import run_harness
from fhe_hw.bigint.wordalu import ALUOp, WordALU, alu_cycles

D, AW, MAX = 13, 6, 8
A, B, C, DST = 0, 16, 32, 48


def _run(a, b, c, commands):
    """RAM with a, b, c (word lists) at A, B, C; run ``commands``; return [(cycles, ge, dst)]
    with dst the integer in DST..DST+MAX after each command."""
    ram = [0] * 64
    for base, words in ((A, a), (B, b), (C, c)):
        ram[base:base + len(words)] = words
    runs = run_harness(WordALU(D, AW, MAX), ram, commands, (DST, MAX))
    return [(r.cycles, r.result, from_words(r.ram, D)) for r in runs]


def _cmd(op, n, *, a_len, b_len=0, c_len=0, dst=DST, shift=0, a_addr=A):
    return dict(op=op.value, a_addr=a_addr, a_len=a_len, b_addr=B, b_len=b_len, c_addr=C,
                c_len=c_len, dst=dst, n=n, shift=shift)


def _cases():
    rng = rng_for("wordalu")
    top = (1 << (D * MAX)) - 1
    ones = (1 << (D * 5)) - 1
    out = [("all ones", ones, ones, 1, 5, 5, 1),
           ("zero difference", ones, 1 << (D * 4), ones - (1 << (D * 4)), 5, 5, 5),
           ("one short", ones, 1 << (D * 4), ones - (1 << (D * 4)) + 1, 5, 5, 5),
           ("b above a", 5, 1 << (D * 3), 0, 4, 4, 1),
           ("shorter operands", rng.getrandbits(D * 6), rng.getrandbits(D * 2),
            rng.getrandbits(D * 3), 6, 2, 3),
           ("widest", top, top, top, MAX, MAX, MAX)]
    for k in range(4):
        n = rng.randint(1, MAX)
        out.append((f"random {k}", rng.getrandbits(D * n), rng.getrandbits(D * n),
                    rng.getrandbits(D * n), n, n, n))
    return out


@pytest.mark.parametrize("name, a, b, c, a_len, b_len, c_len", _cases(),
                         ids=[case[0] for case in _cases()])
def test_every_operation_matches_python_integers(name, a, b, c, a_len, b_len, c_len):
    n = min(MAX, max(a_len, b_len + 1))
    mask = (1 << (D * n)) - 1
    words = [to_words(v, D, MAX) for v in (a, b, c)]
    b_seen = b & ((1 << (D * b_len)) - 1)
    c_seen = c & ((1 << (D * c_len)) - 1)
    runs = _run(*words, [
        _cmd(ALUOp.ADD, n, a_len=a_len, b_len=b_len),
        _cmd(ALUOp.ADD, n, a_len=a_len, b_len=b_len, shift=1),
        _cmd(ALUOp.SUB, n, a_len=a_len, b_len=b_len, c_len=c_len),
        _cmd(ALUOp.SUBSEL, n, a_len=a_len, b_len=b_len)])
    ge = int(a - b_seen - c_seen >= 0)
    assert [r[2] & mask for r in runs] == [
        (a + b_seen) & mask, (a + 2 * b_seen) & mask, (a - b_seen) & mask,
        (a - (b_seen if ge else 0)) & mask]
    assert runs[2][1] == ge
    assert [r[0] for r in runs] == [alu_cycles(n)] * 4


def test_in_place_subtraction_reads_each_word_before_writing_it():
    rng = rng_for("wordalu in place")
    a, b = rng.getrandbits(D * 6) | 1 << (D * 6 - 1), rng.getrandbits(D * 6 - 1)
    words = [to_words(v, D, MAX) for v in (a, b, 0)]
    # dst = a: the result lands at A, read back by a second command that copies it to DST
    runs = _run(*words, [_cmd(ALUOp.SUB, 6, a_len=6, b_len=6, dst=A),
                         _cmd(ALUOp.ADD, 6, a_len=6)])
    assert runs[0][1] == 1
    assert runs[1][2] & ((1 << (D * 6)) - 1) == a - b
