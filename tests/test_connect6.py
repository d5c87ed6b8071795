"""Connect6 core against a plain-Python reference: perft, random games move by move, exact
random playouts, symmetries, edge cases, notation and error messages."""
from __future__ import annotations

import random
import subprocess
import sys

import numpy as np
import pytest

from games import DRAW, FIRST_WON, ONGOING, SECOND_WON, GameError, make_game
from games.core.perft import compiled
from games.core.rng import make_rng, rand_below

from helpers import game_order, turn_of

LETTERS = "ABCDEFGHJKLMNOPQRST"
DIRECTIONS = ((0, 1), (1, 0), (1, 1), (1, -1))


class Reference:
    """Connect6 written plainly: a list-of-lists board, the stone history, and a full-board
    scan for six in a row after every stone."""

    def __init__(self, size: int):
        self.size = size
        self.board = [[0] * size for _ in range(size)]  # 0 empty, 1 black, 2 white
        self.history: list[tuple[int, int]] = []
        self.result = ONGOING

    def copy(self) -> "Reference":
        other = Reference(self.size)
        other.board = [row[:] for row in self.board]
        other.history = list(self.history)
        other.result = self.result
        return other

    def player(self) -> int:
        return turn_of(len(self.history)) % 2

    def legal(self) -> list[int]:
        if self.result != ONGOING:
            return []
        return [r * self.size + c for r in range(self.size) for c in range(self.size)
                if self.board[r][c] == 0]

    def has_six(self, colour: int) -> bool:
        n = self.size
        for r in range(n):
            for c in range(n):
                for dr, dc in DIRECTIONS:
                    cells = [(r + k * dr, c + k * dc) for k in range(6)]
                    if all(0 <= y < n and 0 <= x < n and self.board[y][x] == colour
                           for y, x in cells):
                        return True
        return False

    def play(self, action: int) -> None:
        assert action in self.legal()
        colour = self.player() + 1
        row, col = divmod(action, self.size)
        self.board[row][col] = colour
        self.history.append((row, col))
        if self.has_six(colour):
            self.result = FIRST_WON if colour == 1 else SECOND_WON
        elif len(self.history) == self.size ** 2:
            self.result = DRAW

    def planes(self) -> np.ndarray:
        n = self.size
        me = self.player() + 1
        out = np.zeros((4, n, n), dtype=np.float32)
        for r in range(n):
            for c in range(n):
                if self.board[r][c] == me:
                    out[0, r, c] = 1
                elif self.board[r][c] != 0:
                    out[1, r, c] = 1
        current = turn_of(len(self.history))
        for index, (r, c) in enumerate(self.history):
            if turn_of(index) == current - 1:
                out[2, r, c] = 1
            elif turn_of(index) == current:
                out[3, r, c] = 1
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


def notation(size: int, action: int) -> str:
    row, col = divmod(action, size)
    return f"{LETTERS[col]}{size - row}"


def start(size: int, moves=()):
    """A core game and state and a reference, after `moves` in notation."""
    game = make_game("connect6", size=size)
    state = game.play_moves(game.new_state(), moves)
    ref = Reference(size)
    for move in moves:
        ref.play(action_of(size, move))
    return game, state, ref


def action_of(size: int, text: str) -> int:
    col = LETTERS.index(text[0].upper())
    return (size - int(text[1:])) * size + col


def assert_same(game, state, ref: Reference) -> None:
    assert game.legal_list(state) == ref.legal()
    assert game.status(state) == ref.result
    assert game.to_move(state) == ref.player()
    assert game.ply(state) == len(ref.history)
    np.testing.assert_array_equal(game.encode(state), ref.planes())


def random_position(size: int, stones: int, rng: random.Random):
    """Core state and reference after up to `stones` random stones (stops if the game ends)."""
    game = make_game("connect6", size=size)
    state, ref = game.new_state(), Reference(size)
    while len(ref.history) < stones and ref.result == ONGOING:
        action = rng.choice(ref.legal())
        game.play(state, action)
        ref.play(action)
    return game, state, ref


