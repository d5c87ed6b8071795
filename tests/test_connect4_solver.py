"""The exact Connect-4 solver: against a plain memoised minimax on small boards, known facts
and symmetry on 6 x 7, node budgets and bad input."""
from __future__ import annotations

import random

import numpy as np
import pytest

from games.connect4.solver import ILLEGAL_MOVE_SCORE, Connect4Solver

DIRECTIONS = ((1, 0), (0, 1), (1, 1), (1, -1))  # (column step, row step)


# ----------------------------------------------------------------------------- reference

class BruteForce:
    """Minimax over every continuation, no pruning, memoised by position. The board is a tuple
    of columns, each a tuple of players (1 or 2) from the bottom up. The score is the module's
    documented convention written out directly: a win by the n-th stone on the board is worth
    (cells + 2 - n) // 2 to the winner, a full board 0."""

    def __init__(self, rows, cols):
        self.rows, self.cols, self.cells = rows, cols, rows * cols
        self.memo = {}

    def board_after(self, moves):
        board = tuple(() for _ in range(self.cols))
        for stones, col in enumerate(moves):
            board = self.drop(board, col, 1 + stones % 2)
        return board

    @staticmethod
    def drop(board, col, player):
        return board[:col] + (board[col] + (player,),) + board[col + 1:]

    def stone(self, board, col, row):
        if 0 <= col < self.cols and 0 <= row < len(board[col]):
            return board[col][row]
        return 0

    def wins(self, board, col):
        """Whether the top stone of `col` is part of four in a row of its colour."""
        row = len(board[col]) - 1
        player = board[col][row]
        for dc, dr in DIRECTIONS:
            run = 1
            for sign in (1, -1):
                step = 1
                while self.stone(board, col + sign * step * dc, row + sign * step * dr) == player:
                    run += 1
                    step += 1
            if run >= 4:
                return True
        return False

    def move_score(self, board, stones, col):
        """The score of playing `col` for the side to move (stones already on the board)."""
        child = self.drop(board, col, 1 + stones % 2)
        if self.wins(child, col):
            return (self.cells + 2 - (stones + 1)) // 2
        if stones + 1 == self.cells:
            return 0
        return -self.value(child, stones + 1)

    def value(self, board, stones):
        if board not in self.memo:
            self.memo[board] = max(self.move_score(board, stones, col)
                                   for col in range(self.cols) if len(board[col]) < self.rows)
        return self.memo[board]

    def move_scores(self, moves):
        board = self.board_after(moves)
        return [self.move_score(board, len(moves), col) if len(board[col]) < self.rows
                else ILLEGAL_MOVE_SCORE for col in range(self.cols)]

    def random_unfinished(self, rng, stones):
        """A random move sequence of `stones` moves after which the game is still on."""
        while True:
            board, moves = self.board_after(()), []
            for ply in range(stones):
                col = rng.choice([c for c in range(self.cols) if len(board[c]) < self.rows])
                board = self.drop(board, col, 1 + ply % 2)
                moves.append(col)
                if self.wins(board, col):
                    break
            else:
                if stones < self.cells:
                    return moves


def mirrored(moves, cols):
    return [cols - 1 - col for col in moves]


@pytest.fixture(scope="module")
def solver_6x7():
    return Connect4Solver(6, 7, table_bits=20)


# ----------------------------------------------------------------------------- small boards

@pytest.mark.parametrize("rows, cols, stones, positions", [
    (4, 4, 0, 1), (4, 4, 4, 6), (5, 4, 4, 3), (4, 5, 9, 6), (5, 4, 10, 6), (5, 5, 12, 4),
    (4, 6, 11, 4),
    # 4 x 5 from 4 stones takes the reference 10 s: 4 x 5 and 4 stones are checked above
    pytest.param(4, 5, 4, 3, marks=pytest.mark.slow)])
def test_matches_brute_force(rows, cols, stones, positions):
    rng = random.Random(rows * 100 + cols * 10 + stones)
    reference = BruteForce(rows, cols)
    solver = Connect4Solver(rows, cols, table_bits=16)
    for _ in range(positions):
        moves = reference.random_unfinished(rng, stones)
        expected = reference.move_scores(moves)
        assert solver.move_scores(moves).tolist() == expected, moves
        outcomes = [score if score == ILLEGAL_MOVE_SCORE else int(np.sign(score)) for score in expected]
        assert solver.move_scores(moves, outcome_only=True).tolist() == outcomes, moves
        assert solver.solve(moves) == max(expected), moves
        best = [col for col in range(cols) if expected[col] == max(expected)]
        assert solver.optimal_moves(moves) == best, moves


