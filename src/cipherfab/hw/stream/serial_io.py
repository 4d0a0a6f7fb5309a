"""The shared narrow I/O wrapper: any core behind a few pins, for in-context builds.

An out-of-context build needs no pins, but it writes no bitstream (nextpnr-ecp5
refuses to in that mode), and a 128-bit core has more ports than an ECP5
package has pins.  An in-context build (the bitstream the re-keying of
key-specific cores patches) therefore places the core behind this wrapper, the
same for every design: blocks and keys travel ``width`` bits at a time, most
significant word first (the hex order of a block), through one input and one
output stream::

    rx[W-1:0], rx_key, rx_decrypt, rx_valid -> rx_ready    words in
    tx[W-1:0], tx_valid <- tx_ready                        words out
    busy                                                   the core's busy, or a word buffered

A word with ``rx_key`` high goes to the key register (cores with a key port), one
without it to the block register; ``rx_decrypt`` is taken with each block word
(the last one counts) when the core has both directions.  A full block register
is offered to the core's ``block_in``; a full key register to its ``key`` stream
(``stream`` cores) or beside every block (``per_block`` cores: the key stays
until a new one is shifted in).  A core with an entropy input (``seed_bits``) has one more
input bit, ``rx_seed``: words with it high go to a seed register offered to the core's
``seed`` stream (the host shifts a seed in after reset, before the key); around a core without
one the wrapper is what it always was.  Each result is shifted out of its own register.
The wrapper instantiates the core by its top-module name and its plain port
names (``hw.export``), so external cores with a declared :class:`CoreInfo` fit
the same way.  Blocks are never dropped, duplicated or reordered: each register
takes a word only when it is not full and empties only on a handshake.
"""

from __future__ import annotations

from amaranth.hdl import Cat, ClockSignal, Instance, Module, Mux, ResetSignal, Signal
from amaranth.lib import data, stream, wiring
from amaranth.lib.wiring import In, Out

from ..info import CoreInfo

WIDTH = 8   #: default word width: 25 pins in all with clk and rst


