"""Othello (course and standard rules) against a plain-Python reference of both rule sets."""
from __future__ import annotations

import json
import shutil
import subprocess
import sys
from pathlib import Path

import numpy as np
import pytest
from numba import njit

from games import DRAW, FIRST_WON, ONGOING, SECOND_WON, GameError, make_game
from games.othello.bitboard import (fast_pdep, flipping_moves, flipping_moves_vec, flips_of,
                                    flips_vec, nth_bit_pdep, nth_bit_portable, nth_set_bit)
from games.othello.rules import BLACK, PASS, PLY, TO_MOVE, WHITE
from games.core.perft import compiled
from games.core.rng import make_rng

RULES = ["course", "standard"]
EMPTY, X, O = 0, 1, 2  # reference board cells; X is Black, the first player


# --- reference rules: a list of 64 cells, walked square by square --------------------------

class Ref:
    def __init__(self, rules, board=None, mover=0, ply=0):
        self.rules = rules
        if board is None:
            board = [EMPTY] * 64
            if rules == "standard":
                board[27] = board[36] = O  # d4, e5
                board[28] = board[35] = X  # e4, d5
        self.board, self.mover, self.ply = list(board), mover, ply

    def copy(self):
        return Ref(self.rules, self.board, self.mover, self.ply)

    def flips(self, cell, colour):
        other = X + O - colour
        row, col = divmod(cell, 8)
        flipped = []
        for dr in (-1, 0, 1):
            for dc in (-1, 0, 1):
                line = []
                r, c = row + dr, col + dc
                while (dr or dc) and 0 <= r < 8 and 0 <= c < 8 and self.board[r * 8 + c] == other:
                    line.append(r * 8 + c)
                    r, c = r + dr, c + dc
                if line and 0 <= r < 8 and 0 <= c < 8 and self.board[r * 8 + c] == colour:
                    flipped += line
        return flipped

    def is_legal(self, cell, colour):
        if self.board[cell] != EMPTY:
            return False
        row, col = divmod(cell, 8)
        if self.rules == "course":
            if row in (0, 7) and col in (0, 7):
                return False
            if 1 <= row <= 6 and 1 <= col <= 6:
                return True
        return bool(self.flips(cell, colour))

    def moves_for(self, colour):
        return [cell for cell in range(64) if self.is_legal(cell, colour)]

    def over(self):
        return not self.moves_for(X) and not self.moves_for(O)

    def actions(self):
        if self.over():
            return []
        return self.moves_for(X + self.mover) or [PASS]

    def play(self, action):
        colour = X + self.mover
        if action != PASS:
            for cell in self.flips(action, colour):
                self.board[cell] = colour
            self.board[action] = colour
        self.mover = 1 - self.mover
        self.ply += 1

    def status(self):
        if not self.over():
            return ONGOING
        black, white = self.board.count(X), self.board.count(O)
        return FIRST_WON if black > white else SECOND_WON if white > black else DRAW

    def perft(self, depth):
        if depth == 0:
            return 1
        actions = self.actions()
        if depth == 1:
            return len(actions)
        total = 0
        for action in actions:
            child = self.copy()
            child.play(action)
            total += child.perft(depth - 1)
        return total


def core_board(state):
    """The core's board as reference cells, decoded from its two int64 bitboards."""
    black, white = (int(state[side]) & (2 ** 64 - 1) for side in (BLACK, WHITE))
    return [X if black >> i & 1 else O if white >> i & 1 else EMPTY for i in range(64)]


def ref_of(game, state):
    return Ref(game.rules, core_board(state), game.to_move(state), int(game.ply(state)))


def assert_same(game, state, ref):
    assert core_board(state) == ref.board
    assert game.to_move(state) == ref.mover
    assert game.ply(state) == ref.ply
    assert game.status(state) == ref.status()
    assert game.legal_list(state) == ref.actions()


def crafted(game, diagram, mover):
    """A position from 8 rows of X, O and '.', with `mover` (0 Black, 1 White) to play."""
    cells = "".join(diagram.split())
    state = game.new_state()
    for side, mark in ((BLACK, "X"), (WHITE, "O")):
        bits = sum(1 << i for i, c in enumerate(cells) if c == mark)
        state[side] = np.array([bits], dtype=np.uint64).view(np.int64)[0]
    state[TO_MOVE] = mover
    assert ref_of(game, state).status() == ONGOING
    return state


