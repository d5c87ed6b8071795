"""An Elo ladder as a picture: each snapshot's rating against its self-play games, with its
95% interval, and the anchors (pure MCTS levels, the shipped network) as labelled lines.

Plain SVG, written next to elo.json, so that a browser or a Markdown page shows it and no
plotting library is needed.
"""
from __future__ import annotations

from html import escape

WIDTH, HEIGHT, MARGIN, LABELS = 720, 400, 60, 130  # LABELS: room for the anchors' names


def elo_svg(players: list[dict], title: str) -> str:
    """`players`: the ladder's rated players (curve.elo_ladder's), snapshots with
    `self_play_games`."""
    snapshots = sorted((p for p in players if p.get("self_play_games") is not None),
                       key=lambda p: p["self_play_games"])
    anchors = [p for p in players if p.get("self_play_games") is None]
    low = min(min(p["ci95"][0] for p in players), 0.0)
    high = max(max(p["ci95"][1] for p in players), low + 1.0)
    most_games = max((p["self_play_games"] for p in snapshots), default=1) or 1

    def x(games: float) -> float:
        return MARGIN + (WIDTH - MARGIN - LABELS) * games / most_games

    def y(elo: float) -> float:
        return HEIGHT - MARGIN - (HEIGHT - 2 * MARGIN) * (elo - low) / (high - low)

    parts = [f'<svg xmlns="http://www.w3.org/2000/svg" width="{WIDTH}" height="{HEIGHT}" '
             f'font-family="sans-serif" font-size="12">',
             f'<rect width="{WIDTH}" height="{HEIGHT}" fill="white"/>',
             f'<text x="{WIDTH / 2}" y="20" text-anchor="middle" font-size="14">{escape(title)}</text>',
             f'<line x1="{MARGIN}" y1="{HEIGHT - MARGIN}" x2="{WIDTH - LABELS}" y2="{HEIGHT - MARGIN}" stroke="black"/>',
             f'<line x1="{MARGIN}" y1="{MARGIN}" x2="{MARGIN}" y2="{HEIGHT - MARGIN}" stroke="black"/>',
             f'<text x="{x(most_games / 2):.1f}" y="{HEIGHT - 20}" text-anchor="middle">self-play games</text>',
             f'<text x="15" y="{HEIGHT / 2}" transform="rotate(-90 15 {HEIGHT / 2})" '
             f'text-anchor="middle">Elo (95% interval)</text>']
    for fraction in (0.0, 0.5, 1.0):
        games, elo = most_games * fraction, low + (high - low) * fraction
        parts.append(f'<text x="{x(games):.1f}" y="{HEIGHT - MARGIN + 16}" text-anchor="middle">{games:.0f}</text>')
        parts.append(f'<text x="{MARGIN - 6}" y="{y(elo) + 4:.1f}" text-anchor="end">{elo:.0f}</text>')
    for anchor in anchors:
        level = y(anchor["elo"])
        parts.append(f'<line x1="{MARGIN}" y1="{level:.1f}" x2="{WIDTH - LABELS}" y2="{level:.1f}" '
                     'stroke="gray" stroke-dasharray="4 3"/>')
        parts.append(f'<text x="{WIDTH - LABELS + 4}" y="{level + 4:.1f}" font-size="10">'
                     f'{escape(anchor["player"])}</text>')
    points = " ".join(f'{x(p["self_play_games"]):.1f},{y(p["elo"]):.1f}' for p in snapshots)
    parts.append(f'<polyline points="{points}" fill="none" stroke="steelblue" stroke-width="2"/>')
    for p in snapshots:
        px = x(p["self_play_games"])
        parts.append(f'<line x1="{px:.1f}" y1="{y(p["ci95"][0]):.1f}" x2="{px:.1f}" '
                     f'y2="{y(p["ci95"][1]):.1f}" stroke="steelblue"/>')
        parts.append(f'<circle cx="{px:.1f}" cy="{y(p["elo"]):.1f}" r="4" fill="steelblue">'
                     f'<title>{escape(p["player"])}: {p["elo"]:.0f}</title></circle>')
    parts.append("</svg>")
    return "\n".join(parts) + "\n"
