"""The streaming accelerator of paper 003 around any cipherfab core: AXI4-Stream in,
an input FIFO, the mode engine and the core, an output FIFO, AXI4-Stream out.

Theory of operation
-------------------
::

    s_axis --AxisToBlocks--> input FIFO --GcmLayer--ModeEngine(core)--GcmLayer--> output FIFO --BlocksToAxis--> m_axis
                             (depth blocks)                                       (depth blocks)

Paper 003's card buffers 512 blocks each way in block RAM (circular buffers with
separate read and write counters); here each FIFO holds ``depth`` blocks (default 512)
with the block's sideband (last flag, byte count) in block RAM.  The input FIFO's blocks go
through one register stage before the engine (once, a block RAM's clock-to-output fed a
core's first round directly: a third of the default system's Fmax on ECP5), the
engine's results through one before the output FIFO; both are
:class:`~cipherfab.hw.stream_register.SkidRegister` s, whose ``ready`` is a flip-flop too,
so no handshake path runs from a FIFO's level through the engine into the other FIFO (at
the pipelined cores' clock that path was seven LUTs long; around the interleaved core,
plain registers there cost 10-15% of its Fmax).  Around a core that takes a block every
clock the FIFOs are :class:`~cipherfab.hw.block_ram_fifo.BlockRamFIFO` s (read through the
RAM's output register and a four-block queue in flip-flops); around slower cores, which
never reach that clock, Amaranth's ``SyncFIFOBuffered``
(:func:`~cipherfab.hw.block_ram_fifo.stream_fifo`: about 2,000 flip-flops fewer around the
iterative core).  With GCM
two more skid registers stand between the GCM layer and the engine, one each way, so the
layer's steering (its phase, the E_K(J0) block) and the engine's handshakes meet only at
flip-flops (around the iterative core, without them, the layer's phase reached the core's
first round).  A message ends with
``tlast``; its last block may be partial (CTR, OFB, CFB: the output has the message's
length).  ECB and CBC take whole blocks only (the host pads): a partial block in those modes
raises the sticky ``length_error`` (its output is cut to the message's length and is
not a ciphertext of anything).

Control (``key``, ``mode``, ``iv``, ``start``) is given to the mode engine as is, except in
GCM and CMAC, where :class:`~cipherfab.hw.gcm.gcm.GcmLayer` drives the engine (with the lengths ``aad_bytes``,
``text_bytes``, ``iv_bytes``, ``tag_bytes``; ``ghash`` picks its GHASH style, "auto": the
smallest that keeps up with the core, tables of H in block RAM where the FIFOs leave them
room (:func:`~cipherfab.hw.gcm.gcm.ghash_for`), None: no GCM); ``start`` takes effect while the
engine is idle; a core's ``seed`` stream (``seed_bits``) passes through.  Counters, cleared by ``start``:
``blocks_in`` (blocks into the core), ``blocks_out`` (blocks out of it),
``starved`` (clocks the engine could have taken a block but none was there from the input FIFO,
while a message is open), ``blocked`` (clocks a result waited for room in the output FIFO).
"""

from __future__ import annotations

from amaranth.hdl import Module, Mux, Signal
from amaranth.lib import stream, wiring
from amaranth.lib.wiring import In, Out

from ..stream.axis import AxisToBlocks, BlocksToAxis, axis_layout, check_widths, side_layout
from ..gcm.gcm import LENGTH_BITS, GcmLayer, ghash_for, queue_for
from ..block_ram_fifo import stream_fifo
from ..stream_register import SkidRegister
from ..info import info_of
from ..modes import UNIT_BITS, Mode, ModeEngine, modes_of, one_of

COUNTER_BITS = 32
DEFAULT_DEPTH = 512


