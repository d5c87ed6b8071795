"""The GTP engine: scripted sessions per game, refusals that change nothing, and stdin/stdout."""
import os
import subprocess
import sys
import time

import pytest

from games import make_game

from helpers import PURE, ROOT

REQUIRED_COMMANDS = ["protocol_version", "name", "version", "known_command", "list_commands",
                     "quit", "boardsize", "clear_board", "komi", "play", "genmove"]


def colour_to_move(engine) -> str:
    return "bw"[engine.game.to_move(engine.state)]


def test_protocol_commands_and_ids(make_engine, ok):
    engine = make_engine("game=connect4_classic", *PURE)
    assert engine.handle("12 protocol_version") == "=12 2\n\n"
    assert engine.handle("name") == "= alphazero-boardgames\n\n"
    assert ok(engine, "version")
    assert ok(engine, "list_commands").split() == list(engine.commands)
    assert set(REQUIRED_COMMANDS) <= set(engine.commands)
    assert ok(engine, "known_command genmove") == "true"
    assert ok(engine, "known_command fly") == "false"
    assert engine.handle("7 fly").startswith("?7 unknown command 'fly'")
    assert ok(engine, "komi 6.5") == ""
    assert engine.handle("3 quit") == "=3\n\n" and engine.stopped


def test_connect4_session(make_engine, ok, refused):
    engine = make_engine("game=connect4_classic", *PURE)
    assert "set_game rows=R cols=C" in refused(engine, "boardsize 9")
    ok(engine, "set_game rows=9 cols=10 forbidden=[4,4]")
    board = ok(engine, "showboard")
    assert " 10" in board and "#" in board
    # the forbidden cell named as the board numbers it, and its symbol in the legend
    assert "# is the forbidden cell: column 5, row 5 from the top (forbidden=[4, 4], counted from 0)." in board
    assert board.splitlines()[-1].startswith("Legend: X Red, O Yellow. #: This is the forbidden cell")
    ok(engine, "play b 4")
    assert refused(engine, "play b 5") == "it is Yellow's turn (w), not Red's."
    assert refused(engine, "play red 5") == "it is Yellow's turn (w), not Red's."
    assert "off the board" in refused(engine, "play w 11")
    assert "is not a connect4 move" in refused(engine, "play w 1.5")
    assert "no score before its end" in refused(engine, "final_score")
    before = ok(engine, "showboard")
    reply = ok(engine, "genmove w")
    assert reply in [str(c) for c in range(1, 11)]
    ok(engine, "undo")
    assert ok(engine, "showboard") == before
    for move in ["w 2", "b 4", "w 2", "b 4", "w 2", "b 4"]:  # Black's fourth stone in column 4
        ok(engine, f"play {move}")
    assert ok(engine, "final_score") == "B+1"
    over = "the game is over (Red won); clear_board starts a new one."
    assert refused(engine, "genmove w") == refused(engine, "play w 3") == over
    ok(engine, "clear_board")
    assert "Red (X) to move" in ok(engine, "showboard")
    assert refused(engine, "undo") == "there is no move to undo."


def test_connect6_pairs_and_board_sizes(make_engine, ok, refused):
    engine = make_engine("game=connect6", *PURE)
    assert refused(engine, "boardsize 25") == "Connect6 is played here on boards from 6×6 to 19×19, not 25×25."
    ok(engine, "boardsize 6")
    assert ok(engine, "showboard").splitlines()[-3].split() == list("ABCDEF")
    ok(engine, "play B A1")
    assert refused(engine, "play black B1") == "it is White's turn (w), not Black's."
    ok(engine, "play white A6")
    assert "already occupied" in refused(engine, "play w A6")
    assert "there is no I" in refused(engine, "play w I3")
    ok(engine, "play W B6")
    assert refused(engine, "genmove w") == "it is Black's turn (b), not White's."
    moves = [ok(engine, "genmove b"), ok(engine, "genmove b")]
    assert colour_to_move(engine) == "w" and len(set(moves)) == 2
    ok(engine, "undo")
    ok(engine, "undo")
    for move in ["b B1", "b C1", "w C6", "w D6", "b D1", "b E1", "w E6", "w F6"]:
        ok(engine, f"play {move}")
    assert ok(engine, "final_score") == "W+1"  # six in row 6
    assert refused(engine, "genmove b") == "the game is over (White won); clear_board starts a new one."


