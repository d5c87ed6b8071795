"""Checking a composed config tree before any work starts, one sentence per bad value, and
the few values derived from it (the game, worker count, DDP devices, the scheduled rate)."""
from __future__ import annotations

import copy
import functools
import os

from omegaconf import DictConfig, OmegaConf

from alphazero.config.compose import compose_config
from alphazero.config.devices import check_precision, device_name
from alphazero.config.errors import ConfigError
from games import Game, game_advisors, make_game


POOL_KINDS = ("local", "ray")
OPTIMIZERS = ("adam", "sgd")
TRAIN_PRECISIONS = ("auto", "float32", "bfloat16")  # train.precision (alphazero.train.trainer)
SOLVER_KINDS = ("random", "early", "selfplay", "stages")  # evaluate's solver_kind (alphazero.evaluate.judges)
SEATS = ("first", "second")  # play's human
CURVE_MODES = ("winrate", "elo")  # curve's curve.mode (alphazero.curve)
GTP_OPPONENT = "gtp:"  # evaluate's and curve's opponent=gtp:COMMAND (alphazero.evaluate.gtp)
SERVE_BOUNDS = {"port": (0, 65535), "max_sessions": (1, 100_000), "max_simulations": (1, 1_000_000)}


# (config key, lowest allowed value) for every number that must be positive or non-negative
# (a search's first simulation only expands the root: a move needs at least a second)
_BOUNDS = [("game.play_simulations", 2), ("mcts.simulations", 2), ("mcts.c_puct", 0),
           ("mcts.dirichlet_epsilon", 0), ("mcts.arena_factor", 1),
           ("selfplay.games_in_parallel", 1), ("selfplay.temperature_moves", 0),
           ("selfplay.fast_simulations", 2),
           ("replay.capacity", 1), ("train.positions_per_round", 1), ("train.sample_ratio", 0),
           ("train.min_replay", 0), ("train.batch_size", 1), ("train.lr", 0), ("train.l2", 0),
           ("train.checkpoint_minutes", 0), ("train.kept_games_mb", 0),
           ("eval.interval", 0), ("eval.games", 1),
           ("eval.start_level", 1), ("eval.level_step", 0), ("eval.threshold", 0)]
# keys that may be null (off) or else a number of at least this
_NULL_OR_BOUNDS = [("eval.simulations", 2), ("train.max_games", 1), ("train.max_minutes", 0)]


def validate(cfg: DictConfig) -> None:
    for key, low in _BOUNDS:
        value = OmegaConf.select(cfg, key)
        if not _is_number(value) or value < low:
            raise ConfigError(f"{key} must be a number of at least {low}, not {value!r}.")
    for key, low in _NULL_OR_BOUNDS:
        value = OmegaConf.select(cfg, key)
        if value is not None and (not _is_number(value) or value < low):
            raise ConfigError(f"{key} must be null or a number of at least {low}, not {value!r}.")
    for key, may_be_null in (("selfplay.full_search_share", False), ("mcts.discount", True)):
        value = OmegaConf.select(cfg, key)
        if not (value is None and may_be_null) and not (_is_number(value) and 0 < value <= 1):
            raise ConfigError(f"{key} must be above 0 and at most 1, not {value!r}.")
    for key in ("selfplay.q_share", "selfplay.opening_share"):
        value = OmegaConf.select(cfg, key)
        if not (_is_number(value) and 0 <= value <= 1):
            raise ConfigError(f"{key} must be a number from 0 to 1, not {value!r}.")
    if cfg.mcts.dirichlet_epsilon > 1:
        raise ConfigError(f"mcts.dirichlet_epsilon must be between 0 and 1, not {cfg.mcts.dirichlet_epsilon}.")
    validate_lr_schedule(cfg.train.lr_schedule)
    snapshot_games = cfg.train.snapshot_games
    if snapshot_games is not None and not (_is_count(snapshot_games) and snapshot_games > 0):
        raise ConfigError(f"train.snapshot_games must be null or a number of games of at least 1, "
                          f"not {snapshot_games!r}.")
    validate_model(cfg.model)
    validate_agent(cfg)
    validate_command_options(cfg)
    validate_threads(cfg.threads)
    if cfg.eval.gate not in ("pure", "previous"):
        raise ConfigError(f"eval.gate must be pure or previous, not {cfg.eval.gate!r}.")
    if cfg.eval.threshold > 1:
        raise ConfigError(f"eval.threshold must be a score from 0 to 1, not {cfg.eval.threshold}.")
    if cfg.train.precision not in TRAIN_PRECISIONS:
        raise ConfigError(f"train.precision must be one of {', '.join(TRAIN_PRECISIONS)}, not "
                          f"{cfg.train.precision!r}.")
    if cfg.train.optimizer not in OPTIMIZERS:
        raise ConfigError(f"train.optimizer must be one of {', '.join(OPTIMIZERS)}, not "
                          f"{cfg.train.optimizer!r}.")
    check_precision(cfg.selfplay.precision, device_name(cfg.device))
    for key in ("eval.opening_plies", "selfplay.opening_plies"):
        value = OmegaConf.select(cfg, key)
        if not _is_count(value):
            raise ConfigError(f"{key} must be a whole number of at least 0, not {value!r}.")
    worker_count(cfg.selfplay.workers)
    validate_pool(cfg.pool, cfg.selfplay.workers)
    devices = ddp_devices(cfg.train.ddp)
    if devices and cfg.train.batch_size % len(devices):
        raise ConfigError(f"train.batch_size ({cfg.train.batch_size}) must split evenly over "
                          f"the {len(devices)} devices of train.ddp.")


