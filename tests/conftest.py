"""Shared test set-up: what more than one test module needs, as fixtures.

A test asks for a shared helper by naming it as an argument; no test module imports another.
The helpers that are functions come as session-scoped fixtures that return the function.
tests/helpers.py holds the rest, which test modules import by name because pytest hands
fixtures to test functions only: the lists `parametrize` reads while the tests are collected,
module constants built from them, and what a test file's reference classes and module-level
helpers are built on.

The fixtures import the product, and torch, inside their bodies: a module in the middle of a
change then fails the tests that use it, not the collection of every test, and the process
that hands out the tests to others (pytest -n) starts without them.
"""
import fcntl
import os
import shutil
import subprocess
import sys
from pathlib import Path

import numpy as np
import pytest

from helpers import KINDS, ROOT, SPEC, TINY

TINY_SIZES = {"channels": [4, 4], "policy_channels": 2, "value_channels": 1, "value_hidden": 8}


@pytest.fixture(autouse=True)
def one_torch_thread():
    # These nets are tiny, and OpenMP threads that spin-wait on cores shared with other
    # processes make a step up to ten times slower.
    import torch
    previous = torch.get_num_threads()
    torch.set_num_threads(1)
    yield
    torch.set_num_threads(previous)


# ----------------------------------------------------------------------------- configs and agents

@pytest.fixture(scope="session")
def compose_config():
    """compose_config(name, *overrides): conf/NAME.yaml composed with the overrides."""
    from hydra import compose, initialize_config_dir

    from alphazero.config.schema import register
    register()

    def compose_config(name: str, *overrides: str):
        with initialize_config_dir(version_base=None, config_dir=str(ROOT / "conf")):
            return compose(config_name=name, overrides=list(overrides))
    return compose_config


@pytest.fixture(scope="session")
def tiny_checkpoint():
    """tiny_checkpoint(path, game): an untrained network saved at `path` with the keys
    alphazero.train.loop writes to latest.pt; returns the path."""
    import torch

    from alphazero.nn import checkpoint
    from alphazero.nn.network import build_model

    def tiny_checkpoint(path: Path, game) -> Path:
        torch.manual_seed(0)
        model = build_model("cnn", game, **TINY_SIZES)
        checkpoint.save_atomic({"game": game.name, "game_params": game.params(), "model_kind": "cnn",
                                "model_sizes": TINY_SIZES, "model": model.state_dict()}, path)
        return path
    return tiny_checkpoint


@pytest.fixture(scope="session")
def play_script():
    """play_script(cfg, lines, seat=0, state=None): a terminal game against the agent of `cfg`
    fed `lines`, from `state` or a new one; returns (result, what was printed, the state)."""
    import io

    from alphazero.config.settings import build_game
    from alphazero.agent.build import build_agent
    from alphazero.play import play_match

    def play_script(cfg, lines: str, seat: int = 0, state=None):
        game = build_game(cfg)
        state = game.new_state(np.random.default_rng(0)) if state is None else state
        out = io.StringIO()
        result = play_match(game, build_agent(game, cfg), state, seat, io.StringIO(lines), out)
        return result, out.getvalue(), state
    return play_script


# ----------------------------------------------------------------------------- the GTP engine

@pytest.fixture(scope="session")
def make_engine(compose_config):
    """make_engine(*overrides): a GTP engine configured as `python -m alphazero.engine` is."""
    from alphazero.gtp_engine import GtpEngine

    def make_engine(*overrides):
        given = any(word.startswith("mcts.simulations=") for word in overrides)
        return GtpEngine(compose_config("engine", *overrides), follows_budget=not given)
    return make_engine


@pytest.fixture(scope="session")
def ok():
    """ok(engine, line): the answer text of a command that must succeed."""
    def ok(engine, line) -> str:
        response = engine.handle(line)
        assert response.startswith("=") and response.endswith("\n\n"), (line, response)
        return response[1:].strip()
    return ok


