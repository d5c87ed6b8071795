"""The measuring scripts in bench/ that docs/results.md quotes still run and print their JSON."""
import json
import subprocess
import sys

import numpy as np
import torch

from alphazero.nn import checkpoint
from alphazero.nn.network import build_model, resolve_runtime
from games import make_game
from tests.test_play import ROOT, tiny_checkpoint


def run_script_process(*args):
    return subprocess.run([sys.executable, *args], cwd=ROOT, capture_output=True, text=True,
                          timeout=240, env={"PYTHONPATH": str(ROOT), "PATH": "/usr/bin:/bin"})


def run_script(*args):
    result = run_script_process(*args)
    assert result.returncode == 0, result.stderr
    return [json.loads(line) for line in result.stdout.splitlines() if line.startswith("{")]


def test_move_time_times_the_shipped_networks_moves():
    (row,) = run_script("bench/move_time.py", "game=connect4_classic", "games=1", "mcts.simulations=8")
    assert row["simulations"] == 8 and row["moves"] > 0 and 0 < row["mean_s"] <= row["max_s"]
    # play searches in float32 (conf/play.yaml), which a CPU runs through ONNX Runtime
    assert row["runtime"] == resolve_runtime("auto", torch.device("cpu"), "float32")
    (row,) = run_script("bench/move_time.py", "game=connect4_classic", "games=1", "mcts.simulations=8",
                        "--torch")
    assert row["runtime"] == "torch" and row["moves"] > 0


def test_othellos_last_moves_are_timed_as_the_solvers():
    (row,) = run_script("bench/move_time.py", "game=othello", "games=1", "mcts.simulations=8")
    assert 0 < row["solved_moves"] < row["moves"]


def test_connect6_blunders_counts_games_with_an_ignored_forced_cell(tmp_path):
    """An untrained network with a tiny search loses to pure MCTS and misses sixes and blocks;
    with forced moves on it never does."""
    path = tiny_checkpoint(tmp_path / "c6.pt", make_game("connect6", size=10))
    args = ("bench/connect6_blunders.py", f"checkpoint={path}", "level=300", "games=2",
            "mcts.simulations=4", "threads=1")
    (off,) = run_script(*args, "game.forced_moves=false")
    assert off["losses"] >= 1 and off["ignored_a_forced_cell"]["lost"] >= 1, off
    (on,) = run_script(*args)
    assert on["forced_moves"] and sum(on["ignored_a_forced_cell"].values()) == 0, on
    for row in (off, on):  # stones under threat are counted in drawn games only
        assert (sum(row["drawn_games_stones_under_threat"].values()) > 0) <= (row["draws"] > 0)
        assert 0 <= row["drawn_games_deeper_wins"]["games"] <= row["draws"]
        assert len(row["drawn_games_last_window_closed"]) == row["draws"]


def test_othello_solver_speed_times_each_empty_count():
    rows = run_script("bench/othello_solver_speed.py", "positions=2", "empties=10")
    assert [row["empties"] for row in rows] == [10] and rows[0]["positions"] == 2
    assert 0 < rows[0]["best_move_mean_s"] <= rows[0]["best_move_max_s"]


def test_batch_shapes_times_fixed_and_changing_batches():
    (row,) = run_script("bench/batch_shapes.py", "game=connect4", "rows=6", "cols=7", "batch=16",
                        "seconds=0.2")
    assert row["fixed_batch_pos_per_s"] > 0 and row["changing_pos_per_s"] > 0
    assert row["padded_sizes"] < row["changing_sizes"] == 17


def test_average_snapshots_takes_the_mean_of_each_weight(tmp_path):
    import torch

    from alphazero.nn import checkpoint
    shipped = checkpoint.load(ROOT / "checkpoints/pretrained/connect4_classic.pt")
    halved = shipped | {"model": {key: value / 2 if value.is_floating_point() else value
                                  for key, value in shipped["model"].items()}}
    checkpoint.save_atomic(halved, tmp_path / "halved.pt")
    out = tmp_path / "mean.pt"
    run_script("bench/average_snapshots.py", str(out), str(ROOT / "checkpoints/pretrained/connect4_classic.pt"),
               str(tmp_path / "halved.pt"))
    mean = checkpoint.load(out)
    for key, value in shipped["model"].items():
        expected = value * 0.75 if value.is_floating_point() else value
        assert torch.allclose(mean["model"][key], expected), key
    assert mean["counters"] == shipped["counters"]


def test_average_snapshots_refuses_networks_of_different_shapes(tmp_path):
    result = run_script_process("bench/average_snapshots.py", str(tmp_path / "out.pt"),
                                str(ROOT / "checkpoints/pretrained/connect4_classic.pt"),
                                str(ROOT / "checkpoints/pretrained/connect6.pt"))
    assert result.returncode == 2 and "different network shapes" in result.stderr
    assert not (tmp_path / "out.pt").exists()


