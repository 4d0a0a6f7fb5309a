"""Byte-serial AES-128 encrypt core: an 8-bit datapath, one byte per clock, one shared S-box.

Theory of operation
-------------------
One S-box (a :class:`~cipherfab.hw.sbox.SubBytes` unit of 1 lane, latency 1; in the
``rom`` style one block RAM) serves the rounds and the key schedule, one look-up per
clock.  A round takes 20 clocks, round time ``t`` = 0..19::

    t = 0..15   S-box address = byte t of ShiftRows(x_(k-1))     (row t % 4, column t // 4)
    t = 16..19  S-box address = rk_k bytes 13, 14, 15, 12         (SubWord(RotWord(w3)))
    t = 1..16   key step j = t - 1: rk_k byte j is made
    t = 5..20   byte w = t - 5 of x_k = MixColumns(S) ^ rk_k (round 10: S ^ rk_k) is made
                into the register OUT, and written into the state one clock later

A block is taken at the handshake (cycle H) and loaded as ``x_0 = block ^ key`` (the
load mux does AddRoundKey 0); round k runs at H+1+20(k-1) .. H+20k.  The last two bytes
of round 10 are written at H+201 and H+202 ("round 11", t = 0 and 1): **latency 203**;
the result waits in the state registers until taken, and the next block is taken the
cycle after: **204 cycles per block**, back to back and in feedback use alike.

**State.**  Four byte-wide shift registers, one per row (stage 0 = tail); row ``r``
shifts at ``t % 4 == (r + 2) % 4`` from t = r + 2 on: four times to take the bytes of
``x_k`` (t = r + 6 + 4c, rows 2 and 3 ending at t = 0 and 1 of the next round) and once
before them, at t = r + 2, an idle shift (its byte falls off the end), so that one shift
lies between any two reads of a row.  Byte ``(r, c)`` of ``x_(k-1)`` is read at
t = 4c + r from one fixed stage, or for the columns that wrap around the row a second
one (:data:`ROW_TAPS`): seven sources in all, where shifting on writes alone needs ten.
ShiftRows is done by which register is read, no byte is ever moved.  The rows are
4, 7, 6 and 5 bytes long; after the last write the ciphertext is in stages 3..0 of
every row, and ``block_out`` is wired straight from them.

**MixColumns, byte-serially.**  The S-box outputs run through a free-running delay
line ``D1..D7`` (``D0`` = the S-box output).  When byte w = 4c + r is made
(t = w + 5), ``s_r`` of its column is in ``D4`` and ``s_(r+1)`` in ``D3`` (``D7`` for
r = 3, whose neighbour is the column's first byte); ``T`` = s_0 ^ s_1 ^ s_2 ^ s_3 is
latched once per column (t % 4 == 0).  ``OUT`` takes
``D4 ^ T ^ xtime(D4 ^ D3|D7) ^ rk`` (FIPS-197 5.1.3 as ``s_r ^ T ^ {02}(s_r ^ s_(r+1))``);
in round 10 only ``D4 ^ rk``.

**Key schedule.**  ``KC`` holds the cipher key, ``RK`` (16 bytes, a byte shift register,
head = stage 15) the round key: ``rk_(k-1)`` when round k starts.  ``Q`` (4 bytes, a
shift register advancing every clock of a round) feeds the key steps and AddRoundKey
alike from its head ``Q3``: key step j appends ``RK15 ^ Q3 (^ Rcon at j = 0)`` to RK
and Q, where ``Q3`` is ``rk_k`` byte j - 4, or for j < 4 the SubWord(RotWord) byte that
the S-box looked up at t = 16..19 of the round before (Q takes the S-box output at
t = 17, 18, 19 and 0); ``rk_k`` byte w reaches ``Q3`` 4 clocks after it is made,
exactly when byte w of the next state is made.  In round 10 RK takes ``KC``'s bytes
instead (``KC`` rotates a byte per step, 16 per copy, back to where it was loaded), so
RK holds ``rk_0`` again at its end, and its t = 16..19 look-ups fill Q for the next
block: no clock is spent on the key between blocks.  A new key (taken between blocks,
before a block offered with it) is copied the same way in a round of 20 clocks:
**key setup 20 cycles** (a block may be taken in its last clock).  Every count is
fixed by the parameters; none depends on key or data.

**Written for LUT4s.**  ``synth_ecp5 -abc9`` maps any mux wider than 2:1 onto wide LUTs
(a 16:1 byte mux costs ~26 LUT4 per bit), so no register reads a byte by index: the
cipher key is serialized by rotating ``KC`` (one LUT4 per bit: load or rotate), the
block by the state's parallel load (one LUT4 per bit, AddRoundKey 0 included), the
made byte is registered once (``OUT``) instead of being rebuilt at four row tails, and
control decodes (``first``, ``col_end``) reach the parts as single wires.  These two
128-bit parallel loads are over half the core's LUT4s; the S-box address selection
(7 state and 3 round-key sources) is most of the rest.  Wide LUTs (the PFU's muxes) do not
pay here: ``--no-widelut`` maps this core to about a fifth fewer LUT4s than the default flow
(docs/results/aes-space).
"""

