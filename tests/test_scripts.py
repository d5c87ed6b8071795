"""The measuring scripts in scripts/ that the docs quote still run and print their JSON; the
shell scripts, which take minutes, parse and name what exists."""
import json
import subprocess
import sys

import numpy as np
import pytest
import torch

from alphazero.nn import checkpoint
from alphazero.nn.precision import BF16_FLAGS, candidate_paths, cpu_flags
from games import make_game

from helpers import ROOT

pytestmark = pytest.mark.integration  # every script runs as a process


def run_script_process(*args):
    return subprocess.run([sys.executable, *args], cwd=ROOT, capture_output=True, text=True,
                          timeout=240, env={"PYTHONPATH": str(ROOT), "PATH": "/usr/bin:/bin"})


def run_script(*args):
    result = run_script_process(*args)
    assert result.returncode == 0, result.stderr
    return [json.loads(line) for line in result.stdout.splitlines() if line.startswith("{")]


def test_move_time_times_the_shipped_networks_moves():
    # The solver's advice within 20k nodes a move: its default 4M take seconds a move early on.
    args = ("scripts/move_time.py", "game=connect4_classic", "games=1", "mcts.simulations=8",
            "game.advisors.proven_outcomes=20000")
    (row,) = run_script(*args)
    assert row["simulations"] == 8 and row["moves"] > 0 and 0 < row["mean_s"] <= row["max_s"]
    # play's network runs its ONNX model on the path precision=auto chose on this CPU
    assert row["runtime"] in {runtime for _, runtime in candidate_paths()}
    (row,) = run_script(*args, "--torch")
    assert row["runtime"] == "torch" and row["moves"] > 0


def test_othellos_last_moves_are_timed_as_the_solvers():
    (row,) = run_script("scripts/move_time.py", "game=othello", "games=1", "mcts.simulations=8")
    assert 0 < row["solved_moves"] < row["moves"]


def test_connect6_blunders_counts_games_with_an_ignored_forced_cell(tmp_path, tiny_checkpoint):
    """An untrained network with a tiny search loses to pure MCTS and misses sixes and blocks;
    with forced moves on it never does."""
    path = tiny_checkpoint(tmp_path / "c6.pt", make_game("connect6", size=10))
    args = ("scripts/connect6_blunders.py", f"checkpoint={path}", "level=300", "games=2",
            "mcts.simulations=4", "threads=1")
    (off,) = run_script(*args, "search_alone=true")
    assert off["losses"] >= 1 and off["ignored_a_forced_cell"]["lost"] >= 1, off
    (on,) = run_script(*args)
    assert not on["search_alone"] and sum(on["ignored_a_forced_cell"].values()) == 0, on
    for row in (off, on):  # stones under threat are counted in drawn games only
        assert (sum(row["drawn_games_stones_under_threat"].values()) > 0) <= (row["draws"] > 0)
        assert 0 <= row["drawn_games_deeper_wins"]["games"] <= row["draws"]
        assert len(row["drawn_games_last_window_closed"]) == row["draws"]


def test_othello_solver_speed_times_each_empty_count():
    rows = run_script("scripts/othello_solver_speed.py", "positions=2", "empties=10")
    assert [row["empties"] for row in rows] == [10] and rows[0]["positions"] == 2
    assert 0 < rows[0]["best_move_mean_s"] <= rows[0]["best_move_max_s"]


def test_int8_quantized_measures_the_products_quantization():
    """Course Othello's network quantized as precision=auto's int8 path does it stays within
    the tolerance on the positions it was not calibrated on (docs/performance.md)."""
    (row,) = run_script("scripts/int8_quantized.py", "othello")
    assert row["network"] == "othello" and row["float_ends"]
    assert row["largest_differences"]["int8"]["value"] <= 0.05
    assert row["positions_per_s"]["int8"] > 0


def test_batch_shapes_times_fixed_and_changing_batches():
    (row,) = run_script("scripts/batch_shapes.py", "game=connect4", "rows=6", "cols=7", "batch=16",
                        "seconds=0.2")
    assert row["fixed_batch_pos_per_s"] > 0 and row["changing_pos_per_s"] > 0
    assert row["padded_sizes"] < row["changing_sizes"] == 17


def test_connect6_drawn_game_probe_finds_a_proven_win_and_the_last_open_window():
    from scripts.connect6_blunders import probe_drawn_game

    game = make_game("connect6", size=10)
    winning = np.zeros(100, dtype=np.int64)
    winning[[0, 1, 2, 3, 20, 21, 22, 23, 40, 41, 42]] = 1  # Black makes three threats or a six
    rows, cols = np.divmod(np.arange(100), 10)
    walled = np.where((rows % 3 == 2) | (cols % 3 == 2), 2, 0)  # a White stone in every window
    assert probe_drawn_game(game, [(1, winning)], 2, 1000) == (True, None)
    assert probe_drawn_game(game, [(1, walled)], 2, 1000) == (False, 49)
    assert probe_drawn_game(game, [(1, winning), (1, walled)], 2, 1000) == (True, 49)
    assert probe_drawn_game(game, [], 2, 1000) == (False, None)


