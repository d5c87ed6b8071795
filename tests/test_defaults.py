"""What a user gets without overriding anything: each game's recipe, its playing budget,
any course board, and threads chosen by the product."""
import subprocess
import sys

import pytest
import torch
from omegaconf import OmegaConf

from alphazero.config import threads
from alphazero.nn import checkpoint
from alphazero.config.errors import ConfigError
from alphazero.config.settings import build_game, validate
from alphazero.config.paths import CONF_DIR, PRETRAINED_DIR
from alphazero.agent.build import build_agent, default_checkpoint
from alphazero.search.puct import SearchConfig
from games import make_game

from helpers import ROOT

SHIPPED = sorted(path.stem for path in PRETRAINED_DIR.glob("*.pt"))
# run-specific keys of a saved config, and keys that only exist on one side: options added
# after a network was trained, or removed after it (at their off value when it was trained).
# eval.interval is the gate's, which only measures: some recipe runs ran without it. A run's
# length is minutes or games: some recipe runs were paired by games with others. Like threads,
# selfplay.workers says how a run spreads over the machine's cores: some ran three to a machine.
RUN_KEYS = {"run_name", "seed", "threads", "selfplay.workers", "train.resume",
            "train.checkpoint_dir", "train.max_minutes", "train.max_games", "eval.interval"}
# settings since removed, each with the value that is now the only behaviour
REMOVED_KEYS = {"selfplay.noise": True, "mcts.leaves_per_tree": 1, "mcts.dirichlet_alpha": None}


def flat(tree: dict, prefix: str = "") -> dict:
    out = {}
    for key, value in tree.items():
        if isinstance(value, dict):
            out.update(flat(value, f"{prefix}{key}."))
        else:
            out[prefix + key] = value
    return out


@pytest.mark.parametrize("name", SHIPPED)
def test_each_games_defaults_are_the_configuration_behind_its_shipped_network(name, compose_config):
    """`python -m alphazero.train game=NAME` composes what trained checkpoints/pretrained/NAME.pt."""
    saved = flat(checkpoint.load(PRETRAINED_DIR / f"{name}.pt")["config"])
    composed = flat(OmegaConf.to_container(compose_config("config", f"game={name}"), resolve=True))
    if saved.get("selfplay.precision") == "auto":  # saved when `auto` meant bfloat16 on a CPU
        del saved["selfplay.precision"]  # with AVX512-BF16, float32 elsewhere: not recorded
    for key, only in checkpoint.REMOVED_SIZES.items():  # network sizes since removed
        assert saved.pop(f"model.sizes.{key}", only) == only, key
    for key, only in REMOVED_KEYS.items():
        assert saved.pop(key, only) == only, key
    if any(games > 1 for games, _ in saved.get("train.lr_schedule") or []):
        # saved when stages were game counts: the same drops as shares of the run's games
        stages = [[games / saved["train.max_games"], lr]
                  for games, lr in saved.pop("train.lr_schedule")]
        assert composed.pop("train.lr_schedule") == [[pytest.approx(share, abs=1e-4), lr]
                                                     for share, lr in stages]
    shared = (saved.keys() & composed.keys()) - RUN_KEYS
    assert {k for k in shared if k.startswith(("mcts.", "selfplay.", "replay.", "train.", "eval.",
                                                "model.", "game."))} >= {"mcts.simulations", "train.lr"}
    differ = {key: (saved[key], composed[key]) for key in shared if saved[key] != composed[key]}
    assert not differ, f"conf/game/{name}.yaml differs from the shipped network's run: {differ}"


@pytest.mark.parametrize("command", ["play", "engine", "evaluate", "curve"])
def test_playing_and_measuring_search_with_the_games_playing_budget(command, compose_config):
    for game in ("connect6", "connect4", "connect4_classic", "othello"):
        cfg = compose_config(command, f"game={game}")
        assert cfg.mcts.simulations == cfg.game.play_simulations >= 800
    assert compose_config(command, "game=othello", "mcts.simulations=200").mcts.simulations == 200


@pytest.mark.parametrize("game", ["othello", "connect4"])
def test_the_agent_searches_with_random_playouts_and_self_play_without(game, compose_config):
    """The Othello and course Connect-4 agents users play mix one random playout into each
    leaf (0.25); training's own search, which makes the recipe's targets, does not."""
    cfg = compose_config("play", f"game={game}")
    assert build_agent(build_game(cfg), cfg, "az").search_config.rollout_share == 0.25
    training = compose_config("config", f"game={game}")
    assert SearchConfig.from_cfg(training.mcts).rollout_share == 0.0


def test_training_keeps_the_recipes_self_play_budget(compose_config):
    cfg = compose_config("config", "game=othello")
    assert cfg.mcts.simulations == 100 and cfg.game.play_simulations == 1600


@pytest.mark.parametrize("overrides,words", [
    (["mcts.simulations=0"], "mcts.simulations"),
    (["mcts.simulations=1"], "mcts.simulations"),  # one simulation expands the root, no more
    (["game.play_simulations=0"], "game.play_simulations"),
    (["threads=0"], "threads"),
    (["eval.gate=bogus"], "eval.gate"),
    (["pool.kind=ray"], "pool=ray"),
    (["train.optimizer=rmsprop"], "train.optimizer"),
    (["model.sizes.global_pool=yes"], "model.sizes.global_pool"),
    (["eval.levels=[0]"], "eval.levels"),
    (["human=middle"], "human must be one of first, second"),
])
def test_bad_settings_are_refused_before_any_work(overrides, words, compose_config):
    with pytest.raises(ConfigError, match=words.replace(".", r"\.")):
        validate(compose_config("play", *overrides))


