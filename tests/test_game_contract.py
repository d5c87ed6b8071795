"""The game contract (games/core/base.py), checked on every registered game.

Each test checks one rule that search, self-play, the replay buffer and the tools rely on,
and fails with a message that starts with the rule's name. A new game is picked up from the
registry with its default parameters; add representative parameters to GAME_PARAMS (and its
turn order to TURN_ORDER if a side may act more than once in a row) when it has them.
See docs/adding_a_game.md.
"""
from __future__ import annotations

import random

import numpy as np
import pytest

from games import (DRAW, FIRST_WON, ONGOING, SECOND_WON, GameError, game_class, game_names,
                   make_game)
from games.core.base import Kernels, fits_uint8
from games.core.presentation import BOARD_STYLES
from games.core.rng import make_rng
from games.core.specialize import specialize

# Representative parameters per registered game; a game missing here runs with its defaults.
GAME_PARAMS = {
    "connect4": [{}, {"rows": 6, "cols": 7, "forbidden": None}],
    "connect6": [{"size": 10}, {"size": 7}],
    "gomoku": [{"size": 8}, {"size": 15}, {"rows": 6, "cols": 9}, {"size": 7, "exact_five": True}],
    "othello": [{"rules": "course"}, {"rules": "standard"}],
    "openspiel": [{"game": "connect_four"}, {"game": "hex(board_size=5)"},
                  {"game": "breakthrough(rows=6,columns=6)"}],
}


def alternate(ply: int) -> int:
    return ply & 1


def connect6_pairs(ply: int) -> int:
    """Black's single opening stone, then two stones a side."""
    return ((ply + 1) >> 1) & 1


# The side to move (0 first, 1 second) after `ply` actions, for games that do not simply
# alternate. A pass is an action, so Othello alternates.
TURN_ORDER = {"connect6": connect6_pairs}

STATUSES = {ONGOING, FIRST_WON, SECOND_WON, DRAW}


def cases(kernel_games_only: bool = False):
    for name in game_names():
        if kernel_games_only and game_class(name).kernels is None:
            continue  # its rules run in Python: nothing is compiled
        missing = game_class(name).unavailable()  # an optional package not installed
        for params in GAME_PARAMS.get(name, [{}]):
            label = "-".join(f"{k}={v}" for k, v in params.items()) or "defaults"
            yield pytest.param((name, params), id=f"{name}-{label}",
                               marks=pytest.mark.skipif(missing is not None, reason=str(missing)))


def move_bound(game) -> int:
    """The most actions a game can last (games.core.base.Game.max_plies)."""
    return game.max_plies


def positions(game, seed: int, games: int = 3):
    """States met in `games` uniformly random games (the start, then after each action),
    each with the actions that led to it; a game stops one action past the move bound."""
    rng = np.random.default_rng(seed)
    for _ in range(games):
        state, moves = game.new_state(rng), []
        yield state.copy(), list(moves)
        while game.status(state) == ONGOING and len(moves) <= move_bound(game):
            action = int(rng.choice(game.legal_list(state)))
            game.play(state, action)
            moves.append(action)
            yield state.copy(), list(moves)


def sample(items, count: int, seed: int):
    items = list(items)
    return random.Random(seed).sample(items, min(count, len(items)))


@pytest.fixture(params=list(cases()))
def game(request):
    name, params = request.param
    return make_game(name, **params)


@pytest.fixture(params=list(cases(kernel_games_only=True)))
def kernel_game(request):
    name, params = request.param
    return make_game(name, **params)


# ---------------------------------------------------------------- the spec


