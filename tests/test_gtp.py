"""A GTP program as a match opponent (alphazero.evaluate.gtp), played against the small fake
program in tests/fake_gtp.py: whole matches, each fault losing one game, passes."""
import json
import subprocess
import sys
import time

import numpy as np
import pytest

from alphazero.config.command import command_config
from alphazero.agent.agent import PureMCTSAgent
from alphazero.config.errors import ConfigError
from alphazero.config.settings import validate
from alphazero.evaluate.gtp import GtpAgent
from alphazero.evaluate.match import play_match, program_row
from games import make_game

from helpers import ROOT, FirstLegalPlayer

FAKE = f"{sys.executable} {ROOT / 'tests' / 'fake_gtp.py'}"
PASS = 64  # Othello's pass action
FAULT = "--at 3"  # the program's first move in a game it would win (lowest_legal_match)
SMALL = ["game=connect4_classic", "game.params.rows=5", "game.params.cols=5", "mcts.simulations=8",
         "search_alone=true"]


@pytest.fixture
def connect4():
    return make_game("connect4", rows=5, cols=5)


def fake(tmp_path, *options):
    return " ".join([FAKE, "--log", str(tmp_path / "log"), *options])


def sent(tmp_path):
    return (tmp_path / "log").read_text().splitlines()


def test_a_program_plays_whole_matches_told_each_games_moves(tmp_path, connect4):
    with GtpAgent(connect4, fake(tmp_path), 10, 10) as program:
        row = program_row(connect4, PureMCTSAgent(connect4, 20, seed=1), program, 4, seed=0,
                          opening_plies=2)
    assert row["wins"] + row["draws"] + row["losses"] == row["games"] == 4
    assert row["forfeits"] == {"illegal": 0, "crash": 0, "timeout": 0}
    assert row["resignations"] == 0 and row["forfeit_notes"] == []
    assert row["program"] == "Fake 1.0" and row["opponent"] == fake(tmp_path)
    assert row["seconds_per_move"]["program"] > 0 and row["seconds_per_move"]["network"] > 0
    lines = sent(tmp_path)
    assert lines[:4] == ["list_commands", "set_game connect4 rows=5 cols=5 forbidden=null",
                         "name", "version"]
    assert lines.count("list_commands") == 1  # one process for the whole match
    assert any(line.startswith("play black ") for line in lines)
    assert any(line.startswith("genmove white") for line in lines)


def lowest_legal_match(connect4, program):
    """Four games of the lowest legal move against the program, the player first in games 0
    and 2. The program moves first in games 1 and 3, then in 0 and 2: its third genmove is
    in game 0, which it wins unless it fails there (FAULT)."""
    # the lowest legal action, as the fake program plays: the second player wins every game
    return play_match(connect4, FirstLegalPlayer(connect4), program, 4, seed=0)


def test_without_a_fault_each_side_wins_the_games_it_starts(tmp_path, connect4):
    with GtpAgent(connect4, fake(tmp_path), 10, 10) as program:
        result = lowest_legal_match(connect4, program)
    assert (result.wins, result.losses, result.as_first_player) == (2, 2, (0, 0, 2))


def test_an_illegal_answer_loses_that_game_and_the_match_goes_on(tmp_path, connect4):
    with GtpAgent(connect4, fake(tmp_path, f"--fault illegal {FAULT}"), 10, 10) as program:
        result = lowest_legal_match(connect4, program)
        report = program.report()
    assert (result.wins, result.losses) == (3, 1)  # game 1 lost by the program's fault
    assert report["forfeits"] == {"illegal": 1, "crash": 0, "timeout": 0}
    assert report["forfeit_notes"] == ["illegal: it answered '6' to genmove white: column 6 is "
                                       "off the board; columns go from 1 to 5."]
    assert sent(tmp_path).count("clear_board") >= 4  # its board is cleared after the fault


def test_a_resignation_loses_the_game_and_is_no_fault(tmp_path, connect4):
    with GtpAgent(connect4, fake(tmp_path, f"--fault resign {FAULT}"), 10, 10) as program:
        result = lowest_legal_match(connect4, program)
        report = program.report()
    assert (result.wins, result.losses) == (3, 1)
    assert report["resignations"] == 1 and report["forfeits"]["illegal"] == 0


def test_a_crash_loses_that_game_and_the_program_is_started_again(tmp_path, connect4):
    options = f"--fault crash {FAULT} --once {tmp_path / 'crashed'}"
    with GtpAgent(connect4, fake(tmp_path, options), 10, 10) as program:
        result = lowest_legal_match(connect4, program)
        report = program.report()
    assert (result.wins, result.losses) == (3, 1)
    assert report["forfeits"] == {"illegal": 0, "crash": 1, "timeout": 0}
    assert "exited with code 3 at 'genmove white'" in report["forfeit_notes"][0]
    assert "fake program: boom" in report["forfeit_notes"][0]
    assert sent(tmp_path).count("list_commands") == 2


def test_a_silent_program_loses_on_time_and_is_replaced(tmp_path, connect4):
    options = f"--fault slow {FAULT} --once {tmp_path / 'slept'}"
    started = time.monotonic()
    with GtpAgent(connect4, fake(tmp_path, options), 0.5, 10) as program:
        result = lowest_legal_match(connect4, program)
        report = program.report()
    assert time.monotonic() - started < 15  # not the 30 seconds it sleeps
    assert (result.wins, result.losses) == (3, 1)
    assert report["forfeits"] == {"illegal": 0, "crash": 0, "timeout": 1}
    assert report["forfeit_notes"] == ["timeout: no answer to 'genmove white' within 0.5 seconds."]