def test_the_pool_is_a_config_group(compose_config):
    cfg = compose_config("config", "pool=ray")
    assert cfg.pool.kind == "ray" and cfg.pool.num_cpus == 1
    validate(cfg)


COURSE_BOARD = ["game=connect4", "game.params.rows=9", "game.params.cols=10",
                "game.params.forbidden=[4,4]"]


def test_the_course_network_plays_any_course_board(compose_config):
    course = PRETRAINED_DIR / "connect4.pt"
    for params in ({"rows": 9, "cols": 10, "forbidden": [4, 4]}, {"rows": 12, "cols": 9, "forbidden": None},
                   {"rows": [10, 11], "cols": 12, "forbidden": "random"}):
        assert default_checkpoint("connect4", make_game("connect4", **params).params()) == course
    assert default_checkpoint("connect4", {"rows": 6, "cols": 7, "forbidden": None}).name == "connect4_classic.pt"
    assert default_checkpoint("connect4", {"rows": 8, "cols": 10, "forbidden": None}) is None

    cfg = compose_config("play", *COURSE_BOARD, "mcts.simulations=16", "device=cpu")
    game = build_game(cfg)
    state = game.new_state()
    action = int(build_agent(game, cfg, "az").best_actions(state[None])[0])
    assert action in game.legal_list(state)


def test_the_engine_plays_a_course_board_set_by_set_game_and_refuses_one_outside_the_range(make_engine, ok, refused):
    engine = make_engine("game=connect4", "mcts.simulations=16", "device=cpu")
    ok(engine, "set_game rows=9 cols=10 forbidden=[4,4]")
    assert "#" in ok(engine, "showboard")
    assert int(ok(engine, "genmove b")) in range(1, 11)
    reason = refused(engine, "set_game rows=8 cols=10 forbidden=null")
    assert reason.startswith("no shipped network plays Connect-4, 8×10 (they play ")
    # the range it was trained on
    assert "Connect-4, course rules: 9-12 rows and columns, one forbidden cell" in reason
    assert engine.game.params() == {"rows": 9, "cols": 10, "forbidden": [4, 4]}


def test_threads_are_chosen_per_process(monkeypatch):
    before = torch.get_num_threads()
    try:
        assert threads.use_search_threads("auto") == 1 == torch.get_num_threads()
        monkeypatch.setattr(threads, "usable_cores", lambda: 6)
        assert threads.use_training_threads("auto", workers=0) == 6
        assert threads.use_training_threads("auto", workers=5) == 1
        assert threads.use_training_threads(3, workers=0) == 3
    finally:
        torch.set_num_threads(before)


@pytest.mark.integration
def test_an_unknown_group_choice_is_one_sentence_and_exit_2():
    result = subprocess.run([sys.executable, "-m", "alphazero.play", "game=chess"], cwd=ROOT,
                            capture_output=True, text=True, stdin=subprocess.DEVNULL, timeout=120)
    assert result.returncode == 2
    assert result.stderr == ("error: unknown game 'chess'; choose one of: "
                             + ", ".join(sorted(p.stem for p in (CONF_DIR / "game").glob("*.yaml")))
                             + ".\n")


def test_set_game_takes_the_new_games_advisors_for_its_agent(make_engine, ok):
    """Each game's own advisors, never the first game's: a Connect6 rule on an Othello
    board, or a classic Connect-4 solver on a course board, cannot play them."""
    def advisors(engine):
        return {advisor.name: advisor.setting_value for advisor in engine.player.advisors}

    engine = make_engine("game=connect6", "mcts.simulations=4", "device=cpu")
    assert advisors(engine) == {"forced_cells": True}
    ok(engine, "set_game othello")
    assert advisors(engine) == {"exact_endgame": 14, "leaf_rollouts": 0.25}
    ok(engine, "set_game connect4 rows=6 cols=7 forbidden=null")
    assert advisors(engine) == {"proven_outcomes": 4_000_000}
    assert int(ok(engine, "genmove b")) in range(1, 8)
    ok(engine, "set_game rows=9 cols=10 forbidden=[4,4]")  # the course network, no solver
    assert advisors(engine) == {"leaf_rollouts": 0.25}
    assert int(ok(engine, "genmove b")) in range(1, 11)


def test_set_game_takes_the_new_games_playing_budget_unless_one_was_given(compose_config, make_engine, ok):
    engine = make_engine("game=connect4_classic", "device=cpu")
    assert engine.player.simulations == 800
    ok(engine, "set_game rows=9 cols=10 forbidden=[4,4]")
    assert engine.player.simulations == compose_config("play", "game=connect4").game.play_simulations
    ok(engine, "set_game connect6")
    assert engine.player.simulations == compose_config("play", "game=connect6").game.play_simulations
    given = make_engine("game=connect4_classic", "mcts.simulations=16", "device=cpu")
    ok(given, "set_game connect6")
    assert given.player.simulations == 16


def test_the_settings_page_is_the_schemas_table():
    """docs/settings.md is generated from alphazero/config/schema.py: a changed default, range
    or meaning must be regenerated (`python -m alphazero.config.schema > docs/settings.md`)."""
    from alphazero.config.schema import reference
    assert (CONF_DIR.parent / "docs" / "settings.md").read_text() == reference()