def test_endgame_margins_scores_each_heads_first_choice(tmp_path):
    game = make_game("othello", rules="course")
    torch.manual_seed(0)
    sizes = {"channels": [8], "ownership": True}
    checkpoint.save_atomic({"game": "othello", "game_params": game.params(), "model_kind": "cnn",
                            "model_sizes": sizes, "model": build_model("cnn", game, **sizes).state_dict()},
                           tmp_path / "owning.pt")
    owning, shipped = run_script("bench/endgame_margins.py", "positions=3", str(tmp_path / "owning.pt"),
                                 str(ROOT / "checkpoints/pretrained/othello.pt"))
    assert 0 <= owning["best_by_margin"] <= 1 and owning["margin_error_discs"] >= 0
    assert "best_by_margin" not in shipped and 0 <= shipped["best_by_value"] <= 1


def test_connect4_losses_proves_each_column_where_the_games_were_not_won(tmp_path):
    """An untrained network with a tiny search and no solver loses to pure MCTS. Each game
    it did not win gets a row per move; a lost game's last move lets the opponent win at
    once, which the solver proves."""
    path = tiny_checkpoint(tmp_path / "c4.pt", make_game("connect4", rows=6, cols=7,
                                                        forbidden=None))
    (row,) = run_script("bench/connect4_losses.py", f"checkpoint={path}", "level=300",
                        "games=2", "mcts.simulations=2", "threads=1", "nodes=300000",
                        "game.solver_nodes=0")
    wins, draws, losses = row["result"]
    assert wins + draws + losses == 2 and len(row["not_won"]) == draws + losses >= 1, row
    for game in row["not_won"]:
        stones = [move["stones"] for move in game["moves"]]
        assert stones == sorted(stones) and len(set(stones)) == len(stones), game
        for move in game["moves"]:
            assert len(move["columns"]) == 7 and move["played"] in move["columns"], move
            if 2 not in (move["best"], move["played"]):
                assert move["played"] <= move["best"], move
        if game["result"] == "loss":
            assert game["moves"][-1]["played"] == -1, game
        if game["thrown_at"] is not None:
            thrown = next(m for m in game["moves"] if m["stones"] == game["thrown_at"])
            assert thrown["played"] < thrown["best"] != 2, game
    bad = run_script_process("bench/connect4_losses.py", f"checkpoint={tmp_path / 'none.pt'}")
    assert bad.returncode == 2 and "no checkpoint" in bad.stderr and "Traceback" not in bad.stderr


def test_othello_losses_proves_where_each_lost_game_was_lost(tmp_path):
    """An untrained network with a tiny search loses to pure MCTS. From 14 empty cells on the
    agent plays the solver's best moves, so there a lost game's positions are lost, its
    moves keep the position's outcome, and its value is that outcome."""
    path = tiny_checkpoint(tmp_path / "oth.pt", make_game("othello", rules="course"))
    (row,) = run_script("bench/othello_losses.py", f"checkpoint={path}", "level=300", "games=2",
                        "mcts.simulations=2", "threads=1", "nodes=300000")
    assert row["losses"] == len(row["lost_games"]) >= 1, row
    for lost in row["lost_games"]:
        solved = [(outcome, played) for empties, outcome, played, _ in
                  lost["empties_outcome_move_nodes"] if empties <= 14]
        assert solved and all(outcome == played == -1 for outcome, played in solved), lost
        # the solver's moves report their exact outcome as the agent's value
        assert all(value == -1 for empties, value in lost["empties_value_of_each_search"]
                   if empties <= 14), lost
        assert 0 <= lost["final_discs"] <= 60
    bad = run_script_process("bench/othello_losses.py", f"checkpoint={tmp_path / 'none.pt'}")
    assert bad.returncode == 2 and "no checkpoint" in bad.stderr and "Traceback" not in bad.stderr


def test_connect6_drawn_game_probe_finds_a_proven_win_and_the_last_open_window():
    from bench.connect6_blunders import probe_drawn_game

    game = make_game("connect6", size=10)
    winning = np.zeros(100, dtype=np.int64)
    winning[[0, 1, 2, 3, 20, 21, 22, 23, 40, 41, 42]] = 1  # Black makes three threats or a six
    rows, cols = np.divmod(np.arange(100), 10)
    walled = np.where((rows % 3 == 2) | (cols % 3 == 2), 2, 0)  # a White stone in every window
    assert probe_drawn_game(game, [(1, winning)], 2, 1000) == (True, None)
    assert probe_drawn_game(game, [(1, walled)], 2, 1000) == (False, 49)
    assert probe_drawn_game(game, [(1, winning), (1, walled)], 2, 1000) == (True, 49)
    assert probe_drawn_game(game, [], 2, 1000) == (False, None)
