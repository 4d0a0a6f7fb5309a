"""AES round transformations as Amaranth expressions (FIPS-197 Section 5).

Values are big-endian byte strings: byte 0 of a block (state row 0, column 0) is
bits 127:120, so a block reads like its hex string.  The state is column-major:
byte ``i`` is row ``i % 4`` of column ``i // 4``.  SubBytes is not here: it is a
registered :class:`~cipherfab.hw.sbox.SubBytes` owned by whoever needs it
(:func:`sub_bytes_unit` makes the one a datapath needs).

The ``tbox`` style (paper 000's round as a look-up table, the T-tables of the
Rijndael proposal) looks up ``T0[x] = ({02}s, s, s, {03}s)``, ``s = S[x]``, for each
of the 16 bytes in block-RAM ROMs (two look-ups per RAM, 256 x 32 bits): SubBytes and
the multiplications of MixColumns in one table.  Column ``c`` of the next round input
is then ``T0[x(0,c)] ^ ROR8 T0[x(1,c+1)] ^ ROR16 T0[x(2,c+2)] ^ ROR24 T0[x(3,c+3)] ^ rk``
(ShiftRows by which look-up is read, the rotations by wiring); the last round reads
``s`` from byte 1 of each entry.  The round functions below take either kind of
SubBytes output: 128 bits of S-box values or 512 bits of T0 values.  Encryption only
(decryption would need the inverse tables and InvMixColumns'd round keys).
"""

from __future__ import annotations

from amaranth.hdl import Cat, Mux, Signal, Value


def bytes_of(v: Value) -> list[Value]:
    """The bytes of ``v``, index 0 = most significant byte."""
    n = len(v) // 8
    return [v[8 * (n - 1 - i):8 * (n - i)] for i in range(n)]


def from_bytes(bs: list[Value]) -> Value:
    """Inverse of :func:`bytes_of`."""
    return Cat(*reversed(bs))


def words_of(v: Value) -> list[Value]:
    """The 32-bit words of ``v``, index 0 = most significant word (w[0] of a key)."""
    n = len(v) // 32
    return [v[32 * (n - 1 - i):32 * (n - i)] for i in range(n)]


def from_words(ws: list[Value]) -> Value:
    return Cat(*reversed(ws))


def shift_rows(v: Value) -> Value:
    s = bytes_of(v)
    return from_bytes([s[(r + 4 * (c + r)) % 16] for c in range(4) for r in range(4)])


def inv_shift_rows(v: Value) -> Value:
    s = bytes_of(v)
    return from_bytes([s[(r + 4 * (c - r)) % 16] for c in range(4) for r in range(4)])


def xtime(b: Value) -> Value:
    """Multiply by {02} in GF(2^8): a shift and a conditional XOR with {1b}."""
    return Cat(b[7], b[0] ^ b[7], b[1], b[2] ^ b[7], b[3] ^ b[7], b[4], b[5], b[6])


def wire(m, value: Value, name: str) -> Signal:
    """Name ``value`` with a combinational signal.

    Amaranth's lowering copies shared sub-expressions, so deep re-use (InvMixColumns
    feeds xtime into xtime) would grow exponentially; a wire keeps each one single.
    """
    s = Signal(len(value), name=name)
    m.d.comb += s.eq(value)
    return s


def _mix_column(a: list[Value]) -> list[Value]:
    # out_r = {02}a_r ^ {03}a_{r+1} ^ a_{r+2} ^ a_{r+3}
    return [xtime(a[r] ^ a[(r + 1) % 4]) ^ a[(r + 1) % 4] ^ a[(r + 2) % 4] ^ a[(r + 3) % 4]
            for r in range(4)]


def mix_columns(m, v: Value, name: str = "mix") -> Signal:
    s = bytes_of(wire(m, v, f"{name}_in"))
    out: list[Value] = []
    for c in range(4):
        out += _mix_column(s[4 * c:4 * c + 4])
    return wire(m, from_bytes(out), f"{name}_out")


