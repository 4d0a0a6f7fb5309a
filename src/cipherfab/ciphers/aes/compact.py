"""Compact AES-128 encrypt core: a 32-bit datapath, one column per clock, four shared S-boxes.

Theory of operation
-------------------
Four S-boxes (one :class:`~cipherfab.hw.sbox.SubBytes` unit of 4 lanes, latency 1; in the
``rom`` style two block RAMs, 2 S-boxes each) serve both the rounds and the key schedule,
one 32-bit look-up per clock.  Rounds 1..10 take five clocks each, phases ``p`` = 0..4::

    p = 0..3  S-box address = diagonal p of x_(k-1)     (SubBytes + ShiftRows of column p)
              key step p: K3 <- K0 ^ (p == 0 ? S-box result : K3)  = word p of rk_k
    p = 1..4  S-box result = column p-1:  x_k column p-1 = K3 ^ MixColumns(S)   (round 10:
              K3 ^ S), into the tails of the four row registers
    p = 4     S-box address = RotWord(K3), K3 = word 3 of rk_k   (SubWord for round k+1)

A block is taken at the handshake (cycle H).  Rounds 1..10 run at H+2..H+51, after a
"round 0" phase 4 at H+1 that only looks up SubWord(RotWord(rk_0 word 3)).  The state
holds ``x_0 = block ^ rk_0`` from H+1: while no block is in its rounds, the state
registers that round 0 would have filled sample ``block_in ^ key`` every clock, so
the handshake itself loads them (and AddRoundKey 0 costs no extra clock).

**State.**  Four byte-wide shift registers, one per row, shift every clock from round
1 to the last injection; row ``r`` takes byte ``r`` of each injected column at its
tail (stage 0).  Byte ``(r, j)`` of ``x_k`` is wanted by round ``k+1`` in diagonal
``(j - r) mod 4``, that is ``4 - r`` clocks after its injection if ``j >= r`` and
``8 - r`` clocks after it if ``j < r``.  So row ``r`` is ``8 - r`` bytes long (row 0:
4) and its S-box address is one of two fixed taps, stage ``3 - r`` or ``7 - r``:
ShiftRows is done by which register is read, no byte is ever moved.  After the last
injection (round 10, phase 4, cycle H+51) the registers stop with the ciphertext in
stages 3..0 of every row; ``block_out`` is wired straight from them and
``block_out_valid`` rises at H+52: **latency 52**.  The registers hold it until it is
taken; no block is taken while it waits.

**Key schedule.**  ``KC`` holds the cipher key, ``K`` (four 32-bit words, a word-wide
shift register) the round key: ``rk_(k-1)`` when round ``k`` starts, ``rk_k`` when it
ends.  The injection's round-key word is the word just made (``K3``).  Rcon is added to
word 0 of each round key as it moves from K3 to K2, one step after it was used, so
it sits in ``K0`` when the next round's first step needs ``K0 ^ SubWord(RotWord(K3))
^ Rcon``.  From round 10's phase 4 on, four steps append ``KC``'s words instead, so ``K``
holds ``rk_0`` again at H+55, when the next block may be taken: **55 cycles per
block**, back to back and in feedback use alike (the result is out by then).  A new
key is taken between blocks (before a block offered with it) and copied the same way:
**key setup 5 cycles**.  Every count is fixed by the parameters; none depends on key
or data.

**Written for LUT4s.**  Every register input is a tree of two 4-input functions (the
parallel load is one per bit); ``synth_ecp5 -abc9`` still maps some of them onto wider
LUTs (LUT5..LUT7 built from 2..8 LUT4s) where its delay model sees no slack, so the
LUT4 count moves with unrelated changes and with the part hierarchy of a build.
"""

from __future__ import annotations

from amaranth.hdl import Cat, Const, Module, Mux, Signal
from amaranth.lib import wiring
from amaranth.lib.wiring import In, Out

from ...errors import CipherfabError
from ...hw.info import CoreInfo, CoreSignature, payload_parts
from ...hw.sbox import SboxTables, SubBytes, sbox_param
from ...registry import Architecture, Param
from .reference import SBOX
from .round import bytes_of, from_bytes, xtime

