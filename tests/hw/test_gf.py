"""The GF(2^8) tables and the tower-field circuit of the composite S-box, on Python integers."""

import pytest

from cipherfab.ciphers.aes.reference import INV_SBOX, SBOX
from cipherfab.hw import gf


def bits(v, n=8):
    return [(v >> i) & 1 for i in range(n)]


def value(b):
    return sum(x << i for i, x in enumerate(b))


def test_tables_from_the_definition_match_fips197():
    assert gf.aes_sbox() == tuple(SBOX)
    assert gf.aes_inv_sbox() == tuple(INV_SBOX)
    assert gf.aes_mul(0x57, 0x83) == 0xC1                      # FIPS-197 Section 4.2
    assert all(gf.aes_mul(a, gf.aes_inv(a)) == 1 for a in range(1, 256))


def test_every_normal_basis_tower_is_found():
    towers = gf.towers()
    assert len(towers) == 128                                  # N: 2, nu: 8, roots: 8
    assert {t.n for t in towers} == {gf.W, gf.W2}
    assert len({t.nu for t in towers}) == 8


@pytest.mark.parametrize("index", range(0, 128, 9))
def test_inverse_circuit_inverts_in_the_tower(index):
    t = gf.towers()[index]
    for a in range(256):
        x = t.to_tower(a)
        y = value(gf.inverse_circuit(t, bits(x)))
        assert (t.mul8(x, y) == 0xFF) if a else y == 0          # 0xFF is 1 in the normal basis
        assert y == t.to_tower(gf.aes_inv(a))                   # X is a field isomorphism


@pytest.mark.parametrize("kinds", [("forward",), ("inverse",), ("forward", "inverse")])
def test_best_tower_circuit_is_the_sbox(kinds):
    t = gf.best_tower(kinds)
    assert t.cost(kinds) == min(u.cost(kinds) for u in gf.towers())
    for kind, table in (("forward", SBOX), ("inverse", INV_SBOX)):
        in_rows, in_const, out_rows, out_const = t.maps(kind)
        got = [value(gf.linear(out_rows, gf.inverse_circuit(t, gf.linear(in_rows, bits(a), in_const)), out_const))
               for a in range(256)]
        assert got == list(table)


def test_invert_rows():
    rows = gf.rows_of(gf.affine)
    inv = gf.invert_rows(rows)
    assert all(gf.apply_rows(inv, gf.apply_rows(rows, v)) == v for v in range(256))
