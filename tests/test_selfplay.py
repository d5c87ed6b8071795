"""Self-play records, their augmentation in the replay buffer, and worker restarts."""
import subprocess
import sys
from pathlib import Path

import numpy as np
import pytest

from alphazero.search.puct import SearchConfig
from alphazero.train.replay import ReplayBuffer
from alphazero.config.settings import default_config
from alphazero.workers.selfplay import SelfPlayConfig, SelfPlayWorker, outcome_for, value_targets
from games import DRAW, FIRST_WON, SECOND_WON, make_game

ROOT = Path(__file__).resolve().parents[1]


def uniform(planes, legal):
    priors = legal / legal.sum(axis=1, keepdims=True)
    return priors.astype(np.float32), np.zeros(len(planes), dtype=np.float32)


def finished_games(game, count, simulations=8, discount=1.0, **config):
    worker = SelfPlayWorker(game, uniform, SelfPlayConfig.from_cfg(default_config(), simulations=simulations, games_in_parallel=4,
                                                          **config),
                            SearchConfig.from_cfg(default_config().mcts, discount=discount), seed=5)
    games = []
    while len(games) < count:
        games += worker.play_move()
    return games


def test_outcome_is_from_the_side_to_move():
    assert outcome_for(FIRST_WON, 0) == 1.0 and outcome_for(FIRST_WON, 1) == -1.0
    assert outcome_for(SECOND_WON, 1) == 1.0 and outcome_for(DRAW, 0) == 0.0


def test_one_simulation_a_move_is_refused():
    """One simulation only expands a fresh root: no move would have a visit to play."""
    game = make_game("connect4", rows=6, cols=7)
    for config in (SelfPlayConfig.from_cfg(default_config(), simulations=1),
                   SelfPlayConfig.from_cfg(default_config(), simulations=8, full_search_share=0.5,
                                          fast_simulations=1)):
        with pytest.raises(ValueError, match="expands a fresh root"):
            SelfPlayWorker(game, uniform, config, SearchConfig.from_cfg(default_config().mcts))


def test_connect6_records_replay_the_game():
    """Replaying a record's actions gives its planes in order; z follows the side that
    places each stone (two stones a turn); pi is a distribution over the legal stones."""
    game = make_game("connect6", size=6)
    record = finished_games(game, 1)[0]
    np.testing.assert_array_equal(record.recorded_plies, np.arange(record.plies))
    state = game.new_state()
    movers = []
    for planes, pi, z, action in zip(record.planes, record.pis, record.zs, record.moves):
        np.testing.assert_array_equal(planes, game.encode(state))
        assert np.isclose(pi.sum(), 1.0) and not pi[~game.legal_mask(state)].any()
        movers.append(game.to_move(state))
        assert z == outcome_for(record.result, movers[-1])
        game.play(state, int(action))
    assert game.status(state) == record.result
    assert movers[:5] == [0, 1, 1, 0, 0]  # Black's single stone, then pairs


def test_playout_cap_randomisation_records_only_full_searches():
    """With a full-search share of 0.3, about 30% of the plies are recorded, each with the
    planes of the position it was searched from and a pi drawn from a full search."""
    game = make_game("othello", rules="course")
    games = finished_games(game, 8, simulations=40, full_search_share=0.3, fast_simulations=4)
    plies = sum(record.plies for record in games)
    recorded = sum(record.length for record in games)
    assert 0.2 < recorded / plies < 0.4
    for record in games:
        state = game.new_state()
        wanted = set(record.recorded_plies.tolist())
        index = 0
        for ply, move in enumerate(record.moves):
            if ply in wanted:
                np.testing.assert_array_equal(record.planes[index], game.encode(state))
                assert record.zs[index] == outcome_for(record.result, game.to_move(state))
                # a fresh full search spreads 40 visits; a fast one could not reach 5 children
                assert np.count_nonzero(record.pis[index]) >= min(5, game.legal_mask(state).sum())
                index += 1
            game.play(state, int(move))
        assert index == record.length and game.status(state) == record.result


def test_random_openings_start_a_share_of_the_games_unrecorded():
    """With opening_plies=3 and opening_share=0.5, about half the games open with three
    random moves: they are in the record's moves (the game replays from a new board) but no
    position before the fourth is a training sample; the other games record from the first."""
    game = make_game("othello", rules="course")
    games = finished_games(game, 24, simulations=8, opening_plies=3, opening_share=0.5)
    opened = [record.recorded_plies[0] == 3 for record in games]
    assert all(record.recorded_plies[0] in (0, 3) for record in games)
    assert 0.2 < np.mean(opened) < 0.8
    for record in games:
        state = game.new_state()
        for ply, move in enumerate(record.moves):
            if ply >= record.recorded_plies[0]:
                index = ply - record.recorded_plies[0]
                np.testing.assert_array_equal(record.planes[index], game.encode(state))
            game.play(state, int(move))
        assert game.status(state) == record.result