#: row lengths of the state shift registers (stage 0 = tail); row r reads stage 3 - r or 7 - r
ROW_LENGTH = (4, 7, 6, 5)
LATENCY, CYCLES_PER_BLOCK, KEY_SETUP = 52, 55, 5


def encrypt_128_signature(core, arch: str, key_bits: int, direction: str, sbox: str, *,
                          latency: int, cycles_per_block: int, key_setup: int) -> CoreSignature:
    """The declaration of a compact AES-128 encryption core (one block at a time, the same
    cycles per block in feedback use); other key sizes or directions refused in one line."""
    if key_bits != 128 or direction != "encrypt":
        core._MustUse__silence = True    # refused, not forgotten
        raise CipherfabError(f"aes {arch}: AES-128 encryption only (got {key_bits} bits, {direction})")
    return CoreSignature(CoreInfo(
        block_bits=128, key_bits=128, key_bits_effective=128, key_interface="stream",
        directions=("encrypt",), latency=latency, cycles_per_block=cycles_per_block,
        cycles_per_block_feedback=cycles_per_block, blocks_in_flight=1,
        key_setup_cycles=key_setup, parts={"key_schedule": "key_schedule", "datapath": "datapath"}))


def rows_of(word):
    """The four bytes of a 32-bit word, row 0 (the most significant byte) first."""
    return [word[24 - 8 * r:32 - 8 * r] for r in range(4)]


def word_of(rows):
    return Cat(*reversed(rows))


class ColumnDatapath(wiring.Component):
    """The shared S-boxes, the 4 row shift registers of the state and the column injection.

    Control (registered, from :class:`ColumnAES`): ``run`` (a block is in its rounds; while
    low the state samples ``block ^ key``), ``advance`` (the state registers take their
    next value), ``mix`` (MixColumns on: rounds 1..9), ``key_phase`` (address
    SubWord(RotWord(``rk``))), ``late`` (rows 1..3 read their far tap).
    """

    def __init__(self, sbox: str):
        self.sbox = sbox
        super().__init__({
            "block": In(128), "key": In(128), "run": In(1), "advance": In(1), "mix": In(1),
            "key_phase": In(1), "late": In(4), "rk": In(32),
            "sub": Out(32), "result": Out(128),
        })

    def elaborate(self, platform):
        m = Module()
        m.submodules.sub_bytes = sb = SubBytes(4, SboxTables(SBOX), self.sbox, latency=1)

        # state: one shift register per row, stage 0 = tail
        rows = [[Signal(8, name=f"row{r}_{s}", reset_less=True) for s in range(ROW_LENGTH[r])]
                for r in range(4)]

        # S-box addresses: SubWord(RotWord(rk)) at phase 4, else the row taps
        rk = rows_of(self.rk)
        addr = []
        for r in range(4):
            tap = rows[r][3 - r]
            if r:
                tap = Mux(self.late[r], rows[r][7 - r], tap)
            addr.append(Mux(self.key_phase, rk[(r + 1) % 4], tap))
        m.d.comb += sb.x.eq(Cat(*addr))

        s = [sb.y[8 * r:8 * r + 8] for r in range(4)]
        m.d.comb += self.sub.eq(word_of(s))

        # injection into the tails: rk ^ S_r ^ (mix ? t ^ xtime(S_r ^ S_r+1) : 0), i.e. rk ^
        # MixColumns(S) or rk ^ S (t = S_0 ^ S_1 ^ S_2 ^ S_3).  While idle (mix low), the
        # tails sample rk ^ the block's column 3 (rk = K3 = cipher-key word 3 then).
        # Two LUT4 levels per bit: base = rk ^ (run ? S_r : block), t (shared by the rows)
        # and the xtime term x; then base ^ (mix & (t ^ x)).
        t = Signal(8)
        m.d.comb += t.eq(s[0] ^ s[1] ^ s[2] ^ s[3])
        x0 = bytes_of(self.block ^ self.key)
        blk = bytes_of(self.block)
        inject = []
        for r in range(4):
            a, n = s[r], s[(r + 1) % 4]
            x = Signal(8, name=f"xtime_{r}")
            m.d.comb += x.eq(xtime(a ^ n))
            base = Signal(8, name=f"base_{r}")
            m.d.comb += base.eq(rk[r] ^ Mux(self.run, a, blk[12 + r]))
            inject.append(base ^ (Cat(*[self.mix] * 8) & (t ^ x)))

        # the state advances every clock of rounds 1..10, and samples while idle without a
        # result waiting; the stages that round 0 would fill take block ^ key then
        with m.If(self.advance):
            for r in range(4):
                for k in range(ROW_LENGTH[r]):
                    nxt = inject[r] if k == 0 else rows[r][k - 1]
                    if 0 < k < 4:
                        nxt = Mux(self.run, nxt, x0[4 * (3 - k) + r])
                    m.d.sync += rows[r][k].eq(nxt)

        # the result: byte (r, c) was injected 3 - c clocks before the registers stopped
        m.d.comb += self.result.eq(from_bytes([rows[r][3 - c] for c in range(4) for r in range(4)]))
        return m


