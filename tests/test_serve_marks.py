"""What the web board marks and says, read through the game contract: coordinates that spell
each game's moves, the last turn's stones, the winning line, the turned discs, the words of a
refused click, and earlier positions of a game (alphazero.serve.board_view, move_marks and
session)."""
import numpy as np
import pytest

from alphazero.config.presets import load_presets, named_game
from alphazero.serve.board_view import board_view
from alphazero.serve.session import GameSession, Refusal
from games import ONGOING


# Every game whose coordinates spell its moves: OpenSpiel's name the mover in a move (x3, o3)
# or a piece's two cells (a5b4), so its cells are drawn without names.
PRESETS = sorted(key for key, preset in load_presets().items() if preset.game_name != "openspiel")


def session(key, moves="", seats=(0, 1), **params):
    game = named_game(key, **params)
    played = GameSession(key, game, game.new_state(np.random.default_rng(0)), None, "", set(seats), 2)
    played.setup(moves.split())
    return played


@pytest.mark.parametrize("key", PRESETS)
def test_the_coordinates_spell_every_legal_move_as_the_game_writes_it(key):
    game, rng = named_game(key), np.random.default_rng(1)
    state = game.new_state(rng)
    for _ in range(6):  # the start and a few random positions after it
        view = board_view(game, state)
        assert view.cell_names is not None and view.coordinates.columns
        for action, cell in view.targets.items():
            assert view.cell_names[cell] == game.format_move(state, action)
        game.play(state, int(rng.choice(game.legal_list(state))))
        if game.status(state) != ONGOING:
            break


def test_a_won_line_is_marked_with_the_last_turn():
    connect6 = session("connect6", "A1 A10 C10 B1 C1 E10 G10 D1 J5 A8 C8 E1 F1").view()
    assert connect6["result"] == "Black wins." and connect6["last_cells"] == [94, 95]
    assert connect6["win_line"] == [90, 91, 92, 93, 94, 95]
    diagonal = session("connect4_classic", "1 2 2 3 3 4 3 4 4 7 4").view()  # 1, 2, 3, 4 rising
    assert diagonal["result"] == "Red wins." and diagonal["win_line"] == [17, 23, 29, 35]
    gomoku = session("gomoku", "A1 A19 B1 B19 C1 C19 D1 D19 E1", size=19).view()
    assert gomoku["win_line"] == [342, 343, 344, 345, 346] and gomoku["last_cells"] == [346]
    assert session("gomoku8", "A1 A8 B1").view()["win_line"] == []  # not won
    # exact_five: E5 makes five in row 5 and six (no win) in column E; the five is marked
    exact = session("gomoku", "A5 A9 B5 B9 C5 C9 D5 D9 E2 G1 E3 H1 E4 J1 E6 G9 E7 J9 E5",
                    size=9, exact_five=True).view()
    assert exact["result"] == "Black wins." and exact["win_line"] == [36, 37, 38, 39, 40]


def test_othello_marks_the_turned_discs_and_no_line():
    played = session("othello_standard", "d3 c3")
    view = played.view()
    assert view["last_cells"] == [18] and view["turned"] == [27] and view["counts"] == [3, 3]
    moves, rng, game = played.history, np.random.default_rng(2), played.game
    while not played.over():
        played.human_move(int(rng.choice(game.legal_list(played.state))), played.to_move())
    assert played.view()["win_line"] == [] and any(ply.turned for ply in moves)


def test_earlier_positions_carry_their_own_marks():
    played = session("connect6", "F5 E6 E5 G7 H8")
    after_three = played.position(3)
    assert after_three["last_cells"] == [44, 54] and after_three["to_move"] == 0
    assert after_three["turn_stone"] == [1, 2] and played.position(4)["turn_stone"] == [2, 2]
    assert played.position(0)["last_cells"] == [] and played.position(5) == {
        k: v for k, v in played.view().items() if k in played.position(5)}
    for bad in (-1, 6, "2", True):
        with pytest.raises(Refusal, match="from 0 to 5"):
            played.position(bad)


def test_a_refused_click_is_explained_in_the_set_up_box_words():
    full = session("connect4", "1 1 1 1 1 1", seats=(0,), rows=6, cols=7, forbidden=[5, 3])
    reasons = full.view()["refusals"]
    assert {reasons[str(cell)] for cell in range(0, 42, 7)} == {"column 1 is full."}
    assert reasons["38"].startswith("This is the forbidden cell") and "3" not in reasons
    othello = session("othello").view()["refusals"]
    assert othello["0"] == "The corners are never played in course Othello."
    assert othello["1"] == "b1 is on the outer ring and flips no disc, so it is not a legal move."
    stones = session("connect6", "F5").view()["refusals"]
    assert stones == {"55": "F5 is already occupied."}
    assert session("connect6", "F5", seats=(0,)).view()["refusals"] == {}  # the agent's turn
