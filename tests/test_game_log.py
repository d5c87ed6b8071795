"""A run's kept self-play games: what is written reads back, bounded, after a kill and a resume."""
import numpy as np

from alphazero.config.settings import default_config
from alphazero.train import game_log
from alphazero.workers.selfplay import SelfPlayConfig, SelfPlayWorker
from games import ONGOING, make_game

from helpers import search_settings, uniform_network


def kept(index: int, moves: int = 10) -> dict:
    return {"index": index, "network": index // 4, "game": "connect4_classic",
            "params": {"rows": 6, "cols": 7, "forbidden": None}, "moves": ["4"] * moves,
            "values": [0.5] * moves, "result": "draw"}


def test_games_read_back_in_order_and_a_torn_last_line_is_skipped(tmp_path):
    assert game_log.read_games(tmp_path) == []
    game_log.write(tmp_path, [kept(0), kept(1)], max_bytes=10**6)
    game_log.write(tmp_path, [kept(2)], max_bytes=10**6)
    assert game_log.read_games(tmp_path) == [kept(0), kept(1), kept(2)]

    newest = sorted((tmp_path / "games").iterdir())[-1]
    with open(newest, "ab") as stream:  # a run killed in the middle of a write
        stream.write(b'{"index": 3, "network": 0, "mo')
    assert game_log.read_games(tmp_path) == [kept(0), kept(1), kept(2)]
    game_log.write(tmp_path, [kept(3)], max_bytes=10**6)  # the resumed run's next game
    assert game_log.read_games(tmp_path) == [kept(0), kept(1), kept(2), kept(3)]


def test_the_oldest_games_go_past_the_bound(tmp_path):
    line = len(game_log._lines([kept(0)]))
    bound = 40 * line
    for index in range(0, 200, 5):
        game_log.write(tmp_path, [kept(i) for i in range(index, index + 5)], max_bytes=bound)
        assert sum(p.stat().st_size for p in (tmp_path / "games").iterdir()) <= bound
    indices = [g["index"] for g in game_log.read_games(tmp_path)]
    assert indices == list(range(indices[0], 200))
    assert len(indices) >= 0.7 * 40  # a quarter of the bound goes at a time


def test_a_resumed_run_forgets_the_games_after_its_checkpoint(tmp_path):
    for index in range(0, 30, 3):
        game_log.write(tmp_path, [kept(i) for i in range(index, index + 3)], max_bytes=8 * 1024)
    game_log.forget_from(tmp_path, 20)
    assert [g["index"] for g in game_log.read_games(tmp_path)][-1] == 19
    game_log.forget_from(tmp_path, 0)  # a fresh run of the same name
    assert game_log.read_games(tmp_path) == []


def test_a_self_play_game_is_kept_in_notation_on_its_own_board():
    """A course Connect-4 board drawn per game: its params start that board, its moves replay
    on it in notation, and a value comes before each move."""
    game = make_game("connect4", rows=[4, 5], cols=[4, 6])
    settings = SelfPlayConfig.from_cfg(default_config(), simulations=4, games_in_parallel=4)
    worker = SelfPlayWorker(game, uniform_network, settings, search_settings(), seed=3)
    records = []
    while not records:
        records = worker.play_move()
    record = records[0]
    record.network = 7
    entry = game_log.entry(game, "connect4", record, index=12)
    assert entry["index"] == 12 and entry["network"] == 7 and entry["game"] == "connect4"
    board = make_game("connect4", **entry["params"])
    state = board.new_state(np.random.default_rng(0))
    assert np.array_equal(state, record.start)
    board.play_moves(state, entry["moves"])
    assert board.status(state) != ONGOING
    assert entry["result"] == {1: "black won", 2: "white won", 3: "draw"}[board.status(state)]
    assert len(entry["values"]) == len(entry["moves"])
    assert all(-1 <= v <= 1 for v in entry["values"])
