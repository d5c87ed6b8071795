"""Strength against self-play games: every snapshot a training run kept
(`train.snapshot_games`), as a win rate against the same pure-MCTS levels or as an Elo rating.

`python -m alphazero.curve game=connect6 eval.levels=[4000] eval.games=20` reads
checkpoints/connect6/snapshots/ (or `run=FOLDER`'s, or `snapshots=DIR`), prints a row per
snapshot and level, and writes curve.json and the TensorBoard scalars
curve/win_rate_vs_<level> (step: self-play games) to its run directory, after every snapshot,
so a stopped curve keeps what it measured. With `opponent=gtp:COMMAND` every snapshot plays
that GTP program instead of the levels (alphazero.evaluate.gtp; the scalar
curve/win_rate_vs_program).

`curve.mode=elo` plays a round robin instead (alphazero.evaluate.elo): the snapshots, the
shipped network of the board and pure MCTS at each level of eval.levels, `curve.games` games
a pair; it prints each match as it ends, then every player's rating (the lowest level at 0)
with a 95% interval, and writes elo.json (after every match: a stopped ladder keeps its
games), elo.svg (the ratings against self-play games, the anchors as lines) and the scalars curve/elo, curve/elo_ci95_low, curve/elo_ci95_high and
curve/elo_shipped (step: self-play games).

`curve.mode=stages` (classic Connect-4, native or OpenSpiel's) scores every snapshot on Pons'
six sets (`curve.positions` each; `search_alone=true`: the network's search without the
play-time rules) and prints, per snapshot, the self-play simulations that trained it
(alphazero.train.compute) and the share of moves that lose the exact outcome on each set; it
writes stages.json, stages.svg (those shares against the simulations, beside published agents'
such as AlphaZero.jl's tutorial agent) and the scalars curve/mistakes_<set>.
"""
from __future__ import annotations

import sys
from pathlib import Path

from omegaconf import DictConfig
from torch.utils.tensorboard import SummaryWriter

from alphazero.nn import checkpoint
from alphazero.config.command_line import check_command_line
from alphazero.config.errors import ConfigError
from alphazero.config.command import command_tree, output_folder
from alphazero.config.settings import build_game, run_name, validate
from alphazero.evaluate.elo import fit_elo, round_robin, score_table
from alphazero.evaluate import judges
from alphazero.evaluate.elo_plot import elo_svg
from alphazero.evaluate.stage_plot import stage_svg
from alphazero.evaluate.gtp import program_command, program_opponent
from alphazero.evaluate.match import ladder, program_row, result_row
from alphazero.evaluate.table import format_program_line, format_row, table_header
from alphazero.agent.build import build, build_agent, checkpoint_agent, default_checkpoint
from alphazero.agent.spec import AgentSpec, agent_spec
from alphazero.config.threads import use_search_threads
from alphazero.train.compute import selfplay_search
from games import GameError


def snapshot_paths(folder: Path) -> list[Path]:
    paths = sorted(folder.glob("games_*.pt"))
    if not paths:
        raise ConfigError(f"no snapshots in {folder}: train with train.snapshot_games=N to keep them.")
    return paths


def load_snapshot(path: Path) -> tuple[int, dict]:
    """A snapshot's self-play game count and its checkpoint."""
    saved = checkpoint.load(path)
    games = saved.get("counters", {}).get("games")
    if games is None:
        raise ConfigError(f"{path} has no self-play game count: it is not a training snapshot.")
    return games, saved


def run(cfg: DictConfig, folder: Path, out_dir: Path) -> list[dict]:
    """The rows of the curve (curve.mode=winrate) or the ladder's players (elo)."""
    validate(cfg)
    use_search_threads(cfg.threads)
    game = build_game(cfg)
    if cfg.curve.mode != "winrate" and cfg.opponent:
        raise ConfigError(f"curve.mode={cfg.curve.mode} measures the snapshots alone; opponent= "
                          "is for curve.mode=winrate.")
    if cfg.curve.mode == "elo":
        return elo_ladder(cfg, game, folder, out_dir)
    if cfg.curve.mode == "stages":
        return stage_curve(cfg, game, folder, out_dir)
    levels = list(cfg.eval.levels)
    if cfg.opponent and program_command(cfg.opponent) is None:
        raise ConfigError(f"curve plays snapshots against pure MCTS's levels or a GTP program "
                          f"(opponent=gtp:COMMAND), not opponent={cfg.opponent}.")
    paths = snapshot_paths(folder)
    program = program_opponent(game, cfg.opponent, cfg.gtp) if cfg.opponent else None
    writer = SummaryWriter(str(out_dir))
    rows = []
    print(f"{'self-play games':>15}  {table_header()}")
    try:
        for path in paths:
            games, saved = load_snapshot(path)
            player = checkpoint_agent(game, agent_spec(cfg, "az"), saved, path)
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