from __future__ import annotations

from amaranth.hdl import Array, Cat, Module, Mux, Signal
from amaranth.lib import wiring
from amaranth.lib.wiring import In, Out

from ...hw.info import payload_parts
from ...hw.sbox import SboxTables, SubBytes, sbox_param
from ...registry import Architecture, Param
from .compact import encrypt_128_signature
from .reference import SBOX
from .round import bytes_of, from_bytes, xtime

#: state row lengths (stage 0 = tail)
ROW_LENGTH = (4, 7, 6, 5)
#: stage of row r read at t = 4c + r, for c = 0..3
ROW_TAPS = ((3, 3, 3, 3), (2, 2, 2, 6), (1, 1, 5, 5), (0, 4, 4, 4))
LATENCY, CYCLES_PER_BLOCK, KEY_SETUP = 203, 204, 20


class ByteDatapath(wiring.Component):
    """The shared S-box, the four row registers of the state and byte-serial MixColumns.

    Control (from :class:`ByteAES`): ``t`` (round time; addresses the S-box), ``load``
    (take ``block ^ cipher_key``), ``write`` (row ``(t + 2) % 4`` shifts this clock: takes
    the made byte, or idles at t = 2..5), ``col_end`` (t % 4 == 0), ``mix`` (MixColumns on).
    ``rk_taps`` are RK stages 0..3, ``round_key`` the AddRoundKey byte.
    """

    def __init__(self, sbox: str):
        self.sbox = sbox
        super().__init__({
            "block": In(128), "cipher_key": In(128), "load": In(1), "t": In(5), "write": In(1),
            "col_end": In(1), "mix": In(1), "rk_taps": In(32), "round_key": In(8),
            "sub": Out(8), "result": Out(128),
        })

    def elaborate(self, platform):
        m = Module()
        m.submodules.sub_bytes = sb = SubBytes(1, SboxTables(SBOX), self.sbox, latency=1)
        t = self.t
        rows = [[Signal(8, name=f"row{r}_{s}", reset_less=True) for s in range(ROW_LENGTH[r])]
                for r in range(4)]
        rk = [self.rk_taps[8 * i:8 * i + 8] for i in range(4)]

        # S-box address: ShiftRows by tap choice (one candidate per row, picked by t % 4),
        # or SubWord(RotWord) of the round key at t = 16..19
        c = t[2:4]
        row = []
        for r in range(4):
            v = rows[r][ROW_TAPS[r][1]]
            for col in (0, 2, 3):
                if ROW_TAPS[r][col] != ROW_TAPS[r][1]:
                    v = Mux(c == col, rows[r][ROW_TAPS[r][col]], v)
            row.append(v)
        cand = [Signal(8, name=f"row{r}_tap") for r in range(4)]
        m.d.comb += [cand[r].eq(row[r]) for r in range(4)]
        key_tap = Signal(8)         # RK stage 1, 1, 0, 3 at t = 16..19: rk_k bytes 13, 14, 15, 12
        m.d.comb += key_tap.eq(Mux(t[1], Mux(t[0], rk[3], rk[0]), rk[1]))
        m.d.comb += sb.x.eq(Mux(t[4], key_tap, Array(cand)[t[:2]]))
        m.d.comb += self.sub.eq(sb.y)

        # MixColumns byte-serially from the delay line; T = the column's XOR
        d = [sb.y] + [Signal(8, name=f"d{a}", reset_less=True) for a in range(1, 8)]
        m.d.sync += [d[a].eq(d[a - 1]) for a in range(1, 8)]
        col_end = self.col_end
        total = Signal(8, reset_less=True)
        with m.If(col_end):
            m.d.sync += total.eq(d[0] ^ d[1] ^ d[2] ^ d[3])
        pair = Signal(8)
        m.d.comb += pair.eq(d[4] ^ Mux(col_end, d[7], d[3]))
        out = Signal(8, reset_less=True)     # byte w, made at t = w + 5 and written at t = w + 6
        m.d.sync += out.eq(d[4] ^ self.round_key ^ Mux(self.mix, total ^ xtime(pair), 0))

        # row r shifts when t % 4 == (r + 2) % 4; the load fills stages 3..0 with x_0
        x0 = bytes_of(self.block ^ self.cipher_key)
        for r in range(4):
            with m.If(self.load):
                m.d.sync += [rows[r][s].eq(x0[4 * (3 - s) + r]) for s in range(4)]
            with m.Elif(self.write & (t[:2] == (r + 2) % 4)):
                m.d.sync += [rows[r][s].eq(out if s == 0 else rows[r][s - 1])
                             for s in range(ROW_LENGTH[r])]
        m.d.comb += self.result.eq(from_bytes([rows[r][3 - c] for c in range(4) for r in range(4)]))
        return m