def test_othello_pass_score_and_rules(forced_pass_moves, make_engine, ok, refused):
    engine = make_engine("game=othello", *PURE)
    assert refused(engine, "boardsize 10") == "Othello is played on 8×8 only, not 10×10."
    ok(engine, "boardsize 8")
    ok(engine, "play b d4")
    assert refused(engine, "final_score") == "the game is not over; the disc difference so far is B+1."
    ok(engine, "clear_board")
    for move in forced_pass_moves(engine.game):
        ok(engine, f"play {colour_to_move(engine)} {move}")
    mover, game = colour_to_move(engine), engine.game
    empty = next(game.format_move(engine.state, cell) for cell in range(64)
                 if game.board(engine.state).flat[cell] == 0 and cell not in (0, 7, 56, 63))
    assert "must pass" in refused(engine, f"play {mover} {empty}")
    assert ok(engine, f"genmove {mover}") == "pass"
    ok(engine, "undo")
    ok(engine, f"play {mover} pass")
    assert colour_to_move(engine) != mover
    ok(engine, "set_game rules=standard")
    board = ok(engine, "showboard")
    assert "Black (X) 2, White (O) 2; standard rules." in board


def test_every_refusal_is_a_sentence_in_the_users_words(make_engine, refused):
    """Refusals name games, boards, colours and commands as the user knows them, never a
    parameter the user did not type (Gomoku's exact_five, its size=)."""
    from alphazero.engine_protocol import COMMAND_NAMES
    engine = make_engine("game=gomoku8", "mcts.simulations=8", "device=cpu")
    lines = ["boardsize 19", "set_game size=19", "boardsize 40", "boardsize x", "boardsize", "komi x",
             "komi", "fly", "play b", "play purple A1", "genmove", "undo", "final_score",
             "known_command", "play b Z9"]
    reasons = {line: refused(engine, line) for line in lines}
    assert reasons["boardsize 19"].startswith("no shipped network plays Gomoku, 19×19 (they play ")
    assert "Gomoku, 8×8" in reasons["boardsize 19"] and "player=pure" in reasons["boardsize 19"]
    assert reasons["set_game size=19"] == reasons["boardsize 19"]
    assert reasons["boardsize 40"] == "Gomoku is played here on boards from 5×5 to 19×19, not 40×40."
    assert reasons["play b"] == "play takes a colour and a move, e.g. play b A4."
    assert reasons["play purple A1"] == "'purple' is not a colour; use b or w (Black or White)."
    assert reasons["komi"] == "komi takes one argument, e.g. komi 6.5."
    for line, reason in reasons.items():
        words = reason
        for name in COMMAND_NAMES:
            words = words.replace(name, "")
        assert reason.endswith(".") and "_" not in words and "size=" not in words, (line, reason)


@pytest.mark.parametrize("line", ["", "   ", "# a comment"])
def test_empty_lines_get_no_answer(line, make_engine):
    engine = make_engine("game=connect4_classic", *PURE)
    assert engine.handle(line) is None


def test_garbage_is_refused_and_changes_nothing(make_engine, ok, refused):
    engine = make_engine("game=connect4_classic", *PURE)
    ok(engine, "play b 4")
    noise = bytes([0, 255, 7, 200, 65, 10, 13, 9, 128]).decode("utf-8", errors="replace")
    for line in [noise, "play", "play b", "play x 4", "play w", "play w 4 5", "genmove purple",
                 "genmove", "boardsize abc", "boardsize", "komi abc", "12", "known_command",
                 "set_game", "set_game rows", "set_game rows=[", "set_game rows=3",
                 "set_game chess", "set_game colour=red", "play w -1"]:
        refused(engine, line)
    assert ok(engine, "name") == "alphazero-boardgames"


def test_an_internal_error_is_reported_and_the_engine_goes_on(monkeypatch, make_engine, ok, refused):
    engine = make_engine("game=connect4_classic", *PURE)

    def broken(states):
        raise RuntimeError("search\n\nexploded")
    monkeypatch.setattr(engine.player, "best_actions", broken)
    assert refused(engine, "genmove b") == "internal error: RuntimeError: search exploded"
    monkeypatch.undo()
    ok(engine, "genmove b")


def test_az_player_and_a_checkpoint_for_another_board(tmp_path, make_engine, ok, refused, tiny_checkpoint):
    path = tiny_checkpoint(tmp_path / "latest.pt", make_game("connect4", rows=6, cols=7))
    engine = make_engine("game=connect4_classic", "player=az", f"checkpoint={path}",
                         "mcts.simulations=8")
    assert ok(engine, "genmove b") in [str(c) for c in range(1, 8)]
    assert refused(engine, "set_game rows=9 cols=10") == f"the network in {path} plays Connect-4, 6×7, not Connect-4, 9×10."


@pytest.mark.integration
def test_engine_over_stdin_and_stdout():
    session = "1 name\nplay b 4\n\nbogus\ngenmove w\n2 final_score\nquit\nname\n"
    result = subprocess.run([sys.executable, "-m", "alphazero.engine", "game=connect4_classic",
                             *PURE], cwd=ROOT, input=session, capture_output=True, text=True,
                            timeout=120)
    assert result.returncode == 0, result.stderr
    answers = result.stdout.split("\n\n")
    assert answers[:3] == ["=1 alphazero-boardgames", "=", "? unknown command 'bogus'; "
                                                           "list_commands shows them."]
    assert answers[3][2:] in [str(c) for c in range(1, 8)]
    assert answers[4].startswith("?2 ") and answers[5:] == ["=", ""]  # nothing after quit