def elo_ladder(cfg: DictConfig, game, folder: Path, out_dir: Path) -> list[dict]:
    """The round robin of the snapshots and the anchors (pure MCTS at each level, lowest at
    0 Elo, and the shipped network of this board), rated."""
    paths = snapshot_paths(folder)
    players, agents = [], []
    for level in sorted(cfg.eval.levels):
        players.append({"player": f"pure MCTS {level}"})
        agents.append(build(game, AgentSpec.pure_mcts(level, cfg.seed + level)))
    shipped = default_checkpoint(game.name, game.params())
    if shipped is None:
        print("no shipped network plays this board: the anchors are pure MCTS alone")
    else:
        players.append({"player": f"shipped {shipped.name}", "shipped": True})
        agents.append(build_agent(game, cfg, "az", shipped, seed=cfg.seed))
    for path in paths:
        games, saved = load_snapshot(path)
        players.append({"player": path.stem, "self_play_games": games})
        agents.append(checkpoint_agent(game, agent_spec(cfg, "az"), saved, path))
    report = {"game": game.name, "game_params": game.params(), "snapshots": str(folder),
              "simulations": cfg.mcts.simulations, "games_per_pair": cfg.curve.games,
              "opening_plies": cfg.curve.opening_plies, "seed": cfg.seed,
              "search_alone": cfg.search_alone, "anchor": players[0]["player"], "players": players, "matches": []}
    pairs = len(players) * (len(players) - 1) // 2
    print(f"{len(players)} players, {pairs} matches of {cfg.curve.games} games")
    width = max(len(p["player"]) for p in players)
    results = []
    for i, j, result in round_robin(game, agents, cfg.curve.games, cfg.seed,
                                    cfg.curve.opening_plies):
        results.append((i, j, result))
        report["matches"].append({"player": players[i]["player"]}
                                 | result_row(players[j]["player"], result))
        print(f"{players[i]['player']:>{width}} vs {players[j]['player']:<{width}}  "
              f"{result.wins}-{result.draws}-{result.losses}", flush=True)
        checkpoint.save_json_atomic(report, out_dir / "elo.json")
    scores, games = score_table(len(players), results)
    ratings, errors = fit_elo(scores, games, anchor=0)
    for player, rating, error, score, count in zip(players, ratings, errors, scores.sum(1),
                                                   games.sum(1)):
        player.update(elo=round(rating, 1), error=round(error, 1),
                      ci95=[round(rating - 1.96 * error, 1), round(rating + 1.96 * error, 1)],
                      games=int(count), score=round(score / count, 3))
    checkpoint.save_json_atomic(report, out_dir / "elo.json")
    title = f"{game.name} ({checkpoint.describe_params(game.params())}): {folder}"
    checkpoint.save_text_atomic(elo_svg(players, title), out_dir / "elo.svg")
    log_ratings(players, out_dir)
    print(format_ratings(players))
    return players


