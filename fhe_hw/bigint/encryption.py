"""CMNT and CNT encryption on one Integer-FFT multiplier: [Cao13] §4 Fig. 6(i)
(one multiplier, FSM controller, shared RAM), Fig. 6(ii) (the super-size accumulation module)
and the super-size Barrett reduction of Fig. 6(iii); eqs (1) and (2) of §2.1.

CMNT: C = (M + 2R + 2·Σ_(i,j<=θ) B_ij·A_i0·A_j1) mod A0. CNT: c = (m + 2r + 2·Σ_i b_i·x_i) mod x0.
The accumulator starts from E = (M + 2R) mod A0, written by the host with the inputs, and each
product is added doubled (the accumulation module shifts it by one bit on the fly); then the
Barrett stage reduces it. Two CMNT schedules, as :func:`fhe_hw.model.bigint.cmnt_encrypt`:

* ``"paper"`` — θ^2 iterations of T = B_ij·A_i0 (small x big), P = T·A_j1 (big x big),
  ACC += 2P: θ^2 big products;
* ``"factored"`` — per i: S = Σ_j B_ij·A_j1 (θ small x big products accumulated), P = A_i0·S,
  ACC += 2P: θ big products instead of θ^2.

Sizes (δ, ρ, φ, θ; CNT: α, ρ', γ, τ) are generate-time and fix the RAM layout and the ROM
program (:class:`~fhe_hw.bigint.sequencer.SequencerProgram`); A0 must have exactly φ bits.
"""

from dataclasses import dataclass, field

from ..arith.pipeline import mult_stages_param
from ..model.bigint import (
    EncryptionSizes,
    cmnt_group,
    cnt_group,
    supersize_barrett_constants,
    supersize_barrett_shifts,
)
from ..params import parse_integer, require_int
from ..plan import param
from .barrett import program_barrett
from .multiplier import bus_width_field, digit_bits_field, modulus_field, n_field
from .sequencer import (
    Sequencer,
    SequencerPlan,
    SequencerProgram,
    ram_image,
    region_value,
    words_for,
)
from .wordalu import ALUOp

__all__ = ["CMNTEncrypt", "CMNTEncryptPlan", "CNTEncrypt", "CNTEncryptPlan", "SCHEDULES",
           "parse_group"]

SCHEDULES = ("paper", "factored")


def parse_group(text):
    """A group name (toy, small, medium, large) or ``coeff,noise,key,count`` bit sizes."""
    if "," not in text:
        return text
    fields = text.split(",")
    if len(fields) != 4:
        raise ValueError(f"group must be a name or coeff,noise,key,count, not {text!r}")
    return EncryptionSizes(*(parse_integer(f) for f in fields))


parse_group.__name__ = "group"


def _group_field():
    return param("toy", help="toy/small/medium/large or coeff,noise,key,count",
                 parse=parse_group)


def _sizes(group, getter):
    if isinstance(group, str):
        return getter(group)
    if not isinstance(group, EncryptionSizes):
        raise TypeError(f"group must be a group name or EncryptionSizes, not {group!r}")
    for name in ("coeff_bits", "noise_bits", "key_bits", "count"):
        require_int(name, getattr(group, name), minimum=1)
    if group.key_bits < group.noise_bits + 2:
        raise ValueError(f"key_bits must exceed noise_bits + 1 (|2R| < A0), not "
                         f"{group.key_bits!r}")
    return group


def _x_bits(sizes, term_bits, count):
    """Bits of the largest x = (M + 2R) mod A0 + 2·Σ terms (the model's bound, [Cao13] §4: the
    accumulation result has "ζ bits")."""
    x_max = (1 << sizes.key_bits) + 2 * count * ((1 << term_bits) - 1)
    return x_max.bit_length()


@dataclass(frozen=True)
class _EncryptPlan(SequencerPlan):
    """Shared by :class:`CMNTEncryptPlan` and :class:`CNTEncryptPlan`: the group's sizes and the
    bits of the accumulated x."""

    sizes: EncryptionSizes = field(init=False, repr=False, compare=False)
    x_bits: int = field(init=False, repr=False, compare=False)

    def _start(self, getter):
        """The sizes of the group and the multiplier's block configuration, checked."""
        sizes = _sizes(self.group, getter)
        cfg = self.block_config()
        if sizes.key_bits <= cfg.d:
            raise ValueError(f"key_bits must be more than d = {cfg.d}, not {sizes.key_bits!r}")
        return sizes, cfg

    def _finish(self, program, sizes, term_bits, count):
        """Program the Barrett stage on ACC and store the program."""
        d = program.d
        x_bits = _x_bits(sizes, term_bits, count)
        if x_bits > program.regions["ACC"][1] * d:
            raise RuntimeError(f"the ACC region holds {program.regions['ACC'][1] * d} bits, "
                               f"x needs {x_bits}")
        program_barrett(program, "ACC", x_bits, sizes.key_bits)
        self._set(sizes=sizes, x_bits=x_bits)
        self._sequence(program)