def test_a_tiny_table_gives_the_same_answers():
    """Collisions and replacements in a small table never change an answer."""
    rng = random.Random(7)
    reference = BruteForce(4, 5)
    warm = Connect4Solver(4, 5, table_bits=12)  # small: many collisions and replacements
    for _ in range(8):
        moves = reference.random_unfinished(rng, 7)
        assert warm.move_scores(moves).tolist() == reference.move_scores(moves), moves


# ----------------------------------------------------------------------------- 6 x 7

def open_columns(board):
    return [col for col in range(len(board)) if len(board[col]) < 6]


def winning_columns(board, player):
    """The columns where `player` would complete four by dropping a stone now."""
    rules = BruteForce(6, 7)
    return [col for col in open_columns(board) if rules.wins(rules.drop(board, col, player), col)]


def random_threat_position(random_moves_6x7, rng, stones, my_wins, opponent_wins):
    """Random play until the side to move has `my_wins` winning columns and the opponent
    `opponent_wins`; returns the moves and the columns of each."""
    while True:
        moves = random_moves_6x7(rng, stones)
        board = BruteForce(6, 7).board_after(moves)
        mine = winning_columns(board, 1 + stones % 2)
        theirs = winning_columns(board, 2 - stones % 2)
        if len(mine) == my_wins and len(theirs) == opponent_wins:
            return moves, mine, theirs


def test_immediate_win(solver_6x7, random_moves_6x7):
    moves = [0, 1, 0, 1, 0, 1]  # first player to move, three in column 0
    assert solver_6x7.solve(moves) == 18  # won by the 7th stone: (42 + 2 - 7) // 2
    assert solver_6x7.optimal_moves(moves) == [0]
    rng = random.Random(3)
    for stones in (15, 16, 21):
        moves, mine, _ = random_threat_position(random_moves_6x7, rng, stones, 1, 0)
        win = (42 + 2 - (stones + 1)) // 2
        scores = solver_6x7.move_scores(moves)
        assert scores[mine[0]] == win and np.sum(scores == win) == 1, moves
        assert solver_6x7.solve(moves) == win
        assert solver_6x7.optimal_moves(moves) == mine


