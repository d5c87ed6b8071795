"""Connect6's forced cells (games/connect6/rules.py forced_cells) against brute force through the
game's own moves, and the agent that follows them (games.connect6.advisors.ForcedCells)."""
import random
from functools import lru_cache
from itertools import combinations

import numpy as np

from alphazero.agent.agent import NetworkAgent
from games import ONGOING, make_game
from games.connect6 import threats as connect6_threats

from games.connect6.advisors import ForcedCells
from helpers import game_order, search_settings, turn_of, uniform_network

SIZE = 7


def after(game, state, *cells):
    child = state.copy()
    for cell in cells:
        if game.status(child) == ONGOING:
            game.play(child, cell)
    return child


@lru_cache(maxsize=None)
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


def planted_position(rng, size=SIZE, lines_planted=(1, 3), line_stones=(3, 4), mover_plants=0.5):
    """A position of 12-24 stones, `line_stones` of one colour (the side to move's with
    probability `mover_plants`) in each of `lines_planted` lines of six, so that sixes and
    threats are common, the rest random; None if a six ended the game on the way."""
    game = make_game("connect6", size=size)
    stones = rng.randint(12, 24)
    black = sum(1 for i in range(stones) if turn_of(i) % 2 == 0)
    counts = {True: black, False: stones - black}
    black_planted = (turn_of(stones) % 2 == 0) == (rng.random() < mover_plants)
    planted = list(dict.fromkeys(
        cell for _ in range(rng.randint(*lines_planted))
        for cell in rng.sample(rng.choice(lines(size)), rng.randint(*line_stones))))
    planted = planted[:counts[black_planted]]
    rest = [cell for cell in range(size * size) if cell not in planted]
    rng.shuffle(rest)
    own = planted + rest[:counts[black_planted] - len(planted)]
    other = rest[counts[black_planted] - len(planted):][:counts[not black_planted]]
    return game, played(game, own, other, black_planted)


def structured_position(rng):
    """An 8x8 position where the side to move holds three or four lines of two or three stones:
    a six next turn that cannot be blocked is common in these."""
    return planted_position(rng, size=8, lines_planted=(3, 4), line_stones=(2, 3), mover_plants=1.0)


def played(game, own, other, own_black):
    """The position after the side to move's `own` and its opponent's `other` stones, in
    turn order; None if a six ended the game on the way."""
    state = game.new_state()
    for action in game_order(game.size, *((own, other) if own_black else (other, own))):
        if game.status(state) != ONGOING:
            return None
        game.play(state, action)
    return state if game.status(state) == ONGOING else None


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


def unstoppable(game, state, side, *stones):
    """Whether after `stones` of `side` no two stones of the other side, on any two empty
    cells, leave it without a window to fill next turn (every pair tried at once)."""
    board = game.stones(state).reshape(-1).copy()
    board[list(stones)] = side
    threats = [line for line in lines(game.size)
               if all(board[c] != 3 - side for c in line) and sum(board[c] == side for c in line) >= 4]
    if not threats:
        return False
    reach = np.zeros((len(threats), len(board)), dtype=bool)
    for i, line in enumerate(threats):
        reach[i, [c for c in line if board[c] == 0]] = True
    empty = board == 0
    pairs = reach[:, :, None] | reach[:, None, :]  # [window, x, y]: a stone on x or y reaches it
    stopped = pairs.all(axis=0) & empty[:, None] & empty[None, :]
    return not stopped.any()


def expected_forced_cells(game, state):
    """(the forced cells by brute force, or None; which rule applies)."""
    me = game.to_move(state) + 1
    legal = game.legal_list(state)
    second = state[5] != -1 or state[1] == 0  # one stone left this turn
    placements = [(c,) for c in legal] + ([] if second else list(combinations(legal, 2)))
    sixes = {c for p in placements if game.status(after(game, state, *p)) == me for c in p}
    if sixes:
        return sixes, "six"  # any cell of a six's window: checked as a subset
    if can_win_next_turn(game, state, 3 - me):
        turns = placements if second else [p for p in placements if len(p) == 2]
        saving = {c for p in turns if not can_win_next_turn(game, after(game, state, *p), 3 - me)
                  for c in p}
        return (None, "free") if not saving or saving == set(legal) else (saving, "block")
    if unstoppable(game, state, me):
        return None, "free"
    winning = {c for p in placements if unstoppable(game, state, me, *p) for c in p}
    return (winning, "six next turn") if winning else (None, "free")