class ColumnKeySchedule(wiring.Component):
    """The cipher key ``KC`` and the round-key window ``K`` (4 words, a word shift register).

    ``load`` captures ``key``.  A ``step`` (phases 0..3 of a round) shifts ``K`` by a word and
    appends ``K0 ^ (use_sub ? sub : K3)`` (``sub`` = SubWord(RotWord(K3)), looked up at
    phase 4): the next round key's word, which is also ``k3``, the round-key word of the
    injection one clock later.  Rcon is added to word 0 as it
    moves from K3 to K2 (``rcon_now``), so it is in ``K0`` when the next round needs it.
    ``restore`` (one-hot, four clocks) appends the cipher key's words instead.
    """

    def __init__(self):
        super().__init__({
            "key": In(128), "load": In(1), "step": In(1), "use_sub": In(1), "restore": In(4),
            "normal": In(1), "rcon_now": In(1), "sub": In(32),
            "cipher_key": Out(128), "k3": Out(32),
        })

    def elaborate(self, platform):
        m = Module()
        kc = Signal(128)
        k = [Signal(32, name=f"k{i}") for i in range(4)]
        rc = Signal(8, init=1)
        with m.If(self.load):
            m.d.sync += kc.eq(self.key)

        kc_words = [from_bytes(bytes_of(kc)[4 * i:4 * i + 4]) for i in range(4)]
        new = k[0] ^ Mux(self.use_sub, self.sub, k[3])
        rest = [Mux(self.restore[i], kc_words[i], 0) for i in range(4)]
        rcon = Mux(self.rcon_now, rc, 0)
        with m.If(self.step | self.restore.any()):
            m.d.sync += [k[0].eq(k[1]), k[1].eq(k[2]), k[2].eq(k[3] ^ Cat(Const(0, 24), rcon)),
                         k[3].eq((rest[0] | rest[1]) | (rest[2] | rest[3]) | Mux(self.normal, new, 0))]
        # Rcon: 01 while the cipher key's word 0 passes (restore step 1), then xtime after each use
        with m.If(self.restore[0]):
            m.d.sync += rc.eq(1)
        with m.Elif(self.rcon_now):
            m.d.sync += rc.eq(xtime(rc))
        m.d.comb += [self.k3.eq(k[3]), self.cipher_key.eq(kc)]
        return m


