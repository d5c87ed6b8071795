"""The training entry point end to end: TensorBoard tags, checkpoints, resume, kills, errors."""
import os
import shutil
import signal
import subprocess
import sys
import time
from pathlib import Path
from types import SimpleNamespace

import pytest
import torch
from hydra import compose, initialize_config_dir

from alphazero.config.command import command_config
from alphazero.config.schema import register
from tensorboard.backend.event_processing.event_accumulator import EventAccumulator

from alphazero.nn import checkpoint
from alphazero.config.errors import ConfigError
from alphazero.config import settings
from alphazero.config.settings import build_game, validate, validate_training
from alphazero.nn.network import GlobalPoolBias, build_model
from alphazero.train import game_log
from alphazero.train.loop import TrainingRun, selfplay_seed

from helpers import TINY

register()  # the settings' structures that conf/ composes on
pytestmark = pytest.mark.integration  # training runs, in this process or started as the command

ROOT = Path(__file__).resolve().parents[1]


def train_here(tmp_path, *overrides):
    """The run the `train` fixture starts, in this process: for a run's work, where how the
    command starts, stops and reports is not what is checked (the tests of processes do that)."""
    with initialize_config_dir(config_dir=str(ROOT / "conf"), version_base=None):
        cfg = compose("config", overrides=[*TINY, f"train.checkpoint_dir={tmp_path}/checkpoints",
                                           *overrides])
    validate_training(cfg)
    TrainingRun(cfg, tmp_path / "runs" / str(len(list(tmp_path.glob("runs/*")))),
                "connect4_classic").run()


def test_a_resumed_run_self_plays_with_a_stream_of_its_own():
    """A fresh run self-plays with its seed; a run resumed after N games with a seed of
    (seed, N), the same on every resume at N, so no resume draws its first games' numbers."""
    assert selfplay_seed(7, 0) == 7
    resumed = {selfplay_seed(7, games) for games in (48, 96)} | {selfplay_seed(8, 48)}
    assert len(resumed) == 3 and 7 not in resumed
    assert selfplay_seed(7, 48) == selfplay_seed(7, 48)


def test_the_minutes_limit_stops_before_a_round_that_would_pass_it():
    """train.max_minutes is a budget: the run stops when another round as long as the last
    would end past it, not after the round that passed it."""
    def finished(minutes, last_round, max_minutes=60.0, max_games=None):
        run = SimpleNamespace(cfg=SimpleNamespace(train=SimpleNamespace(
                                  max_games=max_games, max_minutes=max_minutes)),
                              counters=SimpleNamespace(games=100, minutes=minutes),
                              last_round_minutes=last_round)
        return TrainingRun.finished(run)
    assert not finished(58.0, 0.9)
    assert finished(59.2, 0.9)                     # the next round would end at 60.1
    assert finished(60.0, 0.0)                     # a run resumed at its limit plays no round
    assert not finished(59.2, 0.9, max_minutes=None)
    assert finished(1.0, 0.9, max_minutes=None, max_games=100)