class Accelerator(wiring.Component):
    """``core`` behind AXI4-Stream ports of ``width`` bits, FIFOs of ``depth`` blocks."""

    def __init__(self, core: wiring.Component, width: int = 128, depth: int = DEFAULT_DEPTH,
                 ghash: str | tuple | None = "auto", modes=None):
        info = info_of(core)
        check_widths(width, info.block_bits)
        if info.clocks:          # the mode engine, made at elaboration, would refuse it only then
            raise ValueError(f"the accelerator drives single-clock cores; this core also has "
                             f"{', '.join(c + '_clk' for c in info.clocks)}")
        from .fifo_budget import depth_problem
        problem = depth_problem(info.block_bits, depth)
        if problem:
            raise ValueError(f"FIFO depth {depth}: {problem}")
        self.core, self.info, self.width, self.depth = core, info, width, depth
        if info.block_bits != 128 or "encrypt" not in info.directions:
            ghash = None                  # GCM needs a 128-bit block cipher that encrypts
        if modes is not None and not any(m.layer for m in modes):
            ghash = None                  # built without GCM (and CMAC, in the same layer)
        self._MustUse__silence = True      # a refused one is not an unused design
        if isinstance(ghash, tuple):
            from ..gcm.ghash_unit import check_style
            check_style(*ghash)
        elif ghash not in ("auto", None):
            raise ValueError(f"ghash is 'auto', None or (style, digit), not {ghash!r}")
        self._MustUse__silence = False
        if ghash == "auto":
            from ..gcm.gcm import QUEUE_BLOCKS
            from ..gcm.ghash_table import ENTRIES
            from .fifo_budget import DEFAULT_BUDGET, fifo_blocks
            ram = DEFAULT_BUDGET.ram         # what the FIFOs and the GHASH queue leave
            free = (DEFAULT_BUDGET.count - 2 * fifo_blocks(info.block_bits, depth)
                    - ram.blocks(QUEUE_BLOCKS - 1, info.block_bits))
            ghash = ghash_for(info.cycles_per_block, free, ram.blocks(ENTRIES, info.block_bits))
        self.ghash = ghash
        #: the modes the system runs: every one the core can (GCM and CMAC with a GHASH), or
        #: those of ``modes`` (ECB encrypt always: GCM, CMAC and XTS run it)
        self.modes = tuple(m for m in modes_of(info, ghash is not None)
                           if modes is None or m in modes or m == Mode.ECB_ENCRYPT)
        members = {
            "s_axis": In(stream.Signature(axis_layout(width))),
            "m_axis": Out(stream.Signature(axis_layout(width))),
            "mode": In(Mode), "iv": In(info.block_bits), "start": In(1),
            "idle": Out(1), "mode_error": Out(1), "axis_error": Out(1), "length_error": Out(1),
            "blocks_in": Out(COUNTER_BITS), "blocks_out": Out(COUNTER_BITS),
            "starved": Out(COUNTER_BITS), "blocked": Out(COUNTER_BITS),
            "aad_bytes": In(LENGTH_BITS), "text_bytes": In(LENGTH_BITS),
            "iv_bytes": In(LENGTH_BITS), "tag_bytes": In(5),
            "gcm_error": Out(1), "tag": Out(info.block_bits), "tag_match": Out(1), "tag_mismatch": Out(1),
        }
        if info.key_interface != "none":
            members["key"] = In(stream.Signature(info.key_bits))
        if info.seed_bits:                 # the core's entropy input, passed through
            members["seed"] = In(stream.Signature(info.seed_bits))
        super().__init__(members)

    def elaborate(self, platform):
        m = Module()
        b = self.info.block_bits
        side_bits = side_layout(b).size
        m.submodules.axis_in = axis_in = AxisToBlocks(self.width, b)
        m.submodules.axis_out = axis_out = BlocksToAxis(self.width, b)
        fast = self.info.cycles_per_block == 1       # a block a clock: reads through a queue
        m.submodules.fifo_in = fifo_in = stream_fifo(b + side_bits, self.depth, fast)
        m.submodules.fifo_out = fifo_out = stream_fifo(b + side_bits, self.depth, fast)
        # the input FIFO's blocks: registered (ready too: a block RAM's read and a FIFO's
        # level never meet the engine's decisions) before the engine; the engine's results
        # likewise before the output FIFO
        m.submodules.fifo_in_reg = fifo_in_reg = SkidRegister(b + side_bits)
        m.submodules.fifo_out_reg = fifo_out_reg = SkidRegister(b + side_bits)
        m.submodules.engine = engine = ModeEngine(self.core, sideband=side_layout(b),
                                                  gcm=self.ghash is not None, modes=self.modes)
        style, digit = self.ghash or (None, None)
        m.submodules.gcm = gcm = GcmLayer(b, side_layout(b), style, digit, queue_for(style))
        engine_empty = engine.empty
        if self.ghash is None:
            wiring.connect(m, gcm.e_in, engine.data_in)
            wiring.connect(m, engine.data_out, gcm.e_out)
        else:       # the GCM layer's steering registered from and to the engine (ready too;
                    # 141 LUT4 each way): around the iterative core, without them, the layer's
                    # phase reached the core's first round (9 LUT levels, 85 MHz)
            m.submodules.e_in_reg = e_in_reg = SkidRegister(engine.data_in.payload.shape())
            m.submodules.e_out_reg = e_out_reg = SkidRegister(engine.data_out.payload.shape())
            wiring.connect(m, gcm.e_in, e_in_reg.i)
            wiring.connect(m, e_in_reg.o, engine.data_in)
            wiring.connect(m, engine.data_out, e_out_reg.i)
            wiring.connect(m, e_out_reg.o, gcm.e_out)
            engine_empty = (engine.empty & ~e_in_reg.o.valid & e_in_reg.i.ready
                            & ~e_out_reg.o.valid & e_out_reg.i.ready)
        # XTS: TEXT_BYTES is the data unit (whole blocks, at most 2^20) when the tweaks come
        # on the stream; any other value gives no units and, at an XTS start, length_error
        xts_unit_bad = (self.text_bytes[:4] != 0) | (self.text_bytes > 16 << 20)
        m.d.comb += engine.unit_blocks.eq(Mux(xts_unit_bad, 0, self.text_bytes[4:4 + UNIT_BITS]))
        m.d.comb += [engine.mode.eq(gcm.e_mode), engine.iv.eq(gcm.e_iv), engine.start.eq(gcm.e_start),
                     gcm.e_idle.eq(engine_empty),
                     gcm.mode.eq(self.mode), gcm.iv.eq(self.iv), gcm.start.eq(self.start),
                     gcm.aad_bytes.eq(self.aad_bytes), gcm.text_bytes.eq(self.text_bytes),
                     gcm.iv_bytes.eq(self.iv_bytes), gcm.tag_bytes.eq(self.tag_bytes),
                     self.gcm_error.eq(gcm.gcm_error), self.tag.eq(gcm.tag),
                     self.tag_match.eq(gcm.tag_match), self.tag_mismatch.eq(gcm.tag_mismatch)]

        wiring.connect(m, wiring.flipped(self.s_axis), axis_in.axis)
        wiring.connect(m, axis_out.axis, wiring.flipped(self.m_axis))
        if "key" in self.signature.members:
            wiring.connect(m, wiring.flipped(self.key), engine.key)
            m.d.comb += gcm.key_changed.eq(self.key.valid & self.key.ready)   # H is the key's
        if "seed" in self.signature.members:
            wiring.connect(m, wiring.flipped(self.seed), engine.seed)
        m.d.comb += [
            self.mode_error.eq(engine.mode_error), self.axis_error.eq(axis_in.error),
            # AXI4-Stream -> input FIFO
            fifo_in.w_data.eq(axis_in.blocks.payload.as_value()),
            fifo_in.w_en.eq(axis_in.blocks.valid), axis_in.blocks.ready.eq(fifo_in.w_rdy),
            # input FIFO -> register -> (GCM) engine
            fifo_in_reg.i.payload.eq(fifo_in.r_data),
            fifo_in_reg.i.valid.eq(fifo_in.r_rdy), fifo_in.r_en.eq(fifo_in_reg.i.ready),
            gcm.data_in.payload.eq(fifo_in_reg.o.payload),
            gcm.data_in.valid.eq(fifo_in_reg.o.valid), fifo_in_reg.o.ready.eq(gcm.data_in.ready),
            # (GCM) engine -> register -> output FIFO
            fifo_out_reg.i.payload.eq(gcm.data_out.payload.as_value()),
            fifo_out_reg.i.valid.eq(gcm.data_out.valid), gcm.data_out.ready.eq(fifo_out_reg.i.ready),
            fifo_out.w_data.eq(fifo_out_reg.o.payload),
            fifo_out.w_en.eq(fifo_out_reg.o.valid), fifo_out_reg.o.ready.eq(fifo_out.w_rdy),
            # output FIFO -> AXI4-Stream
            axis_out.blocks.payload.eq(fifo_out.r_data),
            axis_out.blocks.valid.eq(fifo_out.r_rdy), fifo_out.r_en.eq(axis_out.blocks.ready),
        ]
        open_ = Signal()                  # a message started and its last block not yet in
        m.d.comb += self.idle.eq(engine.idle & engine_empty & gcm.idle
                                 & (fifo_in.level == 0) & (fifo_out.level == 0)
                                 & ~fifo_in_reg.o.valid & fifo_in_reg.i.ready
                                 & ~fifo_out_reg.o.valid & fifo_out_reg.i.ready
                                 & ~axis_in.blocks.valid & ~self.m_axis.valid)
        took = gcm.data_in.valid & gcm.data_in.ready
        side = gcm.data_in.payload.side
        with m.If(gcm.started):
            m.d.sync += [self.blocks_in.eq(0), self.blocks_out.eq(0), self.starved.eq(0),
                         self.blocked.eq(0), open_.eq(1)]
        with m.Else():
            with m.If(took):
                m.d.sync += self.blocks_in.eq(self.blocks_in + 1)
                with m.If(side.last):
                    m.d.sync += open_.eq(0)
                # CTR, OFB, CFB: a partial last block is fine
                stream_mode = one_of(m, engine.active_mode, [md for md in self.modes if md.stream],
                                     "stream_mode")
                with m.If((side.bytes != b // 8) & ~stream_mode & ~gcm.gcm):
                    m.d.sync += self.length_error.eq(1)
            with m.If(gcm.length_error):
                m.d.sync += self.length_error.eq(1)
            with m.If(gcm.data_out.valid & gcm.data_out.ready):
                m.d.sync += self.blocks_out.eq(self.blocks_out + 1)
            with m.If(open_ & gcm.data_in.ready & ~gcm.data_in.valid):
                m.d.sync += self.starved.eq(self.starved + 1)
            with m.If(gcm.data_out.valid & ~fifo_out_reg.i.ready):
                m.d.sync += self.blocked.eq(self.blocked + 1)
        with m.If(gcm.started & ((self.mode == Mode.XTS_ENCRYPT) | (self.mode == Mode.XTS_DECRYPT))
                  & xts_unit_bad):
            m.d.sync += self.length_error.eq(1)
        return m
