"""`python -m alphazero.evaluate game=NAME ...`: measure a network.

`python -m alphazero.evaluate game=connect6 checkpoint=PATH eval.levels=[1000,2000] eval.games=20`
plays the checkpoint against pure MCTS at each level (playouts per move), colours
alternating, all games of a level at once, and prints a table (with a 95% Wilson interval on
the win rate) that it also writes as JSON to its run directory. `opponent=PATH` plays two
checkpoints head to head instead, and `opponent=gtp:COMMAND` any program that speaks GTP
(alphazero.evaluate.gtp), with each side's seconds per move, and `opponent=NAME:STRENGTH` a
player the game brings of its own (OpenSpiel's games: `mcts:10000`, OpenSpiel's MCTSBot with
random rollouts and its solver on). On classic Connect-4 and
Othello, `solver_positions=N` (with `solver_kind=random|early|selfplay`) also measures how
often the checkpoint, its network's search alone and pure MCTS at the ladder's levels play
an optimal move on N solved positions (alphazero.evaluate.judges); `solver_kind=stages`
scores classic Connect-4 moves on up to N positions of each of Pons' six test sets.
The matches themselves are alphazero.evaluate.match's.
"""
from __future__ import annotations

import sys
from pathlib import Path

from omegaconf import DictConfig, OmegaConf

from alphazero.evaluate import judges
from alphazero.evaluate.gtp import program_command, program_opponent
from alphazero.evaluate.match import ladder, play_match, program_row, result_row
from alphazero.evaluate.table import format_program_line, format_table
from alphazero.nn import checkpoint
from alphazero.config.errors import ConfigError
from alphazero.config.settings import build_game, validate
from alphazero.agent.build import build, build_agent
from alphazero.agent.spec import AgentSpec, agent_spec
from alphazero.config.command import command_tree, output_folder
from alphazero.config.threads import use_search_threads
from games import GameError, game_opponents


def solver_rows(game, player, levels, cfg: DictConfig) -> list[dict]:
    """Optimal-move rates on the same positions of `player`, of its network's search alone
    (where `player` has advisors) and of pure MCTS at each level."""
    players = [("checkpoint", player)]
    if player.advisors:
        players.append(("checkpoint, search alone", build(game, agent_spec(cfg, "az").alone())))
    players += [(f"pure MCTS {level}", build(game, AgentSpec.pure_mcts(level, cfg.seed + level)))
                for level in levels]
    if cfg.solver_kind == "stages":
        sets = judges.stage_sets(game, cfg.solver_positions)
        return [{"solver": name, "kind": "stages", "sets": judges.stage_rates(who, sets)}
                for name, who in players]
    states, values, exact = judges.solved_positions(
        game, cfg.solver_positions, cfg.solver_kind, tuple(cfg.solver_plies), cfg.seed)
    return [{"solver": name, "kind": cfg.solver_kind}
            | judges.optimal_move_rate(who, states, values, exact) for name, who in players]


def format_stage_table(rows: list[dict]) -> str:
    """Each player's mistakes (moves that lose the exact outcome) on each of Pons' sets."""
    names = list(rows[0]["sets"])
    lines = ["mistakes (moves that lose the exact outcome) on solver-labelled positions",
             f"{'player':<26}" + "".join(f"{name:>15}" for name in names)]
    for r in rows:
        cells = [f"{100 * s['dropped'] / s['positions']:.1f}% of {s['positions']}"
                 for s in r["sets"].values()]
        lines.append(f"{r['solver']:<26}" + "".join(f"{cell:>15}" for cell in cells))
    return "\n".join(lines)


def game_opponent(game, opponent: str, seed: int):
    """(player, its name) for `opponent=NAME:STRENGTH` where the game brings a player of that
    name (games.game_opponents: OpenSpiel's MCTSBot as mcts:10000); None for any other
    opponent."""
    name, _, strength = str(opponent).partition(":")
    kinds = game_opponents(game.name)
    if name not in kinds:
        return None
    if not (strength.isdigit() and int(strength) > 0):
        raise ConfigError(f"opponent={opponent}: give {name}'s strength as a whole number of "
                          f"at least 1 after the colon, such as opponent={name}:10000.")
    return kinds[name](game, int(strength), seed), f"{name} {strength}"


