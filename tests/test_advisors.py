"""The agent's advisors (games.core.advice, built by alphazero.agent.build) and the switch
that turns them off. Othello's exact endgame: where the solver covers a position the agent
plays a best move by exact value without searching. Classic Connect-4's proven outcomes:
where the solver proves every column within its budget, the agent plays a column of the best
outcome and reports it as its value; elsewhere its search alone plays. Leaf rollouts: a
search setting. `search_alone=true`: none of them. Connect6's forced cells are tested with
its threat search in tests/test_connect6_forced.py."""
import random

import numpy as np
import pytest

from alphazero.agent.agent import NetworkAgent
from alphazero.agent.build import advisors_for, build_agent
from alphazero.agent.spec import agent_spec
from alphazero.config.command import command_config
from alphazero.config.command_line import check_command_line
from alphazero.config.errors import ConfigError
from alphazero.config.settings import build_game, validate
from games import GameError, game_advisors, make_game
from games.connect4.advisors import ProvenOutcomes
from games.connect4.solver import Connect4Solver
from games.othello.advisors import ExactEndgame
from games.othello.solver import OthelloSolver
from helpers import search_settings, uniform_network


def counting(evaluated):
    def network(planes, legal):
        evaluated.append(len(planes))
        return uniform_network(planes, legal)
    return network


# ------------------------------------------------------------------------- Othello's endgame

def endgames_where_the_move_matters(endgame, game, rng, empties, count):
    """Positions with `empties` playable empty cells where not every move is worth the same."""
    solver, found = OthelloSolver(game), []
    while len(found) < count:
        state = endgame(game, rng, empties)
        values = solver.move_values(state)
        if len(set(values[game.legal_mask(state)])) > 1:
            found.append((state, values))
    return found


def test_covered_positions_get_a_best_move_and_their_exact_outcome_without_a_search(endgame):
    game = make_game("othello")
    covered = endgames_where_the_move_matters(endgame, game, np.random.default_rng(2), 9, 4)
    evaluated = []
    agent = NetworkAgent(game, counting(evaluated), 32, search_settings(), [ExactEndgame(game, 10)])
    actions = agent.best_actions(np.stack([state for state, _ in covered]))
    assert not evaluated  # no search ran
    for action, value, (state, values) in zip(actions, agent.last_values, covered):
        best = values[game.legal_mask(state)].max()
        assert values[action] == best and value == np.sign(best)


def test_a_batch_mixes_solved_and_searched_positions(endgame):
    game = make_game("othello")
    rng = np.random.default_rng(4)
    (near, values), = endgames_where_the_move_matters(endgame, game, rng, 8, 1)
    far = endgame(game, rng, 30)
    over = endgame(game, rng, 4)
    while game.status(over) == 0:
        game.play(over, game.legal_list(over)[0])
    agent = NetworkAgent(game, uniform_network, 32, search_settings(), [ExactEndgame(game, 10)])
    actions = agent.best_actions(np.stack([far, near, over]))
    assert actions[0] in game.legal_list(far) and actions[2] == -1
    assert values[actions[1]] == values[game.legal_mask(near)].max()


def test_the_browser_board_shows_the_solvers_move_as_the_agents_thought(endgame):
    game = make_game("othello")
    (state, values), = endgames_where_the_move_matters(endgame, game, np.random.default_rng(6), 8, 1)
    agent = NetworkAgent(game, uniform_network, 32, search_settings(), [ExactEndgame(game, 10)])
    thought = agent.think(state, 32)
    assert values[thought.action] == values[game.legal_mask(state)].max()
    assert thought.line == [thought.action] and thought.visits[thought.action] == thought.visits.sum()


# ------------------------------------------------------------- classic Connect-4's outcomes

def positions_where_the_outcome_depends_on_the_move(random_moves_6x7, game, count, stones, seed=0):
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


def test_proven_positions_get_a_column_with_the_best_outcome_and_that_value(classic, random_moves_6x7):
    positions = positions_where_the_outcome_depends_on_the_move(random_moves_6x7, classic, 12, 16)
    agent = NetworkAgent(classic, uniform_network, 8, search_settings(),
                         [ProvenOutcomes(classic, 1_000_000)])
    actions = agent.best_actions(np.stack([state for state, _ in positions]))
    for action, value, (state, outcomes) in zip(actions, agent.last_values, positions):
        best = outcomes[classic.legal_mask(state)].max()
        assert outcomes[action] == best and value == best


def test_without_the_advisor_the_same_search_misses_some_of_them(classic, random_moves_6x7):
    """The control: a uniform network with 8 simulations does not find them by itself."""
    positions = positions_where_the_outcome_depends_on_the_move(random_moves_6x7, classic, 12, 16)
    agent = NetworkAgent(classic, uniform_network, 8, search_settings())
    actions = agent.best_actions(np.stack([state for state, _ in positions]))
    assert any(outcomes[action] < outcomes[classic.legal_mask(state)].max()
               for action, (state, outcomes) in zip(actions, positions))


