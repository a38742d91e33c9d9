"""The programs of :class:`~fhe_hw.encrypt.TransformEncrypt`: the RAM layout and the two
operation lists (key preparation, encryption) that follow
:func:`fhe_hw.model.transform_encrypt.encrypt_steps` for one :class:`EncryptPlan`.

Two kinds of operation run one after the other:

* a *sum* (:class:`Sum`): forward transforms of RAM blocks (*jobs*), each followed by point-wise
  *passes* against stored key spectra — a multiply-accumulate into an accumulator spectrum, or
  a store of the job's spectrum into the key memory — and then the *inverses*: each
  accumulator back through the inverse transform and the carries into a RAM region;
* an ALU operation (:class:`~fhe_hw.bigint.wordalu.WordALU`): word-serial add or subtract.

Words are ``lanes`` digits of d bits (W = lanes·d bits), the unit of the RAM and of one
transform beat. Everything here is Python: the unit bakes the lists into ROMs, the timing
model (:mod:`fhe_hw.encrypt.timing`) walks the same lists, and the host fills the regions with
:func:`fhe_hw.bigint.sequencer.ram_image`.
"""

from dataclasses import dataclass

from ..bigint.sequencer import SequencerProgram, words_for
from ..bigint.wordalu import ALUOp
from ..model.bigint import supersize_barrett_constants

__all__ = ["Job", "Pass", "Inverse", "Sum", "SStage", "Program", "build_program"]


@dataclass(frozen=True)
class Job:
    """One forward transform: ``words`` RAM words from ``addr``, then zeros to n/lanes beats;
    ``term_last``: the last block of its term (frees an S-stage slot)."""

    addr: int
    words: int
    term_last: bool = True


@dataclass(frozen=True)
class Pass:
    """One beat-by-beat pass over a job's spectrum: Acc[``acc``] (=, when ``first``, else +=)
    spectrum ⊙ key spectrum ``spectrum``, or (``store``) the spectrum into key spectrum
    ``spectrum``; ``last``: the job's last pass."""

    spectrum: int
    acc: int = 0
    first: bool = False
    store: bool = False
    last: bool = True


@dataclass(frozen=True)
class Inverse:
    """Accumulator ``acc`` through the inverse transform and the carries: the first ``words``
    of its n/lanes words into RAM from ``dst``."""

    acc: int
    dst: int
    words: int


@dataclass(frozen=True)
class SStage:
    """CMNT's S stage ([Cao14] eq. 1 factored): S_i = Σ_j B_ij·A_j1 for i < ``terms``, from the
    one-word B_ij at ``b_addr`` + i·terms + j and the ``key_words``-word A_j1 at ``a_addr`` +
    j·key_words, into ``s_words`` words at ``slots`` (alternately); B_ij below
    2^``coeff_bits``."""

    terms: int
    b_addr: int
    a_addr: int
    key_words: int
    s_words: int
    slots: tuple
    coeff_bits: int


@dataclass(frozen=True)
class Sum:
    """A sum of products: ``jobs`` and their ``passes`` (``passes_per_job`` each, in job
    order), then ``inverses``; ``s_stage``: the jobs read the S stage's slots."""

    jobs: tuple
    passes: tuple
    inverses: tuple
    passes_per_job: int
    s_stage: bool = False


@dataclass
class Program:
    """The RAM regions (:class:`~fhe_hw.bigint.sequencer.SequencerProgram`, words of W bits), the
    :class:`Sum` list, the operations (``("sum", index)`` or ``("alu", op, fields)``) of the
    key-preparation program (``ops[:key_ops]``) and of the encryption (the rest), the key
    spectra (``spectra``: names in key-memory order), the accumulators' count, and the S
    stage (``None`` for CNT)."""

    plan: object
    regions: SequencerProgram
    sums: list
    ops: list
    key_ops: int
    spectra: list
    accumulators: int
    s_stage: SStage = None

    @property
    def encrypt_ops(self):
        return self.ops[self.key_ops:]

    def region(self, name):
        return self.regions.regions[name]

    def max_alu_words(self):
        """The longest ALU operation."""
        return max([op[2]["n"] for op in self.ops if op[0] == "alu"] + [1])


def _blocks(addr, words, block, blocks, lanes):
    """(address, words) of each block of an operand of ``words`` words at ``addr`` cut in
    blocks of ``block`` digits (a multiple of lanes when blocks > 1)."""
    if blocks == 1:
        return [(addr, words)]
    per = block // lanes
    return [(addr + u * per, max(0, min(per, words - u * per))) for u in range(blocks)]