def stage_curve(cfg: DictConfig, game, folder: Path, out_dir: Path) -> list[dict]:
    """Every snapshot's mistakes on Pons' six sets against the self-play simulations that
    trained it, beside the published agents' the judge gives (stages.svg)."""
    sets = judges.stage_sets(game, cfg.curve.positions)
    references = judges.stage_references(game)
    paths = snapshot_paths(folder)
    title = f"{game.name} ({checkpoint.describe_params(game.params())}): {folder}"
    print(f"moves that lose the exact outcome, {cfg.curve.positions} positions a set, "
          f"{cfg.mcts.simulations} simulations per move"
          + (", the network's search alone" if cfg.search_alone else ""))
    print(f"{'self-play games':>15}{'simulations':>13}" + "".join(f"{name:>15}" for name in sets))
    rows = []
    with SummaryWriter(str(out_dir)) as writer:
        for path in paths:
            games, saved = load_snapshot(path)
            if "config" not in saved or "positions" not in saved["counters"]:
                raise ConfigError(f"{path} does not say how its run self-played (its settings "
                                  "and recorded positions), so its simulations are unknown.")
            player = checkpoint_agent(game, agent_spec(cfg, "az"), saved, path)
            rates = judges.stage_rates(player, sets)
            mistakes = {name: round(100 * r["dropped"] / r["positions"], 2)
                        for name, r in rates.items()}
            simulations = selfplay_search(saved["config"], saved["counters"])["simulations"]
            rows.append({"self_play_games": games, "snapshot": path.name,
                         "selfplay_simulations": round(simulations), "mistakes": mistakes})
            for name, percent in mistakes.items():
                writer.add_scalar(f"curve/mistakes_{name}", percent, games)
            writer.flush()
            print(f"{games:>15}{simulations:>13.3g}"
                  + "".join(f"{percent:>14.1f}%" for percent in mistakes.values()), flush=True)
            checkpoint.save_json_atomic({
                "game": game.name, "game_params": game.params(), "snapshots": str(folder),
                "simulations": cfg.mcts.simulations, "search_alone": cfg.search_alone,
                "positions_per_set": cfg.curve.positions, "rows": rows,
                "references": references}, out_dir / "stages.json")
            checkpoint.save_text_atomic(stage_svg(rows, references, title), out_dir / "stages.svg")
    return rows


def log_ratings(players: list[dict], out_dir: Path) -> None:
    """Each snapshot's rating and interval against its self-play games; the shipped
    network's rating at the same steps, a line to reach."""
    shipped = next((p for p in players if p.get("shipped")), None)
    with SummaryWriter(str(out_dir)) as writer:
        for player in players:
            step = player.get("self_play_games")
            if step is None:
                continue
            writer.add_scalar("curve/elo", player["elo"], step)
            writer.add_scalar("curve/elo_ci95_low", player["ci95"][0], step)
            writer.add_scalar("curve/elo_ci95_high", player["ci95"][1], step)
            if shipped:
                writer.add_scalar("curve/elo_shipped", shipped["elo"], step)


def format_ratings(players: list[dict]) -> str:
    """The ladder, strongest first."""
    width = max(len(p["player"]) for p in players) + 2
    lines = [f"{'player':<{width}}{'self-play games':>15}{'Elo':>7}  {'95% CI':<14}{'games':>6}"
             f"{'score':>7}"]
    for p in sorted(players, key=lambda p: -p["elo"]):
        games = p.get("self_play_games")
        interval = "anchor" if p["error"] == 0 else f"[{p['ci95'][0]:.0f}, {p['ci95'][1]:.0f}]"
        lines.append(f"{p['player']:<{width}}{'' if games is None else games:>15}"
                     f"{p['elo']:>7.0f}  {interval:<14}{p['games']:>6}{p['score']:>7.3f}")
    return "\n".join(lines)


def main(argv: list[str]) -> None:
    check_command_line("curve", "curve", argv)
    out_dir, written = None, "curve.json"
    try:
        cfg, game_choice = command_tree("curve", argv)
        name = run_name(cfg, game_choice, build_game(cfg))
        run_folder = Path(cfg.run or Path(cfg.train.checkpoint_dir) / name)
        folder = Path(cfg.snapshots or run_folder / "snapshots")
        out_dir = output_folder(cfg.out_dir, game_choice, "curve")
        written = {"elo": "elo.json", "stages": "stages.json"}.get(cfg.curve.mode, "curve.json")
        run(cfg, folder, out_dir)
    except (ConfigError, GameError, checkpoint.CheckpointError) as error:
        if out_dir is not None and not (out_dir / written).exists():  # a stopped curve's rows stay
            checkpoint.discard_run_folder(out_dir)
        print(f"error: {error}", file=sys.stderr)
        sys.exit(2)
    print(f"written: {out_dir / written}   TensorBoard: tensorboard --logdir {out_dir}")


if __name__ == "__main__":
    main(sys.argv[1:])
