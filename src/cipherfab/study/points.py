"""Design points of a study: generator keyword arguments or an external DesignSource, each
with a unique label (the grouping key of the records and aggregates)."""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Iterable

from ..errors import CipherfabError
from ..flow.options import NAMES as FLOW_OPTIONS, label_part
from ..flow.source import DesignSource


#: point parameters that go to the build, not the generator: the flow options and the device
#: (a study whose points name their device, such as ``families``, compares devices)
BUILD_PARAMS = (*FLOW_OPTIONS, "device")


def point_label(params: dict) -> str:
    """Label of a generated point: its values in order (as DesignSource.label), a flow
    option as it reads (``router2``, ``sa``, ``no-abc9``)."""
    return "-".join(label_part(k, v) if k in FLOW_OPTIONS else str(v)
                    for k, v in params.items()) or "design"


@dataclass
class Point:
    """One design point: generator keyword arguments, or an external DesignSource."""

    label: str
    params: dict = field(default_factory=dict)
    source: DesignSource | None = None

    @classmethod
    def generated(cls, params: dict, label: str | None = None) -> "Point":
        return cls(label or point_label(params), dict(params))

    @classmethod
    def external(cls, source: DesignSource, label: str | None = None) -> "Point":
        params = {"external": True, **{k: v for k, v in source.design.items() if k != "external"},
                  "top": source.top}
        return cls(label or source.label(), params, source)

    @property
    def is_external(self) -> bool:
        return self.source is not None

    def split(self) -> tuple[dict, dict]:
        """(design parameters, build parameters): a point's flow options (``router``, ``placer``,
        ``abc9``, ``widelut``, ``flatten``) and its ``device`` go to the build, the rest to the
        generator."""
        design = {k: v for k, v in self.params.items() if k not in BUILD_PARAMS}
        return design, {k: v for k, v in self.params.items() if k in BUILD_PARAMS}

    def device(self, default: str) -> str:
        """The device this point is built on: its own, or the study's."""
        return self.params.get("device", default)

    def with_flow(self, flow: dict) -> "Point":
        """This point built with the flow options ``flow`` as well (a study's ``--router`` etc.);
        one-line error if the point sets one of them itself."""
        clash = [k for k in flow if k in self.params]
        if clash:
            name, value = clash[0], flow[clash[0]]
            option = f"--no-{name}" if value is False else f"--{name}"
            raise CipherfabError(f"{option}: point {self.label} sets {name} itself (a "
                                 "study with a flow axis takes no study-wide value for it)")
        return Point(self.label, {**self.params, **flow}, self.source)

    def as_dict(self) -> dict:
        return {"label": self.label, "params": self.params, "external": self.is_external}


def make_points(params_list: Iterable[dict], externals: Iterable[DesignSource | Point] = ()
                ) -> list[Point]:
    points = [Point.generated(p) for p in params_list]
    for e in externals:
        points.append(e if isinstance(e, Point) else Point.external(e))
    seen: dict[str, int] = {}
    for p in points:  # labels are the grouping key: keep them unique
        n = seen.get(p.label, 0)
        seen[p.label] = n + 1
        if n:
            p.label = f"{p.label} #{n + 1}"
    return points