def test_tiny_run_logs_checkpoints_and_resumes(tmp_path, scalar_tags, tiny_run, train):
    shutil.copytree(tiny_run, tmp_path, dirs_exist_ok=True)  # its first 24 games
    tags = scalar_tags(tmp_path / "runs" / "0")
    for tag in ("loss/total", "loss/value", "loss/policy", "loss/l2", "policy/entropy",
                "policy/kl", "lr", "selfplay/games_per_s", "selfplay/positions_per_s",
                "selfplay/game_length", "selfplay/first_player_win_rate", "selfplay/draw_rate",
                "replay/size"):
        assert tag in tags
    # the network's path and the training steps' precision, in the text tab
    events = EventAccumulator(str(tmp_path / "runs" / "0"))
    events.Reload()
    (said,) = events.Tensors("precision/text_summary")
    text = said.tensor_proto.string_val[0].decode()
    assert "network in " in text and "training steps in" in text
    latest = tmp_path / "checkpoints" / "connect4_classic" / "latest.pt"
    saved = torch.load(latest, weights_only=True)
    assert saved["counters"]["steps"] > 0 and saved["counters"]["games"] >= 24
    assert (latest.parent / "replay.pt").is_file()
    # a snapshot each time the game count passes a multiple of 8, named by its count
    snapshots = sorted((latest.parent / "snapshots").glob("games_*.pt"))
    counts = [torch.load(p, weights_only=True)["counters"]["games"] for p in snapshots]
    assert len(snapshots) >= 2 and counts == sorted(counts)
    assert [int(p.stem.split("_")[1]) for p in snapshots] == counts
    assert len({c // 8 for c in counts}) == len(counts) and counts[-1] >= 24
    outcomes = {-1.0, 0.0, 1.0}
    assert set(checkpoint.load(latest.parent / "replay.pt")["zs"].tolist()) <= outcomes
    # every game kept, numbered in order, each by the weights of its round
    kept = game_log.read_games(latest.parent)
    assert [g["index"] for g in kept] == list(range(saved["counters"]["games"]))
    versions = [g["network"] for g in kept]
    assert versions[0] == 0 and versions == sorted(versions)
    assert versions[-1] == saved["counters"]["round"] - 1  # the weights after the last-but-one round
    assert {g["game"] for g in kept} == {"connect4_classic"}

    # resumed with playout cap randomisation, which changes what is recorded, not the format,
    # and a learning-rate schedule that drops the rate, and value targets that become the
    # search's values, from the first resumed round on
    share = saved["counters"]["games"] / 48  # the stage is a share of the resumed run's 48 games
    second = train(tmp_path, "train.max_games=48", "train.resume=true",
                   "selfplay.full_search_share=0.5", "selfplay.fast_simulations=2",
                   f"train.lr_schedule=[[{share:.6f},0.0001]]",
                   "selfplay.q_share=1")
    assert second.returncode == 0, second.stderr
    resumed = torch.load(latest, weights_only=True)
    assert resumed["counters"]["games"] >= 48
    assert resumed["counters"]["steps"] > saved["counters"]["steps"]
    assert "resumed from" in second.stderr + second.stdout
    events = EventAccumulator(str(tmp_path / "runs" / "1"))
    events.Reload()
    assert {round(e.value, 6) for e in events.Scalars("lr")} == {0.0001}
    assert {e.value for e in events.Scalars("selfplay/q_share")} == {1.0}
    assert not set(checkpoint.load(latest.parent / "replay.pt")["zs"].tolist()) <= outcomes
    assert ([g["index"] for g in game_log.read_games(latest.parent)]
            == list(range(resumed["counters"]["games"])))  # numbered on across the resume

    # train.max_minutes counts the run's time over all its restarts: a run resumed with the
    # minutes it has already trained stops at once
    minutes = resumed["counters"]["minutes"]
    assert minutes > saved["counters"]["minutes"] > 0
    train_here(tmp_path, "run_name=connect4_classic", "train.resume=true", "train.max_games=null",
               f"train.max_minutes={minutes}")
    assert torch.load(latest, weights_only=True)["counters"]["games"] == resumed["counters"]["games"]


def test_checkpoint_for_another_game_is_refused(tmp_path, tiny_run, train):
    latest = tiny_run / "checkpoints" / "connect4_classic" / "latest.pt"
    other = train(tmp_path, "game=othello", f"train.resume={latest}", "train.max_games=8")
    assert other.returncode != 0
    assert "is for connect4" in other.stderr
    assert "Traceback" not in other.stderr
    assert not (tmp_path / "runs").exists()  # a run that never started leaves no folder


def test_a_network_alone_continues_with_fresh_training_state(tmp_path, tiny_run, train, capsys):
    """A network without training state (best.pt, a snapshot, a shipped network) goes on from
    its weights and game count; one of another shape is refused in a sentence."""
    snapshot = sorted((tiny_run / "checkpoints" / "connect4_classic" / "snapshots").glob("*.pt"))[-1]
    start = torch.load(snapshot, weights_only=True)["counters"]
    assert "optimizer" not in torch.load(snapshot, weights_only=True)

    train_here(tmp_path, f"train.resume={snapshot}", "run_name=more", "train.max_games=32")
    assert f"from {start['games']} games" in capsys.readouterr().out
    after = torch.load(tmp_path / "checkpoints" / "more" / "latest.pt", weights_only=True)
    assert after["counters"]["games"] >= 32 and after["counters"]["steps"] > start["steps"]
    assert "optimizer" in after

    other = train(tmp_path, f"train.resume={snapshot}", "run_name=other",
                  "model.sizes.channels=[8,8,16]", "train.max_games=40")
    assert other.returncode != 0
    assert "not the configured" in other.stderr and "Traceback" not in other.stderr
    assert not (tmp_path / "checkpoints" / "other" / "latest.pt").exists()


@pytest.mark.parametrize("override,words", [
    ("mcts.simulations=-5", "mcts.simulations"),  # a setting out of range (validate_training)
    ("game=chess", "game"),  # a config group with no such choice
    ("game.params.rows=3", "rows"),  # a board the game's rules refuse
])
def test_bad_overrides_give_one_line(tmp_path, override, words, train):
    result = train(tmp_path, *override.split(), timeout=120)
    assert result.returncode != 0
    assert words in result.stderr
    assert "Traceback" not in result.stderr


@pytest.mark.parametrize("override,words", [
    ("selfplay.workers=-1", "selfplay.workers"),
    ("selfplay.full_search_share=1.5", "selfplay.full_search_share"),
    ("mcts.discount=0", "mcts.discount"),
    ("selfplay.q_share=2", "selfplay.q_share"),
    ("train.lr_schedule=[[0.5,0.001],[0.3,0.0001]]", "train.lr_schedule"),
    ("train.lr_schedule=[[0.5,0]]", "train.lr_schedule"),
    ("train.lr_schedule=[[4000,0.0005]]", "rising shares of the run between 0 and 1"),
    ("train.max_games=null train.max_minutes=null train.lr_schedule=[[0.5,0.0005]]",
     "set train.max_games or train.max_minutes"),
    ("eval.opening_plies=-1", "eval.opening_plies"),
    ("selfplay.opening_plies=2.5", "selfplay.opening_plies"),
    ("selfplay.opening_share=-0.1", "selfplay.opening_share"),
    ("train.snapshot_games=0", "train.snapshot_games"),
    ("+model.sizes.head_norm=true", "model.sizes.head_norm is not a size"),  # removed
    ("model.sizes.global_pool=maybe", "model.sizes.global_pool"),
    ("model.sizes.channels=abc", "model.sizes.channels"),
    ("model.sizes.channels=[8,0,8]", "model.sizes.channels"),
    ("model.sizes.value_hidden=2.5", "model.sizes.value_hidden"),
    ("+model.sizes.depth=3", "model.sizes.depth"),
    ("model=resnet model.sizes.blocks=0", "model.sizes.blocks"),
    ("selfplay.full_search_share=0.5 selfplay.fast_simulations=9", "selfplay.fast_simulations"),
])
def test_bad_settings_are_refused_by_name(override, words):
    """The check behind the one line above (train's ConfigError), for every kind of setting,
    without starting a process each."""
    with pytest.raises(ConfigError, match=words.replace(".", r"\.")):  # a type: when composed
        validate_training(command_config("config", [*TINY, *override.split()]))


@pytest.mark.parametrize("cores, workers", [(1, 0), (2, 2), (3, 2), (4, 3), (16, 15)])
def test_auto_workers_fill_the_usable_cores(monkeypatch, cores, workers):
    """On two cores two workers beside the trainer (one process playing and training in turn
    leaves a core idle much of the time); on more, a core is the trainer's."""
    monkeypatch.setattr(settings, "usable_cores", lambda: cores)
    assert settings.worker_count("auto") == workers
    assert settings.worker_count(1) == 1


def test_interrupted_save_keeps_the_previous_checkpoint(tmp_path, monkeypatch):
    path = tmp_path / "latest.pt"
    checkpoint.save_atomic({"version": 1}, path)

    def torn_save(obj, stream):
        stream.write(b"half a checkpoint")
        raise KeyboardInterrupt  # the process is stopped in the middle of writing

    monkeypatch.setattr(torch, "save", torn_save)
    with pytest.raises(KeyboardInterrupt):
        checkpoint.save_atomic({"version": 2}, path)
    monkeypatch.undo()
    assert checkpoint.load(path) == {"version": 1}
    assert list(tmp_path.iterdir()) == [path]  # no temporary file left behind


def test_sigterm_saves_a_checkpoint_and_exits_cleanly(tmp_path):
    args = [sys.executable, "-m", "alphazero.train", *TINY, "train.max_games=100000",
            "train.checkpoint_minutes=0", f"out_dir={tmp_path}/runs/term",
            f"train.checkpoint_dir={tmp_path}/checkpoints"]
    process = subprocess.Popen(args, cwd=ROOT, stdout=subprocess.PIPE, stderr=subprocess.PIPE,
                               text=True)
    latest = tmp_path / "checkpoints" / "connect4_classic" / "latest.pt"
    deadline = time.time() + 120
    while not latest.exists() and time.time() < deadline:
        time.sleep(0.2)
    games_before = checkpoint.load(latest)["counters"]["games"]
    process.send_signal(signal.SIGTERM)
    stdout, stderr = process.communicate(timeout=60)
    assert process.returncode == 0, stderr
    assert "interrupted: saving a checkpoint" in stdout and "Traceback" not in stderr
    assert checkpoint.load(latest)["counters"]["games"] >= games_before


def test_sigterm_to_the_process_group_stops_workers_and_trainer_cleanly(tmp_path):
    """`timeout`, `docker stop` and schedulers signal every process of a run: its self-play
    workers stop the pool rather than die, and the trainer saves and exits as on its own."""
    args = [sys.executable, "-m", "alphazero.train", *TINY, "selfplay.workers=1",
            "train.max_games=100000", "train.checkpoint_minutes=0",
            f"out_dir={tmp_path}/runs/group", f"train.checkpoint_dir={tmp_path}/checkpoints"]
    process = subprocess.Popen(args, cwd=ROOT, stdout=subprocess.PIPE, stderr=subprocess.PIPE,
                               text=True, start_new_session=True)
    latest = tmp_path / "checkpoints" / "connect4_classic" / "latest.pt"
    deadline = time.time() + 120
    while not latest.exists() and time.time() < deadline:
        time.sleep(0.2)
    os.killpg(process.pid, signal.SIGTERM)
    try:
        stdout, stderr = process.communicate(timeout=60)
    finally:
        process.kill()
    assert process.returncode == 0, stderr
    assert "interrupted: saving a checkpoint" in stdout and "Traceback" not in stderr
    assert checkpoint.load(latest)["counters"]["games"] > 0


def test_sigkill_during_training_leaves_a_loadable_checkpoint(tmp_path):
    args = [sys.executable, "-m", "alphazero.train", *TINY, "train.max_games=100000",
            "train.checkpoint_minutes=0", f"out_dir={tmp_path}/runs/kill",
            f"train.checkpoint_dir={tmp_path}/checkpoints"]
    process = subprocess.Popen(args, cwd=ROOT, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
    latest = tmp_path / "checkpoints" / "connect4_classic" / "latest.pt"
    deadline = time.time() + 120
    while not latest.exists() and time.time() < deadline:
        time.sleep(0.2)
    time.sleep(1.5)  # checkpoints are now written every round: kill somewhere among them
    os.kill(process.pid, signal.SIGKILL)
    process.wait()
    assert checkpoint.load(latest)["counters"]["games"] > 0
    assert checkpoint.load(latest.parent / "replay.pt")
    train_here(tmp_path, "run_name=connect4_classic", "train.resume=true", "train.max_games=1")
    # the games played after the checkpoint were dropped: the kept games are numbered in order
    games = checkpoint.load(latest)["counters"]["games"]
    assert [g["index"] for g in game_log.read_games(latest.parent)] == list(range(games))


CONFIG_CHOICES = ([f"game={p.stem}" for p in sorted((ROOT / "conf" / "game").glob("*.yaml"))]
                  + [f"+recipe={p.stem}" for p in sorted((ROOT / "conf" / "recipe").glob("*.yaml"))])


@pytest.mark.parametrize("choice", CONFIG_CHOICES)
def test_every_committed_game_and_recipe_is_a_valid_config(choice):
    with initialize_config_dir(version_base=None, config_dir=str(ROOT / "conf")):
        cfg = compose(config_name="config", overrides=[choice])
    validate(cfg)
    build_game(cfg)


def test_connect6s_global_pooling_carries_over_to_a_residual_tower():
    """The recipe's global_pool is a size both model kinds take, so model=resnet still works."""
    with initialize_config_dir(version_base=None, config_dir=str(ROOT / "conf")):
        cfg = compose(config_name="config", overrides=["game=connect6", "model=resnet"])
    validate(cfg)
    model = build_model(cfg.model.kind, build_game(cfg), **cfg.model.sizes)
    assert isinstance(model.body[-1], GlobalPoolBias)


def test_ctrl_c_saves_when_the_output_pipe_is_gone(tmp_path):
    """`train ... | tee log` and Ctrl-C: the shell signals both, tee dies first, and every
    later write to stdout fails; the run still saves what it trained, without a traceback."""
    args = [sys.executable, "-m", "alphazero.train", *TINY, "train.max_games=100000",
            "train.checkpoint_minutes=60", "train.snapshot_games=8",
            f"out_dir={tmp_path}/runs/pipe", f"train.checkpoint_dir={tmp_path}/checkpoints"]
    # SIGINT as a terminal delivers it, even where this test runs in the background of a
    # shell (which starts background jobs with SIGINT ignored, and the child would inherit it)
    process = subprocess.Popen(args, cwd=ROOT, stdout=subprocess.PIPE, stderr=subprocess.PIPE,
                               text=True,
                               preexec_fn=lambda: signal.signal(signal.SIGINT, signal.SIG_DFL))
    folder = tmp_path / "checkpoints" / "connect4_classic"
    deadline = time.time() + 120
    while not list(folder.glob("snapshots/*.pt")) and time.time() < deadline:
        time.sleep(0.2)
    assert not (folder / "latest.pt").exists()  # no periodic save yet: the interrupt's is tested
    process.stdout.close()  # the reader of the pipe is gone, as tee after Ctrl-C
    process.send_signal(signal.SIGINT)
    try:
        _, stderr = process.communicate(timeout=60)
    finally:
        process.kill()
    assert "Traceback" not in stderr, stderr
    assert checkpoint.load(folder / "latest.pt")["counters"]["games"] >= 8


def test_gate_previous_searches_both_networks_with_the_gates_budget(tmp_path, monkeypatch):
    from alphazero.evaluate import match as evaluate
    from alphazero.train import loop as train_module
    with initialize_config_dir(version_base=None, config_dir=str(ROOT / "conf")):
        cfg = compose(config_name="config", overrides=[
            *TINY, "eval.gate=previous", "eval.simulations=24", "mcts.simulations=8",
            f"train.checkpoint_dir={tmp_path}"])
    run = train_module.TrainingRun(cfg, tmp_path / "run", "connect4_classic")
    checkpoint.save_atomic(run.network_payload(), run.checkpoint_dir / "best.pt")
    seen = {}

    def fake_match(game, eval_cfg, state, player, best_player=None, seed=0):
        seen["budgets"] = (player.simulations, best_player.simulations)
        return evaluate.MatchResult(2, 1, 0, 1)

    monkeypatch.setattr(train_module, "gate_match", fake_match)
    run.gate(progress=None)
    assert seen["budgets"] == (24, 24)
    run.writer.close()


def test_the_gate_says_why_a_network_became_best():
    from omegaconf import OmegaConf

    from alphazero.evaluate.match import GateState, MatchResult
    from alphazero.train.loop import gate_line
    pure = OmegaConf.create({"gate": "pure", "threshold": 0.55})
    start, level = GateState(50), GateState(50, 0.3)
    first = gate_line(pure, start, level, MatchResult(10, 3, 0, 7), True)
    assert first == ("gate vs pure MCTS 50: 3-0-7 (wins-draws-losses), the first wins at this "
                     "level (win rate 0.30): best.pt for now; a clean sweep raises the level")
    assert gate_line(pure, level, GateState(50, 0.4), MatchResult(10, 4, 0, 6), True).endswith(
        "a better win rate at this level (0.40 over 0.30): the new best.pt")
    assert gate_line(pure, start, GateState(1050), MatchResult(10, 10, 0, 0), True).endswith(
        "a clean sweep: the new best.pt, next level 1050")
    assert gate_line(pure, level, level, MatchResult(10, 2, 0, 8), False) == \
        "gate vs pure MCTS 50: 2-0-8 (wins-draws-losses), not above this level's best win rate (0.30): best.pt kept"
    previous = OmegaConf.create({"gate": "previous", "threshold": 0.55})
    assert "score 0.65 of at least 0.55: the new best.pt" in gate_line(
        previous, start, start, MatchResult(10, 6, 1, 3), True)


@pytest.mark.parametrize("signals, steps_taken", [(1, 3), (2, 2)])
def test_a_signal_mid_round_stops_after_the_step_under_way(tmp_path, monkeypatch, signals,
                                                          steps_taken):
    """The first SIGTERM (or Ctrl-C) during the training steps ends them after the step under
    way, and the steps not taken stay owed in the checkpoint; a second stops before the next."""
    with initialize_config_dir(config_dir=str(ROOT / "conf"), version_base=None):
        cfg = compose("config", overrides=[*TINY, f"train.checkpoint_dir={tmp_path}/checkpoints",
                                           "train.max_games=100000", "train.checkpoint_minutes=60"])
    validate_training(cfg)
    run = TrainingRun(cfg, tmp_path / "runs" / "signalled", "connect4_classic")
    take_step, calls = run.trainer.train_step, []

    def signalled_step(*args, **kwargs):
        calls.append(1)
        if len(calls) == 3:
            for _ in range(signals):
                signal.raise_signal(signal.SIGTERM)
        return take_step(*args, **kwargs)

    monkeypatch.setattr(run.trainer, "train_step", signalled_step)
    terminate = signal.getsignal(signal.SIGTERM)
    run.run()
    assert signal.getsignal(signal.SIGTERM) is terminate  # the run put its handlers back
    counters = checkpoint.load(run.checkpoint_dir / "latest.pt")["counters"]
    assert counters["steps"] == steps_taken
    assert counters["train_samples"] >= cfg.train.batch_size
