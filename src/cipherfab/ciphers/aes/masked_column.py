"""AES-128 encryption on ``d`` shares with 4 masked S-boxes (a 32-bit column datapath, as
SMAesH) or 1 (byte-serial), secure at order ``d - 1`` with glitches (issue 36).

Theory of operation
-------------------
The state, the round key and the stored key live as ``d`` shares.  Every round is ``20 / S``
issues to the ``S`` masked S-boxes (:mod:`.masked_sbox`: HPC2 or DOM, latency
``L``), in the order of :mod:`.masked_plan`: the key issues (``RotWord(w3)`` of the previous
round key, ``S`` bytes each), then ``ShiftRows(state)`` column by column.  When a key word
is complete its round key is written (``w0 ^ SubWord ^ rcon`` in share 0, the XOR chain
share by share); when a state column is complete (its row 3), ``MixColumns(column) ^ round
key word`` is written to the lane's state (round 10: ``column ^ round key word``, into the
state, or a staging register where the lane's next block may start before the last column
is out; with the last column the whole ciphertext goes to the share registers ``ct_i``, which nothing else
writes, and the next clock their XOR, the public ciphertext, to the output buffer: no
other logic takes every share of a value, and the ciphertext's shares meet only once the
block is done).  A block's first state is ``(block ^ k0, k1, ..)``, with ``k`` the stored key's
shares, and its first round key is ``k``.

With 4 S-boxes the state's columns and the round key's words are shift registers (as
SMAesH's): the columns rotate one place after each column issue, so an issue takes their
diagonal (ShiftRows' column) at fixed positions, and each new column shifts in at the end;
the round key is made a word a clock as the columns come out (``w_j' = w_j ^ w_(j-1)'``,
the words rotating through ``w3``), each column adding the word just made.

Lanes (one block each) take turns on the S-boxes, one period of ``P`` clocks a round
(:func:`.masked_plan.plan`: 4 S-boxes: ``P`` = 11, 2 lanes; 1 S-box: ``P`` = 20, 1 lane, two
state buffers).  A free-running slot counter says which lane issues what; an S-box input
no block owns takes zero shares.  A block is taken at its lane's first slot; with nothing
in flight the counter waits at slot 0, so a block offered then is taken at once.

Randomness: one Trivium bank (:mod:`cipherfab.hw.masking.trivium`) sized to the demand, a
register of ``S x 34 x d (d - 1) / 2`` gadget bits and ``8 S (d - 1)`` refresh bits every
clock.  The refresh bits re-share the stored key ``S`` bytes a clock (``k_i ^= z_i`` with
``z`` a sharing of zero: ``z_i = r_i``, ``z_0 = r_1 ^ .. ^ r_(d-1)``), all of it every
``16 / S`` clocks, so each block starts from a key shared afresh; a key is split as it is
taken, ``S`` bytes a clock over ``16 / S`` clocks (``k_i = r_i``, ``k_0 = key ^ r_1 ^ ..``,
``key.ready`` on the last).  Seed port, warm-up and test modes as :mod:`.masked`.
"""

from __future__ import annotations

from amaranth.hdl import Cat, Const, Module, Mux, Signal
from amaranth.lib import wiring
from amaranth.lib.fifo import SyncFIFO

from ...hw.info import CoreInfo, CoreSignature
from ...hw.masking.masked import pairs, share_attrs, xor_all
from ...hw.masking.trivium import TriviumBank, seed_port
from .masked import seed_setup
from .masked_plan import NR, plan
from .reference import RCON
from .round import _mix_column, bytes_of, from_bytes, rot_word, words_of
from . import masked_sbox

SEED_BITS = 160
KEY_SETUP = 1


