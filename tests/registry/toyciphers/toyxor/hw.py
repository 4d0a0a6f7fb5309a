from amaranth.hdl import Cat, Const, Module, Signal
from amaranth.lib import wiring

from cipherfab.hw.info import CoreInfo, CoreSignature, payload_parts


def _info(arch, params, key_interface, directions, latency, fixed_key=None):
    return CoreInfo(cipher="toyxor", arch=arch, params=params, block_bits=64, key_bits=64,
                    key_bits_effective=64, key_interface=key_interface, directions=directions,
                    latency=latency, cycles_per_block=1, cycles_per_block_feedback=latency,
                    blocks_in_flight=latency, key_setup_cycles=0, parts={}, fixed_key=fixed_key)


class _Stages(wiring.Component):
    """``stages`` registers that all advance unless the last one holds an untaken result."""

    def elaborate(self, platform):
        m = Module()
        block, _, key = payload_parts(self)
        key = Const(int(self.info.fixed_key, 16), 64) if key is None else key
        valid = [Signal(name=f"v{i}") for i in range(self.stages)]
        data = [Signal(64, name=f"d{i}") for i in range(self.stages)]
        advance = ~valid[-1] | self.block_out.ready
        m.d.comb += [self.block_in.ready.eq(advance), self.block_out.valid.eq(valid[-1]),
                     self.block_out.payload.eq(data[-1]), self.busy.eq(Cat(*valid).any())]
        with m.If(advance):
            m.d.sync += [valid[0].eq(self.block_in.valid), data[0].eq(block ^ key)]
            for i in range(1, self.stages):
                m.d.sync += [valid[i].eq(valid[i - 1]), data[i].eq(data[i - 1])]
        return m


class Pipe(_Stages):
    def __init__(self, stages=3, direction="encrypt"):
        self.stages = stages
        dirs = ("encrypt", "decrypt") if direction == "both" else ("encrypt",)
        self.info = _info("pipe", {"stages": stages, "direction": direction}, "per_block", dirs, stages)
        super().__init__(CoreSignature(self.info))


class Fixed(_Stages):
    def __init__(self, key="0123456789abcdef"):
        self.stages = 1
        self.info = _info("fixed", {"key": key}, "none", ("encrypt",), 1, fixed_key=key)
        super().__init__(CoreSignature(self.info))