def random_game_states(game, seed, count):
    """`count` positions (start included) along seeded random games, finished ones included."""
    rng = np.random.default_rng(seed)
    states = []
    while len(states) < count:
        state = game.new_state()
        states.append(state.copy())
        while game.status(state) == ONGOING and len(states) < count:
            game.play(state, rng.choice(game.legal_list(state)))
            states.append(state.copy())
    return states


# A block of Black discs around one White disc: Black must pass, White then has moves
# (two of them on corners, legal only in the standard rules).
BLACK_MUST_PASS = """
........
.XXXXXX.
.XXXXXX.
.XXOXXX.
.XXXXXX.
.XXXXXX.
.XXXXXX.
........"""


@pytest.fixture(scope="module", params=RULES)
def game(request):
    return make_game("othello", rules=request.param)


# --- perft -------------------------------------------------------------------------------

def test_standard_perft_matches_published_counts():
    game = make_game("othello", rules="standard")
    known = [4, 12, 56, 244, 1396, 8200, 55092, 390216, 3005288]
    kernels = compiled(game)
    assert [kernels.perft(game.new_state(), d, game.num_actions) for d in range(1, 10)] == known


def test_course_perft_from_start():
    game = make_game("othello")
    kernels = compiled(game)
    counts = [kernels.perft(game.new_state(), d, game.num_actions) for d in range(1, 5)]
    assert counts == [36, 1260, 42896, 1419432]
    assert counts[:3] == [Ref("course").perft(d) for d in range(1, 4)]


@pytest.mark.parametrize("rules, moves", [
    ("course", ["d4", "e4", "f4"]), ("course", ["c3", "d4", "e5", "f6", "b2"]),
    ("standard", ["f5", "d6", "c3"]), ("standard", ["f5", "f6", "e6", "f4", "e3"])])
def test_perft_after_moves_matches_reference(rules, moves):
    game = make_game("othello", rules=rules)
    state = game.play_moves(game.new_state(), moves)
    ref = ref_of(game, state)
    for depth in (1, 2, 3):
        assert compiled(game).perft(state, depth, game.num_actions) == ref.perft(depth)


def test_perft_along_random_games_matches_reference(game):
    for state in random_game_states(game, seed=5, count=120)[5::6]:
        assert compiled(game).perft(state, 3, game.num_actions) == ref_of(game, state).perft(3)


def test_perft_through_a_forced_pass(game):
    state = crafted(game, BLACK_MUST_PASS, mover=0)
    for depth in (1, 2, 3, 4):
        core = compiled(game).perft(state, depth, game.num_actions)
        assert core == ref_of(game, state).perft(depth)


# --- move by move against the reference ----------------------------------------------------

def test_random_games_move_by_move(game):
    rng = np.random.default_rng(11)
    passes = 0
    for _ in range(150):
        state, ref = game.new_state(), Ref(game.rules)
        while True:
            assert_same(game, state, ref)
            actions = ref.actions()
            if not actions:
                break
            passes += actions == [PASS]
            action = int(rng.choice(actions))
            game.play(state, action)
            ref.play(action)
        assert game.score(state) == ref.board.count(X) - ref.board.count(O)
    assert passes > 0  # the games went through passes too


def test_random_playout_ends_in_a_valid_final_state(game):
    rng = make_rng(3)
    for start in random_game_states(game, seed=8, count=60)[::6]:
        state = start.copy()
        result = game.random_playout(state, rng)
        ref = ref_of(game, state)
        assert result == game.status(state) == ref.status() != ONGOING
        assert ref.actions() == [] and game.legal_list(state) == []
        start_discs = sum(c != EMPTY for c in core_board(start))
        placed = sum(c != EMPTY for c in ref.board) - start_discs
        assert ref.ply - int(start[PLY]) >= placed  # one disc per move, passes on top
        assert game.to_move(state) == (int(start[TO_MOVE]) + ref.ply - int(start[PLY])) % 2
        assert game.random_playout(state, rng) == result  # a finished game stays put


