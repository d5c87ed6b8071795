"""Playing against the agent in a terminal: the I/O loop driven directly and through stdin."""
import subprocess
import sys
from pathlib import Path

import numpy as np
import pytest

from alphazero.nn import checkpoint
from alphazero.config.settings import build_game
from alphazero.agent.build import build_agent
from alphazero.nn.precision import candidate_paths
from games import FIRST_WON, ONGOING, make_game

from helpers import PURE

ROOT = Path(__file__).resolve().parents[1]


def test_refused_moves_leave_the_game_unchanged_and_ask_again(compose_config, play_script):
    cfg = compose_config("play", "game=connect4_classic", *PURE)
    result, text, state = play_script(cfg, "abc\n9\n\n4\n")
    assert result is None and text.endswith("Game abandoned.\n")
    assert "refused: 'abc' is not a connect4 move; give a column number from 1 to 7." in text
    assert "refused: column 9 is off the board; columns go from 1 to 7." in text
    assert text.count("refused") == 2
    # Only column 4 and the agent's answer were played.
    assert text.count("agent plays") == 1 and "for the agent)" in text
    assert build_game(cfg).ply(state) == 2


def test_a_scripted_game_is_played_to_its_result(compose_config, play_script):
    cfg = compose_config("play", "game=connect4_classic", *PURE)
    # Cycle through the columns until the game ends; full columns are refused on the way.
    result, text, state = play_script(cfg, "1\n2\n3\n4\n5\n6\n7\n" * 30)
    assert result is not None and result != ONGOING
    assert text.rstrip().splitlines()[-1] in ("Result: Red wins: you.", "Result: Yellow wins: the agent.",
                                              "Result: draw.")


def test_help_hint_and_undo_in_the_games_colours(compose_config, play_script):
    cfg = compose_config("play", "game=connect4_classic", *PURE)
    _, text, state = play_script(cfg, "undo\nhelp\nhint\n4\nundo\nundo\nquit\n")
    assert text.startswith("You play Red (X), first, against the agent's Yellow (O).")
    assert "Legend: X Red, O Yellow." in text and "black" not in text.lower()
    assert text.count("Nothing to undo: you have not moved yet.") == 2  # before moving, and after
    assert "Type your move as the board labels it, e.g. 4." in text
    assert all(f"  {command} " in text for command in ("hint", "undo", "help", "quit"))
    hint = text.split("hint: ")[1].split()[0]
    assert hint in "1234567" and "(the agent's search for Red; not played)" in text
    reply = text.split("agent plays ")[1].split()[0]
    assert text.count("agent plays") == 1  # the hint played nothing
    assert f"Took back 4 (Red), {reply} (Yellow)." in text
    replied = text.split("agent plays ")[1].split("your move> ")[0]
    assert replied.count("(O)") == 1 and "Legend: X Red, O Yellow, ( ) the last move." in replied
    assert build_game(cfg).ply(state) == 0


def test_the_last_move_and_the_winning_line_are_marked(compose_config, play_script):
    cfg = compose_config("play", "game=connect4_classic", *PURE)
    game = build_game(cfg)
    state = game.play_moves(game.new_state(), ["1", "2", "1", "2", "1", "2"])
    result, text, _ = play_script(cfg, "1\n", state=state)
    after = text.split("your move> ")[1]
    board = after.splitlines()[:8]
    assert [line[:3] for line in board[2:6]] == ["[X]"] * 4 and "\n".join(board).count("[") == 4
    assert "Legend: X Red, O Yellow, ( ) the last move, [ ] the winning line." in after
    assert result == FIRST_WON and after.rstrip().endswith("Result: Red wins: you.")


def test_a_course_board_says_what_the_forbidden_cell_is(compose_config, play_script):
    cfg = compose_config("play", "game=connect4", *PURE)
    _, text, state = play_script(cfg, "quit\n")
    row, col = build_game(cfg).board_params(state)["forbidden"]
    assert f"# is the forbidden cell: column {col + 1}, row {row + 1} from the top" in text
    assert "#: This is the forbidden cell: no disc may fill it" in text


def test_human_second_lets_the_agent_open(compose_config, play_script):
    cfg = compose_config("play", "game=connect4_classic", *PURE)
    _, text, _ = play_script(cfg, "quit\n", seat=1)
    assert text.splitlines()[1].startswith("agent plays ")


