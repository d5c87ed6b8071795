"""Draw one TensorBoard tag of several runs against wall-clock minutes, for A/B comparisons
of recipes that spend the same compute differently (e.g. playout cap randomisation).

    pip install matplotlib   # only this script needs it
    python bench/compare_runs.py docs/cmp.png eval/pure_mcts_level baseline=runs/a pcr=runs/b

Minutes count from each run's first event, so time a run spent paused shows as a flat line.
Learning curves (`curve/` tags, written by `python -m alphazero.curve` into
runs/<game>/curve/<time>/) are drawn against self-play games instead, one marker a snapshot.
"""
import sys
from pathlib import Path

import matplotlib

matplotlib.use("Agg")
import matplotlib.pyplot as plt  # noqa: E402
from plot_curves import run_events, scalars  # noqa: E402  (this folder is on the path when run as a script)


def timed_scalars(folder: Path, tag: str) -> list[tuple[float, float]]:
    """(minutes since the run's first event, value) of `tag` in every event file under folder."""
    points, first = [], None
    for events in run_events(folder):
        for name in events.Tags()["scalars"]:
            start = min(e.wall_time for e in events.Scalars(name))
            first = start if first is None else min(first, start)
        if tag in events.Tags()["scalars"]:
            points += [(e.wall_time, e.value) for e in events.Scalars(tag)]
    return sorted(((t - first) / 60, v) for t, v in points)


def main(out: str, tag: str, *runs: str) -> None:
    figure, axes = plt.subplots(figsize=(6, 3.2), dpi=100)
    by_games = tag.startswith("curve/")
    for run in runs:
        label, _, folder = run.partition("=")
        points = scalars(Path(folder), tag) if by_games else timed_scalars(Path(folder), tag)
        if not points:
            raise SystemExit(f"error: no scalars tagged {tag} under {folder}.")
        if by_games:
            axes.plot(*zip(*points), marker="o", linewidth=1.2, label=label)
        else:
            axes.step(*zip(*points), where="post", linewidth=1.2, label=label)
    axes.set_title(tag)
    axes.set_xlabel("self-play games" if by_games else "minutes of training")
    axes.grid(alpha=0.3)
    axes.legend()
    figure.tight_layout()
    Path(out).parent.mkdir(parents=True, exist_ok=True)
    figure.savefig(out)
    print(out)


if __name__ == "__main__":
    main(*sys.argv[1:])
