"""Leakage assessment (sim.leakage): the register list, merged moments, Welch's t, and runs on
the unmasked iterative core: fixed-vs-random fails within a few hundred traces, fixed-vs-fixed
with one block in both groups passes (the groups' traces are the same but for the first
trace after the key), and the command's refusals."""

import numpy as np
import pytest

from cipherfab.cli import main
from cipherfab.generate import generate_verilog
from cipherfab.registry import resolve
from cipherfab.sim import leakage
from cipherfab.sim.leakage import LeakageModel, assess, checkpoints, merge, pieces, registers, run_key, t_values

FIPS_KEY = bytes.fromhex("000102030405060708090a0b0c0d0e0f")
FIPS_PT = bytes.fromhex("00112233445566778899aabbccddeeff")


def test_registers_are_the_rising_edge_assignments():
    text = ("module a(clk);\n  reg [3:0] x;\n  always @(posedge clk)\n    x <= y;\n  assign z = x;\n"
            "endmodule\nmodule \\b.c (clk);\n  always @(posedge clk)\n    \\$signal  <= 1'h0;\n"
            "  always @*\n    w = 1;\nendmodule\n")
    assert registers(text) == [("a", "x"), ("b.c", "$signal")]


def _moments(x):
    n, mean = len(x), x.mean()
    d = x - mean
    return np.array([n, mean, (d ** 2).sum(), (d ** 3).sum(), (d ** 4).sum()])


def test_merged_moments_are_the_moments_of_all_samples():
    rng = np.random.default_rng(1)
    a, b = rng.normal(3, 2, 700), rng.exponential(1.5, 300)
    assert np.allclose(merge(_moments(a), _moments(b)), _moments(np.concatenate([a, b])))


def test_welch_t_of_both_orders_and_of_groups_without_variance():
    rng = np.random.default_rng(2)
    same = np.stack([_moments(rng.normal(0, 1, 5000)), _moments(rng.normal(0, 1, 5000))])[:, None]
    shifted = np.stack([_moments(rng.normal(0, 1, 5000)), _moments(rng.normal(0.3, 1, 5000))])[:, None]
    wider = np.stack([_moments(rng.normal(0, 1, 5000)), _moments(rng.normal(0, 2, 5000))])[:, None]
    assert abs(t_values(same, 1)[0]) < 4.5 and abs(t_values(same, 2)[0]) < 4.5
    assert abs(t_values(shifted, 1)[0]) > 4.5
    assert abs(t_values(wider, 1)[0]) < 4.5 < abs(t_values(wider, 2)[0])   # only the variance differs
    flat = np.array([[[10, 5.0, 0, 0, 0]], [[10, 5.0, 0, 0, 0]]])
    assert t_values(flat, 1)[0] == 0
    flat[1, 0, 1] = 6.0
    assert np.isinf(t_values(flat, 1)[0])
    assert checkpoints(3000) == [100, 200, 500, 1000, 2000, 3000]


@pytest.fixture(scope="module")
def iterative():
    p = resolve("aes", "iterative", key_bits=128, direction="encrypt", sbox="lut")
    text, info, _ = generate_verilog(p)
    return LeakageModel(text, p.top, info), info


def test_the_unmasked_core_fails_at_once_and_fixed_vs_fixed_finds_nothing(iterative, monkeypatch):
    model, info = iterative
    monkeypatch.setattr(leakage, "PIECE", 500)            # four pieces over two processes
    a = assess(model, FIPS_KEY, FIPS_PT, 2000, info.latency + 1, jobs=2)
    assert a.facts["registers"] > 30 and a.facts["jobs"] == 2 and a.facts["pieces"] == 4
    assert a.first_crossing(1) is not None and a.first_crossing(1) <= 500
    assert max(abs(t) for t in a.t[1]) > 4.5
    same = assess(model, FIPS_KEY, FIPS_PT, 2000, info.latency + 1, second=FIPS_PT)
    # one block in both groups: every trace the same (the encryptions right after the key,
    # which start from other register values, are not traces), in every piece
    assert all(v == 0 for v in same.max_t[1] + same.max_t[2]), same.max_t


def test_pieces_share_every_checkpoint():
    cps = checkpoints(25_000)
    work = pieces(25_000, cps)
    assert [s for s, _ in work] == [8334, 8333, 8333]
    for s, shares in work:
        assert shares[-1] == s and shares == sorted(shares)
    assert [sum(shares[k] for _, shares in work) for k in range(len(cps))] == cps
    few = pieces(10 ** 9, checkpoints(10 ** 9))              # 100,000 pieces: most get none of 100
    assert len(few) == 100_000 and few[99][1][0] == 1 and few[100][1][0] == 0


