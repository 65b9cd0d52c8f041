"""SVG bar charts of speed-ups (inline in report.html: no script, no network).

Speed-ups are drawn on a log2 axis centred on 1x: a bar to the right is faster than the
baseline, a red bar to the left is a slow-down. The mode a function was switched to is outlined
in black and marked with a check mark.
"""

from __future__ import annotations

import math
from collections.abc import Sequence
from dataclasses import dataclass
from html import escape

COLORS = {"graph": "#2f6fdb", "xla": "#e08a00", "program": "#2a9d55"}
SLOWDOWN = "#d1342f"
LOG_MIN, LOG_MAX = -4.0, 7.0  # 1/16x .. 128x


@dataclass(frozen=True, slots=True)
class Bar:
    label: str
    series: str  # "graph" | "xla" | "program"
    value: float | None  # speed-up, None: not measured
    chosen: bool = False
    note: str = ""


def _x(value: float, left: float, width: float) -> float:
    logv = min(LOG_MAX, max(LOG_MIN, math.log2(value)))
    return left + (logv - LOG_MIN) / (LOG_MAX - LOG_MIN) * width


def bar_chart(groups: Sequence[tuple[str, Sequence[Bar]]], title: str, chart_id: str) -> str:
    """One row group per label (function or program), one bar per series."""
    label_width, plot_width, right_pad = 330.0, 560.0, 90.0
    bar_height, bar_gap, group_gap, top = 11.0, 2.0, 9.0, 46.0
    rows = sum(max(1, len(bars)) for _, bars in groups)
    height = top + rows * (bar_height + bar_gap) + len(groups) * group_gap + 34
    width = label_width + plot_width + right_pad
    left = label_width
    one = _x(1.0, left, plot_width)
    parts = [
        f'<svg xmlns="http://www.w3.org/2000/svg" id="{escape(chart_id)}" class="chart" '
        f'width="{width:.0f}" height="{height:.0f}" viewBox="0 0 {width:.0f} {height:.0f}" '
        f'role="img" aria-label="{escape(title)}">',
        f'<text x="8" y="18" class="chart-title">{escape(title)}</text>',
    ]
    legend_x = left
    for series in sorted({b.series for _, bars in groups for b in bars}):
        parts.append(
            f'<rect x="{legend_x:.0f}" y="26" width="12" height="10" fill="{COLORS.get(series, "#777")}"/>'
            f'<text x="{legend_x + 16:.0f}" y="35" class="chart-legend">{escape(series)}</text>'
        )
        legend_x += 90
    parts.append(
        f'<rect x="{legend_x:.0f}" y="26" width="12" height="10" fill="{SLOWDOWN}"/>'
        f'<text x="{legend_x + 16:.0f}" y="35" class="chart-legend">slow-down</text>'
        f'<text x="{legend_x + 110:.0f}" y="35" class="chart-legend">✔ applied</text>'
    )
    grid_bottom = height - 28
    for exponent in range(int(LOG_MIN), int(LOG_MAX) + 1):
        x = _x(2.0**exponent, left, plot_width)
        label = f"{2.0**exponent:g}x" if exponent >= 0 else f"1/{2**-exponent}x"
        parts.append(
            f'<line x1="{x:.1f}" y1="{top - 4:.0f}" x2="{x:.1f}" y2="{grid_bottom:.0f}" '
            f'class="{"axis-one" if exponent == 0 else "grid"}"/>'
            f'<text x="{x:.1f}" y="{grid_bottom + 14:.0f}" class="tick">{label}</text>'
        )
    y = top
    for label, bars in groups:
        group_top = y
        for bar in bars or [Bar(label, "graph", None)]:
            if bar.value is None or not math.isfinite(bar.value) or bar.value <= 0:
                parts.append(
                    f'<text x="{one + 4:.1f}" y="{y + bar_height - 2:.1f}" class="na">'
                    f"{escape(bar.series)}: {escape(bar.note or 'not measured')}</text>"
                )
            else:
                x_end = _x(bar.value, left, plot_width)
                x0, x1 = min(one, x_end), max(one, x_end)
                fill = SLOWDOWN if bar.value < 1.0 else COLORS.get(bar.series, "#777")
                stroke = ' stroke="#000" stroke-width="1.5"' if bar.chosen else ""
                parts.append(
                    f'<rect class="bar bar-{escape(bar.series)}" data-speedup="{bar.value:.4f}" '
                    f'x="{x0:.1f}" y="{y:.1f}" width="{max(1.0, x1 - x0):.1f}" '
                    f'height="{bar_height:.0f}" fill="{fill}"{stroke}>'
                    f"<title>{escape(label)} · {escape(bar.series)}: {bar.value:.2f}x</title></rect>"
                )
                mark = " ✔" if bar.chosen else ""
                parts.append(
                    f'<text x="{x1 + 4:.1f}" y="{y + bar_height - 2:.1f}" class="value">'
                    f"{bar.value:.2f}x{mark}</text>"
                )
            y += bar_height + bar_gap
        parts.append(
            f'<text x="{left - 8:.0f}" y="{(group_top + y) / 2 + 3:.1f}" class="label" '
            f'text-anchor="end">{escape(_shorten(label, 52))}</text>'
        )
        y += group_gap
    parts.append("</svg>")
    return "".join(parts)


def _shorten(text: str, limit: int) -> str:
    return text if len(text) <= limit else "…" + text[-(limit - 1) :]