def test_forced_cells_are_the_winning_saving_or_unstoppable_ones():
    """Random positions of two kinds: sixes and blocks are common in the first, a six next
    turn that cannot be blocked in the second (8x8). Where rules 1-3 force nothing ("free"),
    rule 4 finds no win by double threats in them either (it is tested below)."""
    rng = random.Random(5)
    kinds = dict.fromkeys(("six", "block", "six next turn", "free"), 0)
    for position in [planted_position] * 50 + [structured_position] * 30:
        game, state = position(rng)
        if state is None:
            continue
        expected, kind = expected_forced_cells(game, state)
        kinds[kind] += 1
        forced = game.forced_cells(state)
        if kind == "six":
            assert forced is not None and set(np.flatnonzero(forced)) <= expected
        else:
            assert (forced if forced is None else set(np.flatnonzero(forced))) == expected, kind
    assert min(kinds.values()) >= 3, kinds


def test_a_six_next_turn_that_cannot_be_blocked_in_every_symmetry():
    """Black's C6-E6 and J10-J8, White's stones out of their way: F6 makes four in row 6
    (two stones to block) and J7 four in column J (one more), and only those stones' cells
    do it. Brute force over every pair of Black's stones and of White's replies
    (expected_forced_cells, about 10 s) gives the same four cells."""
    game = make_game("connect6", size=10)
    cell = lambda text: (10 - int(text[1:])) * 10 + "ABCDEFGHJK".index(text[0])
    black = ["C6", "D6", "E6", "J10", "J9", "J8", "A1", "A3", "C1"]
    white = ["K1", "H1", "F2", "K3", "H4", "E1", "D3", "B4", "B2", "K5"]
    state = game.new_state()
    for action in game_order(10, [cell(t) for t in black], [cell(t) for t in white]):
        game.play(state, action)
    forced = game.forced_cells(state)
    assert sorted(game.format_move(state, int(c)) for c in np.flatnonzero(forced)) == \
        ["F6", "J5", "J6", "J7"]
    _, action_maps = game.symmetries(state)
    for g in range(1, game.num_symmetries):
        image = game.forced_cells(game.transform_state(state, g))
        np.testing.assert_array_equal(image[action_maps[g]], forced)


def test_the_agent_blocks_where_its_search_would_not():
    """A uniform network with a tiny search places its stones almost anywhere; with forced
    moves on, its two stones block White's four."""
    game = make_game("connect6", size=10)
    # Black's opening stone and pair far away; White's C5-F5 in row 5: Black must block.
    state = game.play_moves(game.new_state(), ["A10", "C5", "D5", "A1", "A2", "E5", "F5"])
    player = NetworkAgent(game, uniform_network, 4, search_settings(), [ForcedCells(game, True)])
    forced = game.forced_cells(state)
    assert forced is not None
    action = int(player.best_actions(state[None])[0])
    assert forced[action]
    thought = player.think(state, 4)  # as the browser board asks
    assert forced[thought.action] and thought.line[0] == thought.action
    state = game.play_moves(state, [game.format_move(state, action)])
    action = int(player.best_actions(state[None])[0])
    state = game.play_moves(state, [game.format_move(state, action)])
    assert not can_win_next_turn(game, state, 2)


# ------------------------------------------- rule 4: a win by double threats


def threat_reach(board, side, size):
    """bool[windows side threatens, cells]: each such window's empty cells."""
    windows = np.array(lines(size))
    values = board[windows]
    kept = ((values == side).sum(axis=1) >= 4) & ((values == 3 - side).sum(axis=1) == 0)
    reach = np.zeros((int(kept.sum()), board.size), dtype=bool)
    reach[np.repeat(np.arange(reach.shape[0]), 6), windows[kept].reshape(-1)] = \
        (values[kept] == 0).reshape(-1)
    return reach


def wins_after(board, side, turns, size):
    """Whether `side`, having just played, wins within `turns` more turns of its own whatever
    the other side does: its threats take more than two stones to block, or exactly two
    and every two-stone block (over every pair of empty cells) leaves the other side no
    threat and `side` such a win again."""
    reach = threat_reach(board, side, size)
    if not len(reach) or reach.all(axis=0).any():
        return False  # nothing to block, or one stone blocks it all and the other is free
    empty = np.flatnonzero(board == 0)
    missed = (~reach[:, empty]).astype(np.int64)  # [window, empty cell]: a stone there misses it
    first, second = np.nonzero(np.triu(missed.T @ missed == 0, 1))
    if not len(first):
        return True
    if turns == 1:
        return False
    for x, y in zip(empty[first], empty[second]):
        blocked = board.copy()
        blocked[[x, y]] = 3 - side
        if len(threat_reach(blocked, 3 - side, size)) or \
                not winning_placements(blocked, side, 2, turns - 1, size, first_only=True):
            return False
    return True


def winning_placements(board, side, stones, turns, size, first_only=False):
    """The cells of every placement of `stones` stones on any empty cells that wins
    (wins_after); with first_only, those of the first found."""
    cells = set()
    for placement in combinations(np.flatnonzero(board == 0), stones):
        after = board.copy()
        after[list(placement)] = side
        if wins_after(after, side, turns, size):
            cells |= set(placement)
            if first_only:
                break
    return cells


