"""Checking a composed config tree before any work starts, one sentence per bad value, and
the few values derived from it (the game, worker count, DDP devices, the scheduled rate)."""
from __future__ import annotations

import copy
import functools

from omegaconf import DictConfig, OmegaConf

from alphazero.config import schema
from alphazero.config.compose import compose_config
from alphazero.config.devices import check_precision, device_name
from alphazero.config.errors import ConfigError
from alphazero.config.threads import usable_cores
from games import Game, game_advisors, make_game


POOL_KINDS = ("local", "ray")
OPTIMIZERS = schema.choices(schema.TrainSettings, "train.optimizer")
SOLVER_KINDS = schema.choices(schema.EvaluateSettings, "solver_kind")
SEATS = ("first", "second")  # play's human
GTP_OPPONENT = "gtp:"  # evaluate's and curve's opponent=gtp:COMMAND (alphazero.evaluate.gtp)


def validate(cfg: DictConfig) -> None:
    """Every setting of a command's tree against its type and range (alphazero.config.schema),
    then what no single setting says (the advisors, the model's sizes, the pool, ...)."""
    check_settings(cfg)
    validate_lr_schedule(cfg.train)
    validate_model(cfg.model)
    validate_agent(cfg)
    validate_command_options(cfg)
    validate_threads(cfg.threads)
    check_precision(cfg.selfplay.precision, device_name(cfg.device))
    worker_count(cfg.selfplay.workers)
    validate_pool(cfg.pool, cfg.selfplay.workers)
    devices = ddp_devices(cfg.train.ddp)
    if devices and cfg.train.batch_size % len(devices):
        raise ConfigError(f"train.batch_size ({cfg.train.batch_size}) must split evenly over "
                          f"the {len(devices)} devices of train.ddp.")


def check_settings(cfg: DictConfig) -> None:
    """Each setting of the tree that the schema types: its type, range and choices, one
    sentence for the first one wrong."""
    for root in schema.ROOTS.values():
        hints = _hints(root)
        for key, field in schema.leaves(root):
            value = OmegaConf.select(cfg, key, default=_ABSENT)
            if value is not _ABSENT:
                check_setting(key, value, hints[key], field.metadata)


_ABSENT = object()


def check_setting(key: str, value, kind: str, meta: dict) -> None:
    nullable = kind.startswith("Optional[")
    if value is None and nullable:
        return
    base = kind.removeprefix("Optional[").removesuffix("]") if nullable else kind
    words = {"int": "a whole number", "float": "a number", "bool": "true or false",
             "str": "a word"}.get(base)
    if meta.get("choices"):
        if value not in meta["choices"]:
            raise ConfigError(f"{key} must be one of {', '.join(meta['choices'])}, not {value!r}.")
        return
    fits = {"int": _is_whole, "float": _is_number, "bool": _is_bool,
            "str": lambda v: isinstance(v, str)}.get(base, lambda v: True)(value)
    low, high, above = meta.get("low"), meta.get("high"), meta.get("above")
    in_range = fits and (low is None or value >= low) and (high is None or value <= high) and (
        above is None or value > above)
    if not in_range:
        bounds = [f"at least {low}" if low is not None else "",
                  f"above {above}" if above is not None else "",
                  f"at most {high}" if high is not None else ""]
        bounds = " and ".join(b for b in bounds if b)
        null = "null or " if nullable else ""
        raise ConfigError(f"{key} must be {null}{words or 'a value'}"
                          f"{' ' + bounds if bounds else ''}, not {value!r}.")


@functools.cache
def _hints(root) -> dict[str, str]:
    """Each dotted key's type, as written in the schema ("int", "Optional[float]", ...)."""
    return {key: str(field.type) for key, field in schema.leaves(root)}


def validate_training(cfg: DictConfig) -> None:
    """What only a training run needs on top of `validate` (in play and evaluate,
    mcts.simulations is the playing budget and self-play's settings do not apply)."""
    validate(cfg)
    if cfg.selfplay.full_search_share < 1 and cfg.selfplay.fast_simulations > cfg.mcts.simulations:
        raise ConfigError(f"selfplay.fast_simulations ({cfg.selfplay.fast_simulations}) must not "
                          f"exceed mcts.simulations ({cfg.mcts.simulations}).")


def validate_agent(cfg: DictConfig) -> None:
    """The advisors of `game.advisors`: each one its game offers (games.game_advisors), with
    a setting it accepts."""
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