def othello_line_with_a_pass(game):
    """The moves of a seeded random game up to (not including) its first pass."""
    rng = np.random.default_rng(0)
    while True:
        state, moves = game.new_state(), []
        while game.status(state) == 0:
            legal = game.legal_list(state)
            if legal == [PASS]:
                return moves
            moves.append(int(rng.choice(legal)))
            game.play(state, moves[-1])


def test_a_program_that_refuses_play_pass_passes_by_itself(tmp_path):
    """As GRhino: `play COLOUR pass` refused, its own pass answered to genmove, and set_game
    only in the spelling of its list_games."""
    game = make_game("othello", rules="standard")
    before_pass = othello_line_with_a_pass(game)
    state = game.new_state()
    for move in before_pass:
        game.play(state, move)
    with GtpAgent(game, fake(tmp_path, "--game othello --no-pass"), 10, 20) as program:
        assert list(program.best_actions(state[None], [before_pass])) == [PASS]  # its own
        game.play(state, PASS)
        program.reset()  # its board cleared, then told every move again, the pass included
        answer = program.best_actions(state[None], [before_pass + [PASS]])
        assert game.legal_mask(state)[answer[0]]
        report = program.report()
    assert report["forfeits"] == {"illegal": 0, "crash": 0, "timeout": 0}
    lines = sent(tmp_path)
    assert lines[1:4] == ["set_game othello rules=standard", "list_games", "set_game Othello"]
    colour = "black" if game.to_move(state) == 1 else "white"  # the side that passed
    assert f"play {colour} pass" in lines


def test_a_program_that_cannot_start_is_one_sentence(connect4):
    with pytest.raises(ConfigError, match="cannot start 'no-such-gtp-program': No such file"):
        GtpAgent(connect4, "no-such-gtp-program", 10, 10)
    silent = f"{sys.executable} -c 'import time; time.sleep(30)'"
    with pytest.raises(ConfigError, match="no answer to 'list_commands' within 0.5 seconds"):
        GtpAgent(connect4, silent, 10, 0.5)


def test_a_board_drawn_for_each_game_is_refused():
    game = make_game("connect4", rows=[9, 12], cols=[9, 12])
    with pytest.raises(ConfigError, match="draws a board for each game"):
        GtpAgent(game, FAKE, 10, 10)


@pytest.mark.parametrize("override, message", [
    ("opponent=gtp:", "opponent=gtp: needs the program's command"),
    ("gtp.move_seconds=0", "gtp.move_seconds must be a number above 0"),
    ("gtp.start_seconds=soon", "gtp.start_seconds must be a number, not 'soon'"),
])
def test_bad_gtp_options_are_refused(override, message):
    with pytest.raises(ConfigError, match=message):  # a wrong type: when composed
        validate(command_config("evaluate", [*SMALL, override]))


@pytest.mark.integration
def test_evaluate_command_reports_the_program_row(tmp_path, tiny_checkpoint):
    net = tiny_checkpoint(tmp_path / "net.pt", make_game("connect4", rows=5, cols=5))
    command = f"{FAKE} --fault crash --at 2 --once {tmp_path / 'crashed'}"
    result = subprocess.run(
        [sys.executable, "-m", "alphazero.evaluate", *SMALL, f"checkpoint={net}",
         f"opponent='gtp:{command}'", "eval.games=4", "eval.opening_plies=2",
         f"out_dir={tmp_path}/run"],
        cwd=ROOT, capture_output=True, text=True, timeout=180)
    assert result.returncode == 0, result.stderr
    assert "Traceback" not in result.stderr
    report = json.loads((tmp_path / "run" / "ladder.json").read_text())
    [row] = report["rows"]
    assert row["opponent"] == command and row["games"] == 4
    assert row["forfeits"] == {"illegal": 0, "crash": 1, "timeout": 0}
    assert set(row["seconds_per_move"]) == {"network", "program"}
    assert report["gtp"] == {"move_seconds": 60, "start_seconds": 30}
    assert "by a crash: 1" in result.stdout and "(Fake 1.0)" in result.stdout


@pytest.mark.integration
def test_curve_plays_every_snapshot_against_the_program(tmp_path, tiny_checkpoint):
    from tensorboard.backend.event_processing.event_accumulator import EventAccumulator

    from alphazero.nn import checkpoint

    game = make_game("connect4", rows=5, cols=5)
    (tmp_path / "snaps").mkdir()
    for games in (8, 40):
        path = tiny_checkpoint(tmp_path / "snaps" / f"games_{games:07d}.pt", game)
        saved = checkpoint.load(path)
        checkpoint.save_atomic(saved | {"counters": {"games": games}}, path)
    result = subprocess.run(
        [sys.executable, "-m", "alphazero.curve", *SMALL, f"snapshots={tmp_path / 'snaps'}",
         f"opponent='gtp:{FAKE}'", "eval.games=2", f"out_dir={tmp_path}/run"],
        cwd=ROOT, capture_output=True, text=True, timeout=180)
    assert result.returncode == 0, result.stderr
    rows = json.loads((tmp_path / "run" / "curve.json").read_text())["rows"]
    assert [(r["self_play_games"], r["opponent"], r["games"]) for r in rows] == [
        (8, FAKE, 2), (40, FAKE, 2)]
    events = EventAccumulator(str(tmp_path / "run"))
    events.Reload()
    assert [e.step for e in events.Scalars("curve/win_rate_vs_program")] == [8, 40]
