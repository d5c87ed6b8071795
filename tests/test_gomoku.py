"""Gomoku core against a plain-Python reference: perft (wins and overlines inside the tree),
random games move by move, exact random playouts, the exact-five rule, rectangles, notation
and error messages. Symmetries and the rest of the game contract: tests/test_game_contract.py."""
from __future__ import annotations

import random
import subprocess
import sys

import numpy as np
import pytest

from games import DRAW, FIRST_WON, ONGOING, SECOND_WON, GameError, make_game
from games.core.perft import compiled
from games.core.rng import make_rng, rand_below

LETTERS = "ABCDEFGHJKLMNOPQRST"
DIRECTIONS = ((0, 1), (1, 0), (1, 1), (1, -1))


class Reference:
    """Gomoku written plainly: a list-of-lists board, the stone history, and after every
    stone a scan of the whole board for maximal runs of one colour."""

    def __init__(self, rows: int, cols: int, exact: bool = False):
        self.rows, self.cols, self.exact = rows, cols, exact
        self.board = [[0] * cols for _ in range(rows)]  # 0 empty, 1 black, 2 white
        self.history: list[tuple[int, int]] = []
        self.result = ONGOING

    def copy(self) -> "Reference":
        other = Reference(self.rows, self.cols, self.exact)
        other.board = [row[:] for row in self.board]
        other.history = list(self.history)
        other.result = self.result
        return other

    def player(self) -> int:
        return len(self.history) % 2

    def legal(self) -> list[int]:
        if self.result != ONGOING:
            return []
        return [r * self.cols + c for r in range(self.rows) for c in range(self.cols)
                if self.board[r][c] == 0]

    def inside(self, r: int, c: int) -> bool:
        return 0 <= r < self.rows and 0 <= c < self.cols

    def has_five(self, colour: int) -> bool:
        """A maximal run of five or more (exactly five under the exact rule)."""
        for r in range(self.rows):
            for c in range(self.cols):
                for dr, dc in DIRECTIONS:
                    starts_run = not (self.inside(r - dr, c - dc)
                                      and self.board[r - dr][c - dc] == colour)
                    if self.board[r][c] != colour or not starts_run:
                        continue
                    length = 0
                    while self.inside(r + length * dr, c + length * dc) and \
                            self.board[r + length * dr][c + length * dc] == colour:
                        length += 1
                    if length == 5 or (length > 5 and not self.exact):
                        return True
        return False

    def play(self, action: int) -> None:
        assert action in self.legal()
        colour = self.player() + 1
        row, col = divmod(action, self.cols)
        self.board[row][col] = colour
        self.history.append((row, col))
        if self.has_five(colour):
            self.result = FIRST_WON if colour == 1 else SECOND_WON
        elif len(self.history) == self.rows * self.cols:
            self.result = DRAW

    def planes(self) -> np.ndarray:
        me = self.player() + 1
        out = np.zeros((4, self.rows, self.cols), dtype=np.float32)
        for r in range(self.rows):
            for c in range(self.cols):
                if self.board[r][c] == me:
                    out[0, r, c] = 1
                elif self.board[r][c] != 0:
                    out[1, r, c] = 1
        if self.history:
            out[2][self.history[-1]] = 1
        out[3] = float(me == 1)
        return out

    def perft(self, depth: int) -> int:
        if depth == 0:
            return 1
        moves = self.legal()
        if depth == 1:
            return len(moves)
        total = 0
        for action in moves:
            child = self.copy()
            child.play(action)
            total += child.perft(depth - 1)
        return total


def action_of(rows: int, cols: int, text: str) -> int:
    return (rows - int(text[1:])) * cols + LETTERS.index(text[0])


def start(rows: int, cols: int, moves=(), exact: bool = False):
    """A core game and state and a reference, after `moves` in notation."""
    shape = {"size": rows} if rows == cols else {"rows": rows, "cols": cols}
    game = make_game("gomoku", **shape, exact_five=exact)
    state = game.play_moves(game.new_state(), moves)
    ref = Reference(rows, cols, exact)
    for move in moves:
        ref.play(action_of(rows, cols, move))
    return game, state, ref


def assert_same(game, state, ref: Reference) -> None:
    assert game.legal_list(state) == ref.legal()
    assert game.status(state) == ref.result
    assert game.to_move(state) == ref.player()
    assert game.ply(state) == len(ref.history)
    np.testing.assert_array_equal(game.encode(state), ref.planes())


def play_both(game, state, ref, action: int) -> None:
    game.play(state, action)
    ref.play(action)


