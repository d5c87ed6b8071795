"""Gravity Connect-4 (course rules): perft, a plain-Python reference played move by move
against the Numba core, symmetries, edge cases, bad input and random-play statistics."""
from __future__ import annotations

import subprocess
import sys

import numpy as np
import pytest

from games import DRAW, FIRST_WON, ONGOING, SECOND_WON, GameError, make_game
from games.connect4 import rules as connect4
from games.core.perft import compiled
from games.core.rng import make_rng

REPO = __file__.rsplit("/tests/", 1)[0]


# ----------------------------------------------------------------------------- reference

class Reference:
    """The rules written plainly: a list-of-lists board, gravity by scanning the column,
    a win found by scanning every line of the board for four equal stones."""

    def __init__(self, rows, cols, forbidden=None):
        self.rows, self.cols, self.forbidden = rows, cols, forbidden
        self.board = [["." for _ in range(cols)] for _ in range(rows)]
        if forbidden is not None:
            self.board[forbidden[0]][forbidden[1]] = "#"
        self.ply = 0
        self.result = ONGOING

    def copy(self):
        other = Reference.__new__(Reference)
        other.__dict__.update(self.__dict__)
        other.board = [row[:] for row in self.board]
        return other

    def landing_row(self, col):
        empty = [r for r in range(self.rows) if self.board[r][col] == "."]
        return max(empty) if empty else None

    def legal(self):
        if self.result != ONGOING:
            return []
        return [c for c in range(self.cols) if self.landing_row(c) is not None]

    def lines(self):
        rows, cols, b = self.rows, self.cols, self.board
        yield from ("".join(row) for row in b)
        yield from ("".join(b[r][c] for r in range(rows)) for c in range(cols))
        for start in range(-rows, rows + cols):
            yield "".join(b[r][start + r] for r in range(rows) if 0 <= start + r < cols)
            yield "".join(b[r][start - r] for r in range(rows) if 0 <= start - r < cols)

    def play(self, col):
        stone = "XO"[self.ply % 2]
        self.board[self.landing_row(col)][col] = stone
        self.ply += 1
        if any(stone * 4 in line for line in self.lines()):
            self.result = FIRST_WON if stone == "X" else SECOND_WON
        elif not any("." in row for row in self.board):
            self.result = DRAW

    def perft(self, depth):
        if depth == 0:
            return 1
        total = 0
        for col in self.legal():
            child = self.copy()
            child.play(col)
            total += child.perft(depth - 1)
        return total


def reference_for(state):
    forbidden = None if state[connect4.FORB_ROW] < 0 else (int(state[connect4.FORB_ROW]),
                                                            int(state[connect4.FORB_COL]))
    return Reference(int(state[connect4.ROWS]), int(state[connect4.COLS]), forbidden)


def board_text(game, state):
    """The board rows of render(): what the reference board should look like."""
    rows = int(state[connect4.ROWS])
    return ["".join(line.split()) for line in game.render(state).splitlines()[:rows]]


GAMES = {
    "classic": dict(rows=6, cols=7),
    "forbidden_middle": dict(rows=9, cols=10, forbidden=[4, 4]),
    "forbidden_bottom": dict(rows=6, cols=7, forbidden=[5, 3]),
    "forbidden_top": dict(rows=6, cols=7, forbidden=[0, 3]),
    "small": dict(rows=4, cols=4),
    "small_forbidden": dict(rows=4, cols=5, forbidden=[3, 0]),
    "drawn": dict(rows=[4, 7], cols=[4, 8]),
    "course": {},
}


@pytest.fixture(scope="module")
def classic():
    return make_game("connect4", rows=6, cols=7)


# ----------------------------------------------------------------------------- perft

def test_perft_classic(classic):
    perft = compiled(classic).perft
    state = classic.new_state()
    expected = [7, 49, 343, 2401, 16807, 117649, 823536, 5673234]
    assert [perft(state, d, classic.num_actions) for d in range(1, 9)] == expected


@pytest.mark.parametrize("name, depth", [("forbidden_bottom", 4), ("forbidden_top", 4),
                                         ("small", 6), ("small_forbidden", 6)])
