"""The unified FFT/IFFT butterfly: [Cao14] §3.2, Fig. 2 ([Cao13] Fig. 2(ii)), and the
Gentleman–Sande butterfly of a negacyclic inverse with ψ^-1 merged into its twiddles.

X_up = x_up·ω_up + x_down·ω_down and X_down = x_up·ω_up - x_down·ω_down (mod p). The product
x_down·ω_down is made in every stage; x_up·ω_up only in the last inverse stage, where
ω_up = k^-1 and ω_down = k^-1·ω^-j fold the inverse transform's scaling into the twiddles, so no
separate scaling stage is needed. An engine that does not use the up-multiplier builds the
butterfly with ``scale_up=False`` and saves it.

A fully parallel transform ([Cao14] §3.2) knows every twiddle when it is built: with ``twiddle=``
(and ``twiddle_up=`` for the last inverse stage) the butterfly multiplies by constants, through
:class:`~fhe_hw.ntt.shift.ConstMul`: "if the special modulus p = 2^(m-1) + 1 is used, each m-bit
multiplier in a butterfly is implemented using a bit-shift operation" ([Cao14] §3.2), and the same
holds for powers of two (and sums of two of them) modulo 2^64 - 2^32 + 1 ([Wang13] §III-B); other
constants use a ModMul with a constant operand.

``form="gs"`` (run-time twiddles) is the Gentleman–Sande butterfly, difference first:
X_up = (x_up + x_down)·ω_up and X_down = (x_up - x_down)·ω_down
(:func:`fhe_hw.model.ntt.gs_butterfly`). Its sum and difference are one carry chain each
(:func:`~fhe_hw.arith.modadd.add_parallel`, :func:`~fhe_hw.arith.modadd.sub_parallel`) into a
register before the multipliers, whose own output registers end the unit: the latency is the
multiplier's plus one, as the Fig. 2 butterfly's without the up-multiplier. Without
``scale_up`` the sum waits for the product in a delay line.

With ``moduli`` the modulus is a run-time operand too, ``q`` beside the others, one of a fixed
set of primes (an engine shared by several RNS towers): the multipliers are
:class:`~fhe_hw.arith.montgomery_dyn.DynamicModMul` 's ([Kir25] Algorithm 7: every prime ≡ 1 mod
2^w for one word w) and the modular additions take q as an operand.

Without the up-multiplier, that delay line (x_up's in the Fig. 2 butterfly, the sum's in the
Gentleman–Sande one) is as long as the multiplier's latency: a register per bit and cycle.
With ``ram_delays`` it is a :class:`~fhe_hw.lib.delay.DelayLine` instead, a circular buffer
in a memory (LUT RAM on an ECP5) whose output is 0 from reset until its first word has gone
round, and only the ``valid`` bit rides in registers: far fewer flip-flops, the same latency.
"""

from dataclasses import dataclass, field

from amaranth import Module

from ..arith import ModMul, ModMulPlan
from ..arith.dsp import DSP_WIDTH
from ..arith.modadd import add_parallel, add_select, operand_layout, sub_parallel, sub_select
from ..arith.montgomery_dyn import DynamicModMul, DynamicModMulPlan
from ..arith.pipeline import (
    MULTIPLIER_FLAGS,
    FixedLatencyUnit,
    Stages,
    fabric_rounds_param,
    karatsuba_param,
    modulus_param,
    mult_stages_param,
    tile_reg_param,
    tiled_param,
)
from ..lib.delay import delay_line
from ..params import get_modulus, require_int
from ..plan import Plan, param
from .shift import MULTIPLIERS, ConstMul

__all__ = ["Butterfly", "ButterflyPlan", "FORMS", "ram_delays_param"]

#: The butterflies: the Fig. 2 (Cooley–Tukey) one and the Gentleman–Sande one.
FORMS = ("ct", "gs")


