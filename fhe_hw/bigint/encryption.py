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
program (:class:`~fhe_hw.bigint.sequencer.Plan`); A0 must have exactly φ bits.
"""

from ..model.bigint import (
    EncryptionSizes,
    block_config,
    cmnt_group,
    cnt_group,
    supersize_barrett_constants,
    supersize_barrett_shifts,
)
from ..params import require_int
from .barrett import plan_barrett
from .sequencer import Plan, Sequencer, ram_image, region_value, words_for
from .wordalu import ALUOp

__all__ = ["CMNTEncrypt", "CNTEncrypt", "SCHEDULES"]

SCHEDULES = ("paper", "factored")


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


class _Encrypt(Sequencer):
    """Shared by :class:`CMNTEncrypt` and :class:`CNTEncrypt`: ``_make_plan(*args)`` returns
    ``(plan, sizes, x_bits)`` for the constructor's arguments before the multiplier's."""

    def __init__(self, args, modulus, k, b, bus_width, mult_stages):
        plan, self._sizes, self._x_bits = self._make_plan(*args, modulus, k, b, bus_width)
        super().__init__(plan, modulus, k, b, bus_width, mult_stages=mult_stages)

    @classmethod
    def _latency_of(cls, args, modulus, k, b, bus_width, mult_stages):
        plan = cls._make_plan(*args, modulus, k, b, bus_width)[0]
        Sequencer._check(plan, modulus, k, b, bus_width, mult_stages)

    @classmethod
    def _cycles_of(cls, args, modulus, k, b, bus_width, mult_stages):
        plan = cls._make_plan(*args, modulus, k, b, bus_width)[0]
        return Sequencer.cycles_of_plan(plan, modulus, k, b, bus_width, mult_stages=mult_stages)

    @staticmethod
    def _finish(plan, sizes, term_bits, count):
        """Plan the Barrett stage on ACC; returns the bits of the accumulated x."""
        d = plan.d
        x_bits = _x_bits(sizes, term_bits, count)
        if x_bits > plan.regions["ACC"][1] * d:
            raise RuntimeError(f"the ACC region holds {plan.regions['ACC'][1] * d} bits, "
                               f"x needs {x_bits}")
        plan_barrett(plan, "ACC", x_bits, sizes.key_bits)
        return x_bits

    @property
    def sizes(self):
        return self._sizes

    @property
    def x_bits(self):
        """Bits of the accumulated x the Barrett stage is built for."""
        return self._x_bits

    def _common(self, values, M, R, A0):
        if A0.bit_length() != self._sizes.key_bits or not A0 & 1:
            raise ValueError(f"A0 must be odd with exactly {self._sizes.key_bits} bits, not a "
                             f"{A0.bit_length()}-bit value")
        if M not in (0, 1) or 2 * abs(R) >= A0:
            raise ValueError(f"M must be 0 or 1 and |2R| < A0, not M = {M!r}, R = {R!r}")
        c = supersize_barrett_constants(A0, self._x_bits, self.plan.d)
        values.update(A0=A0, MU=c.mu, E=(M + 2 * R) % A0)
        return ram_image(self.plan, values)

    def result(self, ram):
        """The ciphertext, read from region Y of ``ram`` (the RAM words after the run)."""
        return region_value(self.plan, ram, "Y")


class CMNTEncrypt(_Encrypt):
    """CMNT encryption ([Cao13] Fig. 6(i)–(ii), eq. 1) on one Integer-FFT multiplier.

    Parameters: ``group`` (``toy``/``small``/``medium``/``large`` of [Cao14] Table 1, or an
    :class:`~fhe_hw.model.bigint.EncryptionSizes` for scaled-down tests); ``schedule``
    (``"paper"``: θ^2 big products, ``"factored"``: θ); the multiplier's ``modulus``, ``k``,
    ``b``, ``bus_width``, ``mult_stages``. Ports and cycles as
    :class:`~fhe_hw.bigint.sequencer.Sequencer`; the host loads :meth:`ram_image` and reads
    :meth:`result`. Raises ``ValueError``/``TypeError`` for bad sizes or schedule.
    """

    def __init__(self, group="toy", schedule="paper", modulus="solinas64", k=None, b=None,
                 bus_width=None, *, mult_stages=None):
        self._schedule = schedule
        super().__init__((group, schedule), modulus, k, b, bus_width, mult_stages)

    @staticmethod
    def latency_of(group="toy", schedule="paper", modulus="solinas64", k=None, b=None,
                   bus_width=None, *, mult_stages=None):
        """``None``: a start/done engine, timed by :meth:`cycles_of`. Raises the constructor's
        ``ValueError``/``TypeError`` for refused parameters without building anything."""
        CMNTEncrypt._latency_of((group, schedule), modulus, k, b, bus_width, mult_stages)

    @staticmethod
    def cycles_of(group="toy", schedule="paper", modulus="solinas64", k=None, b=None,
                  bus_width=None, *, mult_stages=None):
        """:meth:`cycles` of one encryption with these parameters without building it."""
        return CMNTEncrypt._cycles_of((group, schedule), modulus, k, b, bus_width, mult_stages)

    @staticmethod
    def _make_plan(group, schedule, modulus, k, b, bus_width):
        if schedule not in SCHEDULES:
            raise ValueError(f"schedule must be one of {', '.join(SCHEDULES)}, not {schedule!r}")
        s = _sizes(group, cmnt_group)
        cfg = block_config(modulus, k, b, bus_width)
        d, theta = cfg.d, s.count
        if s.key_bits <= d:
            raise ValueError(f"key_bits must be more than d = {d}, not {s.key_bits!r}")
        plan = Plan(d, cfg.words)
        bw, kw = words_for(s.coeff_bits, d), words_for(s.key_bits, d)
        for i in range(theta):
            for j in range(theta):
                plan.region(f"B{i}_{j}", bw)
        for i in range(theta):
            plan.region(f"AI{i}", kw)
        for j in range(theta):
            plan.region(f"AJ{j}", kw)
        plan.region("A0", kw)
        term_bits = s.coeff_bits + 2 * s.key_bits
        alpha, _ = supersize_barrett_shifts(s.key_bits, _x_bits(s, term_bits, theta * theta), d)
        plan.region("MU", words_for(alpha + 2, d))
        e = plan.region("E", kw)
        acc_words = words_for(_x_bits(s, term_bits, theta * theta), d)
        acc = plan.region("ACC", acc_words)
        small = words_for(s.coeff_bits + s.key_bits, d)          # B·A
        t = plan.region("T", plan.product_words(bw, kw))
        big = words_for(term_bits, d)
        if schedule == "paper":
            p = plan.region("P", plan.product_words(small, kw))
            for i in range(theta):
                for j in range(theta):
                    plan.mul(plan.regions[f"B{i}_{j}"][0], bw, plan.regions[f"AI{i}"][0], kw, t)
                    plan.mul(t, small, plan.regions[f"AJ{j}"][0], kw, p)
                    first = i == 0 and j == 0
                    plan.alu(ALUOp.ADD, acc_words, dst=acc, a=(e, kw) if first else
                             (acc, acc_words), b=(p, big), shift=1)
        else:
            s_words = words_for(s.coeff_bits + s.key_bits + theta.bit_length(), d)
            sacc = plan.region("S", s_words)
            p = plan.region("P", plan.product_words(kw, s_words))
            for i in range(theta):
                for j in range(theta):
                    plan.mul(plan.regions[f"B{i}_{j}"][0], bw, plan.regions[f"AJ{j}"][0], kw, t)
                    plan.alu(ALUOp.ADD, s_words, dst=sacc, a=(sacc, 0 if j == 0 else s_words),
                             b=(t, small))
                plan.mul(plan.regions[f"AI{i}"][0], kw, sacc, s_words, p)
                plan.alu(ALUOp.ADD, acc_words, dst=acc, a=(e, kw) if i == 0 else
                         (acc, acc_words), b=(p, big), shift=1)
        return plan, s, CMNTEncrypt._finish(plan, s, term_bits, theta * theta)

    @property
    def schedule(self):
        return self._schedule

    def ram_image(self, M, R, B, A0_list, A1_list, A0):
        """RAM words for one encryption (inputs as :func:`fhe_hw.model.bigint.cmnt_encrypt`)."""
        theta = self._sizes.count
        if len(B) != theta or len(A0_list) != theta or len(A1_list) != theta:
            raise ValueError(f"B, A0_list and A1_list must have theta = {theta} entries")
        values = {f"B{i}_{j}": B[i][j] for i in range(theta) for j in range(theta)}
        values.update({f"AI{i}": v for i, v in enumerate(A0_list)})
        values.update({f"AJ{j}": v for j, v in enumerate(A1_list)})
        return self._common(values, M, R, A0)


class CNTEncrypt(_Encrypt):
    """CNT encryption ([Cao13] Fig. 6(i)–(ii), eq. 2): c = (m + 2r + 2·Σ_i b_i·x_i) mod x0, τ
    products accumulated, then the super-size Barrett. Parameters: ``group`` ([Cao13] Table 2 name
    or :class:`~fhe_hw.model.bigint.EncryptionSizes`) and the multiplier's. As
    :class:`CMNTEncrypt` otherwise."""

    def __init__(self, group="toy", modulus="solinas64", k=None, b=None, bus_width=None, *,
                 mult_stages=None):
        super().__init__((group,), modulus, k, b, bus_width, mult_stages)

    @staticmethod
    def latency_of(group="toy", modulus="solinas64", k=None, b=None, bus_width=None, *,
                   mult_stages=None):
        """``None``: a start/done engine, timed by :meth:`cycles_of`. Raises the constructor's
        ``ValueError``/``TypeError`` for refused parameters without building anything."""
        CNTEncrypt._latency_of((group,), modulus, k, b, bus_width, mult_stages)

    @staticmethod
    def cycles_of(group="toy", modulus="solinas64", k=None, b=None, bus_width=None, *,
                  mult_stages=None):
        """:meth:`cycles` of one encryption with these parameters without building it."""
        return CNTEncrypt._cycles_of((group,), modulus, k, b, bus_width, mult_stages)

    @staticmethod
    def _make_plan(group, modulus, k, b, bus_width):
        s = _sizes(group, cnt_group)
        cfg = block_config(modulus, k, b, bus_width)
        d, tau = cfg.d, s.count
        if s.key_bits <= d:
            raise ValueError(f"key_bits must be more than d = {d}, not {s.key_bits!r}")
        plan = Plan(d, cfg.words)
        bw, kw = words_for(s.coeff_bits, d), words_for(s.key_bits, d)
        for i in range(tau):
            plan.region(f"b{i}", bw)
        for i in range(tau):
            plan.region(f"x{i}", kw)
        plan.region("A0", kw)
        term_bits = s.coeff_bits + s.key_bits
        alpha, _ = supersize_barrett_shifts(s.key_bits, _x_bits(s, term_bits, tau), d)
        plan.region("MU", words_for(alpha + 2, d))
        e = plan.region("E", kw)
        acc_words = words_for(_x_bits(s, term_bits, tau), d)
        acc = plan.region("ACC", acc_words)
        p = plan.region("P", plan.product_words(bw, kw))
        for i in range(tau):
            plan.mul(plan.regions[f"b{i}"][0], bw, plan.regions[f"x{i}"][0], kw, p)
            plan.alu(ALUOp.ADD, acc_words, dst=acc, a=(e, kw) if i == 0 else (acc, acc_words),
                     b=(p, words_for(term_bits, d)), shift=1)
        return plan, s, CNTEncrypt._finish(plan, s, term_bits, tau)

    def ram_image(self, M, R, b_list, x_list, x0):
        """RAM words for one encryption (inputs as :func:`fhe_hw.model.bigint.cnt_encrypt`)."""
        tau = self._sizes.count
        if len(b_list) != tau or len(x_list) != tau:
            raise ValueError(f"b_list and x_list must have tau = {tau} entries")
        values = {f"b{i}": v for i, v in enumerate(b_list)}
        values.update({f"x{i}": v for i, v in enumerate(x_list)})
        return self._common(values, M, R, x0)
