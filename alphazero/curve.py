"""Win rate against self-play games: every snapshot a training run kept
(`train.snapshot_games`), each played against the same pure-MCTS levels.

`python -m alphazero.curve game=connect6 eval.levels=[4000] eval.games=20` reads
checkpoints/connect6/snapshots/ (or `snapshots=DIR`), prints a row per snapshot and level,
and writes curve.json and the TensorBoard scalars curve/win_rate_vs_<level> (step: self-play
games) to its run directory, after every snapshot, so a stopped curve keeps what it measured.
With `opponent=gtp:COMMAND` every snapshot plays that GTP program instead of the levels
(alphazero.evaluate.gtp; the scalar curve/win_rate_vs_program).
"""
from __future__ import annotations

import sys
from pathlib import Path

import hydra
from hydra.core.hydra_config import HydraConfig
from omegaconf import DictConfig
from torch.utils.tensorboard import SummaryWriter

from alphazero.nn import checkpoint
from alphazero.config.choices import check_group_choices
from alphazero.config.errors import ConfigError
from alphazero.config.settings import build_game, validate
from alphazero.evaluate.gtp import program_command, program_opponent
from alphazero.evaluate.match import (format_program_line, format_row, ladder, program_row,
                                      table_header)
from alphazero.config.paths import CONF_DIR
from alphazero.agent.build import checkpoint_agent
from alphazero.config.threads import use_search_threads
from games import GameError


def snapshot_paths(folder: Path) -> list[Path]:
    paths = sorted(folder.glob("games_*.pt"))
    if not paths:
        raise ConfigError(f"no snapshots in {folder}: train with train.snapshot_games=N to keep them.")
    return paths


def run(cfg: DictConfig, folder: Path, out_dir: Path) -> list[dict]:
    validate(cfg)
    use_search_threads(cfg.threads)
    levels = list(cfg.eval.levels)
    game = build_game(cfg)
    if cfg.opponent and program_command(cfg.opponent) is None:
        raise ConfigError(f"curve plays snapshots against pure MCTS's levels or a GTP program "
                          f"(opponent=gtp:COMMAND), not opponent={cfg.opponent}.")
    paths = snapshot_paths(folder)
    program = program_opponent(game, cfg) if cfg.opponent else None
    writer = SummaryWriter(str(out_dir))
    rows = []
    print(f"{'self-play games':>15}  {table_header()}")
    try:
        for path in paths:
            saved = checkpoint.load(path)
            games = saved.get("counters", {}).get("games")
            if games is None:
                raise ConfigError(f"{path} has no self-play game count: it is not a training "
                                  "snapshot.")
            player = checkpoint_agent(game, cfg, saved, path, seed=cfg.seed)
            measured = ([program_row(game, player, program, cfg.eval.games, cfg.seed,
                                     cfg.eval.opening_plies)] if program else
                        ladder(game, player, levels, cfg.eval.games, cfg.seed,
                               cfg.eval.opening_plies))
            for row in measured:
                rows.append({"self_play_games": games, "snapshot": path.name} | row)
                writer.add_scalar(f"curve/win_rate_vs_{row.get('level', 'program')}",
                                  row["win_rate"], games)
                print(f"{games:>15}  {format_row(row)}", flush=True)
                if program:
                    print(f"{'':>15}  {format_program_line(row)}", flush=True)
            writer.flush()
            checkpoint.save_json_atomic({
                "game": game.name, "game_params": game.params(), "snapshots": str(folder),
                "simulations": cfg.mcts.simulations, "opening_plies": cfg.eval.opening_plies,
                "rows": rows}, out_dir / "curve.json")
    finally:
        writer.close()
        if program:
            program.close()
    return rows


@hydra.main(version_base=None, config_path=str(CONF_DIR), config_name="curve")
def main(cfg: DictConfig) -> None:
    hydra_cfg = HydraConfig.get()
    run_name = cfg.run_name or hydra_cfg.runtime.choices.get("game")
    folder = Path(cfg.snapshots or Path(cfg.train.checkpoint_dir) / run_name / "snapshots")
    out_dir = Path(hydra_cfg.runtime.output_dir)
    try:
        run(cfg, folder, out_dir)
    except (ConfigError, GameError, checkpoint.CheckpointError, ValueError) as error:
        print(f"error: {error}", file=sys.stderr)
        sys.exit(2)
    print(f"written: {out_dir / 'curve.json'}   TensorBoard: tensorboard --logdir {out_dir}")


if __name__ == "__main__":
    check_group_choices(sys.argv[1:])
    main()