def validate_training(cfg: DictConfig) -> None:
    """What only a training run needs on top of `validate` (in play and evaluate,
    mcts.simulations is the playing budget and self-play's settings do not apply)."""
    validate(cfg)
    if cfg.selfplay.full_search_share < 1 and cfg.selfplay.fast_simulations > cfg.mcts.simulations:
        raise ConfigError(f"selfplay.fast_simulations ({cfg.selfplay.fast_simulations}) must not "
                          f"exceed mcts.simulations ({cfg.mcts.simulations}).")


def validate_agent(cfg: DictConfig) -> None:
    """The agent's settings: `search_alone`, the advisors of `game.advisors` (each one its
    game offers, games.game_advisors, with a setting it accepts) and pure MCTS's playouts."""
    if not isinstance(cfg.get("search_alone", False), bool):
        raise ConfigError(f"search_alone must be true or false, not {cfg.search_alone!r}.")
    offered = game_advisors(cfg.game.name)
    advisors = cfg.game.get("advisors") or {}
    if not OmegaConf.is_dict(advisors) and not isinstance(advisors, dict):
        raise ConfigError(f"game.advisors must be a mapping of advisor names to settings, not "
                          f"{advisors!r}.")
    for name, setting in advisors.items():
        if name not in offered:
            raise ConfigError(f"game.advisors.{name} is not an advisor {cfg.game.name} offers; it "
                              f"offers: {', '.join(sorted(offered))}.")
        if not offered[name].accepts(setting):
            raise ConfigError(f"game.advisors.{name} must be {offered[name].setting}, not "
                              f"{setting!r}.")
    playouts = OmegaConf.select(cfg, "pure.playouts")
    if "pure" in cfg and not (_is_count(playouts) and playouts > 0):
        raise ConfigError(f"pure.playouts must be a whole number of at least 1, not {playouts!r}.")