class _Builder:
    def __init__(self, p):
        self.p, self.L = p, p.lanes
        self.B = p.n // p.lanes
        self.regions = SequencerProgram(p.word_bits, 1)
        self.sums, self.ops, self.spectra = [], [], []
        self.accumulators = 1

    def words(self, bits):
        return words_for(bits, self.p.word_bits)

    def region(self, name, bits=None, words=None):
        return self.regions.region(name, words if words is not None else self.words(bits))

    def spectrum_blocks(self, name, addr, words, b):
        """Key-preparation jobs for the y-side blocks of operand ``name``; returns the index of
        its first spectrum."""
        first = len(self.spectra)
        jobs = []
        for v, (a, w) in enumerate(_blocks(addr, words, b.y_block, b.y_blocks, self.L)):
            self.spectra.append(f"{name}[{v}]")
            jobs.append(Job(a, w))
        return first, jobs

    def product_sum(self, b, x_operands, spectrum_bases, dst, dst_words, s_stage=False):
        """The sum Σ_t X_t·Y_t of :class:`Blocking` b (x_operands: (addr, words) per term,
        spectrum_bases: the first key spectrum of each term's Y) into ``dst_words`` words at
        ``dst``, with the ALU additions its accumulators need."""
        offsets = b.offsets
        self.accumulators = max(self.accumulators, len(offsets))
        index = {}
        for k, o in enumerate(offsets):
            index.setdefault(o, k)           # offsets.index, without its search per pass
        jobs, passes, touched = [], [], set()
        for (addr, words), base in zip(x_operands, spectrum_bases):
            blocks = _blocks(addr, words, b.x_block, b.x_blocks, self.L)
            for u, (a, w) in enumerate(blocks):
                jobs.append(Job(a, w, term_last=u == len(blocks) - 1))
                for v in range(b.y_blocks):
                    acc = index[b.offset(u, v)]
                    passes.append(Pass(base + v, acc, first=acc not in touched,
                                       last=v == b.y_blocks - 1))
                    touched.add(acc)
        if len(offsets) == 1:
            inverses = [Inverse(0, dst, min(self.B, dst_words))]
        else:
            tmp = [self.regions.region(f"TMP{len(self.sums)}_{k}", self.B)
                   for k in range(len(offsets))]
            inverses = [Inverse(k, t, self.B) for k, t in enumerate(tmp)]
        self.ops.append(("sum", len(self.sums)))
        self.sums.append(Sum(tuple(jobs), tuple(passes), tuple(inverses), b.y_blocks,
                             s_stage))
        if len(offsets) > 1:
            for k, (o, t) in enumerate(zip(offsets, tmp)):
                at = o // self.L
                if at >= dst_words:
                    continue
                self.alu(ALUOp.ADD, dst_words - at, dst=dst + at,
                         a=(dst + at, 0 if k == 0 else dst_words - at), b=(t, self.B))

    def alu(self, op, n, **kw):
        self.regions.alu(op, n, **kw)    # SequencerProgram.alu clips the operand lengths to n
        self.ops.append(self.regions.ops.pop())