def test_nth_set_bit_picks_each_set_bit_in_order():
    rng = np.random.default_rng(0)
    dense = rng.integers(0, 2 ** 64, size=200, dtype=np.uint64, endpoint=False)
    sparse = dense & np.roll(dense, 1) & np.roll(dense, 2)
    masks = [1, 1 << 63, 2 ** 64 - 1, 0x8100000000000081] + [int(m) for m in (*dense, *sparse) if m]
    for mask in masks:
        bits = [i for i in range(64) if mask >> i & 1]
        assert [nth_set_bit(np.uint64(mask), n) for n in range(len(bits))] == bits


@njit
def scalar_and_vector_kernels(own, opp):
    """uint64[65, 2]: flips_of and flips_vec at each flipping cell (0 elsewhere), then
    flipping_moves and flipping_moves_vec."""
    out = np.zeros((65, 2), dtype=np.uint64)
    out[64, 0], out[64, 1] = flipping_moves(own, opp), flipping_moves_vec(own, opp)
    for cell in range(64):
        bit = np.uint64(1) << np.uint64(cell)
        if out[64, 0] & bit:
            out[cell, 0], out[cell, 1] = flips_of(own, opp, cell), flips_vec(own, opp, bit)
    return out


def test_vector_kernels_match_the_scalar_ones(game):
    states = random_game_states(game, seed=12, count=300) + [crafted(game, BLACK_MUST_PASS, 0)]
    flipping = 0
    for state in states:
        black, white = (np.uint64(int(state[side]) & (2 ** 64 - 1)) for side in (BLACK, WHITE))
        for own, opp in ((black, white), (white, black)):
            pairs = scalar_and_vector_kernels(own, opp)
            assert np.array_equal(pairs[:, 0], pairs[:, 1])
            flipping += bin(int(pairs[64, 0])).count("1")
    assert flipping > 1000


def test_nth_bit_picks_the_same_cell_as_nth_set_bit():
    rng = np.random.default_rng(1)
    masks = [1, 1 << 63, 2 ** 64 - 1, 0x8100000000000081]
    masks += [int(m) for m in rng.integers(1, 2 ** 64, size=100, dtype=np.uint64, endpoint=False)]
    picks = [nth_bit_portable] + ([nth_bit_pdep] if fast_pdep() else [])
    for mask in masks:
        bits = [1 << i for i in range(64) if mask >> i & 1]
        for pick in picks:
            assert [int(pick(np.uint64(mask), n)) for n in range(len(bits))] == bits


@pytest.mark.integration
@pytest.mark.parametrize("rules", RULES)
def test_c_reference_plays_the_same_random_games(rules, tmp_path):
    """scripts/othello_ref.c, the C program docs/performance.md measures the core against, plays
    exactly the core's random games from the same seed (same plies, same outcomes)."""
    if shutil.which("gcc") is None:
        pytest.skip("no gcc")
    source = Path(__file__).resolve().parents[1] / "scripts" / "othello_ref.c"
    binary = tmp_path / "othello_ref"
    build = subprocess.run(["gcc", "-O2", "-march=native", "-o", str(binary), str(source)],
                           capture_output=True, text=True)
    if build.returncode != 0:  # e.g. a CPU without AVX2
        pytest.skip(f"scripts/othello_ref.c does not build here: {build.stderr[-300:]}")
    count, seed = 3000, 7
    run = subprocess.run([str(binary), "0", rules, str(count), str(seed)],
                         capture_output=True, text=True, timeout=60, check=True)
    row = json.loads(run.stdout)
    game = make_game("othello", rules=rules)
    outcomes = np.zeros(4, dtype=np.int64)
    plies = compiled(game).run_playouts(game.new_state(), make_rng(seed), count, outcomes)
    assert (row["rules"], row["playouts"], row["plies"]) == (rules, count, plies)
    for key, status in (("first_player_win", FIRST_WON), ("draw", DRAW),
                        ("second_player_win", SECOND_WON)):
        assert abs(row[key] - outcomes[status] / count) < 1e-5


@pytest.mark.parametrize("rules, black_wins, draws",
                         [("standard", 0.454, 0.042), ("course", 0.432, 0.059)])
def test_random_play_statistics(rules, black_wins, draws):
    game = make_game("othello", rules=rules)
    outcomes = np.zeros(4, dtype=np.int64)
    count = 100_000
    compiled(game).run_playouts(game.new_state(), make_rng(2024), count, outcomes)
    assert abs(outcomes[FIRST_WON] / count - black_wins) < 0.007
    assert abs(outcomes[DRAW] / count - draws) < 0.004