def test_perft_matches_reference(name, depth):
    """From the start and from mid-game positions, where columns fill and games end."""
    game = make_game("connect4", **GAMES[name])
    perft = compiled(game).perft
    rng = np.random.default_rng(1)
    for plies in (0, 3, 6, 9, 12, 15, 18):
        state = game.new_state(rng)
        reference = reference_for(state)
        for _ in range(plies):
            quiet = [a for a in reference.legal() if _ongoing_after(reference, a)]
            if not quiet:
                break
            action = int(rng.choice(quiet))
            game.play(state, action)
            reference.play(action)
        assert [perft(state, d, game.num_actions) for d in range(1, depth + 1)] == \
            [reference.perft(d) for d in range(1, depth + 1)]


def _ongoing_after(reference, action):
    child = reference.copy()
    child.play(action)
    return child.result == ONGOING


@pytest.mark.integration
def test_perft_cli_forbidden_cell_matches_reference():
    words = ["rows=9", "cols=10", "forbidden=[4,4]", "6"]
    done = subprocess.run([sys.executable, "-m", "games", "perft", "connect4", *words],
                          cwd=REPO, capture_output=True, text=True, timeout=120)
    assert done.returncode == 0, done.stderr
    counts = [int(line.split()[2]) for line in done.stdout.splitlines()]
    assert len(counts) == 6
    reference = Reference(9, 10, (4, 4))
    assert counts[:4] == [reference.perft(d) for d in range(1, 5)]
    # no column fills (8 or 9 cells) and no one wins (7 plies at least) within 6 plies
    assert counts == [10 ** d for d in range(1, 7)]


# ----------------------------------------------------------------------------- move by move

@pytest.mark.parametrize("name", list(GAMES))
def test_random_games_match_reference(name):
    game = make_game("connect4", **GAMES[name])
    rng = np.random.default_rng(7)
    for _ in range(40):
        state = game.new_state(rng)
        reference = reference_for(state)
        while True:
            assert game.legal_list(state) == reference.legal()
            assert game.status(state) == reference.result
            assert game.to_move(state) == reference.ply % 2
            assert int(game.ply(state)) == reference.ply
            assert board_text(game, state) == ["".join(row) for row in reference.board]
            if reference.result != ONGOING:
                break
            action = int(rng.choice(reference.legal()))
            assert game.parse_move(state, game.format_move(state, action)) == action
            game.play(state, action)
            reference.play(action)


@pytest.mark.parametrize("name", ["classic", "forbidden_top", "small_forbidden", "course"])
def test_random_playout_leaves_a_valid_final_state(name):
    game = make_game("connect4", **GAMES[name])
    rng = make_rng(3)
    opening = np.random.default_rng(3)
    for _ in range(200):
        state = game.new_state(opening)
        game.play_moves(state, [str(a + 1) for a in opening.permutation(game.legal_list(state))[:2]])
        result = game.random_playout(state, rng)
        assert result == game.status(state) != ONGOING
        reference = reference_for(state)
        board = board_text(game, state)
        reference.board = [list(row) for row in board]
        stones = sum(row.count("X") + row.count("O") for row in board)
        assert int(game.ply(state)) == stones
        assert sum(row.count("X") for row in board) - sum(row.count("O") for row in board) in (0, 1)
        # the derived parts of the state (heights, open list, masks) agree with the board
        rebuilt = game.transform_state(game.transform_state(state, 1), 1)
        assert np.array_equal(rebuilt, state)
        fours = {s for s in "XO" if any(s * 4 in line for line in reference.lines())}
        if result == DRAW:
            assert not fours and "." not in "".join(board)
        else:
            winner = "X" if result == FIRST_WON else "O"
            assert fours == {winner} and winner == "XO"[(stones - 1) % 2]


# ----------------------------------------------------------------------------- symmetry