def validate_command_options(cfg: DictConfig) -> None:
    """The options of one command's tree (conf/play.yaml, evaluate.yaml, curve.yaml), where
    they are present: the ladder's levels, a GTP opponent's command and time limits, the
    solver measure's positions, the curve's mode, the human's seat."""
    levels = OmegaConf.select(cfg, "eval.levels")
    alone = bool(cfg.get("solver_positions"))  # the solver measure may go without a ladder
    if (not _is_list(levels) or not (levels or alone)
            or not all(_is_count(x) and x > 0 for x in levels)):
        raise ConfigError(f"eval.levels must be a list of playout counts of at least 1, not "
                          f"{levels!r}.")
    opponent = cfg.get("opponent")
    if (isinstance(opponent, str) and opponent.startswith(GTP_OPPONENT)
            and not opponent[len(GTP_OPPONENT):].strip()):
        raise ConfigError("opponent=gtp: needs the program's command after gtp:, such as "
                          "\"opponent='gtp:gtp-rhino --level=3'\".")
    for key in ("gtp.move_seconds", "gtp.start_seconds"):
        value = OmegaConf.select(cfg, key)
        if "gtp" in cfg and not (_is_number(value) and value > 0):
            raise ConfigError(f"{key} must be a number of seconds above 0, not {value!r}.")
    if "solver_positions" in cfg:
        if not _is_count(cfg.solver_positions):
            raise ConfigError(f"solver_positions must be a number of positions, not "
                              f"{cfg.solver_positions!r}.")
        if cfg.solver_kind not in SOLVER_KINDS:
            raise ConfigError(f"solver_kind must be one of {', '.join(SOLVER_KINDS)}, not "
                              f"{cfg.solver_kind!r}.")
        plies = cfg.solver_plies
        if not (_is_list(plies) and len(plies) == 2 and all(_is_count(x) for x in plies)
                and plies[0] <= plies[1]):
            raise ConfigError(f"solver_plies must be [fewest, most] random moves, not {plies!r}.")
    if "curve" in cfg:
        validate_curve(cfg.curve)
    if "human" in cfg and cfg.human not in SEATS:
        raise ConfigError(f"human must be first or second, not {cfg.human!r}.")


def validate_curve(curve: DictConfig) -> None:
    """The learning curve's mode and its Elo ladder's matches (conf/curve.yaml)."""
    if curve.mode not in CURVE_MODES:
        raise ConfigError(f"curve.mode must be one of {', '.join(CURVE_MODES)}, not {curve.mode!r}.")
    if not (_is_count(curve.games) and curve.games >= 2 and curve.games % 2 == 0):
        raise ConfigError(f"curve.games must be an even number of games of at least 2 (each "
                          f"opening is played with both colours), not {curve.games!r}.")
    if not _is_count(curve.opening_plies):
        raise ConfigError(f"curve.opening_plies must be a whole number of at least 0, not "
                          f"{curve.opening_plies!r}.")


def validate_serve(cfg: DictConfig) -> None:
    """The web board's own tree (conf/serve.yaml)."""
    for key, (low, high) in SERVE_BOUNDS.items():
        value = cfg[key]
        if not (_is_count(value) and low <= value <= high):
            raise ConfigError(f"{key} must be a whole number from {low} to {high}, not {value!r}.")
    validate_threads(cfg.threads)
    device_name(cfg.device)


def validate_threads(setting) -> None:
    """`threads`, a setting of every command."""
    if setting != "auto" and not (_is_count(setting) and setting > 0):
        raise ConfigError(f"threads must be auto or a whole number of at least 1, not {setting!r}.")


def _is_size(value) -> bool:
    return _is_count(value) and value > 0


def _is_sizes(value) -> bool:
    return _is_list(value) and len(value) > 0 and all(_is_size(x) for x in value)


def _is_bool(value) -> bool:
    return isinstance(value, bool)


# Per model kind: each size the network's constructor takes, its check, and what it must be.
_MODEL_SIZES = {
    "cnn": {"channels": (_is_sizes, "a non-empty list of whole numbers of at least 1"),
            "policy_channels": (_is_size, "a whole number of at least 1"),
            "value_channels": (_is_size, "a whole number of at least 1"),
            "value_hidden": (_is_size, "a whole number of at least 1"),
            "global_pool": (_is_bool, "true or false")},
    "resnet": {"blocks": (_is_size, "a whole number of at least 1"),
               "channels": (_is_size, "a whole number of at least 1"),
               "global_pool": (_is_bool, "true or false")},
}


def validate_model(model: DictConfig) -> None:
    if model.kind not in _MODEL_SIZES:
        raise ConfigError(f"model.kind must be one of {', '.join(_MODEL_SIZES)}, not {model.kind!r}.")
    allowed = _MODEL_SIZES[model.kind]
    for key, value in (model.sizes or {}).items():
        if key not in allowed:
            raise ConfigError(f"model.sizes.{key} is not a size of the {model.kind} model; it "
                              f"takes {', '.join(allowed)}.")
        check, meaning = allowed[key]
        if not check(value):
            raise ConfigError(f"model.sizes.{key} must be {meaning}, not {value!r}.")