# --- edge cases ----------------------------------------------------------------------------

def test_forced_pass_then_play_continues(game):
    state = crafted(game, BLACK_MUST_PASS, mover=0)
    assert game.legal_list(state) == [PASS]
    assert game.parse_move(state, "PASS") == PASS
    with pytest.raises(GameError, match="must pass"):
        game.parse_move(state, "d1")
    game.play(state, PASS)
    assert game.status(state) == ONGOING and game.to_move(state) == 1
    assert game.ply(state) == 1
    white_moves = {game.format_move(state, a) for a in game.legal_list(state)}
    assert {"d1", "d8", "a4", "h4", "g1", "a7"} <= white_moves
    game.play(state, game.parse_move(state, "d1"))
    assert core_board(state)[3] == core_board(state)[11] == core_board(state)[19] == O


def test_corners_legal_only_in_standard_rules(game):
    state = crafted(game, BLACK_MUST_PASS, mover=1)
    moves = {game.format_move(state, a) for a in game.legal_list(state)}
    corners = moves & {"a1", "h1", "a8", "h8"}
    if game.rules == "standard":
        assert corners == {"a1", "h8"}
    else:
        assert corners == set()
        with pytest.raises(GameError, match="corner"):
            game.parse_move(state, "h8")


def test_course_central_move_flipping_nothing_is_legal():
    game = make_game("othello")
    state = game.new_state()
    assert len(game.legal_list(state)) == 36
    game.play(state, game.parse_move(state, "b2"))
    assert core_board(state).count(X) == 1 and game.to_move(state) == 1
    game.play(state, game.parse_move(state, "c3"))  # next to b2, brackets nothing
    assert core_board(state).count(X) == 1 and core_board(state).count(O) == 1


def test_course_outer_ring_move_must_flip():
    game = make_game("othello")
    state = game.new_state()
    with pytest.raises(GameError, match="outer ring"):
        game.parse_move(state, "b1")
    state = game.play_moves(state, ["c3", "c2"])  # White c2 between Black c3 and the edge
    with pytest.raises(GameError, match="outer ring"):
        game.parse_move(state, "d1")  # next to c2, but b3 beyond it is empty
    game.play(state, game.parse_move(state, "c1"))
    assert core_board(state)[2] == core_board(state)[10] == X


def test_game_ends_when_neither_side_can_move():
    standard = make_game("othello", rules="standard")
    state = crafted(standard, "XO......" + "." * 56, mover=0)
    standard.play(state, standard.parse_move(state, "c1"))
    assert standard.status(state) == FIRST_WON and standard.legal_list(state) == []
    assert standard.score(state) == 3
    course = make_game("othello")
    state = crafted(course, BLACK_MUST_PASS.replace("O", "."), mover=0)
    assert course.legal_list(state) == [27]
    course.play(state, 27)
    assert course.status(state) == FIRST_WON and course.score(state) == 36
    with pytest.raises(GameError, match="over"):
        course.parse_move(state, "pass")


def test_full_board_ends_the_game(game):
    playable = 64 if game.rules == "standard" else 60
    rng = np.random.default_rng(4)
    for _ in range(20):
        state = game.new_state()
        while game.status(state) == ONGOING:
            game.play(state, rng.choice(game.legal_list(state)))
            if sum(c != EMPTY for c in core_board(state)) == playable:
                break
        else:
            continue
        assert game.status(state) != ONGOING and game.legal_list(state) == []
        sign = {FIRST_WON: 1, SECOND_WON: -1, DRAW: 0}[game.status(state)]
        assert np.sign(game.score(state)) == sign
        return
    pytest.fail("no random game filled the board")


# --- encoding and symmetries ---------------------------------------------------------------

def test_encoding_planes(game):
    for state in random_game_states(game, seed=2, count=40)[::5]:
        planes = game.encode(state).reshape(game.planes, 64)
        ref = ref_of(game, state)
        own, opp = X + ref.mover, O - ref.mover
        assert planes.shape == (4, 64)
        assert np.array_equal(planes[0], [c == own for c in ref.board])
        assert np.array_equal(planes[1], [c == opp for c in ref.board])
        assert np.array_equal(planes[2], [a in ref.actions() for a in range(64)])
        assert np.all(planes[3] == 1)