@pytest.fixture(scope="session")
def refused():
    """refused(engine, line): the reason of a command that must be refused, checking the board
    did not change."""
    def refused(engine, line) -> str:
        board = engine.handle("showboard")
        response = engine.handle(line)
        assert response.startswith("?") and response.endswith("\n\n"), (line, response)
        assert engine.handle("showboard") == board
        return response[1:].strip()
    return refused


# ----------------------------------------------------------------------------- positions

@pytest.fixture(scope="session")
def forced_pass_moves():
    """forced_pass_moves(game): moves (in notation) of a random game that reaches a position
    where the mover must pass."""
    from games import ONGOING

    def forced_pass_moves(game) -> list[str]:
        for seed in range(100):
            rng, state, moves = np.random.default_rng(seed), game.new_state(), []
            while game.status(state) == ONGOING:
                legal = game.legal_list(state)
                if [game.format_move(state, a) for a in legal] == ["pass"]:
                    return moves
                action = int(rng.choice(legal))
                moves.append(game.format_move(state, action))
                game.play(state, action)
        raise AssertionError("no random game reached a forced pass")
    return forced_pass_moves


@pytest.fixture(scope="session")
def endgame():
    """endgame(game, rng, empties): an Othello position reached by random play with `empties`
    playable empty cells, still going."""
    def endgame(game, rng, empties):
        return game.random_endgame(rng, empties)
    return endgame


@pytest.fixture(scope="session")
def random_moves_6x7():
    """random_moves_6x7(rng, stones): a random sequence of `stones` columns on the classic
    6 x 7 Connect-4 board after which the game is still on (rng: a random.Random)."""
    from games import ONGOING, make_game
    game = make_game("connect4", rows=6, cols=7, forbidden=None)

    def random_moves_6x7(rng, stones):
        while True:
            state, moves = game.new_state(), []
            for _ in range(stones):
                col = int(rng.choice(game.legal_list(state)))
                game.play(state, col)
                moves.append(col)
                if game.status(state) != ONGOING:
                    break
            else:
                return moves
    return random_moves_6x7


@pytest.fixture(scope="session")
def position():
    """position(name, params, moves): a new game `name` with `params`, and its state after
    `moves` in the game's notation."""
    from games import make_game

    def position(name, params, moves):
        game = make_game(name, **params)
        state = game.new_state(np.random.default_rng(0))
        game.play_moves(state, moves)
        return game, state
    return position


def forced_win(game, state, player, plies):
    """True if `player` can force a win within `plies` actions from `state`."""
    from games import ONGOING
    code = game.status(state)
    if code != ONGOING:
        return code == 1 + player
    if plies == 0:
        return False
    mover_is_player = game.to_move(state) == player
    outcomes = []
    for action in game.legal_list(state):
        child = state.copy()
        game.play(child, action)
        won = forced_win(game, child, player, plies - 1)
        if won and mover_is_player:
            return True
        outcomes.append(won)
    return not mover_is_player and all(outcomes)


def winning_moves_of(game, state, plies):
    player = game.to_move(state)
    wins = set()
    for action in game.legal_list(state):
        child = state.copy()
        game.play(child, action)
        if forced_win(game, child, player, plies - 1):
            wins.add(action)
    return wins


@pytest.fixture(scope="session")
def winning_moves():
    """winning_moves(game, state, plies): the mover's actions that force a win within `plies`
    actions (this one included), by exhaustive search."""
    return winning_moves_of