@pytest.mark.parametrize("name", ["forbidden_middle", "forbidden_bottom", "drawn", "course"])
def test_symmetries_commute_with_the_rules(name):
    game = make_game("connect4", **GAMES[name])
    assert game.num_symmetries == 2
    rng = np.random.default_rng(11)
    for _ in range(30):
        state = game.new_state(rng)
        for _ in range(int(rng.integers(0, 20))):
            if game.status(state) != ONGOING:
                break
            game.play(state, int(rng.choice(game.legal_list(state))))
        cells, actions = game.symmetries(state)
        assert cells.shape == (2, game.height * game.width) and actions.shape == (2, game.num_actions)
        assert np.array_equal(cells[0], np.arange(game.height * game.width))
        assert np.array_equal(np.sort(cells[1]), np.arange(game.height * game.width))
        planes = game.encode(state).reshape(game.planes, -1)
        padding = np.flatnonzero(planes[2] == 0)
        assert np.array_equal(cells[1, padding], padding)  # off-board cells stay put
        for g in range(2):
            image = game.transform_state(state, g)
            assert np.array_equal(game.transform_state(image, g), state)
            assert game.status(image) == game.status(state)
            assert game.to_move(image) == game.to_move(state)
            assert np.array_equal(game.legal_mask(image)[actions[g]], game.legal_mask(state))
            moved = np.empty_like(planes)
            moved[:, cells[g]] = planes
            assert np.array_equal(game.encode(image).reshape(game.planes, -1), moved)
            for action in game.legal_list(state):
                child, image_child = state.copy(), image.copy()
                game.play(child, action)
                game.play(image_child, int(actions[g, action]))
                assert np.array_equal(image_child, game.transform_state(child, g))


def test_mirror_moves_the_forbidden_cell():
    game = make_game("connect4", rows=[5, 6], cols=[6, 8], forbidden=[1, 1])
    state = game.new_state(np.random.default_rng(0))
    cols = int(state[connect4.COLS])
    image = game.transform_state(state, 1)
    assert (image[connect4.FORB_ROW], image[connect4.FORB_COL]) == (1, cols - 2)
    cells, actions = game.symmetries(state)
    assert list(actions[1]) == list(range(cols - 1, -1, -1)) + list(range(cols, game.num_actions))


# ----------------------------------------------------------------------------- edge cases

def test_four_through_the_forbidden_cell_does_not_count():
    game = make_game("connect4", rows=6, cols=7, forbidden=[5, 3])
    # X fills the bottom row around the forbidden cell: X X X # X X X has no four
    state = game.play_moves(game.new_state(), [1, 1, 2, 2, 3, 3, 5, 5, 6, 6, 7])
    assert game.status(state) == ONGOING
    game = make_game("connect4", rows=7, cols=5, forbidden=[3, 0])
    # column 1 from the bottom: X X X # X X X, O stacking in column 2 and 3
    state = game.play_moves(game.new_state(), [1, 2, 1, 2, 1, 3, 1, 3, 1, 3, 1])
    assert game.status(state) == ONGOING
    assert board_text(game, state)[3] == "#...."


def test_forbidden_cell_skipped_when_filling_a_column():
    for forb_row, capacity in [(2, 5), (0, 5), (5, 5)]:
        game = make_game("connect4", rows=6, cols=7, forbidden=[forb_row, 3])
        state = game.new_state()
        for _ in range(capacity):
            assert 3 in game.legal_list(state)
            game.play(state, 3)
        column = [line[3] for line in board_text(game, state)]
        assert column[forb_row] == "#" and column.count(".") == 0
        assert 3 not in game.legal_list(state)
        with pytest.raises(GameError, match="column 4 is full"):
            game.parse_move(state, "4")


def _find_game(rows, cols, forbidden, want):
    """Seeded reference games until one ends as `want` says; returns its moves."""
    rng = np.random.default_rng(5)
    for _ in range(20000):
        reference, moves = Reference(rows, cols, forbidden), []
        while reference.result == ONGOING:
            moves.append(int(rng.choice(reference.legal())))
            reference.play(moves[-1])
        if want(reference):
            return moves
    raise AssertionError("no such game found")


@pytest.mark.parametrize("forbidden", [None, (1, 2)])
def test_full_board_draw_and_last_cell_win(forbidden):
    cells = 16 - (forbidden is not None)
    game = make_game("connect4", rows=4, cols=4, forbidden=list(forbidden) if forbidden else None)
    draw = _find_game(4, 4, forbidden, lambda r: r.result == DRAW)
    state = game.play_moves(game.new_state(), [a + 1 for a in draw])
    assert (game.status(state), len(draw), game.legal_list(state)) == (DRAW, cells, [])
    last_win = _find_game(4, 4, forbidden, lambda r: r.result != DRAW and r.ply == cells)
    state = game.play_moves(game.new_state(), [a + 1 for a in last_win])
    assert game.status(state) == (FIRST_WON if cells % 2 else SECOND_WON)
    assert game.render(state).endswith("won")


