"""Games whose rules are Python methods (games.core.python_game): the search's Python game
steps against the compiled ones, pure MCTS, self-play, training, play and evaluate on the
worked example (Qubic), and OpenSpiel's games (game=openspiel:NAME)."""
import subprocess
import sys
from pathlib import Path

import numpy as np
import pytest

from alphazero.config.choices import expand_game_choice
from alphazero.config.command import command_config
from alphazero.config.presets import named_game
from alphazero.search.puct import BatchedSearch, SearchConfig
from alphazero.search.pure_mcts import PureMCTS
from alphazero.workers.selfplay import SelfPlayConfig, SelfPlayWorker
from games import FIRST_WON, ONGOING, GameError, make_game
from games.core.board_text import legend
from games.core.python_game import PythonGame
from games.openspiel.rules import INSTALL, OpenSpielGame
from helpers import needs_openspiel

ROOT = Path(__file__).resolve().parents[1]


class KernelRulesInPython(PythonGame):
    """A kernel game's rules called as Python methods, positions being its state arrays: the
    same game through the other path."""

    def __init__(self, kernel_game):
        self.inner = kernel_game
        for key in ("name", "num_actions", "planes", "height", "width"):
            setattr(self, key, getattr(kernel_game, key))

    @property
    def max_plies(self):
        return self.inner.max_plies

    def params(self):
        return self.inner.params()

    def start_position(self):
        return self.inner.new_state()

    def legal_moves(self, position):
        return self.inner.legal_list(position)

    def next_position(self, position, action):
        child = position.copy()
        self.inner.play(child, action)
        return child

    def result(self, position):
        return self.inner.status(position)

    def side_to_move(self, position):
        return self.inner.to_move(position)

    def encode_position(self, position, out):
        self.inner.encode_into(position, out)

    def move_name(self, position, action):
        return self.inner.format_move(position, action)

    def describe(self, position):
        return self.inner.render(position)


def planes_evaluator(game, seed=0):
    """A fixed evaluator that depends on the position: linear in its planes."""
    rng = np.random.default_rng(seed)
    size = game.planes * game.height * game.width
    weights, value = rng.normal(size=(size, game.num_actions)), rng.normal(size=size) / 8

    def evaluate(planes, legal):
        flat = planes.reshape(len(planes), -1)
        logits = flat @ weights
        priors = np.exp(logits - logits.max(axis=1, keepdims=True)) * legal
        return priors / priors.sum(axis=1, keepdims=True), np.tanh(flat @ value)
    return evaluate


def search_config():
    return SearchConfig(c_puct=1.5, dirichlet_epsilon=0.25, arena_factor=2.0, discount=1.0)


def test_python_game_steps_search_exactly_as_the_compiled_ones():
    """The same game and evaluator through both paths: the same visits and values, move
    after move, trees reused and restarted alike."""
    compiled_game = make_game("connect4", rows=6, cols=7, forbidden=None)
    python_game = KernelRulesInPython(compiled_game)
    evaluate = planes_evaluator(compiled_game)
    searches = [BatchedSearch(g, 3, 60, search_config(), seed=1) for g in (compiled_game, python_game)]
    states = [[g.new_state() for _ in range(3)] for g in (compiled_game, python_game)]
    for search, rows in zip(searches, states):
        for b, state in enumerate(rows):
            search.set_root(b, state)
    for move in range(8):
        results = []
        for search in searches:
            search.run(evaluate)
            results.append((search.visit_counts(), search.root_values()))
        assert np.array_equal(results[0][0], results[1][0]), f"visits differ at move {move}"
        assert np.allclose(results[0][1], results[1][1]), f"values differ at move {move}"
        actions = results[0][0].argmax(axis=1)
        for search, game, rows in zip(searches, (compiled_game, python_game), states):
            for b, state in enumerate(rows):
                if game.status(state) == ONGOING:
                    game.play(state, int(actions[b]))
                    search.advance(b, int(actions[b]))