def build_program(p):
    """The :class:`Program` of :class:`~fhe_hw.model.transform_encrypt.EncryptPlan` ``p``."""
    s, W = p.sizes, p.word_bits
    g = _Builder(p)
    kw = g.words(s.key_bits)
    cmnt = p.scheme == "cmnt"
    s_stage = None
    if cmnt:
        if s.coeff_bits > W:
            raise ValueError(f"the B_ij ({s.coeff_bits} bits) must fit one word of {W} bits")
        b_addr = g.region("B", words=s.count * s.count)
        x_regions = None
        y_regions = [g.region(f"AI{i}", words=kw) for i in range(s.count)]
        a_addr = g.region("AJ", words=s.count * kw)
    else:
        bw = g.words(s.coeff_bits)
        x_regions = [(g.region(f"b{i}", words=bw), bw) for i in range(s.count)]
        y_regions = [g.region(f"x{i}", words=kw) for i in range(s.count)]
    key = g.region("A0", words=kw)
    mu_words = g.words(p.alpha + 1)
    mu = g.region("MU", words=mu_words)
    e = g.region("E", words=kw)
    if cmnt:
        s_words = g.words(p.term_bits)
        slots = (g.region("S0", words=s_words), g.region("S1", words=s_words))
        s_stage = SStage(s.count, b_addr, a_addr, kw, s_words, slots, s.coeff_bits)
        x_regions = [(slots[i % 2], s_words) for i in range(s.count)]

    # key preparation: the spectra of the key integers' blocks, of μ and of K
    bases, key_jobs = [], []
    for i, y in enumerate(y_regions):
        base, jobs = g.spectrum_blocks(f"Y{i}", y, kw, p.main)
        bases.append(base)
        key_jobs += jobs
    mu_base, jobs = g.spectrum_blocks("MU", mu, mu_words, p.barrett_mu)
    key_jobs += jobs
    k_base, jobs = g.spectrum_blocks("A0", key, kw, p.barrett_key)
    key_jobs += jobs
    g.ops.append(("sum", 0))
    g.sums.append(Sum(tuple(key_jobs), tuple(Pass(k, store=True) for k in range(len(key_jobs))),
                      (), 1))
    key_ops = len(g.ops)

    # encryption: T = Σ X_i·Y_i; x = E + 2T; the super-size Barrett reduction of x
    t_words = g.words(p.term_bits + s.key_bits + s.count.bit_length())
    if len(p.main.offsets) == 1:
        t_words = min(t_words, g.B)
    t = g.region("T", words=t_words)
    g.product_sum(p.main, x_regions, bases, t, t_words, s_stage=cmnt)
    x_words = g.words(p.x_bits)
    x = g.region("X", words=x_words)
    g.alu(ALUOp.ADD, x_words, dst=x, a=(e, kw), b=(t, t_words), shift=1)
    xh_off = (s.key_bits + p.beta) // W
    xh_bits = p.x_bits - s.key_bits - p.beta
    sig_words = g.words(xh_bits + p.alpha + 1)
    if len(p.barrett_mu.offsets) == 1:
        sig_words = min(sig_words, g.B)
    sig = g.region("SIG", words=sig_words)
    g.product_sum(p.barrett_mu, [(x + xh_off, x_words - xh_off)], [mu_base], sig, sig_words)
    sh_off = (p.alpha - p.beta) // W
    sh_words = min(g.words(p.x_bits - s.key_bits + 1), sig_words - sh_off)
    p2_words = g.words(p.x_bits + 1)
    if len(p.barrett_key.offsets) == 1:
        p2_words = min(p2_words, g.B)
    p2 = g.region("P2", words=p2_words)
    g.product_sum(p.barrett_key, [(sig + sh_off, sh_words)], [k_base], p2, p2_words)
    y = g.region("Y", words=kw + 1)
    g.alu(ALUOp.SUB, kw + 1, dst=y, a=(x, x_words), b=(p2, p2_words), c=(key, kw))
    g.alu(ALUOp.SUBSEL, kw + 1, dst=y, a=(y, kw + 1), b=(key, kw))
    return Program(p, g.regions, g.sums, g.ops, key_ops, g.spectra, g.accumulators, s_stage)


def ram_values(program, instance):
    """Region name -> value for one encryption of ``instance`` (a
    :class:`~fhe_hw.model.bigint.CMNTInstance` or :class:`~fhe_hw.model.bigint.CNTInstance`):
    the inputs, K, μ (the reduction's constant, [Cao13] §4 Step-1, computed by the host) and
    E = (M + 2R) mod K."""
    p = program.plan
    if p.scheme == "cmnt":
        M, R, K = instance.M, instance.R, instance.A0
        theta = p.sizes.count
        values = {"B": sum(instance.B[i][j] << (p.word_bits * (i * theta + j))
                           for i in range(theta) for j in range(theta)),
                  "AJ": sum(a << (p.word_bits * j * program.s_stage.key_words)
                            for j, a in enumerate(instance.A1_list))}
        values.update({f"AI{i}": a for i, a in enumerate(instance.A0_list)})
    else:
        M, R, K = instance.M, instance.R, instance.x0
        values = {f"b{i}": b for i, b in enumerate(instance.b_list)}
        values.update({f"x{i}": v for i, v in enumerate(instance.x_list)})
    c = supersize_barrett_constants(K, p.x_bits, p.word_bits)
    values.update(A0=K, MU=c.mu, E=(M + 2 * R) % K)
    return values