def validate_pool(pool: DictConfig, workers) -> None:
    if pool.kind not in POOL_KINDS or "max_games_in_flight" in pool and pool.kind != "local":
        raise ConfigError(f"choose the pool with pool=local or pool=ray, not pool.kind={pool.kind!r}.")
    if pool.kind == "local":
        if not (_is_count(pool.max_games_in_flight) and pool.max_games_in_flight > 0):
            raise ConfigError(f"pool.max_games_in_flight must be a whole number of at least 1, "
                              f"not {pool.max_games_in_flight!r}.")
        return
    if workers == 0:
        raise ConfigError("pool=ray needs selfplay.workers of at least 1, or auto.")
    for key in ("num_cpus", "num_gpus"):
        value = pool[key]
        if not _is_number(value) or value < 0:
            raise ConfigError(f"pool.{key} must be a number of at least 0, not {value!r}.")
    if pool.num_cpus == 0:
        raise ConfigError("pool.num_cpus must be more than 0 (fractions such as 0.5 are fine).")


def validate_lr_schedule(schedule) -> None:
    if schedule is None:
        return
    error = ConfigError(f"train.lr_schedule must be null or a list of [games, lr] pairs with "
                        f"rising game counts from 0 and positive rates, not {schedule!r}.")
    if not _is_list(schedule) or len(schedule) == 0:
        raise error
    previous = -1
    for pair in schedule:
        if not _is_list(pair) or len(pair) != 2 or not all(_is_number(x) for x in pair):
            raise error
        games, lr = pair
        if games <= previous or lr <= 0:
            raise error
        previous = games


def _is_list(value) -> bool:
    return OmegaConf.is_list(value) or isinstance(value, list)


def _is_number(value) -> bool:
    return isinstance(value, (int, float)) and not isinstance(value, bool)


def _is_count(value) -> bool:
    """A whole number of at least 0 (not a bool)."""
    return isinstance(value, int) and not isinstance(value, bool) and value >= 0


def scheduled_lr(train: DictConfig, games: int) -> float:
    """train.lr, or the rate of the last train.lr_schedule entry this many games have reached."""
    lr = train.lr
    for start, rate in train.lr_schedule or []:
        if games >= start:
            lr = rate
    return float(lr)


def ddp_devices(setting) -> list[str]:
    """train.ddp as the list of devices, one training process each ([] without DDP)."""
    if setting is False or setting is None:
        return []
    if setting is True:
        import torch
        if not torch.cuda.is_available():
            raise ConfigError("train.ddp=true needs CUDA GPUs; on the CPU give a device list "
                              "such as train.ddp=[cpu,cpu].")
        return [f"cuda:{i}" for i in range(torch.cuda.device_count())]
    devices = list(setting) if _is_list(setting) else [setting]
    kinds = {str(d).split(":")[0] for d in devices}
    if not devices or not kinds <= {"cpu", "cuda"} or len(kinds) > 1:
        raise ConfigError(f"train.ddp must be false, true or a list of devices all cpu or all "
                          f"cuda:N, not {setting!r}.")
    return [str(d) for d in devices]


def build_game(cfg: DictConfig) -> Game:
    return make_game(cfg.game.name, **OmegaConf.to_container(cfg.game.params))


def worker_count(setting) -> int:
    """0 plays in the training process. 'auto' does that on two cores or fewer (training
    takes a small share of the time, and one process can use both cores for the network),
    and else leaves one core to the trainer."""
    if setting == "auto":
        cores = os.cpu_count() or 1
        return 0 if cores <= 2 else cores - 1
    if not _is_count(setting):
        raise ConfigError(f"selfplay.workers must be auto or a whole number of at least 0, not {setting!r}.")
    return setting


@functools.cache
def _default_tree() -> DictConfig:
    return compose_config("config", [])


def default_config() -> DictConfig:
    """conf/config.yaml composed with no overrides (a fresh copy): the one source of every
    default, for code and tests that build a component without a command line."""
    return copy.deepcopy(_default_tree())