def test_the_shell_scripts_parse_and_name_what_exists():
    """scripts/all.sh, gpu.sh, playouts.sh and othello_vs_c.sh take minutes (docs/performance.md
    quotes their tables), so here each one only parses, and every file, module and benchmark
    it runs is there."""
    import importlib.util
    import re

    from alphazero.bench.speeds import BENCHES

    for script in sorted((ROOT / "scripts").glob("*.sh")):
        assert subprocess.run(["bash", "-n", str(script)]).returncode == 0, script.name
        text = script.read_text()
        for path in re.findall(r"\b(?:scripts|tests)/[\w.]+\.\w+", text):
            assert (ROOT / path).is_file(), f"{script.name} runs {path}"
        for module in re.findall(r"-m (\w[\w.]*)", text):
            assert importlib.util.find_spec(module) is not None, f"{script.name} runs {module}"
        for kind in re.findall(r"-m alphazero\.bench (\w+)", text):
            assert kind in BENCHES, f"{script.name} runs the benchmark {kind}"


def test_precision_learning_compares_each_path_with_float32s_own_spread(tiny_run, tmp_path):
    """Each low-precision path this CPU has searches the network's self-play positions with
    float32's root noise, float32 once more with other noise; each training arm reports its
    held-out losses four times."""
    (latest,) = tiny_run.glob("checkpoints/*/latest.pt")
    saved = torch.load(latest, weights_only=True)
    # The tiny run's 8 simulations may visit each of the 7 columns once whatever the noise;
    # 32 give root noise room to move the visits.
    saved["config"]["mcts"]["simulations"] = 32
    torch.save(saved, tmp_path / "latest.pt")
    rows = run_script("scripts/precision_learning.py", str(tmp_path / "latest.pt"), "--positions",
                      "8", "--steps", "4", "--replay", str(latest.parent / "replay.pt"))
    targets = [row for row in rows if row["measure"] == "targets"]
    paths = {f"{precision} through {runtime}, same noise" for precision, runtime in candidate_paths()
             if precision != "float32"}
    if cpu_flags() & BF16_FLAGS:
        paths.add("bfloat16 through torch, same noise")
    assert targets[0]["search"] == "float32, other noise"
    assert {row["search"] for row in targets[1:]} == paths
    for row in targets:
        assert row["positions"] == 8 and 0 <= row["pi_total_variation"] <= row["pi_total_variation_p90"] <= 1
        assert 0 <= row["most_visited_differs"] <= 1 and row["q_difference"] >= 0
    assert targets[0]["pi_total_variation"] > 0  # other root noise moves 8-simulation searches
    steps = {row["training"]: row for row in rows if row["measure"] == "steps"}
    assert set(steps) == ({"float32", "bfloat16, same batches", "float32, other batches"}
                          if cpu_flags() & BF16_FLAGS else {"float32", "float32, other batches"})
    for row in steps.values():
        losses = row["held_out_value_policy_loss"]
        assert list(losses) == ["1", "2", "3", "4"] and all(v > 0 and p > 0 for v, p in losses.values())


def test_precision_learning_refuses_a_network_without_its_run_in_one_sentence(tmp_path,
                                                                              tiny_checkpoint):
    network_only = tiny_checkpoint(tmp_path / "net.pt", make_game("connect4"))
    result = run_script_process("scripts/precision_learning.py", str(network_only))
    assert result.returncode != 0 and "Traceback" not in result.stderr
    assert result.stderr.strip().endswith("or one of its snapshots.") and "settings" in result.stderr


def test_training_compute_counts_the_shipped_classic_connect4_run():
    path = "checkpoints/pretrained/connect4_classic.pt"
    (row,) = run_script("scripts/training_compute.py", path, "resnet=1x8")
    game = make_game("connect4", rows=6, cols=7, forbidden=None)
    cells, convs = 42, [game.planes, 32, 64, 128]
    body = sum(a * b * 9 * cells for a, b in zip(convs, convs[1:]))
    shipped = checkpoint.load(ROOT / path)
    value = shipped["model_sizes"]["value_channels"]  # the recipe's 32
    heads = 128 * 4 * cells + 4 * cells * 7 + 128 * value * cells + value * cells * 64 + 64
    assert row["multiply_adds"] == body + heads
    # a quarter of the moves searched with 200 simulations and recorded, the rest with 32
    assert row["simulations_per_ply"] == 0.25 * 200 + 0.75 * 32
    counters = shipped["counters"]
    assert row["games"] == counters["games"]
    # plies a game are printed to a tenth: within half of one a game
    assert row["plies_per_game"] * row["games"] == pytest.approx(4 * counters["positions"],
                                                                abs=0.05 * row["games"])
    tower = (game.planes * 8 + 2 * 8 * 8) * 9 * cells + (8 * 2 + 8) * cells
    tower += 2 * cells * 7 + cells * 8 + 8
    assert row["resnet"]["multiply_adds"] == tower


def test_training_compute_refuses_what_is_not_a_runs_checkpoint_in_one_sentence(tmp_path,
                                                                                tiny_checkpoint):
    result = run_script_process("scripts/training_compute.py", str(tmp_path / "none.pt"))
    assert result.returncode != 0 and "Traceback" not in result.stderr
    assert result.stderr.strip() == f"no checkpoint at {tmp_path / 'none.pt'}."
    network_only = tiny_checkpoint(tmp_path / "net.pt", make_game("connect4"))
    result = run_script_process("scripts/training_compute.py", str(network_only))
    assert result.returncode != 0 and "Traceback" not in result.stderr
    assert result.stderr.strip().count(". ") == 0 and "counters" in result.stderr
