"""Training entry point: `python -m alphazero.train game=connect6 [overrides]`.

The loop: collect new self-play positions from the pool, store them (with symmetry images)
in the replay buffer, take gradient steps in proportion to the new positions, publish the
new weights to the pool, log to TensorBoard, keep the latest games as move lists
(`game_log`), and checkpoint at least every few minutes.
Ctrl-C or SIGTERM (`kill PID`, or to the whole process group) saves a checkpoint and stops
after the move or training step under way (a second Ctrl-C: at once); killed harder at any
moment, `train.resume=true` continues from the last checkpoint.
"""
from __future__ import annotations

import os
import sys
import threading
import time
from dataclasses import asdict, dataclass, fields, replace
from pathlib import Path

import numpy as np
import torch
from omegaconf import DictConfig, OmegaConf
from torch.utils.tensorboard import SummaryWriter
from tqdm import tqdm

from alphazero.nn import checkpoint
from alphazero.config.errors import ConfigError
from alphazero.config.command import command_tree, output_folder
from alphazero.config.settings import (build_game, ddp_devices, run_name, scheduled_lr,
                                       validate_training, worker_count)
from alphazero.train import game_log
from alphazero.train.distributed import DataParallelTrainer
from alphazero.evaluate.match import GateState, gate_match, gate_verdict
from alphazero.config.devices import select_device
from alphazero.nn import precision as precisions
from alphazero.nn.network import Inference, build_model, calibration_for, resolve_precision
from alphazero.nn.onnx_runtime import export_model
from alphazero.agent.build import build
from alphazero.agent.spec import agent_spec
from alphazero.nn.checkpoint import weights_to_bytes
from alphazero.workers.pool import (InlinePool, LocalPool, SelfPlayStopped, WorkerCrashLoop,
                                    WorkerSpec)
from alphazero.train.replay import ReplayBuffer
from alphazero.search.puct import SearchConfig
from alphazero.workers.selfplay import SelfPlayConfig, value_targets
from alphazero.workers.signals import stop_trainer_on_signals
from alphazero.config.threads import use_training_threads
from alphazero.train.trainer import Trainer
from games import DRAW, FIRST_WON, GameError


PRECISION_CHECK_ROUNDS = 4  # how often a run checks self-play's precision against float32


def selfplay_seed(seed: int, games: int) -> int:
    """Self-play's seed after `games` games. Its random state is not saved, so a resumed run
    takes a stream of its own instead of drawing again what the run's first games drew."""
    if games == 0:
        return seed
    return int(np.random.SeedSequence([seed, games]).generate_state(1)[0])


@dataclass
class RunCounters:
    """A run's progress, saved in its checkpoints and carried over every resume."""
    round: int = 0
    games: int = 0
    positions: int = 0           # recorded self-play positions
    steps: int = 0               # gradient steps
    train_samples: float = 0.0   # samples owed to training: under a batch, or steps a stop left
    eval_level: int = 0          # the gate's pure-MCTS level
    eval_best_rate: float = 0.0  # the best win rate at that level so far
    minutes: float = 0.0         # training time over every resumed part of the run

    def updated(self, saved: dict) -> RunCounters:
        """These counters with a checkpoint's (a key an older checkpoint lacks stays as it is)."""
        known = {f.name for f in fields(self)}
        return replace(self, **{key: value for key, value in saved.items() if key in known})