def qubic_after(moves):
    game = make_game("qubic")
    return game, game.play_moves(game.new_state(), moves)


def test_pure_mcts_in_python_takes_a_win():
    game, state = qubic_after(["1A1", "2A1", "1B1", "2B1", "1C1", "2C1"])
    visits, values = PureMCTS(game, 400, seed=3).search(state[None])
    assert game.format_move(state, int(visits[0].argmax())) == "1D1"
    assert visits[0].sum() == 400 and values[0] > 0.5


def test_the_network_search_in_python_takes_a_win():
    game, state = qubic_after(["1A1", "2A1", "1B1", "2B1", "1C1", "2C1"])
    search = BatchedSearch(game, 1, 200, search_config())
    search.set_root(0, state)
    search.run(lambda planes, legal: (legal.astype(np.float32), np.zeros(len(planes))))
    assert game.format_move(state, int(search.visit_counts()[0].argmax())) == "1D1"
    assert search.root_values()[0] > 0.5


def play_selfplay_games(game, count: int):
    config = SelfPlayConfig(simulations=16, games_in_parallel=4, temperature_moves=4,
                            full_search_share=1.0, fast_simulations=16, opening_plies=0,
                            opening_share=0.0)
    worker = SelfPlayWorker(game, planes_evaluator(game), config, search_config(), seed=2)
    records = []
    while len(records) < count:
        records += worker.play_move()
    return records


def check_record(game, record):
    assert record.planes.dtype == np.uint8 and np.allclose(record.pis.sum(axis=1), 1.0)
    state = record.start.copy()
    for move in record.moves:
        game.play(state, int(move))
    assert game.status(state) == record.result != ONGOING


def test_qubic_self_play_games_replay_to_their_results():
    game = make_game("qubic")
    for record in play_selfplay_games(game, 2):
        check_record(game, record)


class HalfPlanes(type(make_game("qubic"))):
    def encode_position(self, position, out):
        out[:] = 0.5


def test_self_play_refuses_planes_that_are_not_whole_numbers():
    with pytest.raises(ValueError, match="whole numbers from 0 to 255"):
        play_selfplay_games(HalfPlanes(), 1)


def test_the_state_is_the_moves_so_a_game_object_without_its_cache_answers_alike():
    game, state = qubic_after(["1A1", "2A1", "4D4"])
    fresh = make_game("qubic")
    assert fresh.render(state) == game.render(state) and fresh.legal_list(state) == game.legal_list(state)


@pytest.mark.integration
def test_a_tiny_training_run_then_evaluate_and_play(tmp_path, train):
    run = train(tmp_path, "game=qubic", "train.max_games=8", "eval.games=2", "eval.start_level=10")
    assert run.returncode == 0, run.stderr[-2000:]
    latest = tmp_path / "checkpoints" / "qubic" / "latest.pt"
    assert latest.is_file()
    command = [sys.executable, "-m", "alphazero.evaluate", "game=qubic", f"checkpoint={latest}",
               "eval.levels=[10]", "eval.games=2", "mcts.simulations=16",
               f"out_dir={tmp_path}/evaluate"]
    evaluated = subprocess.run(command, cwd=ROOT, capture_output=True, text=True, timeout=240)
    assert evaluated.returncode == 0 and "pure MCTS 10" in evaluated.stdout, evaluated.stderr[-2000:]
    played = subprocess.run([sys.executable, "-m", "alphazero.play", "game=qubic",
                             f"checkpoint={latest}", "mcts.simulations=16"], cwd=ROOT,
                            input="1A1\n9Z9\nquit\n", capture_output=True, text=True, timeout=120)
    assert played.returncode == 0, played.stderr[-2000:]
    assert "agent plays" in played.stdout and "refused: '9Z9' is not a legal move" in played.stdout


# ------------------------------------------------------------------ OpenSpiel


