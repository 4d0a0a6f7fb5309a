"""study.labels: labels placed on a crowded log-log scatter overlap neither each other nor a
marker (their boxes checked after drawing), and the common name parts are left out."""

import random

from cipherfab.study.labels import common_parts, place_labels, shorten
from cipherfab.study.plots import _plt


def _boxes(ax):
    from matplotlib.text import Text
    r = ax.figure.canvas.get_renderer()
    return [Text.get_window_extent(t, r) for t in ax.texts]     # the text, not its leader line


def test_crowded_labels_do_not_overlap():
    plt = _plt()
    fig, ax = plt.subplots(figsize=(11, 7.5), dpi=110)
    rng = random.Random(4)
    points = [(10 ** rng.uniform(2.5, 4.5), 10 ** rng.uniform(2, 4)) for _ in range(30)]
    points += [(1000 * (1 + 0.01 * k), 1500 * (1 + 0.01 * k)) for k in range(6)]   # a cluster
    ax.scatter(*zip(*points))
    ax.set_xscale("log")
    ax.set_yscale("log")
    ax.set_xlim(100, 100000)
    ax.set_ylim(30, 30000)
    fig.tight_layout()
    labels = [f"aes-pipeline-128-encrypt-lut-{k}" for k in range(len(points))]
    assert place_labels(ax, points, labels) == 0
    fig.canvas.draw()
    boxes = _boxes(ax)
    assert len(boxes) == len(points)
    for i, a in enumerate(boxes):
        for b in boxes[i + 1:]:
            w, h = min(a.x1, b.x1) - max(a.x0, b.x0), min(a.y1, b.y1) - max(a.y0, b.y0)
            assert w <= 0.5 or h <= 0.5, (a, b)
    plt.close(fig)


def test_a_crowd_too_dense_is_counted():
    plt = _plt()
    fig, ax = plt.subplots(figsize=(3, 2), dpi=72)
    points = [(1.0 + 0.001 * k, 1.0) for k in range(40)]
    ax.scatter(*zip(*points))
    assert place_labels(ax, points, [f"a rather long label {k}" for k in range(40)]) > 0
    plt.close(fig)


def test_common_parts_are_left_out():
    labels = ["aes-iterative-128-encrypt-rom", "aes-pipeline-128-encrypt-lut-2"]
    drop = common_parts(labels)
    assert drop == ["aes", "128", "encrypt"]
    assert [shorten(x, drop) for x in labels] == ["iterative-rom", "pipeline-lut-2"]
    assert common_parts(["only-one"]) == []
    assert shorten("aes-128", ["aes", "128"]) == "aes-128"