class ByteKeySchedule(wiring.Component):
    """The cipher key ``KC``, the round-key register ``RK`` and the 4-byte queue ``Q``.

    ``load`` captures ``key``.  A ``step`` (t = 1..16) shifts RK and appends
    ``RK15 ^ Q3 (^ Rcon when first)``, or with ``restore`` KC's byte 0 (KC rotates: byte t - 1).
    ``shift`` advances Q, whose tail takes the new byte on a step and ``sub`` otherwise.
    ``rc_init`` sets Rcon to 01; ``rc_next`` (after its use) multiplies it by {02}.
    """

    def __init__(self):
        super().__init__({
            "key": In(128), "load": In(1), "first": In(1), "step": In(1), "restore": In(1),
            "shift": In(1), "rc_init": In(1), "rc_next": In(1), "sub": In(8),
            "cipher_key": Out(128), "rk_taps": Out(32), "round_key": Out(8),
        })

    def elaborate(self, platform):
        m = Module()
        kc = [Signal(8, name=f"kc{i}", reset_less=True) for i in range(16)]  # key byte i at rest
        rk = [Signal(8, name=f"rk{s}", reset_less=True) for s in range(16)]
        q = [Signal(8, name=f"q{s}", reset_less=True) for s in range(4)]
        rc = Signal(8, init=1)
        # KC rotates a byte per restoring step (16 per copy), its byte 0 feeding RK's tail
        with m.If(self.load):
            m.d.sync += [kc[i].eq(b) for i, b in enumerate(bytes_of(self.key))]
        with m.Elif(self.step & self.restore):
            m.d.sync += [kc[i].eq(kc[(i + 1) % 16]) for i in range(16)]

        new = Signal(8)
        m.d.comb += new.eq(rk[15] ^ q[3] ^ (rc & self.first.replicate(8)))
        with m.If(self.step):
            m.d.sync += [rk[0].eq(Mux(self.restore, kc[0], new))]
            m.d.sync += [rk[s].eq(rk[s - 1]) for s in range(1, 16)]
        with m.If(self.shift):
            m.d.sync += [q[0].eq(Mux(self.step, new, self.sub))]
            m.d.sync += [q[s].eq(q[s - 1]) for s in range(1, 4)]
        with m.If(self.rc_init):
            m.d.sync += rc.eq(1)
        with m.Elif(self.rc_next):
            m.d.sync += rc.eq(xtime(rc))
        m.d.comb += [self.cipher_key.eq(from_bytes(kc)), self.rk_taps.eq(Cat(*rk[:4])),
                     self.round_key.eq(q[3])]
        return m