class TrainingRun:
    def __init__(self, cfg: DictConfig, run_dir: Path, config_name: str):
        self.cfg = cfg
        self.config_name = config_name  # the game= choice, which the kept games name
        self.game = build_game(cfg)
        self.game_params = self.game.params()
        self.device = select_device(cfg.device)
        torch.manual_seed(cfg.seed)
        sizes = OmegaConf.to_container(cfg.model.sizes)
        self.model = build_model(cfg.model.kind, self.game, **sizes).to(self.device)
        self.trainer_args = {"lr": cfg.train.lr, "weight_decay_l2": cfg.train.l2,
                             "optimizer": cfg.train.optimizer, "precision": cfg.train.precision}
        self.trainer = Trainer(self.model, device=self.device, **self.trainer_args)
        g = self.game
        self.replay = ReplayBuffer(cfg.replay.capacity, g.planes, g.height, g.width, g.num_actions,
                                   g.plane_symmetries)
        self.rng = np.random.default_rng(cfg.seed)
        self.counters = RunCounters(eval_level=cfg.eval.start_level)
        self.name = run_name(cfg, config_name, self.game)
        self.checkpoint_dir = Path(cfg.train.checkpoint_dir) / self.name
        self.run_dir = run_dir
        self.writer = SummaryWriter(str(run_dir))
        # `auto` chosen once, here, for every worker and the gate: on this machine's CPU, the
        # fastest path that agrees with float32 (alphazero.nn.precision), checked as it trains
        self.precision, self.precision_choice = resolve_precision(
            cfg.selfplay.precision, self.model, g, self.device, cfg.selfplay.games_in_parallel)
        if self.precision_choice and self.precision_choice.precision != self.precision:
            self.precision_choice = None  # self-play's batches too small for it to pay
        self.paths_left = []  # the low-precision paths self-play left, out of the tolerance
        self.rounds_played = 0  # by this start of the run (its TensorBoard folder's rounds)
        self.last_round_minutes = 0.0  # the time limit's guess at the next round's length
        self.spec = WorkerSpec(
            game_name=g.name, game_params=self.game_params, model_kind=cfg.model.kind,
            model_sizes=sizes, device=cfg.device, precision=self.precision,
            selfplay=SelfPlayConfig.from_cfg(cfg),
            search=SearchConfig.from_cfg(cfg.mcts, rollout_share=cfg.selfplay.rollout_share),
            seed=cfg.seed)

    # --- checkpoints ------------------------------------------------------------------
    def network_payload(self) -> dict:
        """What play, engine and evaluate need to rebuild the network (best.pt is this)."""
        return {"game": self.game.name, "game_params": self.game_params,
                "model_kind": self.cfg.model.kind,
                "model_sizes": OmegaConf.to_container(self.cfg.model.sizes),
                "model": self.model.state_dict(), "counters": asdict(self.counters),
                "config": OmegaConf.to_container(self.cfg, resolve=True)}

    def save(self) -> None:
        checkpoint.save_atomic(self.replay.state_dict(), self.checkpoint_dir / "replay.pt")
        checkpoint.save_atomic({
            **self.network_payload(), "optimizer": self.trainer.state_dict(),
            "rng": {"numpy": self.rng.bit_generator.state, "torch": torch.get_rng_state()},
        }, self.checkpoint_dir / "latest.pt")

    def keep_snapshot(self, games_before: int) -> None:
        """Every train.snapshot_games games, keep the network as snapshots/games_<N>.pt, for
        the win rate against self-play games afterwards (alphazero.curve)."""
        every, games = self.cfg.train.snapshot_games, self.counters.games
        if every and games // every > games_before // every:
            checkpoint.save_atomic(self.network_payload(),
                                   self.checkpoint_dir / "snapshots" / f"games_{games:07d}.pt")

    def resume(self, target) -> None:
        """Continue a run from latest.pt, or from a network alone (best.pt, a snapshot, a
        shipped network): its weights and counters, with a fresh optimizer and an empty buffer."""
        path = self.checkpoint_dir / "latest.pt" if target is True else Path(str(target))
        state = checkpoint.load(path)
        checkpoint.check_game(state, self.game.name, self.game_params, path)
        try:
            self.model.load_state_dict(state["model"])
        except RuntimeError:
            raise checkpoint.CheckpointError(
                f"checkpoint {path} holds a {state.get('model_kind')} network of sizes "
                f"{state.get('model_sizes')}, not the configured {self.cfg.model.kind} "
                f"{OmegaConf.to_container(self.cfg.model.sizes)}.") from None
        self.counters = self.counters.updated(state["counters"])
        if "optimizer" not in state:
            say(f"continuing the network in {path} from {self.counters.games} games: "
                "it holds no training state, so the optimizer starts afresh and the "
                "replay buffer empty")
            return
        self.trainer.load_state_dict(state["optimizer"])
        self.rng.bit_generator.state = state["rng"]["numpy"]
        torch.set_rng_state(state["rng"]["torch"])
        replay_path = path.parent / "replay.pt"
        if replay_path.is_file():
            self.replay.load_state_dict(checkpoint.widen_replay(checkpoint.load(replay_path),
                                                                 self.game.name))
        say(f"resumed from {path}: {self.counters.games} games, "
            f"{self.counters.steps} steps, {len(self.replay)} samples in the buffer")

    # --- the loop -----------------------------------------------------------------------
    def make_pool(self):
        pool = self.cfg.pool
        if pool.kind == "ray":
            try:
                from alphazero.workers.ray_pool import RayPool  # Ray is an optional dependency
            except ModuleNotFoundError as error:
                if error.name != "ray":
                    raise
                raise ConfigError("pool=ray needs Ray: pip install '.[ray]'") from None
            return RayPool(self.spec, self.cfg.selfplay.workers, pool.address, pool.num_cpus,
                           pool.num_gpus)
        workers = worker_count(self.cfg.selfplay.workers)
        if workers == 0:
            return InlinePool(self.spec)
        return LocalPool(self.spec, workers, pool.max_games_in_flight)

    def finished(self) -> bool:
        """A limit reached, or the minutes' limit passed by another round as long as the last
        (so a one-hour recipe trains at most an hour, not an hour and a round)."""
        t, c = self.cfg.train, self.counters
        return ((t.max_games is not None and c.games >= t.max_games)
                or (t.max_minutes is not None
                    and c.minutes + self.last_round_minutes >= t.max_minutes))

    def run(self) -> None:
        cfg = self.cfg
        self.writer.add_text("config", "```\n" + OmegaConf.to_yaml(cfg, resolve=True) + "\n```")
        if cfg.train.resume:
            self.resume(cfg.train.resume)
            self.spec = replace(self.spec, seed=selfplay_seed(cfg.seed, self.counters.games))
        pool = self.make_pool()
        self.tell_precisions()
        devices = ddp_devices(cfg.train.ddp)
        if devices:  # after resuming, so that every replica starts from the same state
            self.trainer = DataParallelTrainer(self.trainer, self.trainer_args, devices)
        game_log.forget_from(self.checkpoint_dir, self.counters.games)
        pool.start(weights_to_bytes(self.model.state_dict()), self.counters.round)
        last_save = clock = time.time()
        # SIGTERM stops the run like Ctrl-C, so `kill PID` and cluster schedulers do not lose
        # the last minutes; both at the next move or training step, with the round whole.
        progress = tqdm(total=cfg.train.max_games, initial=self.counters.games, unit="game",
                        desc=f"{self.name} self-play", dynamic_ncols=True)
        stop = threading.Event()
        restore_signals = stop_trainer_on_signals(stop)
        try:
            while not self.finished() and not stop.is_set():
                games_before = self.counters.games
                self.one_round(pool, progress, stop)
                self.rounds_played += 1
                self.keep_snapshot(games_before)
                pool.publish(weights_to_bytes(self.model.state_dict()), self.counters.round)
                if not stop.is_set() and self.check_precision():  # a new path: new workers
                    pool.stop()
                    pool = self.make_pool()
                    pool.start(weights_to_bytes(self.model.state_dict()), self.counters.round)
                if (cfg.eval.interval and self.counters.round % cfg.eval.interval == 0
                        and not stop.is_set()):
                    self.gate(progress)
                now = time.time()
                self.last_round_minutes = (now - clock) / 60
                self.counters.minutes += self.last_round_minutes
                clock = now
                if time.time() - last_save >= 60 * cfg.train.checkpoint_minutes:
                    self.save()
                    last_save = time.time()
            if stop.is_set():
                say("interrupted: saving a checkpoint before stopping")
        except (KeyboardInterrupt, SelfPlayStopped):  # SelfPlayStopped: `stop` or a worker's
            say("interrupted: saving a checkpoint before stopping")
        finally:
            restore_signals()
            # Saving comes first: nothing below may stop it (Ctrl-C on `train | tee log` also
            # ends tee, and every later write to the pipe fails).
            self.save()
            pool.stop()
            if devices:
                self.trainer.stop()
            self.writer.close()
            try:
                progress.close()
            except OSError:  # stderr was a pipe whose reader is gone
                pass
        say(f"checkpoint: {self.checkpoint_dir / 'latest.pt'}   TensorBoard: "
            f"tensorboard --logdir {self.run_dir if self.cfg.out_dir else self.run_dir.parent}")

    def gate(self, progress) -> None:
        """Play the gating match and save best.pt when the network passes it."""
        c = self.counters
        before = GateState(c.eval_level, c.eval_best_rate)
        simulations = self.cfg.eval.simulations or self.cfg.mcts.simulations
        chosen = self.precision_choice
        network = Inference(self.model, self.device, self.precision,
                            from_batch=chosen.from_batch if chosen else 1,
                            calibration=calibration_for(self.precision, self.game))
        # the gate measures networks alone, both with the gate's budget
        spec = replace(agent_spec(self.cfg, "az").alone(), simulations=simulations, seed=0)
        player = build(self.game, spec, network)
        best_path = self.checkpoint_dir / "best.pt"
        best = None
        if self.cfg.eval.gate == "previous" and best_path.is_file():
            best = build(self.game, replace(spec, checkpoint=str(best_path)))
        result = gate_match(self.game, self.cfg.eval, before, player, best, seed=c.round + 1)
        after, promoted = gate_verdict(self.cfg.eval, before, result)
        if promoted:
            checkpoint.save_atomic(self.network_payload(), best_path)
        c.eval_level, c.eval_best_rate = after.level, after.best_rate
        if result is None:
            say("gate: the first network is the best so far -> best.pt")
            return
        w, step = self.writer, c.games
        w.add_scalar("eval/win_rate", result.win_rate, step)
        w.add_scalar("eval/draw_rate", result.draw_rate, step)
        w.add_scalar("eval/pure_mcts_level", before.level, step)
        w.add_scalar("eval/best_updated", float(promoted), step)
        say(gate_line(self.cfg.eval, before, after, result, promoted))

    def tell_precisions(self) -> None:
        """The network's path in self-play and the trainer's precision, on stderr and in
        TensorBoard's text tab."""
        chosen = self.precision_choice
        network = chosen.describe() if chosen else f"network in {self.precision}"
        text = f"{network}; training steps in {self.trainer.precision}"
        print(text, file=sys.stderr, flush=True)
        self.writer.add_text("precision", text)

    def check_precision(self) -> bool:
        """Every PRECISION_CHECK_ROUNDS rounds, the chosen low-precision path against float32
        with the round's weights (int8 quantized afresh), on the game's positions:
        `precision/value_error` and `precision/policy_error` (the largest differences). A path
        that leaves the tolerance is left for good, for the next one `auto` takes with these
        weights (float32 at last), said on stderr; True then, and the caller restarts
        self-play on it. (A precision a setting names is not checked.) A check takes about a
        second on a loaded core (Connect6, whose rounds take 20-40 s there)."""
        chosen = self.precision_choice
        if chosen is None or chosen.errors is None:
            return False
        if (self.counters.round - 1) % PRECISION_CHECK_ROUNDS:
            return False
        self.model.eval()
        onnx_model = export_model(self.model, (self.game.planes, self.game.height, self.game.width),
                                  self.game.num_actions)
        path, threads = (chosen.precision, chosen.runtime), torch.get_num_threads()
        errors = precisions.path_errors(onnx_model, path, self.game, threads)
        for key, value in errors.items():
            self.writer.add_scalar(f"precision/{key}_error", value, self.counters.games)
        if precisions.within_tolerance(errors):
            return False
        self.paths_left.append(path)
        choice = precisions.choose(onnx_model, self.game, threads, without=tuple(self.paths_left))
        tqdm.write(f"warning: self-play's {self.precision} network is {errors['value']:.3f} in "
                   f"value and {errors['policy']:.3f} in priors from float32's (tolerance "
                   f"{precisions.TOLERANCE['value']}); self-play goes on with the "
                   f"{choice.describe()}", file=sys.stderr)  # beside the path told at the start
        self.precision = choice.precision_at(self.cfg.selfplay.games_in_parallel)
        self.precision_choice = choice if choice.precision == self.precision else None
        self.spec = replace(self.spec, precision=self.precision)
        self.writer.add_text("precision", f"from round {self.counters.round}: {choice.describe()}")
        return True

    def keep_games(self, games) -> None:
        """The round's games into the run's game log, numbered on from the run's count."""
        megabytes = self.cfg.train.kept_games_mb
        if megabytes:
            first = self.counters.games
            game_log.write(self.checkpoint_dir, [
                game_log.entry(self.game, self.config_name, record, first + i)
                for i, record in enumerate(games)], int(megabytes * 2**20))

    def one_round(self, pool, progress, stop: threading.Event) -> None:
        """A round: collect the games, store them, log them, learn from the buffer. With
        `stop` set, self-play raises SelfPlayStopped and the training steps end early."""
        began = time.time()
        games = pool.collect(self.cfg.train.positions_per_round, stop)
        seconds = max(time.time() - began, 1e-9)
        self.store(games)
        self.log_selfplay(games, seconds, pool)
        progress.update(len(games))
        if len(self.replay) < self.cfg.train.min_replay:
            progress.set_postfix(buffer=len(self.replay), waiting_for=self.cfg.train.min_replay)
            return
        metrics = self.learn(sum(g.length for g in games), stop)
        if metrics:
            progress.set_postfix(loss=f"{metrics['loss/total']:.3f}",
                                 entropy=f"{metrics['policy/entropy']:.2f}", steps=self.counters.steps)

    def store(self, games) -> None:
        """The round's games into the game log and, with their symmetry images and value
        targets, into the replay buffer, in the dtypes the worker made them."""
        self.keep_games(games)
        for record in games:
            if record.length == 0:
                continue  # playout cap randomisation recorded none of its positions
            self.replay.add_game(record.planes, record.pis,
                                 value_targets(record, self.cfg.selfplay.q_share),
                                 record.cell_syms, record.action_syms)
        c = self.counters
        c.round += 1
        c.games += len(games)
        c.positions += sum(g.length for g in games)

    def log_selfplay(self, games, seconds: float, pool) -> None:
        """The round's self-play in TensorBoard, at the run's game count."""
        count = max(len(games), 1)
        w, step = self.writer, self.counters.games
        w.add_scalar("selfplay/games_per_s", len(games) / seconds, step)
        w.add_scalar("selfplay/positions_per_s", sum(g.length for g in games) / seconds, step)
        w.add_scalar("selfplay/game_length", sum(g.plies for g in games) / count, step)
        w.add_scalar("selfplay/first_player_win_rate",
                     sum(g.result == FIRST_WON for g in games) / count, step)
        # Self-play turns to draws as a network learns to defend (Gomoku 8x8: most games by 8,000).
        w.add_scalar("selfplay/draw_rate", sum(g.result == DRAW for g in games) / count, step)
        w.add_scalar("selfplay/q_share", self.cfg.selfplay.q_share, step)
        w.add_scalar("replay/size", len(self.replay), step)
        w.add_scalar("pool/workers_alive", pool.workers_alive, step)
        w.add_scalar("pool/restarts", pool.restarts, step)

    def learn(self, positions: int, stop: threading.Event) -> dict:
        """Gradient steps in proportion to the round's new positions (so faster self-play does
        not change learning), at the scheduled rate; the last step's metrics. Steps that
        `stop` leaves untaken stay owed in the counters, for the resumed run."""
        train, c = self.cfg.train, self.counters
        self.trainer.set_lr(scheduled_lr(train, c.games, c.minutes))
        c.train_samples += positions * train.sample_ratio
        metrics = {}
        while c.train_samples >= train.batch_size and not stop.is_set():
            metrics = self.trainer.train_step(*self.replay.sample(train.batch_size, self.rng),
                                              measure_kl=c.train_samples < 2 * train.batch_size)
            c.train_samples -= train.batch_size
            c.steps += 1
            for tag, value in metrics.items():
                self.writer.add_scalar(tag, value, c.steps)
        return metrics


