"""Line charts drawn by the server as inline SVG: no script, no library.

A chart is a value (``LineChart``) that the template turns into ``<svg>``; it
scales to the width of the page (``viewBox``), so it fits a phone. Each line
has its own dash pattern and a label at its end, so that colour is never the
only way to tell the lines apart. The y axis is marked at round numbers (steps
of 1, 2 or 5 times a power of ten), and the labels at the lines' ends are kept
apart so that two lines ending close together stay readable. The chart is drawn
left to right in every language (the page's stylesheet keeps its direction).
"""

from __future__ import annotations

import math
from collections.abc import Sequence
from dataclasses import dataclass, replace

WIDTH, HEIGHT = 480, 240
LEFT, RIGHT, TOP, BOTTOM = 44, 48, 14, 30
STEPS = 6  # the most steps on the y axis (7 lines)
LEAST_SPAN = 20  # the least range of the y axis: a flat line is not drawn as a steep one
LABEL_GAP = 16  # the least distance between two end labels, in the chart's units (15px text)


@dataclass(frozen=True)
class Line:
    names: tuple[str, ...]  # who the line stands for: several when a seat changed hands
    points: str  # "x,y x,y ..." for <polyline>
    end_x: float
    end_y: float
    end_value: int
    style: int  # 0, 1, 2...: the CSS class of its colour and dash
    label_y: float = 0.0  # where its end label sits: at its end, or moved off another's


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


def line_chart(series: Sequence[tuple[Sequence[str], Sequence[int]]], x_labels: Sequence[str] = ()) -> LineChart | None:
    """A chart of several series (each: the names it stands for, its values) over the
    same x steps (hands, matches); None with fewer than two points, where a line says nothing."""
    length = max((len(values) for _names, values in series), default=0)
    if length < 2:
        return None
    values = [value for _names, line in series for value in line]
    low, high, step = nice_scale(min(values), max(values))
    plot_w, plot_h = WIDTH - LEFT - RIGHT, HEIGHT - TOP - BOTTOM

    def x(index: int) -> float:
        return round(LEFT + plot_w * index / (length - 1), 1)

    def y(value: float) -> float:
        return round(TOP + plot_h * (1 - (value - low) / (high - low)), 1)

    lines = []
    for style, (names, line) in enumerate(series):
        if not line:
            continue
        points = " ".join(f"{x(i)},{y(v)}" for i, v in enumerate(line))
        lines.append(Line(tuple(names), points, x(len(line) - 1), y(line[-1]), line[-1], style))
    lines = _labels_apart(lines)
    y_ticks = tuple(Tick(y(value), str(value)) for value in range(low, high + 1, step))
    every = max(1, (length - 1) // 6 + 1)
    labels = list(x_labels) or [str(i) for i in range(length)]
    x_ticks = tuple(Tick(x(i), labels[i]) for i in range(0, length, every))
    return LineChart(WIDTH, HEIGHT, tuple(lines), y_ticks, x_ticks, LEFT, WIDTH - RIGHT, TOP, HEIGHT - BOTTOM)


def nice_scale(low: int, high: int) -> tuple[int, int, int]:
    """The y axis for values from ``low`` to ``high``: its ends and its step, all round
    numbers (the step 1, 2 or 5 times a power of ten), the least step that marks the
    range in at most ``STEPS`` steps; at least ``LEAST_SPAN`` high, and below 0 only
    when a value is."""
    if high - low < LEAST_SPAN:
        room = LEAST_SPAN - (high - low)
        below = min(room // 2, low) if low >= 0 else room // 2
        low, high = low - below, high + room - below
    for step in _round_steps():
        bottom, top = math.floor(low / step) * step, math.ceil(high / step) * step
        if (top - bottom) // step <= STEPS:
            return bottom, top, step
    raise AssertionError("unreachable: the steps grow without end")


def _round_steps():
    """1, 2, 5, 10, 20, 50, 100..."""
    power = 1
    while True:
        yield from (power, 2 * power, 5 * power)
        power *= 10


def _labels_apart(lines: list[Line]) -> list[Line]:
    """The lines with their end labels at least ``LABEL_GAP`` apart, each as near its end as can be."""
    order = sorted(range(len(lines)), key=lambda index: (lines[index].end_y, index))
    spots = [lines[index].end_y for index in order]
    for i in range(1, len(spots)):
        spots[i] = max(spots[i], spots[i - 1] + LABEL_GAP)
    limit = HEIGHT - BOTTOM  # clear of the x axis' labels
    for i in reversed(range(len(spots))):
        spots[i] = min(spots[i], limit if i == len(spots) - 1 else spots[i + 1] - LABEL_GAP)
    placed = list(lines)
    for index, spot in zip(order, spots, strict=True):
        placed[index] = replace(lines[index], label_y=round(spot, 1))
    return placed