def test_symmetries_commute_with_play_legal_status_and_encode(game):
    states = random_game_states(game, seed=9, count=50)[::4] + [crafted(game, BLACK_MUST_PASS, 0)]
    cells, actions = game.symmetries(states[0])
    assert cells.shape == (8, 64) and actions.shape == (8, 65)
    assert np.array_equal(cells[0], np.arange(64)) and np.all(actions[:, PASS] == PASS)
    for g in range(8):
        assert sorted(cells[g]) == list(range(64))
    for state in states:
        mask, planes = game.legal_mask(state), game.encode(state).reshape(game.planes, 64)
        for g in range(game.num_symmetries):
            image = game.transform_state(state, g)
            assert game.status(image) == game.status(state)
            assert game.to_move(image) == game.to_move(state)
            assert np.array_equal(game.legal_mask(image)[actions[g]], mask)
            assert np.array_equal(game.encode(image).reshape(game.planes, 64)[:, cells[g]], planes)
            for action in game.legal_list(state)[:6]:
                after, image_after = state.copy(), image.copy()
                game.play(after, action)
                game.play(image_after, actions[g, action])
                assert np.array_equal(image_after, game.transform_state(after, g))


# --- text, parameters and errors -----------------------------------------------------------

def test_move_text_round_trips(game):
    for state in random_game_states(game, seed=6, count=60)[::3]:
        for action in game.legal_list(state):
            text = game.format_move(state, action)
            assert game.parse_move(state, text) == action
            assert game.parse_move(state, f" {text.upper()} ") == action


def test_render_shows_board_counts_and_turn(game):
    state = game.play_moves(game.new_state(), ["d3"] if game.rules == "course" else ["f5"])
    text = game.render(state)
    assert "a b c d e f g h" in text and " 8 " in text and "White (O) to move." in text
    if game.rules == "course":
        assert " 1 # . . . . . . #" in text and "Black (X) 1, White (O) 0; course rules." in text
    else:
        assert "#" not in text and "Black (X) 4, White (O) 1; standard rules." in text


def test_score_and_params(game):
    assert game.params() == {"rules": game.rules}
    assert make_game("othello", **game.params()).params() == game.params()
    assert game.score(game.new_state()) == 0
    assert game.num_actions == 65 and game.num_symmetries == 8
    assert make_game("othello", rules="STANDARD").rules == "standard"


@pytest.mark.parametrize("params, message", [
    ({"rules": "classic"}, "course or standard"), ({"rules": 3}, "course or standard"),
    ({"size": 8}, "unknown parameter 'size'")])
def test_bad_parameters(params, message):
    with pytest.raises(GameError, match=message):
        make_game("othello", **params)


@pytest.mark.parametrize("text", ["", "d", "d33", "i4", "d0", "d9", "4d", "pas", "19"])
def test_malformed_moves(game, text):
    with pytest.raises(GameError, match="cannot read move"):
        game.parse_move(game.new_state(), text)


def test_illegal_moves_say_why():
    course = make_game("othello")
    state = course.play_moves(course.new_state(), ["d4"])
    with pytest.raises(GameError, match="occupied"):
        course.parse_move(state, "D4")
    with pytest.raises(GameError, match="corner"):
        course.parse_move(state, "a1")
    with pytest.raises(GameError, match="pass is allowed only"):
        course.parse_move(state, "pass")
    standard = make_game("othello", rules="standard")
    with pytest.raises(GameError, match="flips no disc"):
        standard.parse_move(standard.new_state(), "a1")
    with pytest.raises(GameError, match="flips no disc"):
        standard.parse_move(standard.new_state(), "c3")
    with pytest.raises(GameError, match="flips no disc"):
        standard.play_moves(standard.new_state(), ["f5", "c4"])


@pytest.mark.integration
def test_cli_reports_bad_input_in_one_line():
    for words in (["rules=classic"], ["moves=[b1]"]):
        done = subprocess.run([sys.executable, "-m", "games", "perft", "othello", *words, "2"],
                              capture_output=True, text=True)
        assert done.returncode != 0
        assert done.stderr.startswith("error:") and len(done.stderr.strip().splitlines()) == 1
        assert "Traceback" not in done.stderr
