"""Write games/core/connect4_stage_positions.json: classic Connect-4 positions of the six Pons test
sets (games/core/connect4_stage_sets.py), each column scored by a perfect solver, half reached by
uniformly random play and half by a network's play from random openings, for
`python -m alphazero.evaluate game=connect4_classic solver_kind=stages`.

    pip install bitbully
    python scripts/connect4_stage_sets.py [per_set=300] [checkpoint=PATH] [simulations=100] [seed=0] [batches=20]

The network (default: the shipped classic one) plays `batches` times 64 games at once from
2-8 random plies, its most visited move at `simulations` each; one position per stage is
drawn from each game.
Where its games cannot fill a set (quick forced wins are rare in good play) random play
fills the rest, and the file says how many came from where. BitBully scores every column;
positions with 20 or more stones are checked against this project's own solver
(games/connect4/solver.py), so the two exact solvers agree on every stored mid-game score.
"""
from __future__ import annotations

import json
import sys
from pathlib import Path

import bitbully
import numpy as np

from alphazero.agent.build import build_agent
from alphazero.config.presets import compose_play
from alphazero.config.settings import build_game
from alphazero.config.threads import use_search_threads
from games import ONGOING
from games.connect4.solver import Connect4Solver
from games.core.connect4_stage_sets import COLS, POSITIONS_FILE, SET_NAMES, stage_set

STAGES = {"begin": (1, 14), "middle": (15, 28), "end": (29, 41)}
CHECKED_FROM = 20  # stones: from here this project's solver proves every column quickly
CHECK_NODES = 20_000_000
BATCH = 64


class Labeller:
    def __init__(self):
        self.bitbully = bitbully.BitBully()
        self.own = Connect4Solver(6, COLS)
        self.checked = 0

    def label(self, moves: list[int]) -> dict | None:
        """The position after `moves` (columns from 0) with its set and column scores; None
        when the game is over or the position falls in no set."""
        board = bitbully.Board()
        for column in moves:
            board.play(column)
        if board.is_game_over():
            return None
        found = self.bitbully.score_all_moves(board)
        scores = [found.get(column) for column in range(COLS)]
        best = max(s for s in scores if s is not None)
        moves_left = int(self.bitbully.score_to_moves_left(best, board))
        name = stage_set(len(moves), moves_left)
        if name is None:
            return None
        if len(moves) >= CHECKED_FROM:
            self.check(moves, scores)
        return {"set": name, "moves": "".join(str(c + 1) for c in moves),
                "moves_left": moves_left, "scores": scores}

    def check(self, moves: list[int], scores: list) -> None:
        own = self.own.move_scores(moves, CHECK_NODES)
        if own is None:
            return
        mine = [int(own[c]) if scores[c] is not None else None for c in range(COLS)]
        if mine != scores:
            raise SystemExit(f"the solvers disagree after {moves}: BitBully {scores}, "
                             f"games.connect4.solver {mine}")
        self.checked += 1


class Collector:
    def __init__(self, per_source: int):
        self.per_source = per_source
        self.sets = {name: [] for name in SET_NAMES}
        self.seen: set[str] = set()

    def add(self, entry: dict | None, source: str, limit: int) -> None:
        if entry is None or entry["moves"] in self.seen:
            return
        kept = self.sets[entry["set"]]
        if sum(e["source"] == source for e in kept) < limit and len(kept) < 2 * self.per_source:
            self.seen.add(entry["moves"])
            kept.append({"source": source} | {k: v for k, v in entry.items() if k != "set"})

    def short(self, source: str | None = None) -> bool:
        """Whether a set still has room for `source` (any source when None)."""
        return any(len(kept) < 2 * self.per_source and
                   (source is None or sum(e["source"] == source for e in kept) < self.per_source)
                   for kept in self.sets.values())


def network_games(agent, game, rng, batch: int) -> list[list[int]]:
    """`batch` games of the agent against itself, each from 2-8 random plies."""
    states = [game.new_state() for _ in range(batch)]
    lines: list[list[int]] = [[] for _ in range(batch)]
    openings = rng.integers(2, 9, size=batch)
    while True:
        live = [b for b in range(batch) if game.status(states[b]) == ONGOING]
        if not live:
            return lines
        chosen = agent.best_actions(np.stack([states[b] for b in live]))
        for b, action in zip(live, chosen):
            if len(lines[b]) < openings[b]:
                action = int(rng.choice(game.legal_list(states[b])))
            game.play(states[b], int(action))
            lines[b].append(int(action))


def random_line(rng, stones: int) -> list[int]:
    board, moves = bitbully.Board(), []
    while len(moves) < stones and not board.is_game_over():
        column = int(rng.choice(board.legal_moves()))
        board.play(column)
        moves.append(column)
    return moves


def main(argv: list[str]) -> None:
    options = dict(arg.split("=", 1) for arg in argv)
    per_set, seed = int(options.get("per_set", 300)), int(options.get("seed", 0))
    overrides = ["game=connect4_classic", "search_alone=true", "threads=1", f"seed={seed}",
                 f"mcts.simulations={options.get('simulations', 100)}"]
    if "checkpoint" in options:
        overrides.append(f"checkpoint={options['checkpoint']}")
    cfg = compose_play(overrides)
    use_search_threads(cfg.threads)
    game = build_game(cfg)
    agent = build_agent(game, cfg, "az", cfg.get("checkpoint"), seed=seed)
    rng = np.random.default_rng(seed)
    labeller, collector = Labeller(), Collector(per_set // 2)
    for _ in range(int(options.get("batches", 20))):  # a bound: some sets stay short
        if not collector.short("network"):
            break
        for line in network_games(agent, game, rng, BATCH):
            for low, high in STAGES.values():
                if len(line) > low:
                    stones = int(rng.integers(low, min(high, len(line) - 1) + 1))
                    collector.add(labeller.label(line[:stones]), "network", per_set // 2)
        print("network:", {k: len(v) for k, v in collector.sets.items()}, file=sys.stderr)
    while collector.short():
        stones = int(rng.integers(1, 42))
        collector.add(labeller.label(random_line(rng, stones)), "random", per_set)
    about = {"solver": f"BitBully {bitbully.__version__}", "per_set": per_set, "seed": seed,
             "network": str(cfg.get("checkpoint") or "shipped connect4_classic"),
             "simulations": cfg.mcts.simulations,
             "sources": {name: {s: sum(e["source"] == s for e in kept) for s in ("network", "random")}
                         for name, kept in collector.sets.items()},
             "checked_by_own_solver": labeller.checked}
    write(Path(options.get("out", POSITIONS_FILE)), about, collector.sets)
    print(json.dumps(about, indent=1))


def write(path: Path, about: dict, sets: dict) -> None:
    """One position a line, so the file reads and diffs well."""
    lines = ['{"about": ' + json.dumps(about) + ',', ' "sets": {']
    for i, (name, kept) in enumerate(sets.items()):
        body = ",\n".join("  " + json.dumps(entry) for entry in kept)
        lines.append(f' "{name}": [\n{body}\n ]' + ("," if i < len(sets) - 1 else ""))
    lines.append("}}")
    temporary = path.with_suffix(".tmp")
    temporary.write_text("\n".join(lines) + "\n")
    temporary.replace(path)


if __name__ == "__main__":
    main(sys.argv[1:])