class WordBuffer(wiring.Component):
    """``bits`` bits collected from ``words`` words, most significant first."""

    def __init__(self, bits: int, width: int):
        self.bits, self.width, self.words = bits, width, -(-bits // width)
        super().__init__({"word": In(width), "take": In(1), "value": Out(bits),
                          "full": Out(1), "clear": In(1)})
        # take: store ``word`` (ignored when full and not cleared); clear: empty (on a handshake)

    def elaborate(self, platform):
        m = Module()
        reg = Signal(self.words * self.width)
        count = Signal(range(self.words + 1))
        m.d.comb += [self.full.eq(count == self.words), self.value.eq(reg)]
        with m.If(self.take & (~self.full | self.clear)):   # a cleared register takes a word at once
            m.d.sync += [reg.eq(Cat(self.word, reg[:-self.width])),
                         count.eq(Mux(self.clear, 1, count + 1))]
        with m.Elif(self.clear):
            m.d.sync += count.eq(0)
        return m


class SerialIO(wiring.Component):
    """A core behind ``width``-bit word streams: ``top``, the name of a Verilog module
    declared by ``info`` (what the in-context flow builds), or ``core``, a cipherfab core
    component (what the unit tests simulate)."""

    def __init__(self, info: CoreInfo, top: str | None = None, width: int = WIDTH, core=None):
        if info.block_bits % width:
            raise ValueError(f"block of {info.block_bits} bits is not a whole number of {width}-bit words")
        if (top is None) == (core is None):
            raise ValueError("give the core's top-module name or the core itself")
        self.info, self.top, self.width, self.core = info, top, width, core
        fields = {"data": width, "key": 1, "decrypt": 1, **({"seed": 1} if info.seed_bits else {})}
        super().__init__({
            "rx": In(stream.Signature(data.StructLayout(fields))),
            "tx": Out(stream.Signature(width)),
            "busy": Out(1),
        })

    def elaborate(self, platform):
        m = Module()
        info, w = self.info, self.width
        m.submodules.block = blk = WordBuffer(info.block_bits, w)
        keyed = info.key_interface != "none"
        rx = self.rx
        # core ports (hw.export's plain names)
        block_valid, block_ready = Signal(), Signal()
        out, out_valid, out_ready, core_busy = Signal(info.block_bits), Signal(), Signal(), Signal()
        decrypt = Signal()
        ports = {"i_clk": ClockSignal(), "i_rst": ResetSignal(), "i_block_in": blk.value,
                 "i_block_in_valid": block_valid, "o_block_in_ready": block_ready,
                 "o_block_out": out, "o_block_out_valid": out_valid, "i_block_out_ready": out_ready,
                 "o_busy": core_busy}
        if info.direction_input:
            ports["i_block_in_decrypt"] = decrypt
            with m.If(blk.take):
                m.d.sync += decrypt.eq(rx.payload.decrypt)
        word_to_key = Signal()
        if keyed:
            m.submodules.key = key = WordBuffer(info.key_bits, w)
            m.d.comb += [key.word.eq(rx.payload.data), word_to_key.eq(rx.payload.key)]
            key_value = key.value[:info.key_bits]
            if info.key_interface == "stream":
                key_ready = Signal()
                ports.update({"i_key": key_value, "i_key_valid": key.full, "o_key_ready": key_ready})
                m.d.comb += [key.take.eq(rx.valid & rx.ready & word_to_key),
                             key.clear.eq(key.full & key_ready),
                             block_valid.eq(blk.full)]
            else:   # per_block: the key rides with every block until a new one comes
                ports["i_block_in_key"] = key_value
                m.d.comb += [key.take.eq(rx.valid & rx.ready & word_to_key),
                             key.clear.eq(key.full & rx.valid & rx.ready & word_to_key),
                             block_valid.eq(blk.full & key.full)]
            # per_block: a new key waits until the block before it is handed over
            key_open = (~key.full | key.clear) if info.key_interface == "stream" else ~blk.full
            m.d.comb += rx.ready.eq(Mux(word_to_key, key_open, ~blk.full | blk.clear))
        else:
            m.d.comb += [rx.ready.eq(~blk.full | blk.clear), block_valid.eq(blk.full)]
        m.d.comb += [blk.word.eq(rx.payload.data), blk.take.eq(rx.valid & rx.ready & ~word_to_key),
                     blk.clear.eq(block_valid & block_ready)]
        if info.seed_bits:          # seed words: to their own register, offered to the seed port
            m.submodules.seed = seed = WordBuffer(info.seed_bits, w)
            seed_ready = Signal()
            ports.update({"i_seed": seed.value[:info.seed_bits], "i_seed_valid": seed.full,
                          "o_seed_ready": seed_ready})
            m.d.comb += [seed.word.eq(rx.payload.data), seed.clear.eq(seed.full & seed_ready),
                         seed.take.eq(rx.valid & rx.ready & rx.payload.seed)]
            with m.If(rx.payload.seed):                 # not a key or block word
                m.d.comb += [rx.ready.eq(~seed.full | seed.clear), blk.take.eq(0)]
                if keyed:
                    m.d.comb += key.take.eq(0)
        # result: shifted out of its own register
        words = info.block_bits // w
        shift, left = Signal(info.block_bits), Signal(range(words + 1))
        m.d.comb += [out_ready.eq(left == 0), self.tx.payload.eq(shift[-w:]), self.tx.valid.eq(left != 0)]
        with m.If(out_valid & out_ready):
            m.d.sync += [shift.eq(out), left.eq(words)]
        with m.Elif(self.tx.valid & self.tx.ready):
            m.d.sync += [shift.eq(Cat(Signal(w), shift[:-w])), left.eq(left - 1)]
        m.d.comb += self.busy.eq(core_busy | blk.full | (left != 0))
        if self.core is None:
            m.submodules.core = Instance(self.top, **ports)
        else:
            m.submodules.core = self.core
            _connect(m, self.core, ports)
        return m


def _connect(m: Module, core, ports: dict) -> None:
    """Wire ``ports`` (Instance-style ``i_``/``o_`` plain names) to a core component."""
    from ..info import payload_parts
    block, decrypt, key = payload_parts(core)
    target = {"block_in": block, "block_in_decrypt": decrypt, "block_in_key": key,
              "block_in_valid": core.block_in.valid, "block_in_ready": core.block_in.ready,
              "block_out": core.block_out.payload, "block_out_valid": core.block_out.valid,
              "block_out_ready": core.block_out.ready, "busy": core.busy}
    if "key" in core.signature.members:
        target.update({"key": core.key.payload, "key_valid": core.key.valid, "key_ready": core.key.ready})
    if "seed" in core.signature.members:
        target.update({"seed": core.seed.payload, "seed_valid": core.seed.valid, "seed_ready": core.seed.ready})
    for name, sig in ports.items():
        port = name[2:]
        if port in ("clk", "rst"):
            continue
        m.d.comb += target[port].eq(sig) if name.startswith("i_") else sig.eq(target[port])
