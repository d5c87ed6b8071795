"""A run's mistakes on Pons' six Connect-4 sets against the self-play simulations that trained
each snapshot, beside published agents' (alphazero.curve, curve.mode=stages).

Plain SVG like elo_plot: one colour a set; the run's snapshots joined by solid lines, each
published agent's points by dashed ones; simulations on a logarithmic axis.
"""
from __future__ import annotations

import math
from html import escape

WIDTH, HEIGHT, MARGIN, LEGEND = 760, 420, 60, 170
COLOURS = ("#1f77b4", "#ff7f0e", "#2ca02c", "#d62728", "#9467bd", "#8c564b")
DASHES = ("6 4", "2 3", "10 3 2 3")  # one per published agent


def stage_svg(rows: list[dict], references: dict[str, list[tuple[float, dict]]],
              title: str) -> str:
    """`rows`: the curve's, each with `selfplay_simulations` and `mistakes` ({set: %});
    `references`: {label: [(simulations, {set: %}), ...]}."""
    sets = list(rows[0]["mistakes"]) if rows else []
    curves = [("this run", "", [(r["selfplay_simulations"], r["mistakes"]) for r in rows])]
    curves += [(label, DASHES[i % len(DASHES)], points)
               for i, (label, points) in enumerate(references.items())]
    every = [(s, m) for _, _, points in curves for s, m in points if s > 0]
    low = math.floor(math.log10(min(s for s, _ in every)))
    high = max(math.ceil(math.log10(max(s for s, _ in every))), low + 1)
    top = max(5.0, 5 * math.ceil(max(v for _, m in every for v in m.values()) / 5))

    def x(simulations: float) -> float:
        return MARGIN + (WIDTH - MARGIN - LEGEND) * (math.log10(simulations) - low) / (high - low)

    def y(percent: float) -> float:
        return HEIGHT - MARGIN - (HEIGHT - 2 * MARGIN) * percent / top

    right = WIDTH - LEGEND
    parts = [f'<svg xmlns="http://www.w3.org/2000/svg" width="{WIDTH}" height="{HEIGHT}" '
             f'font-family="sans-serif" font-size="12">',
             f'<rect width="{WIDTH}" height="{HEIGHT}" fill="white"/>',
             f'<text x="{WIDTH / 2}" y="20" text-anchor="middle" font-size="14">{escape(title)}</text>',
             f'<line x1="{MARGIN}" y1="{HEIGHT - MARGIN}" x2="{right}" y2="{HEIGHT - MARGIN}" stroke="black"/>',
             f'<line x1="{MARGIN}" y1="{MARGIN}" x2="{MARGIN}" y2="{HEIGHT - MARGIN}" stroke="black"/>',
             f'<text x="{(MARGIN + right) / 2}" y="{HEIGHT - 20}" text-anchor="middle">'
             'self-play simulations</text>',
             f'<text x="15" y="{HEIGHT / 2}" transform="rotate(-90 15 {HEIGHT / 2})" '
             'text-anchor="middle">moves that lose the exact outcome (%)</text>']
    for power in range(low, high + 1):
        parts.append(f'<text x="{x(10 ** power):.1f}" y="{HEIGHT - MARGIN + 16}" '
                     f'text-anchor="middle">1e{power}</text>')
    step = 5 if top <= 40 else 10 if top <= 80 else 20
    for percent in range(0, int(top) + 1, step):
        parts.append(f'<text x="{MARGIN - 6}" y="{y(percent) + 4:.1f}" text-anchor="end">{percent}</text>')
        parts.append(f'<line x1="{MARGIN}" y1="{y(percent):.1f}" x2="{right}" y2="{y(percent):.1f}" '
                     'stroke="#ddd"/>')
    for (label, dash, points) in curves:
        for name, colour in zip(sets, COLOURS):
            line = [(x(s), y(m[name])) for s, m in sorted(points, key=lambda p: p[0]) if name in m]
            style = f' stroke-dasharray="{dash}"' if dash else ""
            parts.append(f'<polyline points="{" ".join(f"{a:.1f},{b:.1f}" for a, b in line)}" '
                         f'fill="none" stroke="{colour}" stroke-width="{1 if dash else 2}"{style}/>')
            for a, b in line:
                fill = "white" if dash else colour
                parts.append(f'<circle cx="{a:.1f}" cy="{b:.1f}" r="3" fill="{fill}" '
                             f'stroke="{colour}"><title>{escape(label)}, {name}</title></circle>')
    for i, (name, colour) in enumerate(zip(sets, COLOURS)):
        parts.append(f'<rect x="{right + 14}" y="{MARGIN + 18 * i - 9}" width="12" height="12" '
                     f'fill="{colour}"/><text x="{right + 32}" y="{MARGIN + 18 * i + 1}">{name}</text>')
    for i, (label, dash, _) in enumerate(curves):
        top_y = MARGIN + 18 * (len(sets) + 1 + i)
        style = f' stroke-dasharray="{dash}"' if dash else ""
        parts.append(f'<line x1="{right + 14}" y1="{top_y - 4}" x2="{right + 40}" y2="{top_y - 4}" '
                     f'stroke="black" stroke-width="{1 if dash else 2}"{style}/>'
                     f'<text x="{right + 46}" y="{top_y}">{escape(label)}</text>')
    parts.append("</svg>")
    return "\n".join(parts) + "\n"
