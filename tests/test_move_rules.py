"""The agent's proven-outcome move rule (alphazero.agent.move_rules). Classic Connect-4 boards:
where the solver proves every column's outcome within its node budget, the agent plays a
column with the best one and reports that outcome as its value, in matches and on the browser
board; elsewhere its search alone plays, or, proving column by column (experimental), where
it proves some, a column proved to win is played and columns proved to lose are not. Course
boards: the same, with the prover. Othello: the same, move by move, within a budget per
move. Connect6's forced cells are tested in tests/test_connect6_forced.py."""
import random

import numpy as np
import pytest

from alphazero.config.settings import ConfigError, build_game, validate
from alphazero.agent.move_rules import ProvenOutcomes, ruled_action
from alphazero.agent.players import AlphaZeroPlayer, make_player
from alphazero.agent.thinking import Agent
from games import make_game
from games.connect4.solver import Connect4Solver
from games.othello.solver import UNKNOWN, OthelloSolver
from tests.test_connect4_solver import random_moves_6x7
from tests.test_evaluate import uniform_network
from tests.test_othello_solver import endgame
from tests.test_play import compose_config


def positions_where_the_outcome_depends_on_the_move(game, count, stones, seed=0):
    """(state, each column's exact outcome) after `stones` random moves, where some column
    keeps a better outcome than another, judged by a solver of its own."""
    judge, rng, found = Connect4Solver(6, 7, table_bits=20), random.Random(seed), []
    while len(found) < count:
        moves = random_moves_6x7(rng, stones)
        outcomes = judge.move_scores(moves, outcome_only=True)
        state = game.new_state()
        for col in moves:
            game.play(state, col)
        legal = outcomes[game.legal_mask(state)]
        if legal.min() != legal.max():
            found.append((state, outcomes))
    return found


@pytest.fixture(scope="module")
def classic():
    return make_game("connect4", rows=6, cols=7, forbidden=None)


def assert_the_rule_plays_a_best_outcome(game, positions):
    """Each of `positions` ((state, each action's exact outcome)) gets, from a uniform network
    with 8 simulations and the rule, a move of the best outcome and that outcome as value."""
    player = AlphaZeroPlayer(game, uniform_network, simulations=8,
                             move_rule=ProvenOutcomes(game, 1_000_000))
    actions = player.best_actions(np.stack([state for state, _ in positions]))
    for action, value, (state, outcomes) in zip(actions, player.last_values, positions):
        best = outcomes[game.legal_mask(state)].max()
        assert outcomes[action] == best and value == best


def test_proven_positions_get_a_column_with_the_best_outcome_and_that_value(classic):
    positions = positions_where_the_outcome_depends_on_the_move(classic, 12, 16)
    assert_the_rule_plays_a_best_outcome(classic, positions)


def test_without_the_rule_the_same_search_misses_some_of_them(classic):
    """The control: a uniform network with 8 simulations does not find them by itself."""
    positions = positions_where_the_outcome_depends_on_the_move(classic, 12, 16)
    player = AlphaZeroPlayer(classic, uniform_network, simulations=8)
    actions = player.best_actions(np.stack([state for state, _ in positions]))
    assert any(outcomes[action] < outcomes[classic.legal_mask(state)].max()
               for action, (state, outcomes) in zip(actions, positions))


def test_past_its_node_budget_the_rule_leaves_the_search_its_move(classic):
    state = classic.new_state()
    classic.play(state, 3)
    assert ProvenOutcomes(classic, 1_000).allowed(state) == (None, None)
    assert ruled_action(None, np.ones(7), np.ones(7), chosen=5) == 5