def test_past_its_node_budget_the_advisor_leaves_the_search_its_move(classic):
    state = classic.new_state()
    classic.play(state, 3)
    assert ProvenOutcomes(classic, 1_000).advise(state) is None


def test_the_browser_board_shows_the_proven_column_and_outcome(classic, random_moves_6x7):
    (state, outcomes), = positions_where_the_outcome_depends_on_the_move(random_moves_6x7, classic, 1, 18, seed=3)
    agent = NetworkAgent(classic, uniform_network, 8, search_settings(),
                         [ProvenOutcomes(classic, 1_000_000)])
    thought = agent.think(state, 8)
    best = outcomes[classic.legal_mask(state)].max()
    assert outcomes[thought.action] == best and thought.value == best
    assert thought.line[0] == thought.action


def test_proven_outcomes_need_a_board_the_solver_holds():
    with pytest.raises(GameError, match="proven_outcomes needs one fixed board"):
        ProvenOutcomes(make_game("connect4"), 1_000)


# ---------------------------------------------------------------- configured, and switched off

@pytest.mark.parametrize("key, expected", [
    ("othello", {"exact_endgame": 14, "leaf_rollouts": 0.25}),
    ("othello_standard", {"exact_endgame": 14, "leaf_rollouts": 0.25}),
    ("connect4", {"leaf_rollouts": 0.25}),
    ("connect4_classic", {"proven_outcomes": 4_000_000}),
    ("connect6", {"forced_cells": True}),
    ("gomoku", {}), ("gomoku8", {})])
def test_each_games_agent_takes_the_advisors_its_config_names_and_none_alone(
        compose_config, key, expected):
    cfg = compose_config("play", f"game={key}", "device=cpu")
    game = build_game(cfg)
    advisors = advisors_for(game, agent_spec(cfg))
    assert {a.name: a.setting_value for a in advisors} == expected
    assert all(isinstance(a, game_advisors(game.name)[a.name]) for a in advisors)
    alone = compose_config("play", f"game={key}", "device=cpu", "search_alone=true")
    assert advisors_for(game, agent_spec(alone)) == []


def test_the_network_agent_searches_with_the_rollouts_its_advisor_asks_for(compose_config):
    cfg = compose_config("play", "game=othello", "device=cpu")
    agent = build_agent(build_game(cfg), cfg, "az")
    assert agent.search_config.rollout_share == 0.25
    assert [a.name for a in agent.advisors] == ["exact_endgame", "leaf_rollouts"]
    alone = compose_config("play", "game=othello", "device=cpu", "search_alone=true")
    agent = build_agent(build_game(alone), alone, "az")
    assert agent.search_config.rollout_share == 0.0 and agent.advisors == []
    one_off = compose_config("play", "game=othello", "device=cpu", "game.advisors.exact_endgame=0")
    assert [a.name for a in advisors_for(build_game(one_off), agent_spec(one_off))] == ["leaf_rollouts"]


@pytest.mark.parametrize("overrides, message", [
    (["game=othello", "game.advisors.exact_endgame=40"], r"game\.advisors\.exact_endgame must be"),
    (["game=othello", "game.advisors.exact_endgame=-1"], r"game\.advisors\.exact_endgame must be"),
    (["game=othello", "game.advisors.leaf_rollouts=1.5"], r"game\.advisors\.leaf_rollouts must be"),
    (["game=connect4_classic", "game.advisors.proven_outcomes=100000000"],
     r"game\.advisors\.proven_outcomes must be"),
    (["game=connect4_classic", "game.advisors.proven_outcomes=1.5"],
     r"game\.advisors\.proven_outcomes must be"),
    (["game=connect6", "game.advisors.forced_cells=1"], r"game\.advisors\.forced_cells must be"),
    (["game=connect4_classic", "+game.advisors.exact_endgame=8"],
     r"exact_endgame is not an advisor connect4 offers"),
    (["game=gomoku", "+game.advisors.forced_cells=true"], r"forced_cells is not an advisor gomoku"),
    (["game=othello", "search_alone=maybe"], r"search_alone must be true or false"),
])
def test_bad_advisor_settings_are_one_sentence(overrides, message):
    with pytest.raises(ConfigError, match=message):  # a wrong type: when composed
        validate(command_config("play", overrides))


@pytest.mark.parametrize("argument", ["game.advisors.leaf_rollouts=0.5",
                                      "+game.advisors.leaf_rollouts=0.5"])
def test_an_advisor_the_recipe_leaves_out_is_turned_on_from_the_command_line(argument):
    check_command_line("play", "play", ["game=gomoku", argument])  # returns: nothing refused
    cfg = command_config("play", ["game=gomoku", argument])
    validate(cfg)
    assert dict(cfg.game.advisors) == {"leaf_rollouts": 0.5}