class ColumnAES(wiring.Component):
    """AES-128 encryption, one column per clock (see the module docstring for the schedule).

    ``busy`` is high while a key is copied, a block is in its rounds, or a result waits.
    """

    def __init__(self, key_bits: int = 128, direction: str = "encrypt", sbox: str = "rom"):
        self.sbox = sbox
        super().__init__(encrypt_128_signature(
            self, "column", key_bits, direction, sbox,
            latency=LATENCY,                    # handshake, SubWord look-up, 10 rounds of 5 clocks
            cycles_per_block=CYCLES_PER_BLOCK,  # + 3 clocks: the cipher key copied back into K
            key_setup=KEY_SETUP))               # the key's four words are copied into K

    def elaborate(self, platform):
        m = Module()
        m.submodules.key_schedule = ks = ColumnKeySchedule()
        m.submodules.datapath = dp = ColumnDatapath(self.sbox)

        ph = Signal(5, init=0b10000)          # one-hot phase of the round
        rnd = Signal(4)                       # round 0 (load + look-up) .. 10
        first, last = Signal(), Signal()      # round 0, round 10
        mix = Signal()                        # rounds 1..9 (MixColumns)
        late2 = Signal()                      # ph2 | ph3
        rcon_now = Signal()                   # K3 -> K2 moves a word 0 that needs Rcon
        run = Signal()                        # a block is in its rounds
        rest = Signal(4)                      # one-hot: copying the cipher key into K
        normal = Signal(init=1)               # not copying
        have_key = Signal()
        out_valid = self.block_out.valid

        free = ~run & normal
        start = self.block_in.valid & self.block_in.ready
        load = self.key.valid & self.key.ready
        block, _, _ = payload_parts(self)
        restore_from = load | (run & last & ph[3])

        m.d.comb += [
            self.key.ready.eq(free),
            self.block_in.ready.eq(free & have_key & ~self.key.valid & ~out_valid),
            self.busy.eq(run | ~normal | out_valid),
            ks.key.eq(self.key.payload), ks.load.eq(load),
            ks.step.eq(run & ~first & ~ph[4]), ks.use_sub.eq(ph[0]), ks.restore.eq(rest),
            ks.normal.eq(normal), ks.rcon_now.eq(rcon_now), ks.sub.eq(dp.sub),
            dp.block.eq(block), dp.key.eq(ks.cipher_key), dp.run.eq(run), dp.mix.eq(mix),
            dp.advance.eq(Mux(run, ~first, ~out_valid)), dp.key_phase.eq(ph[4]),
            dp.late.eq(Cat(0, ph[3], late2, ~ph[0])), dp.rk.eq(ks.k3),
            self.block_out.payload.eq(dp.result),
        ]
        with m.If(run):
            m.d.sync += [ph.eq(Cat(ph[4], ph[:4])), late2.eq(ph[1] | ph[2])]
        with m.If(run & ph[4]):
            m.d.sync += [rnd.eq(rnd + 1), first.eq(0), last.eq(rnd == 9), mix.eq(rnd != 9)]
        m.d.sync += rcon_now.eq((run & ~first & ph[0]) | rest[0])
        # copy the cipher key into K: after a key load, and from the last injection on
        m.d.sync += rest.eq(Cat(restore_from, rest[:3]))
        with m.If(restore_from):
            m.d.sync += normal.eq(0)
        with m.Elif(rest[3]):
            m.d.sync += normal.eq(1)
        with m.If(load):
            m.d.sync += have_key.eq(1)
        with m.If(self.block_out.ready):
            m.d.sync += out_valid.eq(0)
        with m.If(run & last & ph[4]):
            m.d.sync += [run.eq(0), out_valid.eq(1), mix.eq(0)]
        with m.If(start):
            m.d.sync += [run.eq(1), ph.eq(0b10000), rnd.eq(0), first.eq(1), last.eq(0), mix.eq(1)]
        return m


COLUMN = Architecture(
    name="column",
    summary="32-bit datapath, one column per clock, 4 S-boxes shared by rounds and key schedule, "
            "ShiftRows by shift-register taps",
    core="cipherfab.ciphers.aes.compact:ColumnAES",
    params=(
        Param("key_bits", (128,), 128, "key size in bits"),
        Param("direction", ("encrypt",), "encrypt", "encrypt only"),
        sbox_param("rom", "S-box style: rom (synchronous ROM in block RAM, 2 S-boxes per RAM), "
                   "lut (logic tables) or composite (GF(((2^2)^2)^2) logic)"),
    ),
    test_points=(
        {"key_bits": 128, "direction": "encrypt", "sbox": "rom"},
        {"key_bits": 128, "direction": "encrypt", "sbox": "lut"},
    ),
    paper="001 (low-area sequential core; key additions in the round function), "
          "002 (dual-ported block-RAM S-boxes; AddRoundKey 0 merged into the load)",
)