def test_pieces_with_no_share_of_a_checkpoint(iterative, monkeypatch):
    model, info = iterative
    monkeypatch.setattr(leakage, "PIECE", 10)             # 200 pieces: half of them have none of the first 100
    a = assess(model, FIPS_KEY, FIPS_PT, 2000, info.latency + 1)
    assert a.facts["pieces"] == 200 and all(v > 0 for v in a.max_t[1])
    assert a.first_crossing(1) is not None and a.first_crossing(1) <= 500


def test_saved_pieces_are_named_by_everything_that_shapes_them(iterative, monkeypatch):
    model, _ = iterative
    base = run_key(model, FIPS_KEY, FIPS_PT, None, 2000, 11, 1, 0.0)
    assert base == run_key(model, FIPS_KEY, FIPS_PT, None, 2000, 11, 1, 0.0)
    assert base != run_key(model, FIPS_KEY, FIPS_PT, None, 2000, 11, 2, 0.0)        # another seed
    assert base != run_key(model, FIPS_KEY, FIPS_PT, FIPS_PT, 2000, 11, 1, 0.0)     # fixed-vs-fixed
    monkeypatch.setattr(leakage, "PIECE", 500)            # other pieces: other shares of the checkpoints
    assert base != run_key(model, FIPS_KEY, FIPS_PT, None, 2000, 11, 1, 0.0)


class _Interrupted(Exception):
    pass


def test_an_interrupted_run_goes_on_from_its_saved_pieces_to_the_same_result(iterative, monkeypatch, tmp_path):
    model, info = iterative
    monkeypatch.setattr(leakage, "PIECE", 400)            # five pieces
    whole = assess(model, FIPS_KEY, FIPS_PT, 2000, info.latency + 1)

    def stop_after_two(done, total, resumed):
        if done == 2:
            raise _Interrupted
    with pytest.raises(_Interrupted):
        assess(model, FIPS_KEY, FIPS_PT, 2000, info.latency + 1, save=tmp_path, progress=stop_after_two)
    assert sorted(f.name for f in tmp_path.iterdir()) == ["piece-0.npz", "piece-1.npz"]
    (tmp_path / "piece-1.npz").write_bytes(b"cut short")    # a piece written when the run stopped
    seen = []
    again = assess(model, FIPS_KEY, FIPS_PT, 2000, info.latency + 1, jobs=2, save=tmp_path,
                   progress=lambda *a: seen.append(a))
    assert again.facts["resumed"] == 1 and seen[0] == (2, 5, 1) and seen[-1] == (5, 5, 1)
    assert again.t == whole.t and again.max_t == whole.max_t    # neither the processes nor the stop change it
    assert again.facts["cycles"] == whole.facts["cycles"]


def test_a_run_whose_saved_pieces_are_taken_away_goes_on(iterative, monkeypatch, tmp_path):
    """An identical run ending at once removes the folder of saved pieces: this one goes on."""
    import shutil
    model, info = iterative
    monkeypatch.setattr(leakage, "PIECE", 400)
    whole = assess(model, FIPS_KEY, FIPS_PT, 2000, info.latency + 1)
    save = tmp_path / "run"
    again = assess(model, FIPS_KEY, FIPS_PT, 2000, info.latency + 1, save=save,
                   progress=lambda done, *_: done in (1, 3) and shutil.rmtree(save))
    assert again.t == whole.t and sorted(f.name for f in save.iterdir()) == ["piece-3.npz", "piece-4.npz"]


def _assess_at_once(model, info, save, barrier, out):
    leakage.PIECE = 100
    barrier.wait()
    out.put(assess(model, FIPS_KEY, FIPS_PT, 2000, info.latency + 1, save=save).t)


def test_identical_runs_at_once_share_the_saved_pieces(iterative, tmp_path):
    import multiprocessing
    model, info = iterative
    ctx = multiprocessing.get_context("fork")
    barrier, out = ctx.Barrier(2), ctx.Queue()
    procs = [ctx.Process(target=_assess_at_once, args=(model, info, tmp_path, barrier, out)) for _ in range(2)]
    for p in procs:
        p.start()
    results = [out.get(timeout=120) for _ in procs]
    for p in procs:
        p.join(60)
    assert [p.exitcode for p in procs] == [0, 0] and results[0] == results[1]
    assert sorted(f.name for f in tmp_path.iterdir()) == sorted(f"piece-{i}.npz" for i in range(20))