def test_spec_attributes_kernels_and_shapes(game):
    rule = "spec"
    assert game.kernels is None or isinstance(game.kernels, Kernels), \
        f"{rule}: kernels must be a games.core.base.Kernels, or None for rules in Python"
    for attribute in ("num_actions", "planes", "height", "width", "state_size", "num_symmetries"):
        value = getattr(game, attribute, None)
        assert isinstance(value, int) and value >= 1, f"{rule}: {attribute} must be an int >= 1"
    state = game.new_state(np.random.default_rng(0))
    assert state.shape == (game.state_size,) and state.dtype == game.state_dtype, \
        f"{rule}: new_state must be a 1-D {game.state_dtype.__name__} array of state_size"
    assert game.encode(state).shape == (game.planes, game.height, game.width), \
        f"{rule}: encode must fill [planes, height, width]"
    assert game.ply(state) == 0 and game.to_move(state) == 0, \
        f"{rule}: a game starts at ply 0 with the first player to move"
    rebuilt = make_game(game.name, **game.params())
    assert rebuilt.params() == game.params(), f"{rule}: params() must rebuild the same game"
    assert 0 < game.dirichlet_alpha, f"{rule}: dirichlet_alpha must be positive"
    assert game.pass_action is None or 0 <= game.pass_action < game.num_actions, \
        f"{rule}: pass_action must be an action or None"


# ---------------------------------------------------------------- legal moves and status


def test_legal_moves_and_status(game):
    rule = "legal moves and status"
    for state, moves in positions(game, seed=1):
        code = game.status(state)
        assert code in STATUSES, f"{rule}: status {code} is not one of games.core.base's codes"
        mask = np.ones(game.num_actions, dtype=np.bool_)  # stale values must be overwritten
        count = game.legal_actions(state, mask)
        assert count == mask.sum(), f"{rule}: legal_actions must return the number it marks"
        assert np.array_equal(mask, game.legal_mask(state)), \
            f"{rule}: legal_actions must write every entry of the mask, False ones too"
        if code == ONGOING:
            assert count > 0, f"{rule}: an ongoing game needs a legal action (a pass counts)"
        else:
            assert count == 0, f"{rule}: a finished game has no legal action"


def test_random_games_end_within_the_move_bound(game):
    """Every game ends within the move bound, with a result its score (if any) agrees with."""
    rule = "random games end"
    bound = move_bound(game)
    for state, moves in positions(game, seed=2, games=6):
        assert len(moves) <= bound, f"{rule}: a game ran past {bound} actions"
        if game.status(state) != ONGOING:
            code = game.status(state)
            score = game.score(state)
            if score is not None:  # optional: the engine's final_score
                sign = {FIRST_WON: 1, SECOND_WON: -1, DRAW: 0}[code]
                assert np.sign(score) == sign, f"{rule}: score {score} disagrees with status {code}"
            with pytest.raises(GameError):
                game.parse_move(state, game.format_move(state, moves[-1]))


def test_side_to_move_and_ply_follow_the_moves(game):
    rule = "side to move and ply"
    turn_order = TURN_ORDER.get(game.name, alternate)
    for state, moves in positions(game, seed=3):
        ply = game.ply(state)
        assert ply == len(moves), f"{rule}: ply is {ply} after {len(moves)} actions"
        if game.status(state) == ONGOING:
            assert game.to_move(state) == turn_order(len(moves)), \
                f"{rule}: after {len(moves)} actions the side to move must be " \
                f"{turn_order(len(moves))} (TURN_ORDER in this file says the game's order)"


# ---------------------------------------------------------------- encoding


def test_encoding_matches_the_spec(game):
    rule = "encoding"
    for state, _ in sample(positions(game, seed=4), 25, seed=4):
        planes = game.encode(state)
        stale = np.full_like(planes, 7.0)  # the search reuses its buffers
        game.encode_into(state, stale)
        assert planes.dtype == np.float32 and np.isfinite(planes).all(), \
            f"{rule}: planes must be finite float32"
        assert np.array_equal(stale, planes), \
            f"{rule}: encode must write every cell of its output, zeros too"
        before = state.copy()
        game.encode(state)
        assert np.array_equal(state, before), f"{rule}: encode must not change the state"


