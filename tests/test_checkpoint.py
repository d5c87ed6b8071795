"""Checkpoint loads: network sizes since removed are dropped where they hold the value that is
now the only behaviour, and refused in one sentence where they do not."""
import pytest
import torch

from alphazero.nn import checkpoint
from alphazero.nn.network import build_model
from alphazero.config.paths import PRETRAINED_DIR
from games import make_game

SHIPPED = sorted(PRETRAINED_DIR.glob("*.pt"))


@pytest.mark.parametrize("path", SHIPPED, ids=lambda path: path.stem)
def test_shipped_networks_load_without_the_removed_sizes(path):
    saved = checkpoint.load(path)
    assert not saved["model_sizes"].keys() & checkpoint.REMOVED_SIZES.keys()
    game = make_game(saved["game"], **saved["game_params"])
    build_model(saved["model_kind"], game, **saved["model_sizes"]).load_state_dict(saved["model"])


@pytest.mark.parametrize("key, value", [("head_slope", 0.01), ("head_norm", False),
                                        ("ownership", True)])
def test_a_network_trained_with_a_removed_size_is_refused_in_one_sentence(tmp_path, key, value):
    path = tmp_path / "old.pt"
    torch.save({"game": "connect4", "model_kind": "cnn",
                "model_sizes": {"channels": [8], key: value}, "model": {}}, path)
    with pytest.raises(checkpoint.CheckpointError, match=f"model.sizes.{key}=") as error:
        checkpoint.load(path)
    assert str(error.value).count(". ") == 0 and "Removed options" in str(error.value)