def test_render_and_notation(classic):
    state = classic.play_moves(classic.new_state(), ["4", "4", "3"])
    assert classic.render(state).splitlines() == [
        " . . . . . . .",
        " . . . . . . .",
        " . . . . . . .",
        " . . . . . . .",
        " . . . O . . .",
        " . . X X . . .",
        " 1 2 3 4 5 6 7",
        "Yellow (O) to move"]
    assert [classic.format_move(state, a) for a in classic.legal_list(state)] == list("1234567")
    game = make_game("connect4", rows=4, cols=12, forbidden=[3, 11])
    lines = game.render(game.new_state()).splitlines()
    assert lines[3].endswith(".  #") and lines[4].endswith(" 11 12")
    # the forbidden cell in the board's numbering, beside the parameter that counts from 0
    assert lines[5] == "# is the forbidden cell: column 12, row 4 from the top (forbidden=[3, 11], counted from 0)."


@pytest.mark.parametrize("forbidden, words", [
    ([9, 9], "connect4 forbidden cell column 10, row 10 from the top (forbidden=[9, 9], counted from 0) is off the "
             "smallest board this game can draw (9 rows, 10 columns)."),
    ([4, 40], "connect4 parameter forbidden=[row, col] takes two whole numbers from 0 to 11, counted from the top-left cell, "
              "not [4, 40]."),
    ("E5", "connect4 parameter forbidden must be null, random or [row, col] counted from 0 from the top-left cell "
           "([0, 0] is column 1, the top row), not 'E5'.")])
def test_a_forbidden_cell_refused_is_named_in_the_boards_numbering(forbidden, words):
    with pytest.raises(GameError) as refused:
        make_game("connect4", rows=9, cols=10, forbidden=forbidden)
    assert str(refused.value) == words


def test_encode_planes_pad_bottom_left():
    game = make_game("connect4", rows=[4, 6], cols=[5, 7], forbidden=[0, 4])
    rng = np.random.default_rng(0)
    state = game.new_state(rng)
    while (state[connect4.ROWS], state[connect4.COLS]) != (4, 5):
        state = game.new_state(rng)
    game.play_moves(state, ["1", "2"])
    planes = game.encode(state)
    assert planes.shape == (5, 6, 7)
    assert planes[2].sum() == 20 and planes[2, 2:, :5].all()
    assert planes[0, 5, 0] == 1 and planes[1, 5, 1] == 1 and planes[:2].sum() == 2
    assert planes[3, 2, 4] == 1 and planes[3].sum() == 1
    assert planes[4].sum() == 0  # X moves
    game.play(state, 2)
    after = game.encode(state)
    assert after[1, 5, 0] == 1  # seen from O's side now
    assert np.array_equal(after[4], after[2])  # and O moves


def test_samples_of_the_older_encoding_gain_the_side_to_move_plane():
    game = make_game("connect4", rows=[4, 7], cols=[5, 7], forbidden="random")
    rng = np.random.default_rng(1)
    encoded = []
    for _ in range(20):
        state = game.new_state(rng)
        for _ in range(int(rng.integers(0, 12))):
            if game.status(state) == 0:
                game.play(state, int(rng.choice(np.flatnonzero(game.legal_mask(state)))))
        encoded.append(game.encode(state))
    planes = np.stack(encoded).astype(np.uint8)
    assert np.array_equal(connect4.add_side_to_move(planes[:, :4]), planes)


# ----------------------------------------------------------------------------- parameters

