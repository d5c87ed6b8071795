"""Positions with known answers for the search tests, and a brute-force checker for them.

Hand-built entries: (game name, parameters, moves from the start in the game's notation,
the correct moves in notation, what it checks). `winning_moves` proves answers by exhaustive
search, so the tests never trust a hand-made answer alone.
"""
import numpy as np

from games import ONGOING, make_game

WIN_IN_ONE = [
    ("connect4", {"rows": 6, "cols": 7}, [1, 1, 2, 2, 3, 3], {"4"}, "horizontal four"),
    # O's bottom row 1-3 is cut by the forbidden cell; X's row above it wins in column 4.
    ("connect4", {"rows": 9, "cols": 10, "forbidden": [8, 3]}, [9, 1, 1, 2, 2, 3, 3, 9], {"4"},
     "a stone that skips the forbidden cell completes the four"),
    # Black holds A1-D1 and must place E1 and F1: the win takes both stones of the pair.
    ("connect6", {"size": 10}, ["A1", "A10", "C10", "B1", "C1", "E10", "G10", "D1", "J5",
                                "H8", "J8"], {"E1", "F1"}, "a six that needs both stones"),
]

BLOCK_ONLY = [
    ("connect4", {"rows": 6, "cols": 7}, [1, 1, 2, 2, 3], {"4"}, "block a horizontal three"),
    # Black holds A1-E1; White has placed one stone of its pair and must take F1 with the other.
    ("connect6", {"size": 10}, ["A1", "A10", "C10", "B1", "C1", "E10", "G10", "D1", "E1", "J9"],
     {"F1"}, "block a five with the second stone"),
]


def position(name, params, moves):
    game = make_game(name, **params)
    state = game.new_state(np.random.default_rng(0))
    game.play_moves(state, moves)
    return game, state


def forced_win(game, state, player, plies):
    """True if `player` can force a win within `plies` actions from `state`."""
    code = game.status(state)
    if code != ONGOING:
        return code == 1 + player
    if plies == 0:
        return False
    mover_is_player = game.to_move(state) == player
    outcomes = []
    for action in game.legal_list(state):
        child = state.copy()
        game.play(child, action)
        won = forced_win(game, child, player, plies - 1)
        if won and mover_is_player:
            return True
        outcomes.append(won)
    return not mover_is_player and all(outcomes)


def winning_moves(game, state, plies):
    """The mover's actions that force a win within `plies` actions (this one included)."""
    player = game.to_move(state)
    wins = set()
    for action in game.legal_list(state):
        child = state.copy()
        game.play(child, action)
        if forced_win(game, child, player, plies - 1):
            wins.add(action)
    return wins


def othello_pass_win(seed=0):
    """A course-rules Othello position whose only wins go through the opponent's forced pass:
    the mover cannot win with one move but can win in three plies (move, pass, move)."""
    game = make_game("othello", rules="course")
    rng = np.random.default_rng(seed)
    for _ in range(2000):
        state = game.new_state()
        while game.status(state) == ONGOING:
            legal = game.legal_list(state)
            if len(legal) <= 6 and not winning_moves(game, state, 1):
                wins = winning_moves(game, state, 3)
                through_pass = set()
                for action in wins:
                    child = state.copy()
                    game.play(child, action)
                    if game.legal_list(child) == [64]:
                        through_pass.add(action)
                if through_pass and through_pass == wins and len(wins) < len(legal):
                    return game, state, wins
            game.play(state, int(rng.choice(legal)))
    raise AssertionError("no Othello position with a win through a pass was found")
