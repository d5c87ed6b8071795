"""Connect6's forced cells (games/connect6.py forced_cells) against brute force through the
game's own moves, and the agent that follows them (alphazero.players.forced_action)."""
import random

import numpy as np
import pytest

from alphazero.players import AlphaZeroPlayer
from games import ONGOING, make_game
from tests.test_connect6 import Reference, game_order
from tests.test_evaluate import uniform_network

SIZE = 7


def after(game, state, *cells):
    child = state.copy()
    for cell in cells:
        if game.status(child) == ONGOING:
            game.play(child, cell)
    return child


def lines(size):
    """Every six cells in a line, written out cell by cell."""
    out = []
    for row in range(size):
        for col in range(size):
            for d_row, d_col in ((0, 1), (1, 0), (1, 1), (1, -1)):
                cells = [(row + i * d_row, col + i * d_col) for i in range(6)]
                if all(0 <= r < size and 0 <= c < size for r, c in cells):
                    out.append([r * size + c for r, c in cells])
    return out


def can_win_next_turn(game, state, side):
    """Whether `side` (1 Black, 2 White) makes six with two more stones: some six cells in a
    line hold four of its stones and none of the other side's."""
    board = game.stones(state).reshape(-1)
    return any(all(board[c] != 3 - side for c in line) and sum(board[c] == side for c in line) >= 4
               for line in lines(game.size))


def planted_position(rng):
    """A position of 12-24 stones, three to five of one colour in one line of six (so that
    wins and threats are common), the rest random; None if a six ended the game on the way."""
    game = make_game("connect6", size=SIZE)
    stones = rng.randrange(12, 25)
    black = sum(1 for i in range(stones) if Reference.turn_of(i) % 2 == 0)
    planted = rng.sample(rng.choice(lines(SIZE)), rng.randrange(3, 6))
    rest = [cell for cell in range(SIZE * SIZE) if cell not in planted]
    rng.shuffle(rest)
    if rng.random() < 0.5:
        cells = (planted + rest[:black - len(planted)], rest[black - len(planted):stones - len(planted)])
    else:
        cells = (rest[:black], planted + rest[black:stones - len(planted)])
    state = game.new_state()
    for action in game_order(SIZE, *cells):
        if game.status(state) != ONGOING:
            return game, None
        game.play(state, action)
    return game, state if game.status(state) == ONGOING else None


def test_a_six_in_one_turn_is_four_in_a_window_with_none_of_the_other_side():
    """The windows rule (what forced_cells and this file's reference use) against every pair
    of stones the side to move could play, through the game's own moves."""
    rng = random.Random(3)
    seen = {True: 0, False: 0}
    for _ in range(30):
        game, state = planted_position(rng)
        if state is None or state[5] != -1:  # whole turns only
            continue
        me = game.to_move(state) + 1
        empty = game.legal_list(state)
        brute = any(game.status(after(game, state, x, y)) == me
                    for i, x in enumerate(empty) for y in empty[i + 1:])
        seen[brute] += 1
        assert brute == can_win_next_turn(game, state, me)
    assert min(seen.values()) >= 3, seen


def test_forced_cells_are_the_winning_or_saving_ones():
    rng = random.Random(5)
    kinds = {"win": 0, "block": 0, "free": 0}
    for _ in range(60):
        game, state = planted_position(rng)
        if state is None:
            continue
        me = game.to_move(state) + 1
        legal = game.legal_list(state)
        second = state[5] != -1 or state[1] == 0  # one stone left this turn
        forced = game.forced_cells(state)
        pairs = [(c,) for c in legal] if second else [(c, d) for c in legal for d in legal if d != c]
        wins = {p[0] for p in pairs if game.status(after(game, state, *p)) not in (ONGOING,)}
        if wins:
            kinds["win"] += 1
            assert forced is not None and set(np.flatnonzero(forced)) <= wins
            continue
        saving = {p[0] for p in pairs if not can_win_next_turn(game, after(game, state, *p), 3 - me)}
        if not saving or saving == set(legal):
            kinds["free"] += 1
            assert forced is None
        else:
            kinds["block"] += 1
            assert forced is not None and set(np.flatnonzero(forced)) == saving
    assert min(kinds.values()) >= 3, kinds


def test_the_agent_blocks_where_its_search_would_not():
    """A uniform network with a tiny search places its stones anywhere; with forced moves on
    it blocks White's open four, and takes its own six when it has one."""
    game = make_game("connect6", size=10)
    # Black's opening stone far away, then White's pair and Black's pair, then White makes
    # four in row 5 (F5-J5 region): Black, to move with two stones, must block.
    state = game.play_moves(game.new_state(), ["A10", "C5", "D5", "A1", "A2", "E5", "F5"])
    player = AlphaZeroPlayer(game, uniform_network, simulations=4, forced_moves=True)
    forced = game.forced_cells(state)
    assert forced is not None
    action = int(player.best_actions(state[None])[0])
    assert forced[action]
    state = game.play_moves(state, [game.format_move(state, action)])
    action = int(player.best_actions(state[None])[0])
    state = game.play_moves(state, [game.format_move(state, action)])
    assert not can_win_next_turn(game, state, 2)