def run(cfg: DictConfig, out_dir: Path) -> dict:
    validate(cfg)
    use_search_threads(cfg.threads)
    levels = [] if cfg.opponent else list(cfg.eval.levels)
    game = build_game(cfg)
    if cfg.solver_positions:
        judges.make_judge(game, cfg.solver_kind)  # one sentence now, not after the matches
    player = build_agent(game, cfg, "az", cfg.checkpoint, seed=cfg.seed)
    if program_command(cfg.opponent) is not None:
        with program_opponent(game, cfg.opponent, cfg.gtp) as program:
            rows = [program_row(game, player, program, cfg.eval.games, cfg.seed,
                                cfg.eval.opening_plies)]
    elif cfg.opponent:
        rival, name = game_opponent(game, cfg.opponent, cfg.seed + 1) or (
            build_agent(game, cfg, "az", cfg.opponent, seed=cfg.seed + 1),
            f"checkpoint {Path(cfg.opponent).name}")
        result = play_match(game, player, rival, cfg.eval.games, cfg.seed,
                            opening_plies=cfg.eval.opening_plies)
        rows = [result_row(name, result)]
    else:
        rows = ladder(game, player, levels, cfg.eval.games, cfg.seed, cfg.eval.opening_plies)
    if cfg.solver_positions:
        rows += solver_rows(game, player, levels, cfg)
    report = {"game": game.name, "game_params": game.params(),
              "checkpoint": str(cfg.checkpoint or "shipped default"),
              "simulations": cfg.mcts.simulations, "precision": player.inference.precision,
              "opening_plies": cfg.eval.opening_plies, "seed": cfg.seed,
              "advisors": {a.name: a.setting_value for a in player.advisors}, "rows": rows}
    if program_command(cfg.opponent) is not None:
        report["gtp"] = OmegaConf.to_container(cfg.gtp)
    checkpoint.save_json_atomic(report, out_dir / "ladder.json")
    return report


def main(argv: list[str]) -> None:
    """`python -m alphazero.evaluate ARGV` (its __main__ checks the command line first)."""
    out_dir = None
    try:
        cfg, game_choice = command_tree("evaluate", argv)
        out_dir = output_folder(cfg.out_dir, game_choice, "evaluate")
        report = run(cfg, out_dir)
    except (ConfigError, GameError, checkpoint.CheckpointError) as error:
        if out_dir is not None:
            checkpoint.discard_run_folder(out_dir)  # ladder.json is written last: nothing to keep
        print(f"error: {error}", file=sys.stderr)
        sys.exit(2)
    rows = report["rows"]
    print(f"{report['simulations']} simulations per move, network in {report['precision']}")
    matches = [r for r in rows if "solver" not in r]
    if matches:  # none with 'eval.levels=[]' and the solver measure alone
        print(format_table(matches))
    for r in rows:
        if "forfeits" in r:
            print(format_program_line(r))
    stage_rows = [r for r in rows if r.get("kind") == "stages"]
    if stage_rows:
        print(format_stage_table(stage_rows))
    for r in rows:
        if "solver" in r and r["kind"] != "stages":
            exact = (f"optimal moves {r['optimal']:.3f}, " if "optimal" in r else "")
            misses = (f"{r['weaker_wins']} weaker wins, {r['worse_losses']} worse losses, "
                      if "optimal" in r else "")
            print(f"{r['solver']:<22} {exact}outcome-keeping {r['outcome_keeping']:.3f} on "
                  f"{r['positions']} solved {r['kind']} positions (misses: {misses}"
                  f"{r['dropped']} dropped outcomes)")
    print(f"written: {out_dir / 'ladder.json'}")