# Black has four in a row on row 1 (A1-D1, E1 wins); White has four on row 6 (A6-D6).
NEAR_WIN_6 = ["A1", "A6", "B1", "B6", "C1", "C6", "D1", "D6"]
# Black X X X . X X on row 1 (D1 makes six, an overline) and C4-F4 on row 4 (B4 or G4 make
# five); White has X X X . X X on row 7 the same way. Black to move.
OVERLINE_7 = ["A1", "A7", "B1", "B7", "C1", "C7", "E1", "E7", "F1", "F7", "C4", "G2",
              "D4", "G3", "E4", "A5", "F4", "B6"]


# ---------------------------------------------------------------- perft


def test_perft_from_the_start_counts_every_cell():
    game, state, _ = start(9, 9)
    kernels = compiled(game)
    assert [kernels.perft(state, d, 81) for d in (1, 2, 3)] == [81, 81 * 80, 81 * 80 * 79]


@pytest.mark.parametrize("rows, cols, moves, exact, depth", [
    (5, 5, [], False, 3),
    (6, 6, NEAR_WIN_6, False, 3),           # Black wins at depth 1 and 3, White at 2
    (6, 6, NEAR_WIN_6[:-1], False, 3),      # White to move with three: wins further down
    (7, 7, OVERLINE_7, False, 3),           # D1 and D7 are overlines: wins here ...
    (7, 7, OVERLINE_7, True, 3),            # ... and not under the exact-five rule
    (5, 7, ["A1", "A5", "B1", "B5", "C1", "C5"], True, 3),  # a rectangle, three each
])
def test_perft_matches_reference(rows, cols, moves, exact, depth):
    game, state, ref = start(rows, cols, moves, exact)
    kernels = compiled(game)
    for d in range(1, depth + 1):
        assert kernels.perft(state, d, game.num_actions) == ref.perft(d), d


def test_the_overline_tree_differs_between_the_rules():
    """The perft positions above really put wins and overlines inside the tree."""
    for exact, winners in ((False, {"D1", "B4", "G4"}), (True, {"B4", "G4"})):
        game, state, ref = start(7, 7, OVERLINE_7, exact)
        wins = set()
        for action in ref.legal():
            child = ref.copy()
            child.play(action)
            if child.result == FIRST_WON:
                wins.add(game.format_move(state, action))
        assert wins == winners


@pytest.mark.integration
def test_cli_perft_with_moves_matches_reference():
    moves = "[" + ",".join(OVERLINE_7) + "]"
    result = subprocess.run([sys.executable, "-m", "games", "perft", "gomoku", "size=7",
                             "exact_five=true", f"moves={moves}", "2"],
                            capture_output=True, text=True, timeout=120)
    assert result.returncode == 0, result.stderr
    _, _, ref = start(7, 7, OVERLINE_7, exact=True)
    assert result.stdout.split("\n")[:2] == [f"perft 1 {ref.perft(1)}", f"perft 2 {ref.perft(2)}"]


# ---------------------------------------------------------------- random games


@pytest.mark.parametrize("rows, cols, exact, games", [
    (5, 5, False, 60), (6, 6, True, 40), (8, 8, False, 15), (6, 9, True, 20), (15, 15, False, 3)])
def test_random_games_move_by_move(rows, cols, exact, games):
    rng = random.Random(rows * 100 + cols)
    endings = set()
    for _ in range(games):
        game, state, ref = start(rows, cols, exact=exact)
        assert_same(game, state, ref)
        while ref.result == ONGOING:
            play_both(game, state, ref, rng.choice(ref.legal()))
            assert_same(game, state, ref)
        endings.add(ref.result)
    if (rows, cols) == (5, 5):
        assert endings == {FIRST_WON, SECOND_WON, DRAW}


def predicted_playout(game, state, ref: Reference, seed: int) -> np.ndarray:
    """The game random_playout plays with `seed`: Fisher-Yates over the empty cells in
    row-major order, each pick uniform over the cells not yet played."""
    rng = make_rng(seed)
    empties = ref.legal()
    expected = state.copy()
    last = len(empties) - 1
    while ref.result == ONGOING:
        pick = int(rand_below(rng, last + 1))
        empties[pick], empties[last] = empties[last], empties[pick]
        play_both(game, expected, ref, empties[last])
        last -= 1
    return expected


@pytest.mark.parametrize("rows, cols, exact", [(5, 5, False), (7, 7, True), (8, 8, False),
                                               (6, 11, True), (19, 19, False)])