def test_connect6_turn_is_two_prompts_and_two_agent_stones(compose_config, play_script):
    cfg = compose_config("play", "game=connect6", "game.params.size=6", *PURE)
    _, text, _ = play_script(cfg, "A1\nA1\nB1\nC1\n")
    assert "refused: A1 is already occupied." in text
    # Opening stone; the agent's pair; a refusal, then the human's pair; the agent's pair.
    turns = [line.split()[0] for line in text.replace("your move> ", "\nyour\n").splitlines()
             if line.startswith(("your", "agent", "refused"))]
    assert turns == ["your", "agent", "agent", "your", "refused:", "your", "your",
                     "agent", "agent", "your"]
    assert "stone 1 of 2" in text and "stone 2 of 2" in text


def test_a_connect6_turn_on_one_line(compose_config, play_script):
    cfg = compose_config("play", "game=connect6", "game.params.size=6", *PURE)
    _, text, state = play_script(cfg, "A1 B1\nA1\nhelp\nhint\nA1 B1\nC1 D1\nE1 F1 A2\nquit\n")
    assert "refused: your turn ends after A1; type one turn at a time." in text
    example = text.split("e.g. ")[1].split(" (")[0]
    assert len(example.split()) == 2 and "(a whole turn on one line, or a stone a prompt)" in text
    assert len(text.split("hint: ")[1].split("(")[0].split()) == 2
    assert "refused: A1 is already occupied." in text
    assert "refused: your turn ends after E1 F1; type one turn at a time." in text
    # A1; the agent's two; C1 D1 together; the agent's two; E1 F1 A2 refused whole
    assert build_game(cfg).ply(state) == 5 + 2 * (text.count("agent plays") == 4)
    assert text.count("agent plays") == 4


def test_othello_forced_pass_is_announced_and_accepted(compose_config, forced_pass_moves, play_script):
    cfg = compose_config("play", "game=othello", *PURE)
    game = build_game(cfg)
    state = game.play_moves(game.new_state(), forced_pass_moves(game))
    corners = (0, 7, 56, 63)
    empty = [game.format_move(state, a) for a in range(64)
             if game.board(state).flat[a] == 0 and a not in corners][0]
    _, text, _ = play_script(cfg, f"{empty}\npass\n", seat=game.to_move(state), state=state)
    assert "You have no legal move and must pass: type pass." in text
    assert f"refused: {empty}" in text and "(this side has no move and must pass)" in text
    # A forced pass means the other side can move: the agent answers at once.
    assert text.split("your move>")[2].startswith(" agent plays ")


def test_az_player_from_a_checkpoint(tmp_path, compose_config, play_script, tiny_checkpoint):
    cfg = compose_config("play", "game=connect4_classic", "mcts.simulations=8")
    cfg.checkpoint = str(tiny_checkpoint(tmp_path / "latest.pt", build_game(cfg)))
    _, text, _ = play_script(cfg, "4\n")
    assert "agent plays" in text


def run_play(*overrides, stdin: str):
    return subprocess.run([sys.executable, "-m", "alphazero.play", *overrides], cwd=ROOT,
                          input=stdin, capture_output=True, text=True, timeout=120)


@pytest.mark.integration
def test_play_through_stdin_draws_the_board_with_the_seed():
    result = run_play("game=connect4", "seed=5", *PURE, stdin="x\n1\nquit\n")
    assert result.returncode == 0, result.stderr
    game = make_game("connect4")
    assert game.render(game.new_state(np.random.default_rng(5))) in result.stdout
    assert "refused: 'x' is not a connect4 move" in result.stdout
    assert "agent plays" in result.stdout and "Game abandoned." in result.stdout


@pytest.mark.integration
@pytest.mark.parametrize("overrides,words", [
    (["game=connect4", "game.params.rows=5", "game.params.cols=5"], "no shipped network plays Connect-4, 5×5"),
    (["human=third", "player=pure"], "human must be one of first, second"),
])
def test_setup_errors_are_one_line_and_exit_2(overrides, words):
    result = run_play(*overrides, stdin="")
    assert result.returncode == 2
    assert result.stderr.startswith("error: ") and words in result.stderr
    assert result.stderr.count("\n") == 1