def board_without_six(size: int, rng: random.Random) -> list[int]:
    """A full board (actions listed Black first, then White) with no six for either side,
    with the stone counts a game that fills the board has."""
    cells = list(range(size * size))
    black = sum(1 for i in range(size * size) if turn_of(i) % 2 == 0)
    while True:
        rng.shuffle(cells)
        ref = Reference(size)
        for i, action in enumerate(cells):
            ref.board[action // size][action % size] = 1 if i < black else 2
        if not ref.has_six(1) and not ref.has_six(2):
            return cells


# ---------------------------------------------------------------- perft


def test_perft_19x19_from_start():
    game = make_game("connect6", size=19)
    kernels = compiled(game)
    state = game.new_state()
    assert [kernels.perft(state, d, game.num_actions) for d in (1, 2, 3)] == [
        361, 361 * 360, 361 * 360 * 359]


# Near-win positions (7x7 and 10x10): Black four in a row A1-D1, White five in row 7 / 10.
NEAR_WIN_7 = ["A1", "A7", "B7", "B1", "C1", "C7", "D7", "D1", "G4", "E7", "G6"]
NEAR_WIN_10 = ["A1", "A10", "B10", "B1", "C1", "C10", "D10", "D1", "K5", "E10", "K7"]


@pytest.mark.parametrize("size, moves, depth", [
    (6, [], 3),
    (7, NEAR_WIN_7, 3),
    (7, NEAR_WIN_7[:-1], 3),  # White to place its second stone: wins at depth 2 and 3
    (10, NEAR_WIN_10, 2),
])
def test_perft_matches_reference(size, moves, depth):
    game, state, ref = start(size, moves)
    kernels = compiled(game)
    for d in range(1, depth + 1):
        assert kernels.perft(state, d, game.num_actions) == ref.perft(d)


def test_perft_near_the_end_of_a_filled_board():
    rng = random.Random(6)
    for size, empties, depth in ((6, 5, 5), (6, 6, 4), (7, 6, 4)):
        cells = board_without_six(size, rng)
        black = sum(1 for i in range(size * size) if turn_of(i) % 2 == 0)
        order = game_order(size, cells[:black], cells[black:])
        moves = [notation(size, a) for a in order[:-empties]]
        game, state, ref = start(size, moves)
        kernels = compiled(game)
        assert kernels.perft(state, depth, game.num_actions) == ref.perft(depth)


def test_perft_reaches_terminal_positions():
    """The near-win perft above really ends games: Black's pair E1+F1 wins at depth 2."""
    game, state, ref = start(7, NEAR_WIN_7)
    wins = 0
    for first in ref.legal():
        child = ref.copy()
        child.play(first)
        for second in child.legal():
            grandchild = child.copy()
            grandchild.play(second)
            wins += grandchild.result == FIRST_WON
    assert wins == 2  # E1 then F1, or F1 then E1


@pytest.mark.integration
def test_cli_perft_with_moves_matches_reference():
    moves = "[" + ",".join(NEAR_WIN_7) + "]"
    result = subprocess.run([sys.executable, "-m", "games", "perft", "connect6", "size=7",
                             f"moves={moves}", "2"], capture_output=True, text=True, timeout=120)
    assert result.returncode == 0, result.stderr
    _, _, ref = start(7, NEAR_WIN_7)
    assert result.stdout.split("\n")[:2] == [f"perft 1 {ref.perft(1)}", f"perft 2 {ref.perft(2)}"]


# ---------------------------------------------------------------- random games


@pytest.mark.parametrize("size, games", [(10, 12), (6, 60), (7, 30)])
def test_random_games_move_by_move(size, games):
    rng = random.Random(size)
    endings = set()
    for _ in range(games):
        game, state, ref = random_position(size, 0, rng)
        assert_same(game, state, ref)
        while ref.result == ONGOING:
            action = rng.choice(ref.legal())
            game.play(state, action)
            ref.play(action)
            assert_same(game, state, ref)
        endings.add(ref.result)
    if size == 6:
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
        game.play(expected, empties[last])
        ref.play(empties[last])
        last -= 1
    return expected


@pytest.mark.parametrize("size", [6, 7, 10])
def test_random_playout_is_the_uniform_game_it_should_be(size):
    rng = random.Random(100 + size)
    for seed in range(25):
        game, state, ref = random_position(size, rng.randrange(0, size * size // 2), rng)
        played = state.copy()
        result = game.random_playout(played, make_rng(seed))
        expected = predicted_playout(game, state, ref, seed)
        np.testing.assert_array_equal(played, expected)
        assert result == ref.result == game.status(played)


@pytest.mark.parametrize("size", [6, 7])
def test_random_playout_of_the_last_few_stones(size):
    """Short playouts: the turn memory written back must come out right from any ply."""
    rng = random.Random(size)
    black = sum(1 for i in range(size * size) if turn_of(i) % 2 == 0)
    cells = board_without_six(size, rng)
    order = game_order(size, cells[:black], cells[black:])
    for empties in (1, 2, 3, 4, 6):
        for seed in range(6):
            game, state, ref = start(size, [notation(size, a) for a in order[:-empties]])
            played = state.copy()
            game.random_playout(played, make_rng(seed))
            np.testing.assert_array_equal(played, predicted_playout(game, state, ref, seed))
    for moves in (NEAR_WIN_7, NEAR_WIN_7[:-1]):
        for seed in range(10):
            game, state, ref = start(7, moves)
            played = state.copy()
            game.random_playout(played, make_rng(seed))
            np.testing.assert_array_equal(played, predicted_playout(game, state, ref, seed))


def test_random_playout_on_a_finished_game_changes_nothing():
    game, state, _ = start(7, NEAR_WIN_7 + ["E1", "F1"])
    assert game.status(state) == FIRST_WON
    before = state.copy()
    assert game.random_playout(state, make_rng(1)) == FIRST_WON
    np.testing.assert_array_equal(state, before)


# ---------------------------------------------------------------- symmetries


def test_symmetries_commute_with_the_rules():
    rng = random.Random(8)
    for size in (6, 7, 10):
        game = make_game("connect6", size=size)
        for stones in (0, 1, 2, 3, 4, 9, 20):
            _, state, ref = random_position(size, stones, rng)
            cells, actions = game.symmetries(state)
            assert cells.shape == (8, size * size) and actions.shape == (8, game.num_actions)
            np.testing.assert_array_equal(cells[0], np.arange(size * size))
            assert len({tuple(row) for row in cells}) == 8
            mask = game.legal_mask(state)
            planes = game.encode(state).reshape(4, -1)
            action = rng.choice(ref.legal()) if ref.legal() else None
            for g in range(8):
                image = game.transform_state(state, g)
                assert game.status(image) == game.status(state)
                assert game.to_move(image) == game.to_move(state)
                moved = np.zeros_like(mask)
                moved[actions[g]] = mask
                np.testing.assert_array_equal(game.legal_mask(image), moved)
                moved_planes = np.zeros_like(planes)
                moved_planes[:, cells[g]] = planes
                np.testing.assert_array_equal(game.encode(image).reshape(4, -1), moved_planes)
                if action is not None:
                    after = state.copy()
                    game.play(after, action)
                    image_after = image.copy()
                    game.play(image_after, int(actions[g, action]))
                    np.testing.assert_array_equal(image_after, game.transform_state(after, g))


def test_symmetry_maps_corners_as_rotations_and_mirrors():
    game = make_game("connect6", size=6)
    cells, _ = game.symmetries(game.new_state())
    corners = {0, 5, 30, 35}
    for g in range(8):
        assert {int(cells[g, c]) for c in corners} == corners
    assert int(cells[1, 0]) != 0  # a rotation moves the top-left corner


# ---------------------------------------------------------------- edge cases


def test_six_by_the_first_stone_of_a_pair_ends_the_game():
    # Black: A1-E1 after two pairs plus the opening; Black's next first stone F1 makes six.
    moves = ["A1", "A7", "B7", "B1", "C1", "C7", "D7", "D1", "E1", "G7", "G6"]
    game, state, ref = start(7, moves)
    assert game.status(state) == ONGOING and game.to_move(state) == 0
    game.play(state, action_of(7, "F1"))
    ref.play(action_of(7, "F1"))
    assert_same(game, state, ref)
    assert game.status(state) == FIRST_WON and game.ply(state) == 12
    assert game.legal_list(state) == []
    with pytest.raises(GameError, match="game is over"):
        game.parse_move(state, "G1")
    with pytest.raises(GameError, match="after the game has ended"):
        game.play_moves(state, ["G1"])


def test_overline_wins():
    # Black: A1 B1 C1 and E1 F1 G1; D1 joins them into seven.
    moves = ["A1", "A7", "B7", "B1", "C1", "C7", "D7", "E1", "F1", "A5", "B5", "G1"]
    game, state, ref = start(7, moves)
    assert game.status(state) == ONGOING
    game.play(state, action_of(7, "D1"))
    assert game.status(state) == FIRST_WON


def test_win_needing_both_stones_of_the_pair():
    game, state, _ = start(7, NEAR_WIN_7)
    game.play(state, action_of(7, "E1"))
    assert game.status(state) == ONGOING and game.to_move(state) == 0
    game.play(state, action_of(7, "F1"))
    assert game.status(state) == FIRST_WON


def test_white_wins_too():
    game, state, _ = start(7, NEAR_WIN_7 + ["E1", "G1", "F7"])
    assert game.status(state) == SECOND_WON


@pytest.mark.parametrize("size", [6, 7])
def test_full_board_draw_and_win_on_the_last_empty_cell(size):
    """On 6x6 the last cell takes the first stone of a pair, on 7x7 the second."""
    rng = random.Random(size)
    black = sum(1 for i in range(size * size) if turn_of(i) % 2 == 0)
    cells = board_without_six(size, rng)
    order = game_order(size, cells[:black], cells[black:])
    game, state, ref = start(size, [notation(size, a) for a in order[:-1]])
    assert game.status(state) == ONGOING and game.legal_list(state) == [order[-1]]
    game.play(state, order[-1])
    ref.play(order[-1])
    assert_same(game, state, ref)
    assert game.status(state) == DRAW and game.ply(state) == size * size

    # Same board, but the last Black stone completes a six: a win, not a draw.
    while True:
        rng.shuffle(cells)
        ref = Reference(size)
        for i, action in enumerate(cells):
            ref.board[action // size][action % size] = 1 if i < black else 2
        if ref.has_six(2) or not ref.has_six(1):
            continue
        keys = [a for a in cells[:black] if not without(ref, a).has_six(1)]
        if keys:
            break
    last = keys[0]
    black_cells = [a for a in cells[:black] if a != last] + [last]
    order = game_order(size, black_cells, cells[black:])
    assert order[-1] == last
    game, state, _ = start(size, [notation(size, a) for a in order[:-1]])
    assert game.status(state) == ONGOING
    game.play(state, last)
    assert game.status(state) == FIRST_WON


def without(ref: Reference, action: int) -> Reference:
    other = ref.copy()
    other.board[action // ref.size][action % ref.size] = 0
    return other


def test_turn_memory_planes():
    game, state, _ = start(10, ["F5"])
    planes = game.encode(state)
    assert planes[2].sum() == 1 and planes[2, 5, 5] == 1 and planes[3].sum() == 0
    game.play_moves(state, ["A1"])
    planes = game.encode(state)
    assert planes[3, 9, 0] == 1 and planes[3].sum() == 1 and planes[2, 5, 5] == 1
    game.play_moves(state, ["K10"])
    planes = game.encode(state)  # Black to move: White's A1 and K10 are the last turn
    assert planes[2].sum() == 2 and planes[2, 9, 0] == 1 and planes[2, 0, 9] == 1
    assert planes[3].sum() == 0 and planes[0, 5, 5] == 1 and planes[1].sum() == 2


def test_same_position_in_either_stone_order_is_the_same_state():
    game, one, _ = start(10, ["F5", "A1", "K10"])
    _, other, _ = start(10, ["F5", "K10", "A1"])
    np.testing.assert_array_equal(one, other)


# ---------------------------------------------------------------- notation and text


@pytest.mark.parametrize("size", [6, 10, 19])
def test_notation_round_trip(size):
    game = make_game("connect6", size=size)
    state = game.new_state()
    for action in range(size * size):
        text = game.format_move(state, action)
        assert text == notation(size, action) and "I" not in text
        assert game.parse_move(state, text) == action
        assert game.parse_move(state, f" {text.lower()} ") == action


def test_notation_corners_on_19x19():
    game = make_game("connect6", size=19)
    state = game.new_state()
    assert game.parse_move(state, "T19") == 18
    assert game.parse_move(state, "A1") == 18 * 19
    assert game.parse_move(state, "J10") == 9 * 19 + 8
    assert game.format_move(state, 0) == "A19"


@pytest.mark.parametrize("text, message", [
    ("I5", "not a Connect6 move"), ("i5", "not a Connect6 move"), ("", "not a Connect6 move"),
    ("F", "not a Connect6 move"), ("5F", "not a Connect6 move"), ("F0", "not a Connect6 move"),
    ("FF5", "not a Connect6 move"), ("F5x", "not a Connect6 move"), ("F-5", "not a Connect6 move"),
    ("L5", "off the 10x10 board"), ("F11", "off the 10x10 board"), ("Z1", "off the 10x10 board"),
    ("F5", "already occupied"),
])
def test_bad_moves(text, message):
    game, state, _ = start(10, ["F5"])
    with pytest.raises(GameError, match=message):
        game.parse_move(state, text)


def test_render():
    game, state, _ = start(10, ["F5", "A1", "K10"])
    lines = game.render(state).splitlines()
    assert lines[0] == "10 . . . . . . . . . O"
    assert lines[5] == " 5 . . . . . X . . . ."
    assert lines[9].startswith(" 1 O")
    assert lines[10] == "   A B C D E F G H J K"
    assert "Black" in lines[11] and "1 of 2" in lines[11]
    game.play_moves(state, ["E5"])
    assert "Black" in game.render(state) and "2 of 2" in game.render(state)
    assert "opening" in make_game("connect6").render(make_game("connect6").new_state())
    _, won, _ = start(7, NEAR_WIN_7 + ["E1", "F1"])
    assert "stones: Black (X) won." in make_game("connect6", size=7).render(won)


# ---------------------------------------------------------------- parameters and CLI


def test_parameters():
    game = make_game("connect6")
    assert game.params() == {"size": 10} and game.num_actions == 100
    assert (game.planes, game.height, game.width, game.num_symmetries) == (4, 10, 10, 8)
    assert game.dirichlet_alpha == pytest.approx(0.15)
    assert make_game("connect6", size="19").num_actions == 361
    small = make_game("connect6", size=6)
    assert small.state_size == len(small.new_state())
    assert make_game("connect6", **game.params()).params() == game.params()


@pytest.mark.parametrize("params, message", [
    ({"size": 5}, "out of range"), ({"size": 20}, "out of range"),
    ({"size": "ten"}, "whole number"), ({"size": 10.5}, "whole number"),
    ({"size": True}, "whole number"), ({"size": [10]}, "whole number"),
    ({"board": 10}, "unknown parameter 'board'"),
])
def test_bad_parameters(params, message):
    with pytest.raises(GameError, match=message):
        make_game("connect6", **params)


@pytest.mark.integration
@pytest.mark.parametrize("words", [["size=5"], ["moves=[F5,I5]"], ["colour=3"]])
def test_cli_errors_are_one_line(words):
    result = subprocess.run([sys.executable, "-m", "games", "perft", "connect6", *words, "2"],
                            capture_output=True, text=True, timeout=120)
    assert result.returncode != 0
    assert "Traceback" not in result.stderr
    assert len(result.stderr.strip().splitlines()) == 1 and result.stderr.startswith("error:")