def test_must_block(solver_6x7, random_moves_6x7):
    rng = random.Random(5)
    for stones in (16, 17, 20):
        moves, _, theirs = random_threat_position(random_moves_6x7, rng, stones, 0, 1)
        block = theirs[0]
        scores = solver_6x7.move_scores(moves)
        lost_at_once = -((42 + 2 - (stones + 2)) // 2)  # the opponent's next stone wins
        assert all(scores[col] == lost_at_once for col in range(7)
                   if col != block and scores[col] != ILLEGAL_MOVE_SCORE), moves
        assert scores[block] > lost_at_once, moves
        assert solver_6x7.solve(moves) == scores[block]
        assert solver_6x7.optimal_moves(moves) == [block]


def test_full_column_gets_the_sentinel(solver_6x7):
    moves = [3, 3, 3, 3, 3, 3, 0, 6, 0, 6, 2, 4, 2, 4]
    scores = solver_6x7.move_scores(moves)
    assert scores[3] == ILLEGAL_MOVE_SCORE
    assert solver_6x7.solve(moves) == scores.max()
    assert 3 not in solver_6x7.optimal_moves(moves)


@pytest.mark.parametrize("stones", [14, 18, 24, 32])
def test_mid_game_consistency_and_mirror(solver_6x7, stones, random_moves_6x7):
    rng = random.Random(stones)
    for _ in range(3):
        moves = random_moves_6x7(rng, stones)
        scores = solver_6x7.move_scores(moves)
        assert solver_6x7.solve(moves) == scores.max(), moves
        best = np.flatnonzero(scores == scores.max()).tolist()
        assert solver_6x7.optimal_moves(moves) == best, moves
        assert solver_6x7.move_scores(mirrored(moves, 7)).tolist() == scores[::-1].tolist()


def test_node_limit_gives_none_then_the_exact_answer():
    solver = Connect4Solver(6, 7, table_bits=18)
    moves = [2, 1, 1, 3, 1, 4, 0, 2, 2, 5, 6, 3]  # about half a million nodes
    assert solver.move_scores(moves, node_limit=1000) is None
    assert solver.last_nodes > 1000
    assert solver.optimal_moves(moves, node_limit=1000) is None
    with pytest.raises(ValueError, match="positive number of nodes"):
        solver.move_scores(moves, node_limit=0)
    exact = solver.move_scores(moves)
    assert exact.tolist() == Connect4Solver(6, 7, table_bits=18).move_scores(moves).tolist()
    assert solver.last_nodes > 0


@pytest.mark.slow
def test_classic_board_is_a_first_player_win():
    """Published result (Allis, Allen 1988; Pons' scores): the first player wins with the
    last stone when starting in the centre (score 1), and only in the centre."""
    solver = Connect4Solver(6, 7, table_bits=24)
    assert solver.solve([3]) == -1


# ----------------------------------------------------------------------------- bad input

@pytest.mark.parametrize("moves, words", [
    ([7], "outside"), ([-1], "outside"), ([0, 1.5], "not a column"),
    ([0] * 7, "full"), ([0, 1, 0, 1, 0, 1, 0], "already over"),
    ([0, 1, 0, 1, 0, 1, 0, 2], "after the game was won")])
def test_bad_moves_raise(solver_6x7, moves, words):
    for call in (solver_6x7.solve, solver_6x7.move_scores, solver_6x7.optimal_moves):
        with pytest.raises(ValueError, match=words):
            call(moves)


def test_full_board_raises():
    solver = Connect4Solver(4, 4, table_bits=10)
    moves = [0, 2, 1, 2, 0, 0, 2, 3, 0, 2, 3, 3, 1, 3, 1, 1]  # a drawn game
    board = BruteForce(4, 4)
    assert not any(board.wins(board.board_after(moves[:i + 1]), col)
                   for i, col in enumerate(moves))
    with pytest.raises(ValueError, match="board is full"):
        solver.solve(moves)


@pytest.mark.parametrize("rows, cols", [(8, 8), (0, 7)])
def test_bad_board_raises(rows, cols):
    with pytest.raises(ValueError):
        Connect4Solver(rows, cols)


# ----------------------------------------------------------------------------- boards

def drawn_board(moves, rows=6, cols=7):
    """The position after `moves` drawn as games.connect4.rules's `board` draws it: row 0 the top,
    1 the first player's stones, 2 the second's."""
    board = np.zeros((rows, cols), dtype=np.int8)
    for stones, col in enumerate(moves):
        row = rows - 1 - int(np.count_nonzero(board[:, col]))
        board[row, col] = 1 + stones % 2
    return board


@pytest.mark.parametrize("stones", [14, 19, 25])
def test_a_drawn_board_scores_as_its_moves(solver_6x7, stones, random_moves_6x7):
    rng = random.Random(stones)
    for _ in range(3):
        moves = random_moves_6x7(rng, stones)
        for outcome_only in (False, True):
            np.testing.assert_array_equal(
                solver_6x7.move_scores_on_board(drawn_board(moves), outcome_only=outcome_only),
                solver_6x7.move_scores(moves, outcome_only=outcome_only))


def test_the_game_draws_its_boards_as_the_solver_reads_them(solver_6x7, random_moves_6x7):
    from games import make_game
    game = make_game("connect4", rows=6, cols=7, forbidden=None)
    moves = random_moves_6x7(random.Random(5), 20)
    state = game.new_state()
    for col in moves:
        game.play(state, col)
    np.testing.assert_array_equal(game.board(state), drawn_board(moves))


@pytest.mark.parametrize("change, words", [
    (lambda b: b[:5], "not 6 x 7"),
    (lambda b: _set(b, (0, 0), 1), "gap under a stone"),
    (lambda b: _set(b, (5, 6), 3), "value other than"),
    (lambda b: _set(b, (5, 6), 1), "no game alternating"),
    (lambda b: drawn_board([0, 1, 0, 1, 0, 1, 0]), "four in a row")])
def test_bad_drawn_boards_raise(solver_6x7, change, words):
    board = drawn_board([3, 3, 2])
    with pytest.raises(ValueError, match=words):
        solver_6x7.move_scores_on_board(change(board))


def _set(board, cell, value):
    board = board.copy()
    board[cell] = value
    return board