def test_parameters_and_defaults():
    course = make_game("connect4")
    assert course.params() == {"rows": [9, 12], "cols": [9, 12], "forbidden": "random"}
    assert (course.num_actions, course.height, course.width, course.planes) == (12, 12, 12, 5)
    assert 0.8 <= course.dirichlet_alpha <= 1.2
    assert make_game("connect4", rows=6, cols=7).params() == {"rows": 6, "cols": 7, "forbidden": None}
    assert make_game("connect4", rows="6", cols=[7, 7], forbidden="none").params()["forbidden"] is None
    assert make_game("connect4", rows=[6, 8], cols=7).params()["forbidden"] == "random"
    for params in GAMES.values():
        game = make_game("connect4", **params)
        assert make_game("connect4", **game.params()).params() == game.params()
    rng = np.random.default_rng(2)
    seen = set()
    for _ in range(300):
        state = course.new_state(rng)
        rows, cols = int(state[connect4.ROWS]), int(state[connect4.COLS])
        forb = (int(state[connect4.FORB_ROW]), int(state[connect4.FORB_COL]))
        assert 9 <= rows <= 12 and 9 <= cols <= 12 and 0 <= forb[0] < rows and 0 <= forb[1] < cols
        assert course.legal_list(state) == list(range(cols))
        seen.add((rows, cols))
    assert len(seen) == 16
    assert np.array_equal(course.new_state(np.random.default_rng(9)), course.new_state(np.random.default_rng(9)))


@pytest.mark.parametrize("params, message", [
    (dict(rows=3), "rows=3 is out of range"),
    (dict(cols=13), "cols=13 is out of range"),
    (dict(rows="six"), "rows must be a whole number"),
    (dict(rows=[4]), "range \\[lo, hi\\]"),
    (dict(cols=[10, 9]), "empty range"),
    (dict(cols=[4, "x"]), "cols must be a whole number"),
    (dict(forbidden="maybe"), "forbidden must be null, random or \\[row, col\\]"),
    (dict(forbidden=[1]), "forbidden must be null, random or \\[row, col\\]"),
    (dict(rows=6, cols=7, forbidden=[6, 0]), "off the smallest board"),
    (dict(rows=[6, 9], forbidden=[8, 8]), "off the smallest board"),
    (dict(rows=6, cols=7, forbidden=[-1, 2]), "takes two whole numbers from 0 to 11, counted from the top-left"),
    (dict(size=7), "unknown parameter 'size'"),
])
def test_bad_parameters(params, message):
    with pytest.raises(GameError, match=message):
        make_game("connect4", **params)


def test_bad_moves(classic):
    state = classic.new_state()
    for text, message in [("x", "not a connect4 move"), ("", "not a connect4 move"),
                          ("1.5", "not a connect4 move"), ("-1", "not a connect4 move"),
                          ("0", "off the board"), ("8", "off the board")]:
        with pytest.raises(GameError, match=message):
            classic.parse_move(state, text)
    assert classic.parse_move(state, " 7 ") == 6
    won = classic.play_moves(classic.new_state(), [1, 2, 1, 2, 1, 2, 1])
    assert classic.status(won) == FIRST_WON
    with pytest.raises(GameError, match="the game is over"):
        classic.parse_move(won, "3")
    with pytest.raises(GameError, match="after the game has ended"):
        classic.play_moves(won, ["3"])
    with pytest.raises(GameError, match="symmetries 0 and 1"):
        classic.transform_state(state, 2)


@pytest.mark.integration
def test_cli_bad_parameter_is_one_line():
    done = subprocess.run([sys.executable, "-m", "games", "perft", "connect4", "rows=3", "2"],
                          cwd=REPO, capture_output=True, text=True, timeout=120)
    assert done.returncode != 0
    assert done.stderr.strip().count("\n") == 0 and "Traceback" not in done.stderr
    assert done.stderr.startswith("error: connect4 parameter rows=3 is out of range")


# ----------------------------------------------------------------------------- statistics

def test_random_play_statistics_classic(classic):
    """Uniform random play on 6x7: the first player wins 55.6%, 0.26% are drawn."""
    outcomes = np.zeros(4, dtype=np.int64)
    count = 400_000
    compiled(classic).run_playouts(classic.new_state(), make_rng(2024), count, outcomes)
    assert outcomes[ONGOING] == 0 and outcomes.sum() == count
    assert abs(outcomes[FIRST_WON] / count - 0.556) < 0.004  # ~5 standard errors
    assert abs(outcomes[DRAW] / count - 0.0026) < 0.0005
