"""A small bar chart drawn on the server as SVG: no JavaScript library, no request to anyone.

Colours come from CSS classes (``chart-a``, ``chart-b`` in app.css), so a reseller's colour applies.
The page shows the same numbers in a table for screen readers and for anyone who prefers numbers.
"""

from __future__ import annotations

from collections.abc import Sequence

from django.utils.html import escape
from django.utils.safestring import SafeString, mark_safe

from apps.portal.selectors import DayCount

WIDTH = 480
HEIGHT = 210
LEFT = 30
BOTTOM = 28
TOP = 12


def _nice_max(value: int) -> int:
    for step in (4, 8, 12, 20, 40, 60, 100, 200, 400, 1000):
        if value <= step:
            return step
    return ((value // 1000) + 1) * 1000


def daily_bars(days: Sequence[DayCount], *, title: str, desc: str) -> SafeString:
    """Two bars per day: conversations started and questions not answered."""
    top = _nice_max(max([d.conversations for d in days] + [d.unanswered for d in days] + [1]))
    plot_w = WIDTH - LEFT - 8
    plot_h = HEIGHT - BOTTOM - TOP
    slot = plot_w / max(len(days), 1)
    bar = max(slot * 0.36, 2.0)
    parts = [
        f'<svg class="chart" viewBox="0 0 {WIDTH} {HEIGHT}" role="img" aria-labelledby="chart-title chart-desc"'
        ' xmlns="http://www.w3.org/2000/svg" preserveAspectRatio="xMidYMid meet">',
        f'<title id="chart-title">{escape(title)}</title><desc id="chart-desc">{escape(desc)}</desc>',
    ]
    for i in range(5):  # four gridlines plus the base line
        value = top * i // 4
        y = TOP + plot_h - plot_h * i / 4
        parts.append(
            f'<line class="chart-grid" x1="{LEFT}" x2="{WIDTH - 8}" y1="{y:.1f}" y2="{y:.1f}"/>'
            f'<text class="chart-label" x="{LEFT - 6}" y="{y + 4:.1f}" text-anchor="end">{value}</text>'
        )
    for i, day in enumerate(days):
        x = LEFT + slot * i + (slot - 2 * bar) / 2
        for j, (value, css) in enumerate(((day.conversations, "chart-a"), (day.unanswered, "chart-b"))):
            h = plot_h * value / top
            parts.append(
                f'<rect class="{css}" x="{x + j * bar:.1f}" y="{TOP + plot_h - h:.1f}" '
                f'width="{bar - 1:.1f}" height="{h:.1f}" rx="2"/>'
            )
        if i % 2 == (len(days) - 1) % 2:  # every other day, always including today
            cx = LEFT + slot * i + slot / 2
            parts.append(
                f'<text class="chart-label" x="{cx:.1f}" y="{HEIGHT - 8}" text-anchor="middle">'
                f"{day.day.day} {day.day:%b}</text>"
            )
    parts.append("</svg>")
    return mark_safe("".join(parts))  # noqa: S308 - every interpolated text is escaped or a number