def test_random_playout_is_the_uniform_game_it_should_be(rows, cols, exact):
    rng = random.Random(rows + cols)
    for seed in range(20):
        game, state, ref = start(rows, cols, exact=exact)
        while len(ref.history) < rng.randrange(0, rows * cols // 3) and ref.result == ONGOING:
            play_both(game, state, ref, rng.choice(ref.legal()))
        played = state.copy()
        result = game.random_playout(played, make_rng(seed))
        expected = predicted_playout(game, state, ref, seed)
        np.testing.assert_array_equal(played, expected)
        assert result == ref.result == game.status(played)


def test_random_playout_in_the_overline_position():
    for exact in (False, True):
        for seed in range(30):
            game, state, ref = start(7, 7, OVERLINE_7, exact)
            played = state.copy()
            game.random_playout(played, make_rng(seed))
            np.testing.assert_array_equal(played, predicted_playout(game, state, ref, seed))


# ---------------------------------------------------------------- rules


def test_five_wins_and_ends_the_game():
    game, state, ref = start(6, 6, NEAR_WIN_6)
    play_both(game, state, ref, action_of(6, 6, "E1"))
    assert_same(game, state, ref)
    assert game.status(state) == FIRST_WON and game.legal_list(state) == []
    with pytest.raises(GameError, match="game is over"):
        game.parse_move(state, "F1")


def test_white_wins_too():
    game, state, _ = start(6, 6, NEAR_WIN_6 + ["F3", "E6"])
    assert game.status(state) == SECOND_WON


@pytest.mark.parametrize("exact, result", [(False, FIRST_WON), (True, ONGOING)])
def test_overline(exact, result):
    game, state, ref = start(7, 7, OVERLINE_7, exact)
    play_both(game, state, ref, action_of(7, 7, "D1"))
    assert game.status(state) == ref.result == result


def test_exact_five_wins_beside_an_overline():
    """One stone that makes six in one line and exactly five in another wins under exact."""
    # Row 1: A1 B1 C1 . E1 F1; column D: D2 D3 D4 D5. D1 makes six across and five up.
    moves = ["A1", "A7", "B1", "B7", "C1", "C7", "E1", "E7", "F1", "G6", "D2", "G5",
             "D3", "G4", "D4", "A5", "D5", "A4"]
    game, state, ref = start(7, 7, moves, exact=True)
    play_both(game, state, ref, action_of(7, 7, "D1"))
    assert game.status(state) == ref.result == FIRST_WON


def test_full_board_is_a_draw():
    rng = random.Random(3)
    while True:  # random 5x5 games until one fills the board
        game, state, ref = start(5, 5)
        while ref.result == ONGOING:
            play_both(game, state, ref, rng.choice(ref.legal()))
        if ref.result == DRAW:
            break
    assert game.status(state) == DRAW and game.ply(state) == 25
    assert game.legal_list(state) == []


# ---------------------------------------------------------------- notation and parameters


def test_a1_is_the_bottom_left_corner_and_there_is_no_i():
    game, state, _ = start(9, 9)
    assert game.parse_move(state, "A1") == 72 and game.format_move(state, 72) == "A1"
    assert game.parse_move(state, "j9") == 8 and game.format_move(state, 8) == "J9"
    game, state, _ = start(5, 7)
    assert game.parse_move(state, "G5") == 6 and game.parse_move(state, "A1") == 28


@pytest.mark.parametrize("text, message", [
    ("I3", "not a Gomoku move"), ("3C", "not a Gomoku move"), ("", "not a Gomoku move"),
    ("K3", "off the 9x9 board"), ("A10", "off the 9x9 board")])
def test_bad_moves_are_one_sentence(text, message):
    game, state, _ = start(9, 9)
    with pytest.raises(GameError, match=message):
        game.parse_move(state, text)


def test_occupied_cell_is_refused():
    game, state, _ = start(9, 9, ["E5"])
    with pytest.raises(GameError, match="E5 is already occupied"):
        game.parse_move(state, "e5")


@pytest.mark.parametrize("params, message", [
    ({"size": 4}, "size=4 is out of range"), ({"size": 20}, "size=20 is out of range"),
    ({"rows": 9, "cols": 3}, "cols=3 is out of range"),
    ({"size": 9, "rows": 9}, "either size=N or rows=R cols=C"),
    ({"exact_five": "yes"}, "exact_five must be true or false"),
    ({"connect": 6}, "unknown parameter 'connect'")])
def test_bad_parameters_are_one_sentence(params, message):
    with pytest.raises(GameError, match=message):
        make_game("gomoku", **params)


def test_parameters_rebuild_the_game():
    assert make_game("gomoku").params() == {"size": 15, "exact_five": False}
    assert make_game("gomoku", rows=6, cols=9).params() == {"rows": 6, "cols": 9, "exact_five": False}
    assert make_game("gomoku", rows=8, cols=8).params() == {"size": 8, "exact_five": False}
    for params in ({"size": 8, "exact_five": True}, {"rows": 7, "cols": 12, "exact_five": False}):
        game = make_game("gomoku", **params)
        assert make_game("gomoku", **game.params()).params() == params


def test_symmetry_counts():
    assert make_game("gomoku", size=8).num_symmetries == 8
    assert make_game("gomoku", rows=6, cols=9).num_symmetries == 4