def test_columns_proved_to_lose_are_excluded_where_the_others_are_not_proved(classic):
    # Every column loses after these ten moves, but 30,000 nodes prove it only for columns
    # 0, 2 and 5: proving column by column, the search chooses among the other four; proving
    # every column or none, it chooses among all seven.
    state = classic.new_state()
    for col in [0, 4, 3, 0, 6, 4, 0, 1, 5, 5]:
        classic.play(state, col)
    assert ProvenOutcomes(classic, 30_000).allowed(state) == (None, None)
    allowed, value = ProvenOutcomes(classic, 30_000, per_column=True).allowed(state)
    assert value is None and allowed.tolist() == [False, True, False, True, True, False, True]


def test_a_proved_win_is_played_where_the_other_columns_are_not_proved(classic):
    # After these ten moves 30,000 nodes prove wins in columns 3 and 6 and nothing else
    # (columns 1 and 2 win too, 0 and 4 lose, 5 draws).
    state = classic.new_state()
    for col in [6, 2, 3, 4, 3, 2, 2, 1, 6, 1]:
        classic.play(state, col)
    allowed, value = ProvenOutcomes(classic, 30_000, per_column=True).allowed(state)
    assert value == 1.0 and np.flatnonzero(allowed).tolist() == [3, 6]


def test_the_browser_board_shows_the_proven_column_and_outcome(classic):
    (state, outcomes), = positions_where_the_outcome_depends_on_the_move(classic, 1, 18, seed=3)
    player = AlphaZeroPlayer(classic, uniform_network, simulations=8,
                             move_rule=ProvenOutcomes(classic, 1_000_000))
    thought = Agent(classic, player, "test").think(state, 8)
    best = outcomes[classic.legal_mask(state)].max()
    assert outcomes[thought.action] == best and thought.value == best
    assert thought.line[0] == thought.action


def test_classic_players_prove_outcomes_as_configured_and_other_boards_refuse_it():
    cfg = compose_config("play", "game=connect4_classic", "device=cpu")
    rule = make_player(build_game(cfg), cfg, "az").move_rule
    assert isinstance(rule, ProvenOutcomes) and rule.node_limit == cfg.game.solver_nodes > 0
    assert not rule.per_column
    each = compose_config("play", "game=connect4_classic", "device=cpu",
                          "+game.solver_per_column=true")
    assert make_player(build_game(each), each, "az").move_rule.per_column
    off = compose_config("play", "game=connect4_classic", "device=cpu", "game.solver_nodes=0")
    assert make_player(build_game(off), off, "az").move_rule is None
    for overrides in (["game=connect4_classic", "game.solver_nodes=-1"],
                      ["game=connect4_classic", "game.solver_nodes=100000000"],
                      ["game=connect4_classic", "game.solver_nodes=1.5"],
                      ["game=connect4_classic", "+game.solver_per_column=1"],
                      ["game=connect6", "+game.solver_nodes=1000"]):
        with pytest.raises(ConfigError, match=r"game\.solver_(nodes|per_column)"):
            validate(compose_config("play", *overrides))


def test_course_boards_prove_with_the_prover():
    cfg = compose_config("play", "game=connect4", "device=cpu", "+game.solver_nodes=1000")
    validate(cfg)
    rule = ProvenOutcomes(build_game(cfg), 1000)
    assert rule.solver is None and rule.prover is not None
    assert ProvenOutcomes(make_game("connect4", rows=6, cols=7, forbidden=None), 1000).prover is None


def course_position(rows, cols, forbidden, moves):
    game = make_game("connect4", rows=rows, cols=cols, forbidden=forbidden)
    state = game.new_state()
    for col in moves:
        game.play(state, col)
    return game, state


def test_a_forced_win_on_a_course_board_is_the_only_column_allowed():
    # X (first) has two on the floor of a 9 x 9 board, columns 3 and 4; O's stones are far
    # away. X plays 2 or 5 next for an open three, which wins two moves later: not at once,
    # so a proof, not a lookup.
    game, state = course_position(9, 9, [0, 0], [3, 8, 4, 8])
    allowed, value = ProvenOutcomes(game, 200_000).allowed(state)
    assert value == 1.0 and allowed is not None
    assert set(np.flatnonzero(allowed)) <= {2, 5} and allowed.any()