def inv_mix_columns(m, v: Value, name: str = "inv_mix") -> Signal:
    """InvMixColumns as MixColumns after adding {04}(a0^a2) to rows 0, 2 and {04}(a1^a3)
    to rows 1, 3 of each column (the {0e,0b,0d,09} products share that logic)."""
    s = bytes_of(wire(m, v, f"{name}_in"))
    pre: list[Value] = []
    for c in range(4):
        a = s[4 * c:4 * c + 4]
        u = xtime(xtime(wire(m, a[0] ^ a[2], f"{name}_u{c}")))
        w = xtime(xtime(wire(m, a[1] ^ a[3], f"{name}_v{c}")))
        pre += [a[0] ^ u, a[1] ^ w, a[2] ^ u, a[3] ^ w]
    return mix_columns(m, from_bytes(pre), name)


def rot_word(w: Value) -> Value:
    """RotWord: [a0, a1, a2, a3] -> [a1, a2, a3, a0] (a0 = most significant byte)."""
    return Cat(w[24:32], w[0:24])


def select(cond, a: Value, b: Value) -> Value:
    """``a`` if ``cond`` else ``b``, where ``cond`` may be a Python bool (no mux built)."""
    if isinstance(cond, bool):
        return a if cond else b
    return Mux(cond, a, b)


def sbox_tables(encrypt: bool, decrypt: bool):
    """The SubBytes tables a datapath needs: S, S^-1, or both (``inverse`` picks S^-1)."""
    from ...hw.sbox import SboxTables
    from .reference import INV_SBOX, SBOX
    if encrypt and decrypt:
        return SboxTables(SBOX, INV_SBOX)
    return SboxTables(INV_SBOX if decrypt else SBOX)


TBOX = "tbox"


def t_table() -> tuple[int, ...]:
    """T0: for each x, the bytes ({02}S[x], S[x], S[x], {03}S[x]), row 0 most significant."""
    from .reference import SBOX
    def x2(b):
        return ((b << 1) ^ (0x11B if b & 0x80 else 0)) & 0xFF
    return tuple((x2(v) << 24) | (v << 16) | (v << 8) | (x2(v) ^ v) for v in SBOX)


def sub_bytes_unit(sbox: str, encrypt: bool = True, decrypt: bool = False, lanes: int = 16,
                   latency: int = 1, split: bool = False):
    """The SubBytes unit of a datapath: S-box tables in style ``sbox``, or T0 in ROM (tbox)."""
    from ...hw.sbox import SboxTables, SubBytes
    if sbox == TBOX:
        return SubBytes(lanes, SboxTables(t_table(), out_bits=32), "rom", latency, split)
    return SubBytes(lanes, sbox_tables(encrypt, decrypt), sbox, latency, split)


#: Register stages per round, for the pipelined and interleaved rounds (paper 001's cuts).
STAGES = (1, 2, 3, 4)
STAGES_HELP = ("registers per round: 1 (the S-box output), 2 (also after MixColumns + "
               "AddRoundKey, paper 001's Mixadd), 3 (also a fabric register after the S-box "
               "output) or 4 (also one inside the S-box: lut cut on its two top address bits, "
               "composite after theta; rom/tbox a second register after the block RAM)")
#: the S-box styles read from block RAM (a data path's; its key schedule's is rom)
IN_BLOCK_RAM = ("rom", TBOX)


def sbox_cuts(stages: int, sbox: str = "lut") -> dict:
    """The SubBytes registers of a round with ``stages`` registers: ``latency`` and ``split``
    (the Mixadd register, with 2 stages or more, is the caller's).  With 4, a logic S-box is
    cut inside; a block-RAM one gets a second register after its output instead (its first
    the block RAM's output register with ``--ebr-outreg``): on ECP5 the wire out of a block
    RAM is the longest of the round (3.3-5.9 ns in nextpnr's timing), so it ends in a
    register of its own (docs/decisions.md)."""
    return {"latency": max(1, stages - 1), "split": stages >= 4 and sbox not in IN_BLOCK_RAM}