def test_wins_by_double_threats_against_every_placement_and_block(monkeypatch):
    """forced_cells two turns deep (rules 3 and 4, the quickest win first) against brute
    force over every placement and every block (8x8 positions where the side to move holds
    four or five lines of two or three stones, neither side threatening yet). The rule
    tries only cells of windows two stones can fill to four, so it may name fewer cells of
    a win (a stone that pre-empts the opponent's counter-threat, a free stone beside a
    one-stone win) but finds a win wherever there is one, and names no cell that does not
    win; after a stone on any cell it names, it names a cell for the turn's second stone
    (or none, where that stone alone left threats two stones cannot block)."""
    monkeypatch.setattr(connect6_threats, "THREAT_TURNS", 2)
    rng = random.Random(7)
    kinds = dict.fromkeys(("none", "next turn", "double threats"), 0)
    while kinds["double threats"] < 3:
        game, state = planted_position(rng, size=8, lines_planted=(4, 5), line_stones=(2, 3),
                                       mover_plants=1.0)
        if state is None:
            continue
        board = game.stones(state).reshape(-1).astype(np.int64)
        me = game.to_move(state) + 1
        if len(threat_reach(board, me, 8)) or len(threat_reach(board, 3 - me, 8)):
            continue  # a six this turn or a block comes first (rules 1 and 2)
        left = 1 if state[5] != -1 else 2
        quickest = winning_placements(board, me, left, 1, 8)
        expected = quickest or winning_placements(board, me, left, 2, 8)
        forced = game.forced_cells(state)
        found = set() if forced is None else set(np.flatnonzero(forced))
        assert found <= expected and bool(found) == bool(expected)
        for cell in found if left == 2 else ():  # a cell for the second stone, or any wins
            child = after(game, state, int(cell))
            assert game.forced_cells(child) is not None or unstoppable(game, child, me)
        kinds["none" if not expected else "next turn" if quickest else "double threats"] += 1
    assert kinds["none"] >= 10, kinds


# A match the recipe's network (training seed 0) drew against pure MCTS 11,000 per stone,
# from a 2-ply opening: here White could force a win by double threats, and the network's
# search played D8 and C9, one threat that Black blocked.
DRAWN_MATCH = ["D4", "D5", "E4", "E5", "C3", "F6", "F3", "C6", "F5", "G5", "E7", "C4", "C5",
               "C2", "C8", "B6", "F2", "G4", "E3", "K5", "F4"]


def test_the_agent_wins_by_double_threats_against_every_reply():
    """With forced moves on, the agent (a uniform network, a tiny search) wins that position
    whatever Black does: every pair of Black's stones on the cells of White's threatened
    windows (the blocks, and the non-blocks that lose at once) is tried at every turn."""
    game = make_game("connect6", size=10)
    player = NetworkAgent(game, uniform_network, 4, search_settings(), [ForcedCells(game, True)])
    state = game.play_moves(game.new_state(), DRAWN_MATCH)
    assert not can_win_next_turn(game, state, 1) and not can_win_next_turn(game, state, 2)
    assert game.forced_cells(state) is not None
    lines_played = 0

    def white_wins(state, turns):
        nonlocal lines_played
        for _ in range(2):
            if game.status(state) == ONGOING:
                state = after(game, state, int(player.best_actions(state[None])[0]))
        if game.status(state) != ONGOING:
            lines_played += 1
            return game.status(state) == 2  # SECOND_WON: White
        board = game.stones(state).reshape(-1)
        targets = sorted({c for line in lines(10) if all(board[c] != 1 for c in line)
                          and sum(board[c] == 2 for c in line) >= 4 for c in line if board[c] == 0})
        return turns > 0 and bool(targets) and all(
            white_wins(after(game, state, x, y), turns - 1) for x, y in combinations(targets, 2))

    assert white_wins(state, 4)
    assert lines_played > 10


# A match the same network lost to pure MCTS 11,000 (evaluation seed 2): here Black could
# force a win by double threats; the rule names G6, E5, G5 and F4. A first version searched
# the second stone's cells apart from the first's and found none after G6: the pair's other
# cell was not among those it tried, and the agent played on without the win.
LOST_MATCH = ["G2", "H4", "E1", "E4", "D5", "C6", "J5", "D6", "D4", "E6", "D7", "F5", "D3",
              "D1", "B5"]


def test_every_first_stone_of_a_win_by_double_threats_leaves_a_second():
    game = make_game("connect6", size=10)
    state = game.play_moves(game.new_state(), LOST_MATCH)
    forced = game.forced_cells(state)
    assert sorted(game.format_move(state, int(c)) for c in np.flatnonzero(forced)) == \
        ["E5", "F4", "G5", "G6"]
    for cell in np.flatnonzero(forced):
        assert game.forced_cells(after(game, state, int(cell))) is not None
