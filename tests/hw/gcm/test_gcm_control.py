"""GcmControl alone (hw.gcm.gcm_control): H's life.  H is kept for the next message while no
key is taken; a key taken zeroes H and GHASH's multiples of it, at once while no message
runs, else at the message's tag.  The engine and GHASH around the control always answer
(every block taken, every result there), so a message runs its steps at full speed."""

from amaranth.sim import Simulator

from cipherfab.hw.gcm.gcm_control import GcmControl
from cipherfab.hw.modes import Mode


def messages(key_at: dict[int, int], count: int = 2) -> list[dict]:
    """Run ``count`` encrypt messages (96-bit IV, 16 bytes of text) back to back; ``key_at``:
    {message: clock of it} at which a key is taken (-1: while idle before it).  Per message:
    whether it loaded H, and the strobes at its tag (``h_clear``) and after it."""
    dut = GcmControl()
    out = []

    async def bench(ctx):
        ctx.set(dut.e_idle, 1)
        ctx.set(dut.e_in_ready, 1)
        ctx.set(dut.e_out_valid, 1)
        ctx.set(dut.data_out_ready, 1)
        ctx.set(dut.data_in_valid, 1)
        ctx.set(dut.steer.feed_ready, 1)
        for name, v in (("iv_bytes", 12), ("text_bytes", 16), ("aad_bytes", 0), ("tag_bytes", 16)):
            ctx.set(getattr(dut, name), v)
        ctx.set(dut.mode, Mode.GCM_ENCRYPT)
        for n in range(count):
            seen = {"h_load": 0, "h_clear_at_tag": None, "h_clear_idle": 0, "h_clear_later": 0}
            if key_at.get(n) == -1:
                ctx.set(dut.key_changed, 1)
                seen["h_clear_idle"] = ctx.get(dut.steer.h_clear)
                await ctx.tick()
                ctx.set(dut.key_changed, 0)
                seen["then"] = (ctx.get(dut.steer.ghash_clear), ctx.get(dut.steer.ghash_keep))
            ctx.set(dut.start, 1)
            await ctx.tick()
            ctx.set(dut.start, 0)
            for clock in range(200):
                ctx.set(dut.key_changed, key_at.get(n) == clock)
                ctx.set(dut.data_in_last, ctx.get(dut.steer.in_last))
                seen["h_load"] |= ctx.get(dut.steer.h_load)
                if ctx.get(dut.steer.tag_load):
                    seen["h_clear_at_tag"] = ctx.get(dut.steer.h_clear)
                if key_at.get(n, 1 << 20) <= clock:
                    seen["h_clear_later"] |= ctx.get(dut.steer.h_clear)
                await ctx.tick()
                if ctx.get(dut.idle):
                    break
            ctx.set(dut.key_changed, 0)
            seen["kept_after"] = ctx.get(dut.h_kept)
            out.append(seen)

    sim = Simulator(dut)
    sim.add_clock(1e-6)
    sim.add_testbench(bench)
    sim.run()
    return out


def test_h_is_made_once_then_kept_while_no_key_is_taken():
    first, second = messages({})
    assert first["h_load"] and first["h_clear_at_tag"] == 0 and first["kept_after"]
    assert not second["h_load"] and second["h_clear_at_tag"] == 0 and second["kept_after"]


def test_a_key_taken_while_idle_zeroes_h_and_its_multiples_at_once():
    first, second = messages({1: -1})
    assert first["kept_after"]
    assert second["h_clear_idle"] == 1
    assert second["then"] == (1, 0)          # GHASH cleared, not keeping: zero tables or powers
    assert second["h_load"] and second["kept_after"]        # H made again, for the new key


def test_a_key_taken_in_a_message_zeroes_h_and_the_next_makes_it_again():
    """Before the tag (while H is made, in the text): at the tag; after it: at once."""
    for clock, at_tag in ((0, 1), (3, 1), (8, 0)):      # the tag is loaded at 7, out at 8
        first, second = messages({0: clock})
        assert first["h_load"] and first["h_clear_at_tag"] == at_tag, clock
        assert first["h_clear_later"] and not first["kept_after"], clock
        assert second["h_load"] and second["kept_after"], clock