class _Encrypt(Sequencer):
    """Shared by :class:`CMNTEncrypt` and :class:`CNTEncrypt`."""

    @property
    def sizes(self):
        return self.plan.sizes

    @property
    def x_bits(self):
        """Bits of the accumulated x the Barrett stage is built for."""
        return self.plan.x_bits

    def _common(self, values, M, R, A0):
        if A0.bit_length() != self.sizes.key_bits or not A0 & 1:
            raise ValueError(f"A0 must be odd with exactly {self.sizes.key_bits} bits, not a "
                             f"{A0.bit_length()}-bit value")
        if M not in (0, 1) or 2 * abs(R) >= A0:
            raise ValueError(f"M must be 0 or 1 and |2R| < A0, not M = {M!r}, R = {R!r}")
        c = supersize_barrett_constants(A0, self.x_bits, self.program.d)
        values.update(A0=A0, MU=c.mu, E=(M + 2 * R) % A0)
        return ram_image(self.program, values)

    def result(self, ram):
        """The ciphertext, read from region Y of ``ram`` (the RAM words after the run)."""
        return region_value(self.program, ram, "Y")


@dataclass(frozen=True)
class CMNTEncryptPlan(_EncryptPlan):
    """The parameters of :class:`CMNTEncrypt` and what they derive.

    Parameters
    ----------
    group : str or EncryptionSizes
        ``toy``/``small``/``medium``/``large`` of [Cao14] Table 1, or an
        :class:`~fhe_hw.model.bigint.EncryptionSizes` for scaled-down tests.
    schedule : str
        ``"paper"``: θ^2 big products; ``"factored"``: θ.
    modulus, n, digit_bits, bus_width, mult_stages
        The multiplier's (:class:`~fhe_hw.bigint.multiplier.IntegerFFTMultiplierPlan`).

    Attributes
    ----------
    sizes : EncryptionSizes
        The group's sizes (δ, ρ, φ, θ).
    x_bits : int
        Bits of the accumulated x the Barrett stage is built for.
    program : SequencerProgram
        The RAM regions and operations of one encryption.
    multiplier : IntegerFFTMultiplierPlan
        The plan of the multiplier that runs it.
    """

    group: object = _group_field()
    schedule: str = param("paper", help="paper (theta^2 big products) or factored (theta)")
    modulus: object = modulus_field()
    n: int | None = n_field()
    digit_bits: int | None = digit_bits_field()
    bus_width: int | None = bus_width_field()
    mult_stages: int | None = mult_stages_param()

    def __post_init__(self):
        super().__post_init__()
        if self.schedule not in SCHEDULES:
            raise ValueError(f"schedule must be one of {', '.join(SCHEDULES)}, not "
                             f"{self.schedule!r}")
        s, cfg = self._start(cmnt_group)
        d, theta = cfg.d, s.count
        program = SequencerProgram(d, cfg.words)
        bw, kw = words_for(s.coeff_bits, d), words_for(s.key_bits, d)
        for i in range(theta):
            for j in range(theta):
                program.region(f"B{i}_{j}", bw)
        for i in range(theta):
            program.region(f"AI{i}", kw)
        for j in range(theta):
            program.region(f"AJ{j}", kw)
        program.region("A0", kw)
        term_bits = s.coeff_bits + 2 * s.key_bits
        alpha, _ = supersize_barrett_shifts(s.key_bits, _x_bits(s, term_bits, theta * theta), d)
        program.region("MU", words_for(alpha + 2, d))
        e = program.region("E", kw)
        acc_words = words_for(_x_bits(s, term_bits, theta * theta), d)
        acc = program.region("ACC", acc_words)
        small = words_for(s.coeff_bits + s.key_bits, d)          # B·A
        t = program.region("T", program.product_words(bw, kw))
        big = words_for(term_bits, d)
        if self.schedule == "paper":
            p = program.region("P", program.product_words(small, kw))
            for i in range(theta):
                for j in range(theta):
                    program.mul(program.regions[f"B{i}_{j}"][0], bw, program.regions[f"AI{i}"][0],
                                kw, t)
                    program.mul(t, small, program.regions[f"AJ{j}"][0], kw, p)
                    first = i == 0 and j == 0
                    program.alu(ALUOp.ADD, acc_words, dst=acc, a=(e, kw) if first else
                                (acc, acc_words), b=(p, big), shift=1)
        else:
            s_words = words_for(s.coeff_bits + s.key_bits + theta.bit_length(), d)
            sacc = program.region("S", s_words)
            p = program.region("P", program.product_words(kw, s_words))
            for i in range(theta):
                for j in range(theta):
                    program.mul(program.regions[f"B{i}_{j}"][0], bw, program.regions[f"AJ{j}"][0],
                                kw, t)
                    program.alu(ALUOp.ADD, s_words, dst=sacc,
                                a=(sacc, 0 if j == 0 else s_words), b=(t, small))
                program.mul(program.regions[f"AI{i}"][0], kw, sacc, s_words, p)
                program.alu(ALUOp.ADD, acc_words, dst=acc, a=(e, kw) if i == 0 else
                            (acc, acc_words), b=(p, big), shift=1)
        self._finish(program, s, term_bits, theta * theta)


