"""Gomoku through the tools no line of which knows it: the GTP engine, play in a terminal,
the evaluation ladder, bench and training (local and Ray pools, marked slow)."""
import json
import subprocess
import sys

import pytest

from alphazero.config.settings import build_game
from games import ONGOING, make_game

from helpers import PURE, ROOT, TINY

pytestmark = pytest.mark.integration  # play, evaluate, bench and train started as commands


def test_engine_session_sizes_moves_and_undo(make_engine, ok, refused):
    engine = make_engine("game=gomoku", *PURE)
    ok(engine, "boardsize 9")
    board = ok(engine, "showboard")
    assert board.splitlines()[0].startswith("9 ") and board.splitlines()[9].split()[-1] == "J"
    ok(engine, "set_game size=8")
    assert engine.game.params() == {"size": 8, "exact_five": False}
    ok(engine, "play b D4")
    assert refused(engine, "play b E5") == "it is White's turn (w), not Black's."
    assert refused(engine, "play w D4") == "D4 is already occupied."
    assert "there is no I" in refused(engine, "play w I4")
    ok(engine, "play w E5")
    reply = ok(engine, "genmove b")
    assert engine.game.ply(engine.state) == 3 and reply not in ("D4", "E5")
    ok(engine, "undo")
    assert engine.game.ply(engine.state) == 2
    assert "Black (X) to move." in ok(engine, "showboard")
    ok(engine, "set_game exact_five=true")
    assert engine.game.params() == {"size": 8, "exact_five": True}
    assert refused(engine, "boardsize 4") == "Gomoku is played here on boards from 5×5 to 19×19, not 4×4."
    ok(engine, "set_game gomoku rows=6 cols=9")
    assert (engine.game.height, engine.game.width) == (6, 9)
    assert "set them with set_game rows=R cols=C" in refused(engine, "boardsize 7")


def test_engine_completes_a_five_and_the_game_ends(make_engine, ok, refused):
    engine = make_engine("game=gomoku8", "player=pure", "pure.playouts=2000")
    for move in ("b A1", "w A8", "b B1", "w B8", "b C1", "w C8", "b D1", "w H5"):
        ok(engine, f"play {move}")
    assert ok(engine, "genmove b") == "E1"
    assert engine.game.status(engine.state) != ONGOING
    assert refused(engine, "genmove w") == "the game is over (Black won); clear_board starts a new one."


def test_engine_with_a_network_refuses_a_board_it_was_not_trained_for(tmp_path, make_engine, ok, refused, tiny_checkpoint):
    path = tiny_checkpoint(tmp_path / "latest.pt", make_game("gomoku", size=8))
    engine = make_engine("game=gomoku8", "player=az", f"checkpoint={path}", "mcts.simulations=8")
    move = ok(engine, "genmove b")
    assert engine.game.parse_move(engine.game.new_state(), move) >= 0
    reason = refused(engine, "boardsize 9")
    assert reason == f"the network in {path} plays Gomoku, 8×8, not Gomoku, 9×9."


def test_play_a_scripted_game_to_its_result(compose_config, play_script):
    cfg = compose_config("play", "game=gomoku8", *PURE)
    game = build_game(cfg)
    every_cell = "".join(f"{game.format_move(game.new_state(), a)}\n" for a in range(64))
    result, text, _ = play_script(cfg, every_cell)  # occupied cells are refused on the way
    assert result is not None and result != ONGOING
    assert text.rstrip().splitlines()[-1] in ("Result: Black wins: you.", "Result: White wins: the agent.",
                                              "Result: draw.")


def test_play_refuses_a_move_it_cannot_read_and_quits(compose_config, play_script):
    # the terminal loop in this process: tests/test_play.py runs the command through stdin
    cfg = compose_config("play", "game=gomoku8", *PURE)
    _, text, _ = play_script(cfg, "I3\nD4\nquit\n")
    assert "refused: 'I3' is not a Gomoku move" in text
    assert "agent plays" in text and "Game abandoned." in text


def test_evaluate_ladder_from_openings(tmp_path, tiny_checkpoint):
    path = tiny_checkpoint(tmp_path / "net.pt", make_game("gomoku", size=7))
    result = subprocess.run(
        [sys.executable, "-m", "alphazero.evaluate", "game=gomoku", "game.params.size=7",
         f"checkpoint={path}", "eval.levels=[20]", "eval.games=4", "eval.opening_plies=2",
         "mcts.simulations=32", f"out_dir={tmp_path}/run"],
        cwd=ROOT, capture_output=True, text=True, timeout=180)
    assert result.returncode == 0, result.stderr
    row = json.loads((tmp_path / "run" / "ladder.json").read_text())["rows"][0]
    assert row["level"] == 20 and row["wins"] + row["draws"] + row["losses"] == 4


def test_bench_pure_mcts_and_playouts():
    result = subprocess.run([sys.executable, "-m", "alphazero.bench", "pure", "game=gomoku",
                             "size=8", "seconds=0.5", "--json"],
                            cwd=ROOT, capture_output=True, text=True, timeout=180)
    assert result.returncode == 0, result.stderr
    rows = [json.loads(line) for line in result.stdout.splitlines() if line.startswith("{")]
    assert rows and all(row["game"] == "gomoku" for row in rows)


# The training tests' tiny settings on a 7x7 Gomoku board.
TINY_GOMOKU = [word for word in TINY if not word.startswith("game=")] + [
    "game=gomoku", "game.params.size=7", "train.max_games=16", "train.max_minutes=null",
    "eval.interval=0", "run_name=gomoku"]


@pytest.mark.slow
@pytest.mark.parametrize("pool", [["pool=local"], ["pool=ray", "selfplay.workers=1"]])
def test_training_runs_on_both_pools(tmp_path, pool):
    run = subprocess.run([sys.executable, "-m", "alphazero.train", *TINY_GOMOKU, *pool,
                          f"out_dir={tmp_path}/run", f"train.checkpoint_dir={tmp_path}"],
                         cwd=ROOT, capture_output=True, text=True, timeout=400)
    assert run.returncode == 0, run.stderr
    assert (tmp_path / "gomoku" / "latest.pt").is_file()


def test_set_game_turns_a_square_board_into_a_rectangle(make_engine, ok):
    engine = make_engine("game=gomoku8", *PURE)
    ok(engine, "set_game rows=6 cols=9")
    assert engine.game.params() == {"rows": 6, "cols": 9, "exact_five": False}