@pytest.fixture(scope="session")
def othello_pass_win():
    """othello_pass_win(seed=0): a course-rules Othello position whose only wins go through the
    opponent's forced pass: the mover cannot win with one move but can win in three plies
    (move, pass, move). Returns (game, state, the winning actions)."""
    from games import ONGOING, make_game

    def othello_pass_win(seed=0):
        game = make_game("othello", rules="course")
        rng = np.random.default_rng(seed)
        for _ in range(2000):
            state = game.new_state()
            while game.status(state) == ONGOING:
                legal = game.legal_list(state)
                if len(legal) <= 6 and not winning_moves_of(game, state, 1):
                    wins = winning_moves_of(game, state, 3)
                    through_pass = set()
                    for action in wins:
                        child = state.copy()
                        game.play(child, action)
                        if game.legal_list(child) == [64]:
                            through_pass.add(action)
                    if through_pass and through_pass == wins and len(wins) < len(legal):
                        return game, state, wins
                game.play(state, int(rng.choice(legal)))
        raise AssertionError("no Othello position with a win through a pass was found")
    return othello_pass_win


# ----------------------------------------------------------------------------- networks

@pytest.fixture(scope="session")
def make_network():
    """make_network(kind): a network of `kind` (helpers.KINDS) on helpers.SPEC, seeded, in
    eval mode."""
    import torch

    from alphazero.nn.network import build_model

    def make_network(kind: str) -> torch.nn.Module:
        torch.manual_seed(0)
        return build_model(kind, SPEC, **KINDS[kind]).eval()
    return make_network


@pytest.fixture(scope="session")
def random_batch():
    """random_batch(n, seed=0): (planes, legal) of `n` random positions of helpers.SPEC, each
    with at least one legal action."""
    def random_batch(n: int, seed: int = 0) -> tuple[np.ndarray, np.ndarray]:
        rng = np.random.default_rng(seed)
        planes = rng.integers(0, 2, (n, SPEC.planes, SPEC.height, SPEC.width)).astype(np.float32)
        legal = rng.random((n, SPEC.num_actions)) < 0.5
        legal[:, 0] = True  # at least one legal action per position
        return planes, legal
    return random_batch


# ----------------------------------------------------------------------------- training runs

@pytest.fixture(scope="session")
def train():
    """train(tmp_path, *overrides, timeout=240): `python -m alphazero.train` with helpers.TINY
    and the overrides, its logs in tmp_path/runs/N (N counts the runs) and its checkpoints in
    tmp_path/checkpoints; returns the finished process."""
    def train(tmp_path, *overrides, timeout=240):
        args = [sys.executable, "-m", "alphazero.train", *TINY,
                f"out_dir={tmp_path}/runs/{len(list(tmp_path.glob('runs/*')))}",
                f"train.checkpoint_dir={tmp_path}/checkpoints", *overrides]
        return subprocess.run(args, cwd=ROOT, capture_output=True, text=True, timeout=timeout)
    return train


@pytest.fixture(scope="session")
def tiny_run(tmp_path_factory, train):
    """A finished `train(folder, "train.max_games=24", "train.snapshot_games=8")`: its logs in
    runs/0 and its checkpoints in checkpoints/. Made once for all test processes, so read-only:
    a test that writes into it copies it first (shutil.copytree(tiny_run, tmp_path,
    dirs_exist_ok=True))."""
    base = tmp_path_factory.getbasetemp()
    shared = base.parent if os.environ.get("PYTEST_XDIST_WORKER") else base  # this session's
    folder, done = shared / "tiny_run", shared / "tiny_run.done"
    with open(shared / "tiny_run.lock", "w") as lock:
        fcntl.flock(lock, fcntl.LOCK_EX)  # the other test processes wait for this one's run
        if not done.exists():
            shutil.rmtree(folder, ignore_errors=True)  # what a failed attempt left
            folder.mkdir()
            result = train(folder, "train.max_games=24", "train.snapshot_games=8")
            assert result.returncode == 0, result.stderr
            done.touch()
    return folder


@pytest.fixture(scope="session")
def scalar_tags():
    """scalar_tags(run_dir): the names of the scalars a run logged to TensorBoard."""
    from tensorboard.backend.event_processing.event_accumulator import EventAccumulator

    def scalar_tags(run_dir):
        events = EventAccumulator(str(run_dir))
        events.Reload()
        return set(events.Tags()["scalars"])
    return scalar_tags
