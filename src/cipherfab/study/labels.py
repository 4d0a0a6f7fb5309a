"""Point labels that do not overlap on a matplotlib scatter plot.

Greedy, in display coordinates: the points are taken in the order given (the important
ones first); each label tries positions around its point, nearest first (right, left,
above, below, then the diagonals, at growing distances), and takes the first whose box
overlaps no label placed before it, no marker, no line it is told of (a Pareto front) and
nothing outside the axes.  A label that
ends away from its point gets a thin leader line.  If no position is free the label goes
where it overlaps least (:func:`place_labels` reports how many did).
"""

from __future__ import annotations

import math

import numpy as np

#: the distances (points) a label tries from its marker, nearest first
RADII = (5, 12, 22, 34, 48, 64, 84)
#: the directions, as angles in degrees: right, left, up, down, then the diagonals
ANGLES = (0, 180, 90, 270, 45, 135, 315, 225, 20, 160, 340, 200, 65, 115, 295, 245)
MARKER_PX = 5          #: half the side of the box a marker keeps free (pixels)


def common_parts(labels: list[str], sep: str = "-") -> list[str]:
    """The ``sep``-separated parts every label has (to leave out of the labels and name
    once); none when there are fewer than two labels."""
    if len(labels) < 2:
        return []
    sets = [set(label.split(sep)) for label in labels]
    first = labels[0].split(sep)
    return [p for p in first if all(p in s for s in sets[1:])]


def shorten(label: str, drop: list[str], sep: str = "-") -> str:
    """``label`` without the parts in ``drop`` (the whole label if nothing is left)."""
    kept = [p for p in label.split(sep) if p not in drop]
    return sep.join(kept) or label


def _overlap(box, others) -> float:
    """The summed area ``box`` shares with each of ``others`` (an n x 4 array of x0, y0,
    x1, y1), added in their order (the same floats as box by box: a study with hundreds of
    points tried millions of pairs one at a time)."""
    if not len(others):
        return 0.0
    w = np.minimum(box.x1, others[:, 2]) - np.maximum(box.x0, others[:, 0])
    h = np.minimum(box.y1, others[:, 3]) - np.maximum(box.y0, others[:, 1])
    hit = (w > 0) & (h > 0)
    return sum((w[hit] * h[hit]).tolist())


def _line_boxes(ax, lines, step_px: float = 3.0):
    """Small boxes along each polyline (data coordinates), ``step_px`` apart on screen."""
    from matplotlib.transforms import Bbox
    boxes = []
    for line in lines:
        px = [ax.transData.transform(p) for p in line]
        for (x0, y0), (x1, y1) in zip(px, px[1:]):
            n = max(1, int(math.hypot(x1 - x0, y1 - y0) / step_px))
            for k in range(n + 1):
                x, y = x0 + (x1 - x0) * k / n, y0 + (y1 - y0) * k / n
                boxes.append(Bbox.from_extents(x - 1, y - 1, x + 1, y + 1))
    return boxes


def place_labels(ax, points: list[tuple[float, float]], labels: list[str], fontsize: float = 7.5,
                 lines: list[list[tuple[float, float]]] = ()) -> int:
    """Label every point of ``ax`` (data coordinates), none over another, a marker or one of
    ``lines`` (polylines in data coordinates); returns how many labels overlap something
    anyway (0 when every one found a free place)."""
    from matplotlib.transforms import Bbox
    fig = ax.figure
    fig.canvas.draw()
    renderer = fig.canvas.get_renderer()
    to_px = ax.transData.transform
    frame = ax.get_window_extent(renderer)
    scale = fig.dpi / 72.0
    markers = []
    for x, y in points:
        px, py = to_px((x, y))
        markers.append(Bbox.from_extents(px - MARKER_PX, py - MARKER_PX, px + MARKER_PX, py + MARKER_PX))
    markers += _line_boxes(ax, lines)
    marker_boxes = np.array([b.extents for b in markers]).reshape(-1, 4)
    placed, crowded = [], 0
    for (x, y), label in zip(points, labels):
        obstacles = np.concatenate([np.array([b.extents for b in placed]).reshape(-1, 4), marker_boxes])
        best = None
        for r in RADII:
            for angle in ANGLES:
                dx, dy = r * math.cos(math.radians(angle)), r * math.sin(math.radians(angle))
                ha = "left" if dx > 1 else "right" if dx < -1 else "center"
                va = "bottom" if dy > 1 else "top" if dy < -1 else "center"
                text = ax.annotate(label, (x, y), textcoords="offset points", xytext=(dx, dy),
                                   fontsize=fontsize, ha=ha, va=va)
                box = text.get_window_extent(renderer).expanded(1.0, 1.0)
                cost = _overlap(box, obstacles)
                outside = (box.x0 < frame.x0 or box.x1 > frame.x1 or box.y0 < frame.y0
                           or box.y1 > frame.y1)
                cost += 1e6 if outside else 0.0
                text.remove()
                if best is None or cost < best[0]:
                    best = (cost, dx, dy, ha, va, box)
                if cost == 0:
                    break
            if best[0] == 0:
                break
        cost, dx, dy, ha, va, box = best
        crowded += cost > 0
        far = math.hypot(dx, dy) > RADII[0] * 1.5
        ax.annotate(label, (x, y), textcoords="offset points", xytext=(dx, dy), fontsize=fontsize,
                    ha=ha, va=va, zorder=4,
                    arrowprops=dict(arrowstyle="-", lw=0.5, color="0.5", shrinkA=0, shrinkB=3 * scale)
                    if far else None)
        placed.append(box)
    return crowded
