"""The agent's exact endgame moves (alphazero.agent.endgame): where the Othello solver covers a
position, the agent plays a best move by exact value instead of its search's, in play,
evaluate and the browser board; elsewhere it searches as before."""
import numpy as np
import pytest

from alphazero.config.settings import ConfigError, build_game, validate
from alphazero.agent.endgame import ExactEndgame
from alphazero.agent.players import AlphaZeroPlayer, make_player
from alphazero.agent.thinking import Agent
from games import make_game
from games.othello.solver import OthelloSolver
from tests.test_evaluate import uniform_network
from tests.test_othello_solver import endgame
from tests.test_play import compose_config


def endgames_where_the_move_matters(game, rng, empties, count):
    """Positions with `empties` playable empty cells where not every move is worth the same."""
    solver, found = OthelloSolver(game), []
    while len(found) < count:
        state = endgame(game, rng, empties)
        values = solver.move_values(state)
        if len(set(values[game.legal_mask(state)])) > 1:
            found.append((state, values))
    return found


def test_covered_positions_get_a_best_move_and_their_exact_outcome_without_a_search():
    game = make_game("othello")
    covered = endgames_where_the_move_matters(game, np.random.default_rng(2), 9, 4)
    evaluated = []

    def network(planes, legal):
        evaluated.append(len(planes))
        return uniform_network(planes, legal)

    player = AlphaZeroPlayer(game, network, simulations=32, endgame=ExactEndgame(game, 10))
    actions = player.best_actions(np.stack([state for state, _ in covered]))
    assert not evaluated  # no search ran
    for action, value, (state, values) in zip(actions, player.last_values, covered):
        best = values[game.legal_mask(state)].max()
        assert values[action] == best and value == np.sign(best)


def test_a_batch_mixes_solved_and_searched_positions():
    game = make_game("othello")
    rng = np.random.default_rng(4)
    (near, values), = endgames_where_the_move_matters(game, rng, 8, 1)
    far = endgame(game, rng, 30)
    over = endgame(game, rng, 4)
    while game.status(over) == 0:
        game.play(over, game.legal_list(over)[0])
    player = AlphaZeroPlayer(game, uniform_network, simulations=32, endgame=ExactEndgame(game, 10))
    actions = player.best_actions(np.stack([far, near, over]))
    assert actions[0] in game.legal_list(far) and actions[2] == -1
    assert values[actions[1]] == values[game.legal_mask(near)].max()


def test_othello_players_solve_from_the_configured_empties_and_other_games_refuse_it():
    cfg = compose_config("play", "game=othello", "device=cpu")
    assert make_player(build_game(cfg), cfg, "az").endgame.empties == 14
    off = compose_config("play", "game=othello", "device=cpu", "game.endgame_solver_empties=0")
    assert make_player(build_game(off), off, "az").endgame is None
    cfg = compose_config("play", "game=connect4_classic", "device=cpu")
    assert make_player(build_game(cfg), cfg, "az").endgame is None
    for overrides in (["game=othello", "game.endgame_solver_empties=40"],
                      ["game=othello", "game.endgame_solver_empties=-1"],
                      ["game=connect4_classic", "+game.endgame_solver_empties=8"]):
        with pytest.raises(ConfigError, match=r"game\.endgame_solver_empties"):
            validate(compose_config("play", *overrides))


def test_the_browser_board_shows_the_solvers_move_as_the_agents_thought():
    game = make_game("othello")
    (state, values), = endgames_where_the_move_matters(game, np.random.default_rng(6), 8, 1)
    player = AlphaZeroPlayer(game, uniform_network, simulations=32, endgame=ExactEndgame(game, 10))
    thought = Agent(game, player, "test").think(state, 32)
    assert values[thought.action] == values[game.legal_mask(state)].max()
    assert thought.line == [thought.action] and thought.visits[thought.action] == thought.visits.sum()