def test_discounted_targets_shrink_with_the_plies_left():
    """With a discount, z is the outcome times discount ** (plies from the position to the
    end): the last mover's win is worth the discount, an opening's less."""
    game = make_game("connect4", rows=6, cols=7)
    for record in finished_games(game, 3, discount=0.9, full_search_share=0.5, fast_simulations=2):
        state, index = game.new_state(), 0
        for ply, move in enumerate(record.moves):
            if index < record.length and record.recorded_plies[index] == ply:
                outcome = outcome_for(record.result, game.to_move(state))
                assert np.isclose(record.zs[index], outcome * 0.9 ** (record.plies - ply))
                index += 1
            game.play(state, int(move))
        assert index == record.length


def test_value_targets_mix_the_outcome_with_the_root_search_value():
    """q_share 0 gives z, 1 gives the root's search value q, 0.5 their mean; the last mover's
    winning position has a search value near +1."""
    game = make_game("connect4", rows=6, cols=7)
    for record in finished_games(game, 3, simulations=32):
        z_only, q_only, half = (value_targets(record, share) for share in (0.0, 1.0, 0.5))
        np.testing.assert_array_equal(z_only, record.zs)
        np.testing.assert_array_equal(q_only, record.qs)
        np.testing.assert_allclose(half, 0.5 * record.zs + 0.5 * record.qs, atol=1e-6)
        assert np.all(np.abs(record.qs) <= 1) and not np.allclose(record.qs, record.zs)
        if record.result != DRAW:
            assert record.qs[-1] > 0.5  # one simulation finds the win, most of the 32 repeat it


def test_connect4_is_augmented_by_the_mirror_only():
    game = make_game("connect4", rows=[5, 6], cols=[5, 7], forbidden="random")
    record = finished_games(game, 1)[0]
    buffer = ReplayBuffer(1000, game.planes, game.height, game.width, game.num_actions)
    buffer.add_game(record.planes.astype(np.float32), record.pis, record.zs,
                    record.cell_syms.astype(np.int64), record.action_syms.astype(np.int64))
    assert len(buffer) == 2 * record.length  # identity and mirror, nothing else
    mirrored_planes = buffer.planes[1:2 * record.length:2]
    originals = buffer.planes[0:2 * record.length:2]
    np.testing.assert_array_equal(originals, record.planes)
    for original, mirror in zip(originals, mirrored_planes):
        on_board = original[2].astype(bool)
        cols = np.flatnonzero(on_board.any(axis=0))
        flipped = original.copy()
        flipped[:, :, cols] = original[:, :, cols[::-1]]
        np.testing.assert_array_equal(mirror, flipped)


RESTART_SCRIPT = """
from alphazero.config.settings import default_config
from alphazero.search.puct import SearchConfig
from alphazero.nn.network import build_model
from alphazero.nn.checkpoint import weights_to_bytes
from alphazero.workers.pool import LocalPool, WorkerSpec
from alphazero.workers.selfplay import SelfPlayConfig
from games import make_game

if __name__ == "__main__":
    game = make_game("connect4", rows=5, cols=5)
    spec = WorkerSpec(game_name="connect4", game_params=game.params(), model_kind="cnn",
                      model_sizes={"channels": [4, 4, 4]}, device="cpu", precision="float32",
                      selfplay=SelfPlayConfig.from_cfg(default_config(), simulations=4, games_in_parallel=2),
                      search=SearchConfig.from_cfg(default_config().mcts), seed=0)
    pool = LocalPool(spec, workers=1, max_games_in_flight=default_config().pool.max_games_in_flight)
    weights = weights_to_bytes(build_model("cnn", game, channels=[4, 4, 4]).state_dict())
    pool.start(weights)
    first = len(pool.collect(10))
    pool.publish(weights, 5)
    pool.processes[0].kill()
    pool.processes[0].join()
    for _ in range(100):  # games the worker sent before it died are read before its death
        if pool.restarts:
            break
        pool.collect(10)
    second = pool.collect(10)
    print(first > 0, len(second) > 0, pool.restarts, pool.workers_alive,
          {record.network for record in second} == {5})
    pool.stop()
"""


@pytest.mark.integration
def test_a_dead_worker_is_restarted_and_games_keep_coming(tmp_path):
    """A killed worker is replaced from the latest weights, whose version its games carry."""
    # In its own interpreter: worker processes are spawned, and a pytest process that has
    # already run other multiprocess tests is not the clean parent a training run is.
    script = tmp_path / "restart.py"
    script.write_text(RESTART_SCRIPT)
    result = subprocess.run([sys.executable, str(script)], cwd=ROOT, capture_output=True,
                            text=True, timeout=120)
    assert result.returncode == 0, result.stderr
    assert result.stdout.split() == ["True", "True", "1", "1", "True"]