def gate_line(eval_cfg: DictConfig, before: GateState, after: GateState, result,
              promoted: bool) -> str:
    """The gate's result in words: wins-draws-losses, and why the network became best.pt."""
    tally = f"{result.wins}-{result.draws}-{result.losses} (wins-draws-losses)"
    if eval_cfg.gate == "previous":
        verdict = (f", score {result.score:.2f} of at least {eval_cfg.threshold}: the new best.pt"
                   if promoted else "")
        return f"gate vs the best network: {tally}{verdict}"
    level = before.level
    if after.level != level:
        verdict = f", a clean sweep: the new best.pt, next level {after.level}"
    elif promoted and before.best_rate <= 0:
        verdict = (f", the first wins at this level (win rate {result.win_rate:.2f}): best.pt "
                   "for now; a clean sweep raises the level")
    elif promoted:
        verdict = (f", a better win rate at this level ({result.win_rate:.2f} over "
                   f"{before.best_rate:.2f}): the new best.pt")
    else:
        verdict = f", not above this level's best win rate ({before.best_rate:.2f}): best.pt kept"
    return f"gate vs pure MCTS {level}: {tally}{verdict}"


def say(text: str) -> None:
    """A line for the user that cannot end the run: when the reader of a pipe is gone
    (`| tee log` after Ctrl-C), the line is dropped and stdout goes to /dev/null."""
    try:
        tqdm.write(text)
        sys.stdout.flush()
    except (BrokenPipeError, OSError):
        sys.stdout = open(os.devnull, "w")


def main(argv: list[str]) -> None:
    """`python -m alphazero.train ARGV` (its __main__ checks the command line first)."""
    try:
        cfg, game_choice = command_tree("config", argv)
    except ConfigError as error:
        print(f"error: {error}", file=sys.stderr)
        sys.exit(2)
    run_dir, run = output_folder(cfg.out_dir, game_choice), None
    try:
        validate_training(cfg)
        use_training_threads(cfg.threads, worker_count(cfg.selfplay.workers))
        run = TrainingRun(cfg, run_dir, game_choice)
        run.run()
    except (ConfigError, GameError, checkpoint.CheckpointError, WorkerCrashLoop) as error:
        if run is None or run.rounds_played == 0:  # a run that never started leaves no folder
            if run is not None:
                run.writer.close()
            checkpoint.discard_run_folder(run_dir)
        print(f"error: {error}", file=sys.stderr)
        sys.exit(2)