# `python -m alphazero.engine`, saying on stderr at its end whether torch was imported
ENGINE_TELLING_TORCH = ("import runpy, sys; runpy.run_module('alphazero.engine', run_name='__main__'); "
                        "sys.stderr.write('torch was imported' * ('torch' in sys.modules))")


@pytest.mark.integration
def test_the_engine_command_switches_games_at_their_playing_budgets_from_its_caches():
    """Through the command, as a GTP controller starts it (unlike the engines built in the
    tests above): set_game and boardsize compose the other games' budgets inside it. A start
    with its caches warm (a first start fills them) compiles nothing, prepares no network and
    never imports torch: it says nothing on stderr but the network's path (said once a
    network, alphazero.nn.precision)."""
    session = "boardsize 12\nset_game connect4 rows=9 cols=10\ngenmove b\nquit\n"
    for _ in range(2):
        result = subprocess.run([sys.executable, "-c", ENGINE_TELLING_TORCH, "game=gomoku8"],
                                cwd=ROOT, input=session, capture_output=True, text=True, timeout=120)
        assert result.returncode == 0, result.stderr
        told = [line for line in result.stderr.splitlines() if not line.startswith("network in ")]
        if not told:
            break
    assert told == []
    answers = result.stdout.split("\n\n")
    assert answers[0].startswith("? no shipped network plays Gomoku, 12×12 (they play ")
    assert answers[1] == "=" and answers[2][2:] in [str(c) for c in range(1, 11)]
    assert answers[3:] == ["=", ""]


def advisor_names(engine) -> list[str]:
    return [advisor.name for advisor in engine.player.advisors]


def test_the_search_alone_holds_through_every_game_and_board_change(make_engine, ok):
    """`search_alone=true` measures the network's search alone: no set_game, board change or
    game change brings back the advisors the games' configs name."""
    engine = make_engine("game=othello", "search_alone=true", "mcts.simulations=8", "device=cpu")
    assert advisor_names(engine) == [] and engine.player.search_config.rollout_share == 0.0
    for line in ("set_game rules=course", "set_game connect6",
                 "boardsize 10", "set_game connect4 rows=6 cols=7 forbidden=null",
                 "set_game othello rules=course"):
        ok(engine, line)
        assert advisor_names(engine) == [], line
        assert engine.player.search_config.rollout_share == 0.0, line



@pytest.mark.integration
def test_the_engine_answers_a_gui_within_a_second_of_a_cold_start(tmp_path):
    """With empty caches (the network, the configs and the precision's speeds all prepared
    afresh), `protocol_version`, `name` and `list_commands` come back at once: GUIs and match
    tools give up on an engine that is silent for a few seconds. The first genmove waits for
    the start."""
    began = time.perf_counter()
    engine = subprocess.Popen([sys.executable, "-m", "alphazero.engine", "game=connect4_classic",
                               "mcts.simulations=8"], cwd=ROOT, text=True,
                              env={**os.environ, "XDG_CACHE_HOME": str(tmp_path)},
                              stdin=subprocess.PIPE, stdout=subprocess.PIPE, stderr=subprocess.PIPE)
    engine.stdin.write("protocol_version\nname\nlist_commands\ngenmove b\nquit\n")
    engine.stdin.flush()

    def next_answer() -> str:
        lines = []
        while (line := engine.stdout.readline()) not in ("\n", ""):
            lines.append(line)
        return "".join(lines).strip()
    early = [next_answer() for _ in range(3)]
    assert time.perf_counter() - began < 1.0
    assert early[:2] == ["= 2", "= alphazero-boardgames"]
    assert early[2].split("\n")[-1] == "final_score" and "genmove" in early[2]
    assert next_answer()[2:] in [str(c) for c in range(1, 8)] and next_answer() == "="
    engine.stdin.close()
    assert engine.wait(timeout=60) == 0


@pytest.mark.integration
def test_an_engine_that_cannot_start_says_why_without_waiting_for_a_command():
    engine = subprocess.Popen([sys.executable, "-m", "alphazero.engine", "game=connect4_classic",
                               "checkpoint=/no/such.pt"], cwd=ROOT, text=True,
                              stdin=subprocess.PIPE, stdout=subprocess.PIPE, stderr=subprocess.PIPE)
    try:  # stdin stays open: the engine ends by itself
        assert engine.wait(timeout=60) == 2
        assert engine.stderr.read() == "error: no checkpoint at /no/such.pt.\n"
    finally:
        engine.kill()
        engine.stdin.close()