def validate_command_options(cfg: DictConfig) -> None:
    """What the schema cannot say of one command's options, where they are present: the
    ladder's levels, a GTP opponent's command, the solver's plies, the curve's even games."""
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
    if "solver_plies" in cfg:
        plies = cfg.solver_plies
        if not (_is_list(plies) and len(plies) == 2 and all(_is_count(x) for x in plies)
                and plies[0] <= plies[1]):
            raise ConfigError(f"solver_plies must be [fewest, most] random moves, not {plies!r}.")
    if "curve" in cfg and cfg.curve.games % 2:
        raise ConfigError(f"curve.games must be an even number of games of at least 2 (each "
                          f"opening is played with both colours), not {cfg.curve.games!r}.")


def validate_serve(cfg: DictConfig) -> None:
    """The web board's own tree (conf/serve.yaml)."""
    check_settings(cfg)
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


def validate_lr_schedule(train: DictConfig) -> None:
    schedule = train.lr_schedule
    if schedule is None:
        return
    error = ConfigError(f"train.lr_schedule must be null or a list of [share, lr] pairs with "
                        f"rising shares of the run between 0 and 1 and positive rates, not "
                        f"{schedule!r}.")
    if not _is_list(schedule) or len(schedule) == 0:
        raise error
    previous = 0
    for pair in schedule:
        if not _is_list(pair) or len(pair) != 2 or not all(_is_number(x) for x in pair):
            raise error
        share, lr = pair
        if not previous < share < 1 or lr <= 0:
            raise error
        previous = share
    if train.max_games is None and train.max_minutes is None:
        raise ConfigError("train.lr_schedule needs a length of run to take shares of: set "
                          "train.max_games or train.max_minutes.")


def _is_list(value) -> bool:
    return OmegaConf.is_list(value) or isinstance(value, list)


def _is_number(value) -> bool:
    return isinstance(value, (int, float)) and not isinstance(value, bool)


def _is_whole(value) -> bool:
    return isinstance(value, int) and not isinstance(value, bool)


def _is_count(value) -> bool:
    """A whole number of at least 0 (not a bool)."""
    return isinstance(value, int) and not isinstance(value, bool) and value >= 0


def run_share(train: DictConfig, games: int, minutes: float) -> float:
    """How far the run is along its length: its games of train.max_games or its minutes of
    train.max_minutes, whichever is further (0 for a run without either)."""
    shares = [0.0]
    if train.max_games is not None:
        shares.append(games / train.max_games)
    if train.max_minutes:
        shares.append(minutes / train.max_minutes)
    return max(shares)


def scheduled_lr(train: DictConfig, games: int, minutes: float) -> float:
    """train.lr, or the rate of the last train.lr_schedule stage the run has reached; the
    stages are shares of the run, so a recipe limited in minutes drops its rate at the same
    point of its run on a fast machine and a slow one."""
    lr, share = train.lr, run_share(train, games, minutes)
    for start, rate in train.lr_schedule or []:
        if share >= start:
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


def run_name(cfg: DictConfig, game_choice: str | None, game: Game) -> str:
    """A run's name (its folder in checkpoints/): `run_name`, else the game= choice (so
    connect4 and connect4_classic never mix) with what tells the game's variants apart
    (openspiel_hex_board_size_9)."""
    if cfg.run_name:
        return cfg.run_name
    return "_".join(part for part in (game_choice or game.name, game.run_suffix()) if part)


def worker_count(setting) -> int:
    """0 plays in the training process. 'auto' does that on one usable core; on two it runs
    two workers beside the trainer, each on one thread (the network on two threads of one
    process runs only 1.4 times as fast as on one, and training needs about a third of a
    core, so three processes keep both cores busy: 1.4 times the positions per minute of
    one process on a 2-core AMD EPYC, docs/performance.md); on more, one per core but the
    trainer's."""
    if setting == "auto":
        cores = usable_cores()
        return 0 if cores == 1 else max(2, cores - 1)
    if not _is_count(setting):
        raise ConfigError(f"selfplay.workers must be auto or a whole number of at least 0, not {setting!r}.")
    return setting


@functools.cache
def _default_tree() -> DictConfig:
    return compose_config("config", [])


def default_config() -> DictConfig:
    """The training tree composed with no overrides (a fresh copy): every
    default, for code and tests that build a component without a command line."""
    return copy.deepcopy(_default_tree())