def test_openspiel_choice_stands_for_the_game_and_its_parameter():
    assert expand_game_choice(["seed=1", "game=openspiel:hex(board_size=5)"]) == \
        ["seed=1", "game=openspiel", "game.params.game='hex(board_size=5)'"]


@needs_openspiel
def test_openspiel_games_compose_and_resolve_by_name():
    cfg = command_config("play", ["game=openspiel:breakthrough(rows=6,columns=6)"])
    assert cfg.game.name == "openspiel" and cfg.game.params.game == "breakthrough(rows=6,columns=6)"
    game = named_game("openspiel:hex(board_size=5)")
    assert game.params() == {"game": "hex(board_size=5)"} and game.num_actions == 25


@pytest.mark.integration
@needs_openspiel
@pytest.mark.parametrize("spec,words", [
    ("no_such_game", "OpenSpiel has no game 'no_such_game'"),
    ("kuhn_poker", "is not a two-player, zero-sum, deterministic game of perfect information"),
    ("hex(size=3)", "OpenSpiel cannot load 'hex(size=3)': Unknown parameter 'size'"),
])
def test_openspiel_games_it_cannot_play_are_one_sentence(spec, words):
    with pytest.raises(GameError, match=words.replace("(", r"\(").replace(")", r"\)")):
        make_game("openspiel", game=spec)
    result = subprocess.run([sys.executable, "-m", "alphazero.play", f"game=openspiel:{spec}"],
                            cwd=ROOT, input="", capture_output=True, text=True, timeout=120)
    assert result.returncode == 2 and result.stderr.count("\n") == 1 and words in result.stderr, \
        result.stderr


def test_without_open_spiel_an_openspiel_game_says_how_to_install_it(monkeypatch):
    monkeypatch.setattr(OpenSpielGame, "unavailable", staticmethod(lambda: INSTALL))
    with pytest.raises(GameError, match=r"pip install '\.\[openspiel\]'"):
        make_game("openspiel", game="connect_four")


@needs_openspiel
def test_openspiel_self_play_games_replay_to_their_results():
    game = make_game("openspiel", game="hex(board_size=5)")
    for record in play_selfplay_games(game, 2):
        check_record(game, record)
        assert record.planes[:, -1].max() == 1  # the side-to-move plane marks the second player


@needs_openspiel
def test_hexs_compiled_playouts_are_openspiels_random_games():
    """Each compiled playout's moves, played by OpenSpiel, end the game there with the same
    winner; and the first player wins as often as in OpenSpiel's own random games."""
    from games.core.rng import make_rng
    game = make_game("openspiel", game="hex(board_size=7)")
    rng = make_rng(3)
    start = game.start_position()
    for action in (24, 25, 17):  # an opening in which the first player leads
        start = game.next_position(start, action)
    first_wins = {"compiled": 0, "openspiel": 0}
    for _ in range(600):
        code, moves = game.play_out(start, rng)
        position = start
        for move in moves:
            assert game.result(position) == ONGOING
            position = game.next_position(position, move)
        assert game.result(position) == code
        first_wins["compiled"] += code == FIRST_WON
        first_wins["openspiel"] += PythonGame.play_out(game, start, rng)[0] == FIRST_WON
    assert abs(first_wins["compiled"] - first_wins["openspiel"]) < 60  # about 3.5 standard deviations
    assert first_wins["compiled"] > 330  # the lead shows: not a coin


@needs_openspiel
def test_openspiels_mcts_bot_is_an_opponent_that_takes_a_win_and_its_strength_is_checked():
    from alphazero.evaluate.command import game_opponent
    from alphazero.config.errors import ConfigError
    game = make_game("openspiel", game="connect_four")
    state = game.play_moves(game.new_state(), ["x0", "o6", "x0", "o6", "x0", "o5"])
    bot, name = game_opponent(game, "mcts:200", seed=0)
    assert name == "mcts 200" and game.format_move(state, bot.best_actions(state[None])[0]) == "x0"
    assert game_opponent(game, "checkpoints/some.pt", seed=0) is None  # not the game's own
    with pytest.raises(ConfigError, match="opponent=mcts:10000"):
        game_opponent(game, "mcts:lots", seed=0)