def test_planes_are_small_whole_numbers(game):
    """games.core.base's rule for input planes: whole numbers from 0 to 255, since self-play
    and the replay buffer store them as uint8."""
    rule = "encoding: whole numbers from 0 to 255"
    for state, moves in sample(positions(game, seed=9), 40, seed=9):
        planes = game.encode(state)
        assert fits_uint8(planes), \
            f"{rule}: after {len(moves)} actions a plane holds {planes[planes != planes.astype(np.uint8)][0]}"


# ---------------------------------------------------------------- symmetries


def test_symmetries_commute_with_play_legal_moves_status_and_encoding(game):
    rule = "symmetries"
    cells_size = game.height * game.width
    for state, _ in sample(positions(game, seed=5), 12, seed=5):
        cells, actions = game.symmetries(state)
        G = game.num_symmetries
        assert cells.shape == (G, cells_size) and actions.shape == (G, game.num_actions), \
            f"{rule}: maps must be [num_symmetries, cells] and [num_symmetries, actions]"
        if game.plane_symmetries is not None:
            assert game.plane_symmetries.shape == (G, game.planes) and all(
                np.array_equal(np.sort(m), np.arange(game.planes)) for m in game.plane_symmetries), \
                f"{rule}: plane_symmetries must be [num_symmetries, planes] permutations"
        assert np.array_equal(cells[0], np.arange(cells_size)) and \
            np.array_equal(actions[0], np.arange(game.num_actions)), f"{rule}: identity first"
        for g in range(G):
            assert np.array_equal(np.sort(cells[g]), np.arange(cells_size)) and \
                np.array_equal(np.sort(actions[g]), np.arange(game.num_actions)), \
                f"{rule}: symmetry {g} must be a permutation of cells and of actions"
        mask = game.legal_mask(state)
        planes = game.encode(state).reshape(game.planes, -1)
        legal = np.flatnonzero(mask)
        for g in range(G):
            image = game.transform_state(state, g)
            where = f"{rule}: symmetry {g}"
            assert game.status(image) == game.status(state), f"{where} changes the status"
            assert game.to_move(image) == game.to_move(state), f"{where} changes the mover"
            assert game.ply(image) == game.ply(state), \
                f"{where} changes the ply"
            moved = np.zeros_like(mask)
            moved[actions[g]] = mask
            assert np.array_equal(game.legal_mask(image), moved), \
                f"{where} does not carry the legal moves"
            moved_planes = np.zeros_like(planes)
            moved_planes[:, cells[g]] = planes
            if game.plane_symmetries is not None:
                moved_planes[game.plane_symmetries[g]] = moved_planes.copy()
            assert np.array_equal(game.encode(image).reshape(game.planes, -1), moved_planes), \
                f"{where} does not permute the encoding's cells (and planes, where it moves them)"
            for action in sample(legal, 3, seed=g):
                after, image_after = state.copy(), image.copy()
                game.play(after, int(action))
                game.play(image_after, int(actions[g, action]))
                assert np.array_equal(image_after, game.transform_state(after, g)), \
                    f"{where} does not commute with play"


# ---------------------------------------------------------------- notation


def test_notation_round_trips_every_legal_move(game):
    rule = "notation"
    for state, _ in sample(positions(game, seed=6), 10, seed=6):
        for action in game.legal_list(state):
            text = game.format_move(state, action)
            try:
                parsed = game.parse_move(state, text)
            except GameError as error:
                pytest.fail(f"{rule}: '{text}', legal action {action}, is refused: {error}")
            assert parsed == action, f"{rule}: '{text}' parses to {parsed}, not {action}"
        for garbage in ("", "?!", "Z99", "-1"):
            try:
                game.parse_move(state, garbage)
            except GameError:
                continue  # the one kind of refusal the tools turn into a sentence
            except Exception as error:  # noqa: BLE001 - any other kind is the failure
                pytest.fail(f"{rule}: parse_move('{garbage}') raised "
                            f"{type(error).__name__}; refuse bad text with GameError")
        assert isinstance(game.render(state), str), f"{rule}: render must return text"


# ---------------------------------------------------------------- batched kernels


