"""Pons' six test sets of classic Connect-4: the shipped labels hold against this project's own
solver and Pons' score arithmetic, each set holds what its name says, and evaluate scores a
player on every set."""
import json
import subprocess
import sys

import numpy as np
import pytest

from alphazero.evaluate.judges import optimal_move_rate, stage_sets
from alphazero.config.errors import ConfigError
from games import ONGOING, make_game
from games.connect4.solver import Connect4Solver
from games.core.connect4_stage_sets import ILLEGAL_MOVE_SCORE, POSITIONS_FILE, SET_NAMES, stage_set
from helpers import ROOT, ScoredPlayer, needs_openspiel

CELLS = 42


def pons_moves_left(stones: int, best: int) -> int:
    """Moves to the end with perfect play from Pons' score alone: a win scored s ends with
    stone number n where s = (cells + 2 - n) // 2, the winner's stone (an odd distance for the
    side to move, an even one for its opponent); a draw fills the board."""
    if best == 0:
        return CELLS - stones
    ends = [n for n in range(stones + 1, CELLS + 1) if (CELLS + 2 - n) // 2 == abs(best)
            and (n - stones) % 2 == (1 if best > 0 else 0)]
    assert len(ends) == 1, (stones, best)
    return ends[0] - stones


@pytest.fixture(scope="module")
def entries():
    return json.loads(POSITIONS_FILE.read_text())["sets"]


def test_each_set_holds_a_few_hundred_positions_of_its_stage_and_distance(entries):
    assert list(entries) == list(SET_NAMES)
    for name, kept in entries.items():
        assert len(kept) >= 200, name
        assert len({e["moves"] for e in kept}) == len(kept)
        for e in kept:
            stones = len(e["moves"])
            best = max(s for s in e["scores"] if s is not None)
            assert e["moves_left"] == pons_moves_left(stones, best)
            assert stage_set(stones, e["moves_left"]) == name
        assert {e["source"] for e in kept} == {"network", "random"}


def test_late_labels_agree_with_this_projects_solver(entries):
    """BitBully labelled the file; games.connect4.solver, written apart, proves the same
    scores for a sample of positions with 26 or more stones (quick to prove)."""
    solver = Connect4Solver(6, 7)
    late = [e for kept in entries.values() for e in kept if len(e["moves"]) >= 26][::10][:40]
    assert len(late) >= 20
    for e in late:
        own = solver.move_scores([int(c) - 1 for c in e["moves"]])
        expected = [ILLEGAL_MOVE_SCORE if s is None else s for s in e["scores"]]
        np.testing.assert_array_equal(own, expected)


def test_the_perfect_player_makes_no_mistake_and_the_worst_many():
    game = make_game("connect4", rows=6, cols=7, forbidden=None)
    sets = stage_sets(game, 50)
    for states, values in sets.values():
        assert len(states) == 50 and all(game.status(s) == ONGOING for s in states)
    for name, (states, values) in sets.items():
        perfect = optimal_move_rate(ScoredPlayer(states, values, best=True), states, values)
        worst = optimal_move_rate(ScoredPlayer(states, values, best=False), states, values)
        assert perfect["dropped"] == 0 and perfect["optimal"] == 1.0
        assert worst["dropped"] > 0, name


def test_only_the_classic_board_has_stage_sets():
    with pytest.raises(ConfigError, match="classic Connect-4 positions: 6 rows, 7 columns"):
        stage_sets(make_game("connect4", rows=7, cols=8, forbidden=None), 5)
    with pytest.raises(ConfigError, match="solver_kind=stages is not for othello"):
        stage_sets(make_game("othello"), 5)


@pytest.mark.integration
def test_evaluate_prints_each_sets_mistakes(tmp_path):
    result = subprocess.run(
        [sys.executable, "-m", "alphazero.evaluate", "game=connect4_classic", "threads=1",
         "eval.levels=[]", "mcts.simulations=4", "solver_kind=stages", "solver_positions=3",
         "game.advisors.proven_outcomes=20000", f"out_dir={tmp_path}/run"],
        cwd=ROOT, capture_output=True, text=True, timeout=300)
    assert result.returncode == 0, result.stderr
    rows = json.loads((tmp_path / "run" / "ladder.json").read_text())["rows"]
    assert [r["solver"] for r in rows] == ["checkpoint", "checkpoint, search alone"]
    for r in rows:
        assert list(r["sets"]) == list(SET_NAMES)
        assert all(s["positions"] == 3 and 0 <= s["dropped"] <= 3 for s in r["sets"].values())
    assert "mistakes (moves that lose the exact outcome)" in result.stdout
    assert "begin-hard" in result.stdout and "% of 3" in result.stdout


@needs_openspiel
def test_openspiels_connect_four_is_judged_on_the_same_positions():
    """The bridge's network is measured where the native one is: each set's positions, played
    into OpenSpiel's Connect Four by their columns, are the same boards with the same legal
    columns and scores."""
    native = stage_sets(make_game("connect4", rows=6, cols=7, forbidden=None), 20)
    bridged_game = make_game("openspiel", game="connect_four")
    bridged = stage_sets(bridged_game, 20)
    for name, (states, values) in native.items():
        game = make_game("connect4", rows=6, cols=7, forbidden=None)
        bridged_states, bridged_values = bridged[name]
        for state, bridged_state in zip(states, bridged_states):
            assert bridged_game.status(bridged_state) == ONGOING
            assert bridged_game.drawn_board(bridged_state)[0] == game.drawn_board(state)[0]
            assert np.array_equal(game.legal_mask(state), bridged_game.legal_mask(bridged_state))
        assert all(np.array_equal(a, b) for a, b in zip(values, bridged_values))
    with pytest.raises(ConfigError, match="only connect_four"):
        stage_sets(make_game("openspiel", game="hex(board_size=5)"), 5)