class ByteAES(wiring.Component):
    """AES-128 encryption, one byte per clock (see the module docstring for the schedule).

    ``busy`` is high while a key is copied, a block is in its rounds, or a result waits.
    """

    def __init__(self, key_bits: int = 128, direction: str = "encrypt", sbox: str = "rom"):
        self.sbox = sbox
        super().__init__(encrypt_128_signature(
            self, "byte", key_bits, direction, sbox,
            latency=LATENCY,                    # load, 10 rounds of 20 clocks, the last two writes
            cycles_per_block=CYCLES_PER_BLOCK,  # + 1: the result is taken before the next load
            key_setup=KEY_SETUP))               # the key copied into RK, its SubWord looked up

    def elaborate(self, platform):
        m = Module()
        m.submodules.key_schedule = ks = ByteKeySchedule()
        m.submodules.datapath = dp = ByteDatapath(self.sbox)

        t = Signal(5)                 # round time 0..19; 0 while idle
        rnd = Signal(4)               # round 1..10, 11 = the last write
        run = Signal()                # a block is in its rounds
        krun = Signal()               # a new key is copied into RK
        mix = Signal()                # the round being written has MixColumns
        have_key = Signal()
        out_valid = self.block_out.valid

        t0 = t == 0
        last = rnd == 11                  # round 11: t = 0, 1 write the last two bytes
        fin_run = run & last & (t == 1)
        fin = (krun & t0) | fin_run
        free = ~run & (~krun | t0)
        start = self.block_in.valid & self.block_in.ready
        load = self.key.valid & self.key.ready
        block, _, _ = payload_parts(self)
        active = run | krun
        step = (krun | (run & ~last)) & (t >= 1) & (t <= 16)

        m.d.comb += [
            self.key.ready.eq(free),
            self.block_in.ready.eq(free & have_key & ~self.key.valid & ~out_valid),
            self.busy.eq(active | out_valid),
            ks.key.eq(self.key.payload), ks.load.eq(load), ks.first.eq(t == 1), ks.step.eq(step),
            ks.restore.eq(krun | (rnd == 10)),
            ks.shift.eq(krun | (run & ~((rnd == 1) & t0) & ~fin_run)),
            ks.rc_init.eq(start), ks.rc_next.eq(run & (t == 1)), ks.sub.eq(dp.sub),
            dp.block.eq(block), dp.cipher_key.eq(ks.cipher_key), dp.load.eq(start),
            dp.t.eq(t), dp.col_end.eq(t[:2] == 0),
            dp.write.eq(run & ((t >= 2) | ((t <= 1) & (rnd != 1)))), dp.mix.eq(mix),
            dp.rk_taps.eq(ks.rk_taps), dp.round_key.eq(ks.round_key),
            self.block_out.payload.eq(dp.result),
        ]
        with m.If(active & ~fin):
            m.d.sync += t.eq(Mux(t == 19, 0, t + 1))
            with m.If(t == 19):
                m.d.sync += rnd.eq(rnd + 1)
        with m.If(run & (t == 4)):
            m.d.sync += mix.eq(rnd != 10)
        with m.If(self.block_out.ready):
            m.d.sync += out_valid.eq(0)
        with m.If(fin_run):
            m.d.sync += [run.eq(0), out_valid.eq(1), t.eq(0)]
        with m.If(fin & krun):
            m.d.sync += krun.eq(0)
        with m.If(load):
            m.d.sync += [krun.eq(1), t.eq(1), have_key.eq(1)]
        with m.If(start):
            m.d.sync += [run.eq(1), rnd.eq(1)]
        return m


BYTE = Architecture(
    name="byte",
    summary="8-bit datapath, one byte per clock, 1 S-box shared by rounds and key schedule, "
            "ShiftRows by shift-register taps, byte-serial MixColumns",
    core="cipherfab.ciphers.aes.byte:ByteAES",
    params=(
        Param("key_bits", (128,), 128, "key size in bits"),
        Param("direction", ("encrypt",), "encrypt", "encrypt only"),
        sbox_param("rom", "S-box style: rom (synchronous ROM in one block RAM), lut (logic table) or "
                   "composite (GF(((2^2)^2)^2) logic)"),
    ),
    test_points=(
        {"key_bits": 128, "direction": "encrypt", "sbox": "rom"},
        {"key_bits": 128, "direction": "encrypt", "sbox": "lut"},
    ),
    paper="001 (low-area sequential core), 8-bit datapaths (Feldhofer-style: one S-box, "
          "byte-serial rounds and key schedule)",
)