def ram_delays_param():
    """The plan field ``ram_delays`` of a unit with butterflies (default False; left out of a
    generated file's header unless given, like ``karatsuba``)."""
    return param(False, help="each butterfly's operand delay line, as long as its multiplier's "
                 "latency, in a memory (LUT RAM), not registers; not with the up-multiplier "
                 "(true/false, default false)", cli_default=None, kw_only=True)


@dataclass(frozen=True)
class ButterflyPlan(Plan):
    """The parameters of :class:`Butterfly` and what they derive.

    Parameters
    ----------
    modulus : str, int or Modulus
        p, of m bits.
    scale_up : bool
        Include the x_up·ω_up multiplier of the last inverse stage (run-time twiddles; with a
        constant ``twiddle_up`` it is implied, and True without one raises).
    mult_stages : int or None
        Registers in each :class:`~fhe_hw.arith.ModMul` 's multiplier (default None, ModMul's
        fast setting).
    twiddle : int or None
        A constant ω_down in [0, p): the butterfly of a fully parallel transform; None for
        run-time twiddles.
    twiddle_up : int or None
        A constant ω_up in [0, p), only with ``twiddle``.
    multiplier : str
        Constant twiddles only: ``auto`` (shifts when the twiddle is a sum of at most two
        powers of two mod a special or Solinas modulus, else a ModMul), ``shift`` (shifts or
        ``ValueError``) or ``modmul`` (always a ModMul).
    tiled : bool
        Every ModMul with both operands in 17-bit tiles, one MULT18X18D per partial product
        (:class:`~fhe_hw.arith.pipeline.Multiplier`; default True).
    fast_add : bool
        x_up - p and x_up + p registered a cycle before the modular addition and subtraction,
        which are then one carry chain and a select each (:func:`~fhe_hw.arith.modadd.add_select`);
        x_up's delay line holds them, except with the up-multiplier, whose product needs one
        more register for them. False: x_up ∓ p in the same cycle, two carry chains in series
        (one cycle less with the up-multiplier). Default True.
    tile : int or None
        Run-time twiddles only: the ModMul's operand-multiplier slice width (default None,
        ModMul's; narrower for an ASIC).
    karatsuba : bool
        Run-time twiddles only: the ModMul's operand multiplier as one level of Karatsuba, 12
        MULT18X18D instead of 16 at 64 bits (default False).
    tile_reg : bool
        Run-time twiddles only: the ModMul's fabric register after each DSP tile's product
        (default False; see :class:`~fhe_hw.arith.ModMulPlan`).
    reducer : str
        The ModMuls' reducer (default ``auto``).
    fabric_rounds : bool
        The ModMuls' Montgomery rounds without DSPs (:class:`~fhe_hw.arith.ModMulPlan`; run-time
        twiddles only, default False).
    form : str
        ``"ct"``, the Fig. 2 butterfly (default), or ``"gs"``, the Gentleman–Sande butterfly
        (run-time twiddles only; module docstring).
    negated : bool
        Gentleman–Sande only: X_down = (x_down - x_up)·ω_down, for twiddles given as -ω
        (default False); the subtracter takes its operands the other way round, at no cost.
    mult_latency : int or None
        Constant twiddles only: pad the multipliers to this latency, so that butterflies of one
        stage with different twiddles stay aligned (default: their own).
    ram_delays : bool
        The delay line beside the multiplier in a memory, not registers (module docstring;
        default False); not with the up-multiplier, which has none.
    moduli : tuple of int or None
        Run-time twiddles only: the primes the butterfly reduces by, one given with each
        butterfly in the operand ``q`` (module docstring); every one ≡ 1 mod 2^w for a common
        Montgomery word w (:func:`~fhe_hw.arith.montgomery_dyn.common_montgomery_word`), of
        ``modulus`` 's width, ``modulus`` among them. Default None: ``modulus`` alone, fixed.
        Not with ``karatsuba``, ``fabric_rounds``, ``ram_delays``, ``tile`` or a Barrett
        ``reducer``, nor the Fig. 2 butterfly's up-multiplier.

    Attributes
    ----------
    up_multiplier : bool
        Whether the unit has the x_up·ω_up multiplier (``scale_up``, or a constant
        ``twiddle_up``).
    mult_latency_resolved : int
        The multipliers' latency, padded to ``mult_latency`` if given.
    """

    modulus: object = modulus_param("solinas64")
    scale_up: bool = param(False, help="include the x_up*w_up multiplier", kw_only=True)
    mult_stages: int | None = mult_stages_param()
    twiddle: int | None = param(None, help="constant w_down (default: run-time twiddles)",
                                kw_only=True)
    twiddle_up: int | None = param(None, help="constant w_up (with --twiddle; default: none, no "
                                   "up-multiplier)", kw_only=True)
    multiplier: str = param("auto", help="constant twiddles: auto, shift or modmul",
                            kw_only=True)
    tiled: bool = tiled_param()
    fast_add: bool = param(True, help="x_up -/+ p registered before the add/sub: one carry "
                           "chain each (one cycle more with --scale-up) (true/false)",
                           kw_only=True)
    tile: int | None = param(None, help="run-time twiddles: the ModMul's multiplier slice "
                             "width, 2..18 bits (default 17; narrower suits an ASIC)",
                             range=(2, DSP_WIDTH), kw_only=True)
    karatsuba: bool = karatsuba_param()
    tile_reg: bool = tile_reg_param()
    fabric_rounds: bool = fabric_rounds_param()
    ram_delays: bool = ram_delays_param()
    reducer: str = field(default="auto", kw_only=True)
    form: str = field(default="ct", kw_only=True)
    negated: bool = field(default=False, kw_only=True)
    mult_latency: int | None = field(default=None, kw_only=True)
    moduli: tuple | None = field(default=None, kw_only=True)
    up_multiplier: bool = field(init=False, repr=False, compare=False)
    mult_latency_resolved: int = field(init=False, repr=False, compare=False)

    def __post_init__(self):
        super().__post_init__()
        mod = get_modulus(self.modulus)
        if self.form not in FORMS:
            raise ValueError(f"form must be one of {', '.join(FORMS)}, not {self.form!r}")
        if self.form == "gs" and self.twiddle is not None:
            raise ValueError("form 'gs' needs run-time twiddles, not a constant twiddle")
        if self.negated and self.form != "gs":
            raise ValueError(f"negated applies to form 'gs' only, not {self.form!r}")
        if self.moduli is not None:
            self._check_moduli(mod)
        if self.twiddle is None:
            self._run_time_twiddles(mod)
        else:
            self._constant_twiddles(mod)
        if self.ram_delays and self.up_multiplier:
            raise ValueError("ram_delays needs a butterfly without the up-multiplier (its "
                             "delay line), not with scale_up or twiddle_up")

    def _check_moduli(self, mod):
        if isinstance(self.moduli, (int, str)) or not hasattr(self.moduli, "__iter__"):
            raise TypeError(f"moduli must be a sequence of integers, not {self.moduli!r}")
        moduli = tuple(require_int("moduli", q, minimum=3) for q in self.moduli)
        if self.twiddle is not None:
            raise ValueError("moduli needs run-time twiddles, not a constant twiddle")
        for name in ("karatsuba", "fabric_rounds", "ram_delays"):
            if getattr(self, name):
                raise ValueError(f"moduli does not apply with {name}")
        if self.tile is not None or self.reducer not in ("auto", "montgomery"):
            raise ValueError(f"moduli needs Montgomery multipliers of 17-bit tiles, not "
                             f"reducer={self.reducer!r}, tile={self.tile!r}")
        if self.form == "ct" and self.scale_up:
            raise ValueError("moduli does not apply to the Fig. 2 butterfly with scale_up")
        if mod.value not in moduli or {q.bit_length() for q in moduli} != {mod.bits}:
            raise ValueError(f"moduli must include modulus {mod.value} and have its "
                             f"{mod.bits} bits, not {moduli!r}")
        self._set(moduli=moduli)

    def dynamic_plan(self):
        """With ``moduli``, the plan of the run-time-modulus multipliers
        (:class:`~fhe_hw.arith.montgomery_dyn.DynamicModMulPlan`; its default registers unless
        ``mult_stages`` is given); None without."""
        if self.moduli is None:
            return None
        stages = {} if self.mult_stages is None else {"mult_stages": self.mult_stages}
        return DynamicModMulPlan(self.moduli, tiled=self.tiled, tile_reg=self.tile_reg,
                                 **stages)

    def _run_time_twiddles(self, mod):
        if self.twiddle_up is not None:
            raise ValueError(f"twiddle_up needs a constant twiddle, not twiddle=None with "
                             f"twiddle_up={self.twiddle_up!r}")
        if self.mult_latency is not None:
            raise ValueError(f"mult_latency applies to constant twiddles only, not "
                             f"{self.mult_latency!r} with twiddle=None")
        if self.multiplier != "auto":
            raise ValueError(f"multiplier applies to constant twiddles only, not "
                             f"{self.multiplier!r} with twiddle=None")
        if self.moduli is not None:
            latency = self.dynamic_plan().latency
        else:
            latency = ModMulPlan(mod, self.reducer, mult_stages=self.mult_stages,
                                 tiled=self.tiled, tile=self.tile, karatsuba=self.karatsuba,
                                 tile_reg=self.tile_reg,
                                 fabric_rounds=self.fabric_rounds).latency
        self._set(up_multiplier=self.scale_up, mult_latency_resolved=latency)

    def _constant_twiddles(self, mod):
        if self.tile is not None:
            raise ValueError(f"tile applies to run-time twiddles only, not {self.tile!r} with "
                             f"a constant twiddle")
        for name in MULTIPLIER_FLAGS:
            if getattr(self, name):
                raise ValueError(f"{name} applies to run-time twiddles only, not with a "
                                 f"constant twiddle")
        p = mod.value
        require_int("twiddle", self.twiddle, minimum=0, maximum=p - 1)
        if self.twiddle_up is not None:
            require_int("twiddle_up", self.twiddle_up, minimum=0, maximum=p - 1)
        elif self.scale_up:
            raise ValueError("scale_up with a constant twiddle needs twiddle_up, not None")
        if self.multiplier not in MULTIPLIERS:
            raise ValueError(f"multiplier must be one of {', '.join(MULTIPLIERS)}, "
                             f"not {self.multiplier!r}")
        natural = max(ConstMul.latency_of(mod, c, multiplier=self.multiplier,
                                          mult_stages=self.mult_stages, reducer=self.reducer,
                                          tiled=self.tiled)
                      for c in self.constants)
        latency = natural if self.mult_latency is None else self.mult_latency
        require_int("mult_latency", latency)
        if latency < natural:
            raise ValueError(f"mult_latency must be at least {natural} for these twiddles, "
                             f"not {latency!r}")
        self._set(up_multiplier=self.twiddle_up is not None, mult_latency_resolved=latency)

    @property
    def constants(self):
        """The constant twiddles, ω_down then ω_up if given; ``()`` for run-time twiddles."""
        if self.twiddle is None:
            return ()
        return (self.twiddle,) + (() if self.twiddle_up is None else (self.twiddle_up,))

    @property
    def latency(self):
        """The multipliers' latency plus :func:`add_latency` (plus one, the sum and difference's
        register, for the Gentleman–Sande form)."""
        if self.form == "gs":
            return self.mult_latency_resolved + 1
        return self.mult_latency_resolved + add_latency(self.up_multiplier, self.fast_add)


