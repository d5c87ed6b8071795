"""A training run's kept games on the web board (`python -m alphazero.serve run=FOLDER`):
the option's refusals, the list, and a game replayed on its own board, view only."""
import pytest

from alphazero.serve.__main__ import main
from alphazero.serve.replays import game_list, open_game
from alphazero.serve.session import VIEW_ONLY, Refusal
from alphazero.train import game_log


def kept(index, moves, result="black won", game="connect4_classic", params=None):
    return {"index": index, "network": 3, "game": game,
            "params": params or {"rows": 6, "cols": 7, "forbidden": None}, "moves": moves,
            "values": [0.5] * len(moves), "result": result}


def test_a_folder_without_kept_games_is_one_sentence_and_exit_status_2(tmp_path, capsys):
    for folder, words in ((tmp_path / "none", "there is no such folder"),
                          (tmp_path, "holds no kept self-play games")):
        with pytest.raises(SystemExit) as stop:
            main([f"run={folder}"])
        error = capsys.readouterr().err
        assert stop.value.code == 2 and words in error and len(error.splitlines()) == 1, error


def test_a_kept_game_replays_on_its_board_with_its_values_and_cannot_be_played(tmp_path):
    course = {"rows": 9, "cols": 10, "forbidden": [8, 0]}  # a course board drawn for one game
    game_log.write(tmp_path, [kept(5, ["4", "4", "3", "3", "2", "2", "1"]),
                              kept(6, ["1", "1"], "draw", "connect4", course),
                              {"index": 7, "moves": "torn"}], max_bytes=10**6)
    assert [(g["index"], g["length"], g["result"]) for g in game_list(tmp_path)] == [
        (5, 7, "black won"), (6, 2, "draw")]
    replay = open_game(tmp_path, 5)
    view = replay.view()
    assert view["result"] == "Red wins." and view["win_line"] == [35, 36, 37, 38]
    assert view["replay"] == {"index": 5, "network": 3, "values": [0.5, -0.5] * 3 + [0.5]}
    assert view["refusals"] == {} and not view["can_undo"] and not view["agent_to_move"]
    for refused in (lambda: replay.human_move(0, 0), replay.undo, lambda: replay.think(8)):
        with pytest.raises(Refusal, match=VIEW_ONLY):
            refused()
    assert replay.position(2)["rows"][-2:] == ["...O...", "...X..."]
    board = open_game(tmp_path, 6).view()
    assert [row[0] for row in board["rows"][-3:]] == ["O", "X", "#"]  # discs land on the #
    with pytest.raises(Refusal, match="keeps no game 7"):
        open_game(tmp_path, 7)
