"""Draw a run's TensorBoard curves as PNG images for the README.

    pip install matplotlib   # only this script needs it
    python bench/plot_curves.py runs/connect6 docs/connect6 loss/total policy/entropy eval/pure_mcts_level

Reads every event file under the folder (a resumed run writes a new run directory; the
steps continue), and writes one PNG per tag: <prefix>_<tag with / as _>.png.
"""
import sys
from pathlib import Path

import matplotlib

matplotlib.use("Agg")
import matplotlib.pyplot as plt  # noqa: E402
from tensorboard.backend.event_processing.event_accumulator import EventAccumulator  # noqa: E402


def run_events(folder: Path) -> list[EventAccumulator]:
    """The loaded events of every run directory under folder (a resumed run adds one)."""
    runs = []
    for run in sorted({p.parent for p in folder.rglob("events.out.tfevents.*")}):
        events = EventAccumulator(str(run), size_guidance={"scalars": 0})
        events.Reload()
        runs.append(events)
    return runs


def scalars(folder: Path, tag: str) -> list[tuple[int, float]]:
    points = {}
    for events in run_events(folder):
        if tag in events.Tags()["scalars"]:
            points.update({e.step: e.value for e in events.Scalars(tag)})
    return sorted(points.items())


def main(folder: str, prefix: str, *tags: str) -> None:
    for tag in tags:
        points = scalars(Path(folder), tag)
        if not points:
            raise SystemExit(f"error: no scalars tagged {tag} under {folder}.")
        steps, values = zip(*points)
        figure, axes = plt.subplots(figsize=(6, 3.2), dpi=100)
        axes.plot(steps, values, linewidth=1)
        axes.set_title(f"{Path(folder).name}: {tag}")
        axes.set_xlabel("self-play games" if tag.startswith(("eval/", "selfplay/", "replay/", "curve/")) else "training steps")
        axes.grid(alpha=0.3)
        figure.tight_layout()
        out = Path(f"{prefix}_{tag.replace('/', '_')}.png")
        out.parent.mkdir(parents=True, exist_ok=True)
        figure.savefig(out)
        print(out)


if __name__ == "__main__":
    main(*sys.argv[1:])