class MaskedColumnAES(wiring.Component):
    """AES-128 encryption on ``shares`` shares with ``sboxes`` (4 or 1) masked S-boxes (``gadget``)."""

    def __init__(self, sboxes: int = 4, shares: int = 2, prng: str = "on", glitch_test: str = "none",
                 notes: tuple = (), gadget: str = "hpc2"):
        self.S, self.d, self.prng, self.glitch_test, self.gadget = sboxes, shares, prng, glitch_test, gadget
        self.schedule = masked_sbox.schedule(gadget, shares)
        self.plan = p = plan(sboxes, self.schedule.latency)
        bits = random_bits(sboxes, shares, gadget)
        self.gadget_bits, self.width = bits["gadget_per_clock"], bits["per_clock"]
        self.buffer_depth = p.lanes + 1
        super().__init__(CoreSignature(CoreInfo(
            block_bits=128, key_bits=128, key_bits_effective=128, key_interface="stream",
            directions=("encrypt",), latency=p.block_latency, cycles_per_block=p.cycles_per_block,
            cycles_per_block_feedback=p.block_latency, blocks_in_flight=p.lanes,
            key_setup_cycles=KEY_SETUP, seed_bits=SEED_BITS,
            seed_setup_cycles=seed_setup(self.width) + 16 // sboxes - 1, burst_spacing=p.issues,
            random_bits_per_clock=self.width if prng == "on" else 0,
            parts={"sbox": "datapath", **({"prng": "prng"} if prng == "on" else {})},
            notes=notes)))

    def sbox(self, unregistered: bool = False):
        """One of this core's masked S-boxes alone (``unregistered``: its glitch TEST MODE)."""
        return masked_sbox.sbox(self.gadget, self.d, unregistered)

    # -- the datapath -----------------------------------------------------------------------
    def elaborate(self, platform):
        m = Module()
        p, d, S = self.plan, self.d, self.S
        P, n, K, L = p.period, p.issues, p.key_issues, self.schedule.latency
        rand = self._randomness(m)
        gadget, refresh = rand[:self.gadget_bits], rand[self.gadget_bits:]
        r = [refresh[8 * S * (i - 1):8 * S * i] for i in range(1, d)]       # d - 1 chunks
        zero_sharing = [xor_all(r)] + r                                     # XOR = 0

        k = [Signal(128, name=f"k{i}", attrs=share_attrs(i)) for i in range(d)]
        self._k = k
        bufs = 2 if p.double_buffer else 1
        st = [[[Signal(128, name=f"st{lane}_{b}_{i}", attrs=share_attrs(i)) for i in range(d)]
               for b in range(bufs)] for lane in range(p.lanes)]
        rk = [[Signal(128, name=f"rk{lane}_{i}", attrs=share_attrs(i)) for i in range(d)]
              for lane in range(p.lanes)]
        self.shift = shift = S == 4
        self._lanes = []
        if shift:        # 4 S-boxes: state columns and round-key words as shift registers
            st = [[[Signal(32, name=f"st{lane}_{i}_c{c}", attrs=share_attrs(i)) for c in range(4)]
                   for i in range(d)] for lane in range(p.lanes)]
            rk = [[[Signal(32, name=f"rk{lane}_{i}_w{w}", attrs=share_attrs(i)) for w in range(4)]
                   for i in range(d)] for lane in range(p.lanes)]
        rnd = [Signal(range(NR + 1), name=f"round{lane}") for lane in range(p.lanes)]   # 0: free
        slot = Signal(range(P))

        # -- S-boxes, and the tags travelling beside them ----------------------------------
        x = [Signal(8 * S, name=f"sbox_in{i}", attrs=share_attrs(i)) for i in range(d)]
        y = [Signal(8 * S, name=f"sbox_out{i}", attrs=share_attrs(i)) for i in range(d)]
        per = self.schedule.random_bits
        for b in range(S):
            box = masked_sbox.sbox(self.gadget, d, self.glitch_test == masked_sbox.UNREGISTERED[self.gadget])
            m.submodules[f"sbox{b}"] = box
            m.d.comb += box.rand.eq(gadget[per * b:per * (b + 1)])
            for i in range(d):
                m.d.comb += [box.x[i].eq(x[i][8 * (S - 1 - b):8 * (S - b)]),
                             y[i][8 * (S - 1 - b):8 * (S - b)].eq(box.y[i])]
        valid = [Signal(name=f"valid_s{j}") for j in range(L)]
        tag_rnd = [Signal(range(NR + 1), name=f"round_s{j}") for j in range(L)]
        issue_valid, issue_rnd = Signal(), Signal(range(NR + 1))
        m.d.sync += [valid[0].eq(issue_valid), tag_rnd[0].eq(issue_rnd)]
        for j in range(1, L):
            m.d.sync += [valid[j].eq(valid[j - 1]), tag_rnd[j].eq(tag_rnd[j - 1])]

        # -- control: blocks in, the slot counter, each lane's round -------------------------
        self.buffer = buffer = SyncFIFO(width=128, depth=self.buffer_depth)
        m.submodules.buffer = buffer
        held = Signal(range(self.buffer_depth + 1))
        in_flight = Signal(range(p.lanes + 2))          # a lane may start as its last block ends
        seeded, keyed = Signal(name="seeded"), Signal(name="keyed")
        seed_wait = Signal(range(seed_setup(self.width)), name="seed_wait")
        loading = Signal(range(16 // S + 1))                     # key bytes split so far / S
        given = self.block_out.valid & self.block_out.ready
        warm = seeded & (seed_wait == 0)
        idle = Signal()
        m.d.comb += idle.eq(Cat(*[v == 0 for v in rnd]).all() & ~Cat(*valid).any())
        base = [Signal(name=f"base{lane}") for lane in range(p.lanes)]
        free = [Signal(name=f"free{lane}") for lane in range(p.lanes)]
        can_take = Signal()
        for lane in range(p.lanes):
            m.d.comb += [base[lane].eq(slot == lane * n), free[lane].eq((rnd[lane] == 0) | (rnd[lane] == NR))]
        m.d.comb += can_take.eq(Cat(*[base[lane] & free[lane] for lane in range(p.lanes)]).any())
        m.d.comb += self.block_in.ready.eq(warm & keyed & ~self.seed.valid & ~self.key.valid
                                           & (loading == 0) & can_take
                                           & ((held < self.buffer_depth) | given))
        start = self.block_in.valid & self.block_in.ready
        m.d.sync += slot.eq(Mux(idle & ~start, 0, Mux(slot == P - 1, 0, slot + 1)))

        cur = [Signal(range(NR + 1), name=f"issuing{lane}") for lane in range(p.lanes)]
        for lane in range(p.lanes):
            with m.If(base[lane]):
                m.d.comb += cur[lane].eq(Mux(free[lane], Mux(start, 1, 0), rnd[lane] + 1))
                m.d.sync += rnd[lane].eq(cur[lane])
            with m.Else():
                m.d.comb += cur[lane].eq(rnd[lane])
            if shift:
                self._lane_flags(m, start & base[lane], st[lane], rk[lane], k)
                continue
            with m.If(start & base[lane]):          # the block's first state and round key
                m.d.sync += st[lane][0][0].eq(self.block_in.payload ^ k[0])
                m.d.sync += [st[lane][0][i].eq(k[i]) for i in range(1, d)]
                if p.key_at_start:
                    m.d.sync += [rk[lane][i].eq(k[i]) for i in range(d)]

        # -- issue: what the S-boxes take at each slot -------------------------------------
        with m.Switch(slot):
            for s in range(P):
                owner = p.issue(s)
                if owner is None:
                    continue
                lane, kk = owner
                with m.Case(s):
                    m.d.comb += [issue_valid.eq(cur[lane] != 0), issue_rnd.eq(cur[lane])]
                    if shift:
                        self._issue_shift(m, x, kk, rk[lane], st[lane], cur[lane], k, start & base[lane])
                        continue
                    with m.If(cur[lane] != 0):
                        self._issue(m, x, kk, rk[lane], st[lane], cur[lane], k, start & base[lane])

        # -- outputs: round keys, state columns, the ciphertext ---------------------------
        ct = [Signal(128, name=f"ct{i}") for i in range(d)]
        self._stage = [Signal(128, name=f"ct_stage{i}", attrs=share_attrs(i)) for i in range(d)]
        ct_full = Signal()
        acc = [Signal(max(8, 24), name=f"acc{i}", attrs=share_attrs(i)) for i in range(d)]
        if p.per_column > 1:                # byte-serial: the column's first bytes, in order
            for i in range(d):
                m.d.sync += acc[i].eq(Cat(y[i], acc[i][:16]))
        finishing = Signal()
        done = self._completed(m, y, acc, tag_rnd[-1])
        with m.Switch(slot):
            for o in range(P):
                owner = p.issue((o - L) % P)
                if owner is None:
                    continue
                lane, kk = owner
                with m.Case(o):
                    with m.If(valid[-1]):
                        if shift:
                            self._output_shift(m, kk, rk[lane], st[lane], tag_rnd[-1], ct, finishing, done)
                        else:
                            self._output(m, kk, rk[lane], st[lane], tag_rnd[-1], ct, finishing, done)
        if shift:
            self._lane_registers(m, k, done, tag_rnd[-1], ct)
        m.d.sync += ct_full.eq(finishing)
        m.d.sync += [held.eq(held + start - given), in_flight.eq(in_flight + start - finishing)]
        m.d.comb += [
            buffer.w_data.eq(xor_all(ct)), buffer.w_en.eq(ct_full),
            self.block_out.payload.eq(buffer.r_data), self.block_out.valid.eq(buffer.r_rdy),
            buffer.r_en.eq(self.block_out.ready),
            self.busy.eq((held != 0) | (seed_wait != 0) | (loading != 0)),
            self.seed.ready.eq((in_flight == 0) & (loading == 0)),
        ]
        self._key_store(m, k, zero_sharing, r, loading, keyed, in_flight, warm)
        seed_port(m, self._bank, self.seed, seeded, seed_wait, seed_setup(self.width))
        self.probes = {"k": k, "rand": rand, "rk": rk, "st": st, "slot": slot}   # for tests
        return m

    # -- 4 S-boxes: shift registers --------------------------------------------------------
    class _Lane:
        """What a lane's shift registers do this clock (set by the slot decoders)."""

        def __init__(self, lane: int):
            self.start = Signal(name=f"lane{lane}_start")      # take a block
            self.rotate = Signal(name=f"lane{lane}_rotate")    # a column issued: rotate
            self.column = Signal(name=f"lane{lane}_column")    # a column out: shift it in
            self.key_step = Signal(name=f"lane{lane}_key")     # one round-key word
            self.key_first = Signal(name=f"lane{lane}_key0")   # ... the first, from SubWord
            self.finish = Signal(name=f"lane{lane}_finish")    # round 10's last column

    def _lane_flags(self, m, starting, st, rk, k):
        """A lane's flags, set by the slot decoders; its registers are updated once, by
        :meth:`_lane_registers` (a register written in several cases of the slot decoder
        made Yosys build a wide multiplexer of identical inputs per bit: 10,063 LUT4 for
        what now takes 2,664)."""
        flags = self._Lane(len(self._lanes))
        m.d.comb += flags.start.eq(starting)
        self._lanes.append((flags, st, rk))

    def _lane_registers(self, m, k, done, rnd, ct):
        """Every lane's columns and round-key words, once per register: a start loads
        ``(block ^ k0, k1, ..)`` and ``k``; a column issue rotates the columns; a column
        output shifts ``MixColumns(y) ^ w3`` in (round 10: ``y ^ w3``; its last column writes
        the whole ciphertext share); a key output or the next three column outputs make one
        round-key word each (``w_j' = w_j ^ w_(j-1)'``, rotating through ``w3``)."""
        whole, mixed, rcon = done
        final = rnd == NR
        for flags, st, rk in self._lanes:
            for i in range(self.d):
                c, w = st[i], rk[i]
                first = words_of(k[i] ^ (self.block_in.payload if i == 0 else 0))
                value = Mux(final, whole[i], mixed[i]) ^ w[3]
                tail = Mux(flags.rotate, c[0], value)
                with m.If(flags.start):
                    m.d.sync += [c[j].eq(first[j]) for j in range(4)]
                with m.Elif(flags.rotate | (flags.column & ~flags.finish)):
                    m.d.sync += [c[0].eq(c[1]), c[1].eq(c[2]), c[2].eq(c[3]), c[3].eq(tail)]
                with m.If(flags.finish):
                    m.d.sync += ct[i].eq(Cat(value, c[3], c[2], c[1]))
                head = Mux(flags.key_first, whole[i] ^ (rcon if i == 0 else 0), w[3])
                with m.If(flags.start):
                    m.d.sync += [w[j].eq(words_of(k[i])[j]) for j in range(4)]
                with m.Elif(flags.key_step):
                    m.d.sync += [w[0].eq(w[1]), w[1].eq(w[2]), w[2].eq(w[3]), w[3].eq(w[0] ^ head)]

    def _issue_shift(self, m, x, kk, rk, st, cur, k, starting):
        """Issue 0: ``RotWord(w3)`` (the key's at a start); issue ``1 + j``: the diagonal of
        the columns, which rotate one place after each (after j rotations position r holds
        column ``(r + j) % 4``: row r of ShiftRows' column j)."""
        flags = next(f for f, s_, _ in self._lanes if s_ is st)
        for i in range(self.d):
            if kk == 0:
                value = rot_word(Mux(starting, words_of(k[i])[3], rk[i][3]))
            else:
                value = from_bytes([bytes_of(st[i][r])[r] for r in range(4)])
            with m.If(cur != 0):
                m.d.comb += x[i].eq(value)
        if kk:
            m.d.comb += flags.rotate.eq(1)

    def _output_shift(self, m, kk, rk, st, rnd, ct, finishing, done):
        flags = next(f for f, s_, _ in self._lanes if s_ is st)
        m.d.comb += [flags.key_step.eq(kk < 4), flags.key_first.eq(kk == 0), flags.column.eq(kk > 0)]
        if kk == 4:
            m.d.comb += [flags.finish.eq(rnd == NR), finishing.eq(rnd == NR)]

    def _issue(self, m, x, kk, rk, st, cur, k, starting):
        """Inputs of issue ``kk`` of a lane: key bytes of ``RotWord(w3)``, or state bytes."""
        p, S, d = self.plan, self.S, self.d
        if kk < p.key_issues:
            for i in range(d):
                if p.key_at_start:                            # round 1 starts from the key
                    src = Mux(starting, k[i], rk[i])
                else:
                    src = Mux(cur == 1, k[i], rk[i])
                word = bytes_of(rot_word(words_of(src)[3]))
                m.d.comb += x[i].eq(from_bytes(word[kk * S:(kk + 1) * S]))
            return
        wanted = p.state_bytes(kk)
        for i in range(d):
            if p.double_buffer:
                src = Mux(cur[0], st[0][i], st[1][i])         # odd rounds read buffer 0
            else:
                src = st[0][i]
            bs = bytes_of(src)
            m.d.comb += x[i].eq(from_bytes([bs[b] for b in wanted]))

    def _completed(self, m, y, acc, rnd):
        """Once for every output slot: the completed word (MSB first), its MixColumns, and
        the round constant of the output's round."""
        S, d = self.S, self.d
        whole = [Signal(32, name=f"word{i}", attrs=share_attrs(i)) for i in range(d)]
        mixed = [Signal(32, name=f"mixed{i}", attrs=share_attrs(i)) for i in range(d)]
        for i in range(d):
            m.d.comb += [whole[i].eq(y[i] if S == 4 else Cat(y[i], acc[i][:24])),
                         mixed[i].eq(from_bytes(_mix_column(bytes_of(whole[i]))))]
        rcon = Signal(32, name="rcon")
        value = Const(0, 32)
        for rr in range(1, NR + 1):
            value = Mux(rnd == rr, Const(RCON[rr - 1] << 24, 32), value)
        m.d.comb += rcon.eq(value)
        return whole, mixed, rcon

    def _output(self, m, kk, rk, st, rnd, ct, finishing, done):
        """At output slot of issue ``kk`` of a lane: its round key, state column or
        ciphertext column, when the word is complete."""
        p, S, d = self.plan, self.S, self.d
        whole, mixed, rcon = done
        if (kk + 1) * S % 4:
            return                                            # the accumulator keeps it
        if kk < p.key_issues:                                 # SubWord complete: the round key
            for i in range(d):
                w = words_of(rk[i] if p.key_at_start else Mux(rnd == 1, self._k[i], rk[i]))
                out = [w[0] ^ whole[i] ^ (rcon if i == 0 else 0)]
                for j in range(1, 4):
                    out.append(w[j] ^ out[-1])
                m.d.sync += rk[i].eq(Cat(*reversed(out)))
            return
        col = ((kk - p.key_issues) * S) // 4
        lo, hi = 32 * (3 - col), 32 * (4 - col)
        final = rnd == NR
        for i in range(d):
            value = Mux(final, whole[i], mixed[i]) ^ words_of(rk[i])[col]
            # round 10's first columns wait in the state, or (where the lane's next block may
            # start before they are out) in a staging register of their own
            held = st[0][i] if p.key_at_start else self._stage[i]
            with m.If(final & (col == 3)):             # the whole ciphertext share at once
                m.d.sync += ct[i].eq(Cat(value, held[32:]))
            with m.Elif(final):
                m.d.sync += held[lo:hi].eq(value)
            with m.Else():
                if p.double_buffer:                    # odd rounds write buffer 1
                    with m.If(rnd[0]):
                        m.d.sync += st[1][i][lo:hi].eq(value)
                    with m.Else():
                        m.d.sync += st[0][i][lo:hi].eq(value)
                else:
                    m.d.sync += st[0][i][lo:hi].eq(value)
        if col == 3:
            m.d.comb += finishing.eq(final)

    # -- the stored key, the seed, the randomness ----------------------------------------
    def _key_store(self, m, k, zero_sharing, r, loading, keyed, in_flight, warm):
        """Split a key ``S`` bytes a clock as it is taken; re-share the stored key ``S``
        bytes a clock otherwise."""
        S, d = self.S, self.d
        chunks = 16 // S
        width = 8 * S
        ptr = Signal(range(chunks), name="refresh_ptr")
        can_load = warm & ~self.seed.valid & (in_flight == 0)
        take = self.key.valid & can_load
        m.d.comb += self.key.ready.eq(take & (loading == chunks - 1))
        with m.If(take):
            m.d.sync += [loading.eq(Mux(loading == chunks - 1, 0, loading + 1)),
                         keyed.eq(loading == chunks - 1)]
        with m.Else():
            m.d.sync += [loading.eq(0), ptr.eq(Mux(ptr == chunks - 1, 0, ptr + 1))]
        key_bytes = bytes_of(self.key.payload)
        with m.Switch(Mux(take, loading, ptr)):
            for c in range(chunks):
                with m.Case(c):
                    lo, hi = 128 - width * (c + 1), 128 - width * c
                    part = from_bytes(key_bytes[c * S:(c + 1) * S])
                    with m.If(take):
                        m.d.sync += k[0][lo:hi].eq(part ^ xor_all(r))
                        m.d.sync += [k[i][lo:hi].eq(r[i - 1]) for i in range(1, d)]
                    with m.Else():
                        if self.glitch_test == "refresh-recombined":   # TEST MODE: one LUT sees every share
                            merged = Signal(width, name=f"merged{c}", attrs={**share_attrs(0), "keep": 1})
                            m.d.comb += merged.eq(xor_all([k[i][lo:hi] for i in range(d)]) ^ xor_all(r))
                            m.d.sync += k[0][lo:hi].eq(merged)
                            m.d.sync += [k[i][lo:hi].eq(r[i - 1]) for i in range(1, d)]
                        else:
                            m.d.sync += [k[i][lo:hi].eq(k[i][lo:hi] ^ zero_sharing[i]) for i in range(d)]

    def _randomness(self, m):
        bits = Signal(self.width)
        self._bank = None
        if self.prng == "off":
            return bits                                            # all zero: the test mode
        m.submodules.prng = bank = TriviumBank(self.width)
        self._bank = bank
        m.d.sync += bits.eq(bank.bits)
        return bits


def random_bits(sboxes: int, shares: int, gadget: str = "hpc2") -> dict:
    """Fresh bits a clock (gadgets, key re-sharing) and a block."""
    s = masked_sbox.schedule(gadget, shares)
    p = plan(sboxes, s.latency)
    gadgets, refresh = sboxes * s.random_bits, 8 * sboxes * (shares - 1)
    used = NR * 20 * s.random_bits                     # 20 S-box evaluations a round
    return {"per_clock": gadgets + refresh, "gadget_per_clock": gadgets,
            "per_block": (gadgets + refresh) * p.cycles_per_block, "gadgets_per_block": used,
            "pairs": len(pairs(shares))}
