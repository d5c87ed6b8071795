"""Export a checkpoint's policy-value network: `python -m alphazero.export checkpoint=PATH`.

The ONNX model (opset 18, any batch size) has
  inputs   planes      float32 [batch, planes, height, width]  the game's `encode` of each position,
                                                                from the view of the side to move
           legal       bool    [batch, num_actions]             the legal moves (illegal ones get
                                                                probability 0)
  outputs  log_policy  float32 [batch, num_actions]             log-probabilities of the moves
           value       float32 [batch]                          the expected result for the side to
                                                                move, in [-1, 1]
and metadata (string key/value pairs): game, game_params (JSON), planes, height, width,
num_actions, model_kind, model_sizes (JSON), games_played, and doc (this layout in words).
Errors are one sentence and exit code 2.
"""
from __future__ import annotations

import json
import logging
import os
import sys
import warnings
from pathlib import Path

import hydra
import onnx
import torch
from omegaconf import DictConfig

from alphazero.nn import checkpoint
from alphazero.config.choices import check_group_choices
from alphazero.config.errors import ConfigError
from alphazero.nn.network import build_model
from alphazero.config.paths import CONF_DIR
from alphazero.play import run_or_exit
from games import make_game

OPSET = 18
INPUTS, OUTPUTS = ("planes", "legal"), ("log_policy", "value")
DOC = ("inputs: planes float32 [batch, planes, height, width] (the game's encoding, side to move's "
       "view), legal bool [batch, num_actions]; outputs: log_policy float32 [batch, num_actions] "
       "(log-probabilities, illegal moves at probability 0), value float32 [batch] (expected "
       "result for the side to move, -1 to 1)")


def export_onnx(saved: dict, out: Path) -> None:
    game = make_game(saved["game"], **saved["game_params"])
    model = build_model(saved["model_kind"], game, **saved["model_sizes"])
    model.load_state_dict(saved["model"])
    model.eval()
    example = (torch.zeros(2, game.planes, game.height, game.width),
               torch.ones(2, game.num_actions, dtype=torch.bool))
    batch = torch.export.Dim("batch")
    # The exporter's notes on its own internals (deprecations, torchvision ops) are not the user's.
    logging.getLogger("torch.onnx").setLevel(logging.ERROR)
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        program = torch.onnx.export(model, example, dynamo=True, opset_version=OPSET,
                                    input_names=list(INPUTS), output_names=list(OUTPUTS),
                                    dynamic_shapes=({0: batch}, {0: batch}), verbose=False)
    proto = program.model_proto
    metadata = {"game": game.name, "game_params": json.dumps(game.params()),
                "planes": game.planes, "height": game.height, "width": game.width,
                "num_actions": game.num_actions, "model_kind": saved["model_kind"],
                "model_sizes": json.dumps(saved["model_sizes"]),
                "games_played": saved.get("counters", {}).get("games", ""), "doc": DOC}
    del proto.metadata_props[:]
    for key, value in metadata.items():
        proto.metadata_props.add(key=key, value=str(value))
    proto.doc_string = DOC
    onnx.checker.check_model(proto)
    out.parent.mkdir(parents=True, exist_ok=True)
    partial = out.with_name(f".{out.name}.tmp")  # renamed when complete: never a torn file
    partial.write_bytes(proto.SerializeToString())
    os.replace(partial, out)


@hydra.main(version_base=None, config_path=str(CONF_DIR), config_name="export")
def main(cfg: DictConfig) -> None:
    def session():
        if not cfg.checkpoint:
            raise ConfigError("give the network to export: checkpoint=PATH.")
        path = Path(cfg.checkpoint)
        saved = checkpoint.load(path)
        if not {"game", "game_params", "model_kind", "model_sizes", "model"} <= set(saved):
            raise checkpoint.CheckpointError(f"{path} holds no network (a replay buffer?).")
        out = Path(cfg.out) if cfg.out else path.with_suffix(".onnx")
        export_onnx(saved, out)
        print(f"wrote {out}")

    run_or_exit(session)


if __name__ == "__main__":
    check_group_choices(sys.argv[1:])
    main()