@pytest.mark.parametrize("key, trained, given, default", [("discount", 0.95, 0.8, 1.0)])
def test_agent_searches_with_the_value_settings_its_network_was_trained_with(
        tmp_path, key, trained, given, default, compose_config, tiny_checkpoint):
    """mcts.discount null takes the checkpoint's training value (off when it has none), so a
    network's values mean what its search expects; an explicit setting still wins."""
    game = make_game("connect4", rows=6, cols=7)
    plain = tiny_checkpoint(tmp_path / "plain.pt", game)
    trained_with = checkpoint.load(plain) | {"config": {"mcts": {key: trained}}}
    checkpoint.save_atomic(trained_with, tmp_path / "trained.pt")
    for path, overrides, expected in [(plain, [], default), (tmp_path / "trained.pt", [], trained),
                                      (tmp_path / "trained.pt", [f"mcts.{key}={given}"], given)]:
        cfg = compose_config("play", "game=connect4_classic", f"checkpoint={path}", *overrides)
        assert getattr(build_agent(game, cfg).search_config, key) == expected


def test_the_recipes_train_in_the_precision_they_were_measured_in(compose_config):
    for game in ("connect6", "othello", "othello_standard", "gomoku8"):
        cfg = compose_config("config", f"game={game}")
        assert (cfg.selfplay.precision, cfg.train.precision) == ("float32", "float32")
    classic = compose_config("config", "game=connect4_classic")  # `auto` won at equal minutes
    assert (classic.selfplay.precision, classic.train.precision) == ("auto", "auto")
    bare = compose_config("config", "game=connect6", "selfplay.precision=auto", "train.precision=auto")
    assert (bare.selfplay.precision, bare.train.precision) == ("auto", "auto")


@pytest.mark.parametrize("command", ["evaluate", "curve", "play", "engine"])
def test_every_command_chooses_the_networks_precision_unless_told(tmp_path, command, compose_config, tiny_checkpoint):
    """`auto` wherever a network plays: the fastest path on this CPU that agrees with float32
    (alphazero.nn.precision); float32 when asked, through ONNX Runtime."""
    cfg = compose_config(command, "game=connect4_classic", "device=cpu")
    assert cfg.selfplay.precision == "auto"
    path = tiny_checkpoint(tmp_path / "latest.pt", build_game(cfg))
    chosen = build_agent(build_game(cfg), cfg, "az", path).inference.precision
    assert chosen in {path[0] for path in candidate_paths()}
    told = compose_config(command, "game=connect4_classic", "device=cpu", "selfplay.precision=float32")
    inference = build_agent(build_game(told), told, "az", path).inference
    assert (inference.precision, inference.runtime) == ("float32", "onnxruntime")


def test_a_named_int8_runs_the_cached_network_quantized(tmp_path, compose_config, tiny_checkpoint):
    cfg = compose_config("play", "game=connect4_classic", "device=cpu", "selfplay.precision=int8")
    path = tiny_checkpoint(tmp_path / "latest.pt", build_game(cfg))
    agent = build_agent(build_game(cfg), cfg, "az", path)
    assert (agent.inference.precision, agent.inference.runtime) == ("int8", "onnxruntime")
    game = build_game(cfg)
    state = game.new_state(np.random.default_rng(0))
    priors, values = agent.inference(game.encode(state)[None], game.legal_mask(state)[None])
    assert priors.sum() == pytest.approx(1, abs=1e-5) and -1 <= values[0] <= 1


@pytest.mark.parametrize("game_name", ["connect6", "connect4", "connect4_classic", "othello"])
def test_shipped_network_is_the_default_and_plays_a_legal_move(game_name, compose_config):
    # The shipped files carry their own network sizes (e.g. batch-norm heads): replacing one
    # must keep it loadable by play, engine and evaluate without a checkpoint= argument.
    cfg = compose_config("play", f"game={game_name}", "mcts.simulations=16", "device=cpu")
    game = build_game(cfg)
    player = build_agent(game, cfg, "az")
    state = game.new_state(np.random.default_rng(0))
    action = int(player.best_actions(state[None])[0])
    assert game.legal_mask(state)[action]