@needs_openspiel
def test_openspiels_placement_games_are_drawn_for_the_page_with_one_cell_a_move():
    from alphazero.serve.board_view import board_view
    four = make_game("openspiel", game="connect_four")
    state = four.play_moves(four.new_state(), ["x3", "o3", "x4"])
    rows, coordinates = four.drawn_board(state)
    assert rows[-2:] == ["...O...", "...XX.."] and len(coordinates.columns) == 7
    view = board_view(four, state)
    assert view.column_moves and sorted(view.targets) == four.legal_list(state) and not view.origins
    hex5 = make_game("openspiel", game="hex(board_size=5)")
    assert board_view(hex5, hex5.new_state()).targets.keys() == set(range(25))
    assert hex5.action_cells(hex5.new_state(), [7, 8]) == {7: (7,), 8: (8,)}  # the cell it fills
    assert not hex5.moves_pieces and hex5.presentation().board_style == "stones"


@needs_openspiel
def test_openspiels_breakthrough_is_drawn_with_its_coordinates_and_moves_from_cell_to_cell():
    game = make_game("openspiel", game="breakthrough(rows=6,columns=6)")
    assert game.moves_pieces and game.presentation().board_style == "chequered"
    state = game.play_moves(game.new_state(), ["a5a4", "b2b3", "a4b3*"])
    rows, coordinates = game.drawn_board(state)  # OpenSpiel's "6bbbbbb" ... " abcdef"
    assert rows == ["XXXXXX", ".XXXXX", "......", ".X....", "O.OOOO", "OOOOOO"]
    assert coordinates.columns == list("abcdef") and coordinates.rows == list("654321")
    capture = game.parse_move(state, "c2b3*")  # c2: row 4 from the top, column 2; b3: 3, 1
    step = game.parse_move(state, "f2f3")
    assert game.action_cells(state, [capture, step]) == {capture: (4 * 6 + 2, 3 * 6 + 1),
                                                        step: (4 * 6 + 5, 3 * 6 + 5)}


@needs_openspiel
def test_openspiels_other_games_of_moving_pieces_draw_their_first_mover_black_or_nothing():
    clobber = make_game("openspiel", game="clobber")  # its first player moves OpenSpiel's o
    rows, _ = clobber.drawn_board(clobber.new_state())
    start = clobber.new_state()
    first = clobber.action_cells(start, clobber.legal_list(start)[:1]).popitem()[1][0]
    assert rows[first // clobber.width][first % clobber.width] == "X"
    checkers = make_game("openspiel", game="checkers")  # '+' pieces and kings: not read
    assert checkers.drawn_board(checkers.new_state()) is None


@needs_openspiel
def test_the_terminal_names_openspiels_pieces_by_the_characters_its_text_draws():
    breakthrough = make_game("openspiel", game="breakthrough(rows=6,columns=6)")
    text = breakthrough.render(breakthrough.new_state())
    assert legend(breakthrough.presentation(), text, False, False) == "Legend: b Black, w White."
    assert make_game("openspiel", game="hex(board_size=5)").presentation().side(1) == "White (o)"


@needs_openspiel
def test_runs_of_two_openspiel_games_keep_apart():
    from alphazero.config.settings import build_game, run_name
    names = set()
    for spec in ("hex(board_size=5)", "connect_four"):
        cfg = command_config("config", [f"game=openspiel:{spec}"])
        names.add(run_name(cfg, "openspiel", build_game(cfg)))
    assert names == {"openspiel_hex_board_size_5", "openspiel_connect_four"}
    classic = command_config("config", ["game=connect4_classic"])
    assert run_name(classic, "connect4_classic", build_game(classic)) == "connect4_classic"
