"""Line charts drawn by the server as inline SVG: no script, no library.

A chart is a value (``LineChart``) that the template turns into ``<svg>``; it
scales to the width of the page (``viewBox``), so it fits a phone. Each line
has its own dash pattern and a label at its end, so that colour is never the
only way to tell the lines apart.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass

WIDTH, HEIGHT = 480, 240
LEFT, RIGHT, TOP, BOTTOM = 44, 48, 14, 30


@dataclass(frozen=True)
class Line:
    label: str
    points: str  # "x,y x,y ..." for <polyline>
    end_x: float
    end_y: float
    end_value: int
    style: int  # 0, 1, 2...: the CSS class of its colour and dash


@dataclass(frozen=True)
class Tick:
    at: float
    label: str


@dataclass(frozen=True)
class LineChart:
    width: int
    height: int
    lines: tuple[Line, ...]
    y_ticks: tuple[Tick, ...]
    x_ticks: tuple[Tick, ...]
    plot_left: int
    plot_right: int
    plot_top: int
    plot_bottom: int


def line_chart(series: Sequence[tuple[str, Sequence[int]]], x_labels: Sequence[str] = ()) -> LineChart | None:
    """A chart of several series over the same x steps (hands, matches); None
    with fewer than two points, where a line says nothing."""
    length = max((len(values) for _label, values in series), default=0)
    if length < 2:
        return None
    values = [value for _label, line in series for value in line]
    low, high = min(values), max(values)
    low, high = _nice_range(low, high)
    plot_w, plot_h = WIDTH - LEFT - RIGHT, HEIGHT - TOP - BOTTOM

    def x(index: int) -> float:
        return round(LEFT + plot_w * index / (length - 1), 1)

    def y(value: float) -> float:
        return round(TOP + plot_h * (1 - (value - low) / (high - low)), 1)

    lines = []
    for style, (label, line) in enumerate(series):
        if not line:
            continue
        points = " ".join(f"{x(i)},{y(v)}" for i, v in enumerate(line))
        lines.append(Line(label, points, x(len(line) - 1), y(line[-1]), line[-1], style))
    step = (high - low) / 4
    y_ticks = tuple(Tick(y(low + step * i), f"{round(low + step * i)}") for i in range(5))
    every = max(1, (length - 1) // 6 + 1)
    labels = list(x_labels) or [str(i) for i in range(length)]
    x_ticks = tuple(Tick(x(i), labels[i]) for i in range(0, length, every))
    return LineChart(WIDTH, HEIGHT, tuple(lines), y_ticks, x_ticks, LEFT, WIDTH - RIGHT, TOP, HEIGHT - BOTTOM)


def _nice_range(low: int, high: int) -> tuple[int, int]:
    """A range that includes both ends with a little room, never empty."""
    if high == low:
        return low - 10, high + 10
    room = max(1, round((high - low) * 0.08))
    return (max(0, low - room) if low >= 0 else low - room), high + room