def step_batch(states, actions, planes, masks, codes, movers, plies):
    """Compiled generic code, as the search runs the kernels: one action per row of a
    batch of states, then every query into that row of shared output buffers."""
    for b in range(states.shape[0]):
        if actions[b] >= 0:
            play(states[b], actions[b])  # noqa: F821
        masks_count = legal_actions(states[b], masks[b])  # noqa: F821
        encode(states[b], planes[b])  # noqa: F821
        codes[b] = status(states[b]) * 1000 + masks_count  # noqa: F821
        movers[b] = to_move(states[b])  # noqa: F821
        plies[b] = ply(states[b])  # noqa: F821


def playout_batch(states, seeds, codes):
    for b in range(states.shape[0]):
        rng = np.empty(1, dtype=np.uint64)
        rng[0] = seeds[b]
        codes[b] = random_playout(states[b], rng)  # noqa: F821


def test_batched_and_single_kernels_agree(kernel_game):
    """The search calls the kernels from compiled code on rows of batch arrays and reuses
    its output buffers; the answers must be those of one state at a time."""
    rule = "batched kernels"
    game = kernel_game
    compiled = specialize(game, [step_batch, playout_batch])
    picked = sample(positions(game, seed=7), 16, seed=7)
    states = np.stack([state for state, _ in picked])
    actions = np.array([sample(game.legal_list(s), 1, seed=i)[0] if game.legal_list(s) else -1
                        for i, s in enumerate(states)], dtype=np.int64)
    batch = states.copy()
    planes = np.full((len(states), game.planes, game.height, game.width), 5.0, np.float32)
    masks = np.ones((len(states), game.num_actions), dtype=np.bool_)
    codes, movers, plies = (np.zeros(len(states), dtype=np.int64) for _ in range(3))
    compiled.step_batch(batch, actions, planes, masks, codes, movers, plies)
    for b, state in enumerate(states):
        single = state.copy()
        if actions[b] >= 0:
            game.play(single, int(actions[b]))
        assert np.array_equal(batch[b], single), f"{rule}: play differs in a batch row"
        mask = game.legal_mask(single)
        assert np.array_equal(masks[b], mask), f"{rule}: legal_actions differs in a batch row"
        assert np.array_equal(planes[b], game.encode(single)), \
            f"{rule}: encode differs in a batch row"
        assert codes[b] == game.status(single) * 1000 + mask.sum(), \
            f"{rule}: status or the legal count differs in a batch row"
        assert movers[b] == game.to_move(single) and plies[b] == game.ply(single), \
            f"{rule}: to_move or ply differs in a batch row"
    seeds = np.array([make_rng(b)[0] for b in range(len(states))], dtype=np.uint64)
    played, results = states.copy(), np.zeros(len(states), dtype=np.int64)
    compiled.playout_batch(played, seeds, results)
    for b, state in enumerate(states):
        single = state.copy()
        code = game.random_playout(single, make_rng(b))
        assert np.array_equal(played[b], single) and results[b] == code, \
            f"{rule}: random_playout differs in a batch row"


def test_random_playout_ends_the_game(game):
    rule = "random playout"
    for state, _ in sample(positions(game, seed=8), 20, seed=8):
        played = state.copy()
        code = game.random_playout(played, make_rng(3))
        assert code == game.status(played) != ONGOING, \
            f"{rule}: it must return the final status of a finished game"
        assert game.legal_mask(played).sum() == 0, f"{rule}: the game must be over"
        assert game.ply(played) >= game.ply(state), \
            f"{rule}: ply must count the actions it played"
        again = played.copy()
        assert game.random_playout(again, make_rng(4)) == code and \
            np.array_equal(again, played), f"{rule}: a finished game must stay as it is"


def test_presentation_names_the_game_its_sides_and_its_board(game):
    shown = game.presentation()
    assert shown.name and shown.rules.endswith(".")
    assert len(shown.side_names) == 2 and all(shown.side_names) and len(set(shown.side_names)) == 2
    assert shown.board_style in BOARD_STYLES
    assert shown.title.startswith(shown.name)
