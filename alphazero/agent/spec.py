"""What an agent is, apart from the game it plays: the one piece of the settings the builder
(alphazero.agent.build) takes. A command turns its tree into a spec once (`agent_spec`); a
caller that needs another agent changes the spec (`dataclasses.replace`, `alone`, `pure`),
never a copy of the tree."""
from __future__ import annotations

import dataclasses
from dataclasses import dataclass, field

from omegaconf import DictConfig, OmegaConf

KINDS = ("az", "pure")  # a network's search with its game's advisors | random-rollout MCTS


@dataclass(frozen=True)
class AgentSpec:
    kind: str = "az"
    checkpoint: str | None = None  # az: the network; None: the shipped one for the board
    simulations: int = 800         # az: the search's simulations per move
    search: dict = field(default_factory=dict)    # az: the `mcts:` settings (SearchConfig's)
    advisors: dict = field(default_factory=dict)  # az: advisor name -> setting; {}: search alone
    playouts: int = 0              # pure: playouts per move
    precision: str = "auto"        # az: the network's precision (selfplay.precision)
    runtime: str = "auto"          # az: auto (build.network_runtime) | torch (loaded and run
                                   # by torch, as a benchmark compares)
    device: str = "auto"
    seed: int = 0

    def advised(self, advisors: dict) -> AgentSpec:
        """The same agent with these advisors (name -> setting; a false setting is off)."""
        return dataclasses.replace(self, advisors={name: setting for name, setting
                                                   in advisors.items() if setting})

    def alone(self) -> AgentSpec:
        """The same network's search without advisors (what the gate measures)."""
        return dataclasses.replace(self, advisors={})

    @classmethod
    def pure_mcts(cls, playouts: int, seed: int = 0) -> AgentSpec:
        return cls(kind="pure", playouts=playouts, seed=seed)


def agent_spec(cfg: DictConfig, kind: str | None = None, checkpoint=None,
               seed: int | None = None) -> AgentSpec:
    """The agent a command's settings describe: `kind` (default the tree's `player`, else az),
    `checkpoint` (default the tree's), the search as `mcts:` says, the advisors `game.advisors`
    turns on unless `search_alone`, pure MCTS at `pure.playouts`."""
    pure = cfg.get("pure")
    chosen = checkpoint if checkpoint is not None else cfg.get("checkpoint")
    spec = AgentSpec(kind=kind or cfg.get("player", "az"),
                     checkpoint=str(chosen) if chosen is not None else None,
                     simulations=cfg.mcts.simulations, search=OmegaConf.to_container(cfg.mcts),
                     playouts=pure.playouts if pure else 0, precision=cfg.selfplay.precision,
                     device=cfg.device, seed=cfg.seed if seed is None else seed)
    advisors = cfg.game.get("advisors")
    if cfg.get("search_alone", False) or not advisors:
        return spec
    return spec.advised(OmegaConf.to_container(advisors))
