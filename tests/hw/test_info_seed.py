"""The entropy input in a core's declaration: ``seed_bits`` makes a ``seed`` stream port,
and cores without one keep the sidecar they always had."""

import json

import pytest

from cipherfab.errors import CipherfabError
from cipherfab.hw.info import CoreInfo, CoreSignature, load_info


def _info(**kw):
    return CoreInfo(cipher="aes", arch="t", params={}, block_bits=128, key_bits=128, key_bits_effective=128,
                    key_interface="stream", directions=("encrypt",), latency=3, cycles_per_block=1,
                    cycles_per_block_feedback=3, blocks_in_flight=1, key_setup_cycles=2, **kw)


def test_a_seed_port_only_when_declared():
    assert "seed" not in CoreSignature(_info()).members
    sig = CoreSignature(_info(seed_bits=160, seed_setup_cycles=20))
    assert sig.members["seed"].flow.name == "In"
    assert sig.members["seed"].signature.members["payload"].shape == 160


def test_sidecar_unchanged_without_seed_and_round_trips_with_it(tmp_path):
    assert "seed_bits" not in _info().as_json() and "random_bits_per_clock" not in _info().as_json()
    info = _info(seed_bits=160, seed_setup_cycles=20, random_bits_per_clock=168)
    (tmp_path / "core.json").write_text(json.dumps(info.as_json()))
    assert load_info(tmp_path / "core.json") == info


@pytest.mark.parametrize("bad, message", [
    ({"seed_setup_cycles": 5}, "seed_setup_cycles needs a seed port"),
    ({"seed_bits": -1}, "seed_setup_cycles needs a seed port"),
    ({"random_bits_per_clock": 8}, "random_bits_per_clock needs a seed port"),
    ({"seed_bits": 160, "random_bits_per_clock": -1}, "random_bits_per_clock needs a seed port"),
])
def test_bad_seed_declarations(bad, message):
    with pytest.raises(ValueError, match=message):
        _info(**bad)


def test_bad_seed_in_a_sidecar(tmp_path):
    d = _info().as_json() | {"seed_bits": "many"}
    (tmp_path / "core.json").write_text(json.dumps(d))
    with pytest.raises(CipherfabError, match="seed_bits: 'many' is not of type 'integer'"):
        load_info(tmp_path / "core.json")


def test_masked_cores_declare_their_generators_bits_a_clock():
    from cipherfab.generate import make_core
    from cipherfab.registry import resolve

    def bits(**kw):
        return make_core(resolve("aes", "masked", **kw)).signature.info.random_bits_per_clock
    assert (bits(), bits(sboxes=4), bits(sboxes=1), bits(sboxes=4, shares=3)) == (808, 168, 42, 472)
    assert bits(prng="off") == 0 and bits(sboxes=4, prng="off") == 0
