"""The side-by-side engine benchmark: real engine processes, the same moves alone and at once."""
import pytest

from alphazero.bench.engines import bench_engines, engine_overrides
from games import make_game

pytestmark = pytest.mark.integration  # engine processes


def test_engines_are_timed_alone_and_side_by_side():
    game = make_game("connect4", rows=6, cols=7)
    rows = bench_engines(game, {"simulations": 4, "moves": 2, "engines": 2})
    assert [row["engine"] for row in rows] == [0, 1]
    for row in rows:
        assert row["alone_s_per_move"] > 0 and row["side_by_side_s_per_move"] > 0
        assert row["ratio"] > 0 and row["moves"] == 2


def test_connect6_turns_of_two_stones_are_followed():
    rows = bench_engines(make_game("connect6", size=10), {"simulations": 4, "moves": 3, "engines": 1})
    assert rows[0]["moves"] == 3 and rows[0]["ratio"] > 0


def test_the_engines_get_the_games_config_and_board():
    game = make_game("connect4", rows=9, cols=10, forbidden=[4, 4])
    assert engine_overrides(game, {"simulations": 100}) == [
        "game=connect4", "game.params.rows=9", "game.params.cols=10",
        "game.params.forbidden=[4,4]", "mcts.simulations=100"]
    classic = make_game("connect4", rows=6, cols=7)
    assert engine_overrides(classic, {})[-1] == "mcts.simulations=800"  # connect4_classic's budget