def test_columns_proved_to_lose_are_excluded_on_a_course_board():
    # O (second, to move) faces X's open two on the floor (columns 3, 4) with X to move
    # next: every O move but 2 and 5 lets X make an open three. Only the losers go; what
    # is not proved stays the search's to choose.
    game, state = course_position(9, 9, [0, 0], [3, 8, 4])
    allowed, value = ProvenOutcomes(game, 400_000).allowed(state)
    assert value is None and allowed is not None
    assert allowed[2] and allowed[5] and not allowed.all()


@pytest.mark.parametrize("rules", ["course", "standard"])
def test_othello_positions_get_a_move_with_the_best_outcome(rules):
    """At 12 empty cells every move's outcome is proved, so the rule alone picks the move."""
    game, rng, positions = make_game("othello", rules=rules), np.random.default_rng(5), []
    judge = OthelloSolver(game)
    while len(positions) < 8:
        state = endgame(game, rng, 12)
        outcomes = judge.move_outcomes(state)
        legal = outcomes[game.legal_mask(state)]
        if legal.min() != legal.max():
            positions.append((state, outcomes))
    assert_the_rule_plays_a_best_outcome(game, positions)


def wipe_out_threats(game, count, seed=0):
    """Positions with 24 or more empty cells where some moves are proved to lose within
    2,000 nodes and others are not: both sides keep the other's mobility low, which drives
    games towards wipe-outs like those the recipe's networks lose (docs/experiments.md)."""
    judge, rng, found = OthelloSolver(game), np.random.default_rng(seed), []
    while len(found) < count:
        state = game.new_state()
        while game.status(state) == 0 and len(found) < count:
            legal = game.legal_mask(state)
            if game.playable_empties(state) >= 24:
                outcomes = judge.move_outcomes(state, 2_000)[legal]
                if (outcomes == -1).any() and (outcomes != -1).any():
                    found.append(state.copy())
            actions = np.flatnonzero(legal)
            game.play(state, int(min(actions, key=lambda a: replies(game, state, a)))
                      if rng.random() < 0.8 else int(rng.choice(actions)))
    return found


def replies(game, state, action) -> int:
    after = state.copy()
    game.play(after, int(action))
    return int(game.legal_mask(after).sum()) if game.status(after) == 0 else 0


def test_othello_moves_into_a_wipe_out_are_refused_far_from_the_endgame():
    """The rule refuses exactly the moves its solver proves to lose (proofs under a node
    limit are exact: tests/test_othello_solver.py) and leaves the unproved ones."""
    game = make_game("othello", rules="course")
    for state in wipe_out_threats(game, 4):
        legal = game.legal_mask(state)
        allowed, value = ProvenOutcomes(game, 2_000).allowed(state)
        # A fresh solver with the same budget searches exactly as the rule's fresh one did.
        outcomes = OthelloSolver(game).move_outcomes(state, 2_000)
        assert value is None and allowed is not None
        assert (allowed == legal & (outcomes != -1)).all()
        assert allowed.any() and (outcomes[allowed] == UNKNOWN).any()


def test_othello_positions_past_the_budget_leave_the_search_its_move():
    game = make_game("othello", rules="course")
    state = game.new_state()
    assert (OthelloSolver(game).move_outcomes(state, 100)[game.legal_mask(state)] == UNKNOWN).all()
    assert ProvenOutcomes(game, 100).allowed(state) == (None, None)


def test_othello_players_prove_outcomes_when_asked():
    cfg = compose_config("play", "game=othello", "device=cpu", "+game.solver_nodes=1000")
    validate(cfg)
    rule = make_player(build_game(cfg), cfg, "az").move_rule
    assert isinstance(rule, ProvenOutcomes) and rule.othello is not None and rule.node_limit == 1000