@pytest.mark.parametrize("argv, code, last", [
    (["leakage", "aes", "--traces", "200"], 1, "order 2: max |t| "),                       # FAIL: exit 1
    (["leakage", "aes", "--traces", "200", "--test", "fixed-vs-fixed", "--second",
      "00112233445566778899aabbccddeeff"], 0, "order 2: max |t| 0.00 at clock 0; pass"),   # pass: exit 0
])
def test_a_fail_exits_1_and_notes_go_to_stderr(argv, code, last, capsys):
    assert main(argv) == code
    out, err = capsys.readouterr()
    lines = out.strip().splitlines()
    assert len(lines) == 3 and lines[0].startswith("aes_iterative_128_encrypt_lut: 200 traces"), out
    assert lines[-1].startswith(last) and ("FAIL" in out) == (code == 1), out
    assert "note" not in out and "leakage:" not in out and "error" not in err


@pytest.mark.parametrize("argv, words", [
    (["leakage", "aes", "--traces", "0"], "--traces: must lie in 1 to"),
    (["leakage", "aes", "--traces", "10", "--noise", "-1"], "--noise -1.0: a standard deviation"),
    (["leakage", "aes", "--traces", "10", "--trace-key", "00zz"], "'00zz' is not hex"),
    (["leakage", "aes", "--traces", "10", "--fixed", "00"], "'00' has 8 bits, not 128"),
    (["leakage", "aes", "--traces", "10", "--second", "00"], "--second goes with --test fixed-vs-fixed"),
    (["leakage", "aes", "--traces", "10", "--model", "glitch"], "argument --model: invalid choice: 'glitch'"),
    (["leakage", "aes", "--traces", "10", "--direction", "decrypt"], "leakage runs encrypt-only cores"),
    (["leakage", "aes", "--traces", "10", "--arch", "nope"], "--arch 'nope' is not supported"),
    (["leakage", "--traces", "10"], "nothing to assess"),
    (["leakage", "--traces", "10", "--verilog", "x.v", "--top", "x"], "an external core also needs --info"),
    (["leakage", "--traces", "10", "--verilog", "{tmp}/none.v", "--top", "x", "--info", "{tmp}/none.json"],
     "none.v: no such file"),
    # --out, checked before any work
    (["leakage", "aes", "--traces", "10", "--out", "{tmp}/file"], "--out {tmp}/file: a file, not a folder"),
    (["leakage", "aes", "--traces", "10", "--out", "{tmp}/file/sub"], "cannot write there: Not a directory"),
    (["leakage", "aes", "--traces", "10", "--out", "/proc/x"], "--out /proc/x: cannot write there"),
    (["leakage", "aes", "--traces", "10", "--out", "/sys/kernel"], "--out /sys/kernel: cannot write there"),
    (["leakage", "aes", "--traces", "10", "--out", "{tmp}/taken"], "{tmp}/taken/results.json is there and is not a file"),
    (["leakage", "aes", "--traces", "10", "--arch", "iterative", "--out", "{tmp}/png"], "{tmp}/png/t.png is there"),
    # --model robust and its options, refused before the netlist is made
    (["leakage", "aes", "--traces", "10", "--model", "robust", "--order", "2"], "--order 2 is for hd and toggle"),
    (["leakage", "aes", "--traces", "10", "--transitions"], "--transitions goes with --model robust"),
    (["leakage", "aes", "--traces", "10", "--model", "robust", "--noise", "1"], "--noise is for hd and toggle"),
    (["leakage", "aes", "--traces", "10", "--model", "robust", "--test", "fixed-vs-fixed"], "fixed-vs-random keys only"),
    (["leakage", "aes", "--traces", "10", "--model", "robust", "--fixed", "00"], "'00' has 8 bits, not 128"),
    (["leakage", "aes", "--traces", "10", "--model", "robust", "--trace-key", "zz"], "'zz' is not hex"),
    (["leakage", "aes", "--traces", "10", "--model", "robust", "--arch", "key_specific"],
     "leakage runs cores with a key stream and one clock"),
    (["leakage", "aes", "--traces", "10", "--model", "robust", "--out", "{tmp}/rpng"], "{tmp}/rpng/p.png is there"),
])
def test_bad_input_is_one_line(argv, words, capsys, tmp_path, monkeypatch):
    from cipherfab.flow import leakage_cli

    def no_work(*a, **k):
        raise AssertionError("a core was compiled before the refusal")
    monkeypatch.setattr(leakage_cli, "LeakageModel", no_work)
    from cipherfab.flow import robust_netlist
    monkeypatch.setattr(robust_netlist, "synthesized", no_work)
    (tmp_path / "file").write_text("")
    (tmp_path / "taken" / "results.json").mkdir(parents=True)
    (tmp_path / "png" / "t.png").mkdir(parents=True)
    (tmp_path / "rpng" / "p.png").mkdir(parents=True)
    argv = [a.replace("{tmp}", str(tmp_path)) for a in argv]
    assert main(argv) == 2
    out, err = capsys.readouterr()
    err = err.strip().splitlines()
    assert out == "" and len(err) == 1 and words.replace("{tmp}", str(tmp_path)) in err[0], err