def add_latency(scale_up, fast_add=True):
    """Cycles from a butterfly's multiplier products to ``o``: the result register, and with
    the up-multiplier and ``fast_add`` the register of x_up ∓ p after it."""
    return 1 + (scale_up and fast_add)


class Butterfly(FixedLatencyUnit):
    """Pipelined unified butterfly with run-time or constant twiddles ([Cao14] Fig. 2).

    Parameters
    ----------
    plan : ButterflyPlan
        Or the arguments of one (``Butterfly("fermat32", twiddle=2)``).

    Attributes
    ----------
    i : In(stream.Signature(...)), always ready
        ``{up, down, w_down[, w_up][, q]}`` (m bits each, LSB-first; only ``{up, down}`` with
        constant twiddles; ``q``, the prime of this butterfly, with ``moduli``). Run-time
        twiddles are given as the multiplier expects them: pass ω through :meth:`premultiply`
        (the identity unless the multiplier is a Montgomery one).
    o : Out(stream.Signature(...)), always ready
        ``{up, down}``, one butterfly per cycle.
    latency : int
        The multiplier's latency + :func:`add_latency` (1, or 2 with the up-multiplier and
        ``fast_add``).
    """

    def __init__(self, *args, **kw):
        self.plan = plan = ButterflyPlan.coerce(*args, **kw)
        self._modulus = mod = get_modulus(plan.modulus)
        self._latency = plan.latency
        if plan.moduli is not None:
            muls = [DynamicModMul(plan.dynamic_plan()) for _ in range(2 if plan.scale_up else 1)]
        elif plan.twiddle is None:
            muls = [ModMul(mod, plan.reducer, mult_stages=plan.mult_stages, tiled=plan.tiled,
                           tile=plan.tile, karatsuba=plan.karatsuba, tile_reg=plan.tile_reg,
                           fabric_rounds=plan.fabric_rounds)
                    for _ in range(2 if plan.scale_up else 1)]
        else:
            muls = [ConstMul(mod, c, multiplier=plan.multiplier, mult_stages=plan.mult_stages,
                             reducer=plan.reducer, latency=plan.mult_latency_resolved,
                             tiled=plan.tiled)
                    for c in plan.constants]
        self._mul, self._mul_up = (muls + [None])[:2]
        width = mod.bits
        names = ("up", "down")
        if plan.twiddle is None:
            names += ("w_down",) + (("w_up",) if plan.scale_up else ())
        if plan.moduli is not None:
            names += ("q",)
        super().__init__(operand_layout(width, *names), operand_layout(width, "up", "down"))

    @property
    def modulus(self):
        return self._modulus.value

    @property
    def scale_up(self):
        """Whether the unit has the x_up·ω_up multiplier."""
        return self.plan.up_multiplier

    @property
    def fast_add(self):
        return self.plan.fast_add

    @property
    def twiddle(self):
        """The constant ω_down, or ``None`` for run-time twiddles."""
        return self.plan.twiddle

    @property
    def twiddle_up(self):
        """The constant ω_up, or ``None``."""
        return self.plan.twiddle_up

    @property
    def multiplier_kinds(self):
        """Constant twiddles: ``kind`` (``"shift"``/``"modmul"``) of the down (and up)
        multiplier; run-time twiddles: ``("modmul",)`` per multiplier."""
        muls = (self._mul,) + ((self._mul_up,) if self._mul_up is not None else ())
        if self.plan.twiddle is None:
            return ("modmul",) * len(muls)
        return tuple(u.kind for u in muls)

    def premultiply(self, twiddle, q=None):
        """The operand to feed for run-time twiddle ω so that the product is x·ω mod p (with
        ``moduli``: mod ``q``, one of them)."""
        if self.plan.twiddle is not None:
            raise ValueError("premultiply applies to run-time twiddles, not to a butterfly with "
                             "constant twiddles")
        if self.plan.moduli is not None:
            return self._mul.premultiply(twiddle, q)
        return self._mul.premultiply(twiddle)

    def _gentleman_sande(self, m):
        """X_up = (x_up + x_down)·ω_up, X_down = (x_up - x_down)·ω_down: the sum and the
        difference registered with the twiddles, then the multipliers (module docstring)."""
        x, p, width = self.i.payload, self._modulus.value, self._modulus.bits
        st = Stages(m, self.i.valid)
        st.ride(w_down=x.w_down, **({"w_up": x.w_up} if self.plan.scale_up else {}))
        dynamic = self.plan.moduli is not None
        if dynamic:
            p = x.q
            st.ride(q=x.q)
        minuend, subtrahend = (x.down, x.up) if self.plan.negated else (x.up, x.down)
        total, diff = st.cut(add_parallel(x.up, x.down, p, width),
                             sub_parallel(minuend, subtrahend, p, width))
        m.submodules.mul = mul = self._mul
        m.d.comb += [mul.i.payload.a.eq(diff), mul.i.payload.b.eq(st["w_down"]),
                     mul.i.valid.eq(st.valid)]
        if dynamic:
            m.d.comb += mul.i.payload.q.eq(st["q"])
        if self.plan.scale_up:
            m.submodules.mul_up = mul_up = self._mul_up
            m.d.comb += [mul_up.i.payload.a.eq(total), mul_up.i.payload.b.eq(st["w_up"]),
                         mul_up.i.valid.eq(st.valid)]
            if dynamic:
                m.d.comb += mul_up.i.payload.q.eq(st["q"])
            total = mul_up.o.payload
        elif self.plan.ram_delays:
            total = delay_line(m, total, self._mul.latency, "total_line")
        else:
            wait = Stages(m, st.valid)
            wait.ride(total=total)
            for _ in range(self._mul.latency):
                wait.cut()
            total = wait["total"]
        m.d.comb += [self.o.payload.up.eq(total), self.o.payload.down.eq(mul.o.payload),
                     self.o.valid.eq(mul.o.valid)]
        return m

    def elaborate(self, platform):
        m = Module()
        if self.plan.form == "gs":
            return self._gentleman_sande(m)
        x = self.i.payload
        const = self.plan.twiddle is not None
        m.submodules.mul = mul = self._mul
        if const:
            m.d.comb += mul.i.payload.eq(x.down)
        else:
            m.d.comb += [mul.i.payload.a.eq(x.down), mul.i.payload.b.eq(x.w_down)]
        m.d.comb += mul.i.valid.eq(self.i.valid)
        p = self._modulus.value
        dynamic = self.plan.moduli is not None
        if dynamic:
            m.d.comb += mul.i.payload.q.eq(x.q)
        if self.plan.up_multiplier:
            m.submodules.mul_up = mul_up = self._mul_up
            if const:
                m.d.comb += mul_up.i.payload.eq(x.up)
            else:
                m.d.comb += [mul_up.i.payload.a.eq(x.up), mul_up.i.payload.b.eq(x.w_up)]
            m.d.comb += mul_up.i.valid.eq(self.i.valid)
            st = Stages(m, mul.o.valid)
            st.ride(up=mul_up.o.payload, product=mul.o.payload)
            cuts = int(self.plan.fast_add)
        else:
            # x_up waits for the product in a delay line of the multiplier's latency (with
            # ram_delays in a memory, only the valid bit in the registers).
            st = Stages(m, self.i.valid)
            if not self.plan.ram_delays:
                st.ride(up=x.up)
            if dynamic:
                st.ride(q=x.q)
            cuts = self._mul.latency
        # x_up - p and x_up + p enter the pipeline one register before the add (fast_add).
        for _ in range(cuts - self.plan.fast_add):
            st.cut()
        if self.plan.ram_delays:
            st.ride(up=delay_line(m, x.up, cuts - self.plan.fast_add, "up_line"))
        up = st["up"]
        if dynamic:
            p = st["q"]
        st.ride(up_minus=up - p, up_plus=up + p)
        for _ in range(self.plan.fast_add):
            st.cut()
        up, product = st["up"], st["product"] if self.plan.up_multiplier else mul.o.payload
        out = Stages(m, st.valid)
        x_up, x_down = out.cut(add_select(up, st["up_minus"], product),
                               sub_select(up, st["up_plus"], product))
        m.d.comb += [self.o.payload.up.eq(x_up), self.o.payload.down.eq(x_down),
                     self.o.valid.eq(out.valid)]
        return m