class CMNTEncrypt(_Encrypt):
    """CMNT encryption ([Cao13] Fig. 6(i)–(ii), eq. 1) on one Integer-FFT multiplier.

    Parameters: a :class:`CMNTEncryptPlan`, or its arguments. Ports and cycles as
    :class:`~fhe_hw.bigint.sequencer.Sequencer`; the host loads :meth:`ram_image` and reads
    :meth:`result`.
    """

    def __init__(self, *args, **kw):
        super().__init__(CMNTEncryptPlan.coerce(*args, **kw))

    @property
    def schedule(self):
        return self.plan.schedule

    def ram_image(self, M, R, B, A0_list, A1_list, A0):
        """RAM words for one encryption (inputs as :func:`fhe_hw.model.bigint.cmnt_encrypt`)."""
        theta = self.sizes.count
        if len(B) != theta or len(A0_list) != theta or len(A1_list) != theta:
            raise ValueError(f"B, A0_list and A1_list must have theta = {theta} entries")
        values = {f"B{i}_{j}": B[i][j] for i in range(theta) for j in range(theta)}
        values.update({f"AI{i}": v for i, v in enumerate(A0_list)})
        values.update({f"AJ{j}": v for j, v in enumerate(A1_list)})
        return self._common(values, M, R, A0)


@dataclass(frozen=True)
class CNTEncryptPlan(_EncryptPlan):
    """The parameters of :class:`CNTEncrypt` and what they derive.

    Parameters
    ----------
    group : str or EncryptionSizes
        A [Cao13] Table 2 group name or an :class:`~fhe_hw.model.bigint.EncryptionSizes`.
    modulus, n, digit_bits, bus_width, mult_stages
        The multiplier's (:class:`~fhe_hw.bigint.multiplier.IntegerFFTMultiplierPlan`).

    Attributes
    ----------
    sizes, x_bits, program, multiplier
        As :class:`CMNTEncryptPlan`'s (the sizes are α, ρ', γ, τ).
    """

    group: object = _group_field()
    modulus: object = modulus_field()
    n: int | None = n_field()
    digit_bits: int | None = digit_bits_field()
    bus_width: int | None = bus_width_field()
    mult_stages: int | None = mult_stages_param()

    def __post_init__(self):
        super().__post_init__()
        s, cfg = self._start(cnt_group)
        d, tau = cfg.d, s.count
        program = SequencerProgram(d, cfg.words)
        bw, kw = words_for(s.coeff_bits, d), words_for(s.key_bits, d)
        for i in range(tau):
            program.region(f"b{i}", bw)
        for i in range(tau):
            program.region(f"x{i}", kw)
        program.region("A0", kw)
        term_bits = s.coeff_bits + s.key_bits
        alpha, _ = supersize_barrett_shifts(s.key_bits, _x_bits(s, term_bits, tau), d)
        program.region("MU", words_for(alpha + 2, d))
        e = program.region("E", kw)
        acc_words = words_for(_x_bits(s, term_bits, tau), d)
        acc = program.region("ACC", acc_words)
        p = program.region("P", program.product_words(bw, kw))
        for i in range(tau):
            program.mul(program.regions[f"b{i}"][0], bw, program.regions[f"x{i}"][0], kw, p)
            program.alu(ALUOp.ADD, acc_words, dst=acc, a=(e, kw) if i == 0 else (acc, acc_words),
                        b=(p, words_for(term_bits, d)), shift=1)
        self._finish(program, s, term_bits, tau)


class CNTEncrypt(_Encrypt):
    """CNT encryption ([Cao13] Fig. 6(i)–(ii), eq. 2): c = (m + 2r + 2·Σ_i b_i·x_i) mod x0, τ
    products accumulated, then the super-size Barrett. Parameters: a :class:`CNTEncryptPlan`, or
    its arguments. As :class:`CMNTEncrypt` otherwise."""

    def __init__(self, *args, **kw):
        super().__init__(CNTEncryptPlan.coerce(*args, **kw))

    def ram_image(self, M, R, b_list, x_list, x0):
        """RAM words for one encryption (inputs as :func:`fhe_hw.model.bigint.cnt_encrypt`)."""
        tau = self.sizes.count
        if len(b_list) != tau or len(x_list) != tau:
            raise ValueError(f"b_list and x_list must have tau = {tau} entries")
        values = {f"b{i}": v for i, v in enumerate(b_list)}
        values.update({f"x{i}": v for i, v in enumerate(x_list)})
        return self._common(values, M, R, x0)