def key_sbox(sbox: str) -> str:
    """The S-box style of a key schedule beside a datapath of style ``sbox`` (tbox: rom)."""
    return "rom" if sbox == TBOX else sbox


def _is_t(state: Value) -> bool:
    return len(state) == 512


def s_of(state: Value) -> Value:
    """SubBytes' 128-bit result from either kind of SubBytes output."""
    return from_bytes([w[16:24] for w in words_of(state)]) if _is_t(state) else state


def t_mix(m, t: Value, name: str = "tmix") -> Signal:
    """MixColumns(ShiftRows(SubBytes(x))) from the 16 T0 look-ups of x."""
    w = words_of(wire(m, t, f"{name}_in"))
    cols = []
    for c in range(4):
        terms = [w[4 * ((c + r) % 4) + r].rotate_right(8 * r) for r in range(4)]
        cols.append(terms[0] ^ terms[1] ^ terms[2] ^ terms[3])
    return wire(m, from_words(cols), f"{name}_out")


def _by_direction(decrypting, encrypt: bool, decrypt: bool, enc, dec) -> Value:
    if encrypt and decrypt:
        return Mux(decrypting, dec(), enc())
    return dec() if decrypt else enc()


def middle_round(m, state: Value, rk: Value, decrypting, encrypt: bool, decrypt: bool,
                 name: str = "mix") -> Value:
    """What follows SubBytes in rounds 1..Nr-1, up to the next SubBytes' input:
    MixColumns(ShiftRows(state)) ^ rk, or InvMixColumns(InvShiftRows(state) ^ rk)
    (the inverse cipher, with InvShiftRows moved after InvSubBytes).  ``state`` may be
    T0 look-ups (tbox, encrypt only)."""
    if _is_t(state):
        assert encrypt and not decrypt, "tbox rounds encrypt only"
        return t_mix(m, state, name) ^ rk
    return _by_direction(decrypting, encrypt, decrypt,
                         lambda: mix_columns(m, shift_rows(state), name) ^ rk,
                         lambda: inv_mix_columns(m, inv_shift_rows(state) ^ rk, f"inv_{name}"))


def final_round(state: Value, rk: Value, decrypting, encrypt: bool, decrypt: bool) -> Value:
    """The last round after SubBytes: (Inv)ShiftRows(state) ^ rk."""
    state = s_of(state)
    return _by_direction(decrypting, encrypt, decrypt,
                         lambda: shift_rows(state), lambda: inv_shift_rows(state)) ^ rk



def folded_round(m, state: Value, rk: Value, block: Value, start, advance, encrypt: bool,
                 name: str = "fold") -> tuple[Value, Value]:
    """One direction's round with every key addition in one XOR (paper 001's modified
    sequential core): ``(next S-box input, result)``.  ``start``: ``block`` ^ first round
    key; ``advance``: a middle round; otherwise the last round, whose XOR is the result.
    Encrypt: ``(start ? block : advance ? MixColumns(ShiftRows(s)) : ShiftRows(s)) ^ rk``;
    decrypt: ``v = (start ? block : InvShiftRows(s)) ^ rk``, then InvMixColumns(v) in a
    middle round."""
    if encrypt:
        mixed = t_mix(m, state, name) if _is_t(state) else mix_columns(m, shift_rows(state), name)
        v = wire(m, Mux(start, block, Mux(advance, mixed, shift_rows(s_of(state)))) ^ rk, f"{name}_v")
        return v, v
    v = wire(m, Mux(start, block, inv_shift_rows(state)) ^ rk, f"{name}_v")
    return Mux(start, v, inv_mix_columns(m, v, f"inv_{name}")), v
