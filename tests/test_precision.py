"""precision=auto: the fastest CPU path that agrees with float32 on real positions of the
network's game, the stored positions it checks on, and training steps in bfloat16."""
import copy
import json

import numpy as np
import pytest
import torch

from alphazero.config.paths import PRETRAINED_DIR
from alphazero.nn import checkpoint, int8, openvino_session, precision
from alphazero.nn.network import Inference, build_model, resolve_precision
from alphazero.nn.onnx_runtime import ExportedNetwork, export_model
from alphazero.train.trainer import Trainer
from games import make_game

SHIPPED = sorted(path.stem for path in PRETRAINED_DIR.glob("*.pt"))


def shipped(name: str):
    saved = checkpoint.load(PRETRAINED_DIR / f"{name}.pt")
    game = make_game(saved["game"], **saved["game_params"])
    model = build_model(saved["model_kind"], game, **saved["model_sizes"])
    model.load_state_dict(saved["model"])
    return game, model.eval()


def onnx_of(game, model) -> bytes:
    return export_model(model, (game.planes, game.height, game.width), game.num_actions)


@pytest.mark.parametrize("name", SHIPPED)
def test_every_shipped_network_has_self_play_positions_of_its_shape(name):
    game, _ = shipped(name)
    planes, legal, where = precision.check_positions(game)
    assert "self-play" in where and len(planes) == 512
    assert planes.shape[1:] == (game.planes, game.height, game.width)
    assert legal.shape == (512, game.num_actions) and legal.any(axis=1).all()
    assert np.array_equal(planes, np.round(planes)) and planes.min() >= 0


def test_a_game_without_stored_positions_is_checked_on_random_play():
    game = make_game("connect4", rows=5, cols=5, forbidden=None)
    planes, legal, where = precision.check_positions(game)
    assert "random play" in where and planes.shape[1:] == (game.planes, 5, 5)
    assert legal.any(axis=1).all()


def test_positions_survive_a_round_trip(tmp_path):
    rng = np.random.default_rng(0)
    planes = rng.integers(0, 2, (10, 3, 4, 5)).astype(np.float32)
    legal = rng.random((10, 13)) < 0.5
    precision.save_positions(tmp_path / "p.npz", "connect4", planes, legal)
    with np.load(tmp_path / "p.npz") as data:
        assert np.array_equal(data["planes"], planes)
        assert np.array_equal(np.unpackbits(data["legal"], axis=1, count=13).astype(bool), legal)
    with pytest.raises(ValueError, match="whole numbers"):
        precision.save_positions(tmp_path / "q.npz", "connect4", planes + 0.5, legal)


@pytest.mark.parametrize("name", ["connect4_classic", "othello", "connect6"])
def test_openvino_bfloat16_agrees_with_float32_within_the_tolerance(name):
    """On any CPU (without bfloat16 units OpenVINO computes in float32, closer still)."""
    game, model = shipped(name)
    model_bytes = onnx_of(game, model)
    planes, legal, _ = precision.check_positions(game)
    errors = precision.differences(precision.cpu_runner(model_bytes, precision.FLOAT32, 1),
                                   precision.cpu_runner(model_bytes, precision.BFLOAT16, 1),
                                   planes, legal)
    assert precision.within_tolerance(errors), errors


def _choose_with(monkeypatch, tmp_path, bfloat16_runner, speeds, name="connect4_classic"):
    """choose() on a shipped network as if this CPU had bfloat16 units and VNNI, with the
    bfloat16 path replaced and the speeds given (int8 runs as it is)."""
    game, model = shipped(name)
    real = precision.cpu_runner
    monkeypatch.setattr(precision, "candidate_paths",
                        lambda: [precision.FLOAT32, precision.BFLOAT16, precision.INT8])
    monkeypatch.setattr(precision, "cpu_runner", lambda m, path, threads, calibration=None: (
        bfloat16_runner(real(m, precision.FLOAT32, threads)) if path == precision.BFLOAT16
        else real(m, path, threads, calibration=calibration)))
    monkeypatch.setattr(precision, "_cached_speeds", lambda *args: speeds)
    return precision.choose(onnx_of(game, model), game, 1, cache=tmp_path)


def speeds(float32: tuple, bfloat16: tuple, int8: tuple = (1, 1, 1)) -> dict:
    """Positions/s at each of SPEED_BATCHES (1, 8, 64), as _cached_speeds gives them."""
    return {precision_name: dict(zip(map(str, precision.SPEED_BATCHES), rates))
            for precision_name, rates in (("float32", float32), ("bfloat16", bfloat16),
                                          ("int8", int8))}


def shifted(by: float):
    """A bfloat16 path whose values are float32's moved by `by`."""
    def path(reference):
        return lambda planes, legal: (lambda lp, v: (lp, np.clip(v + by, -1, 1)))(*reference(planes, legal))
    return path


def test_auto_takes_a_faster_path_that_agrees(monkeypatch, tmp_path):
    choice = _choose_with(monkeypatch, tmp_path, shifted(0.01), speeds((50, 100, 100), (60, 150, 250)))
    assert (choice.precision, choice.runtime, choice.from_batch) == (*precision.BFLOAT16, 1)
    assert choice.speedup == pytest.approx(2.5)
    assert choice.errors["value"] == pytest.approx(0.01, abs=1e-6)
    assert "2.5x float32" in choice.describe() and "512 self-play positions" in choice.describe()


def test_small_batches_stay_float32_where_it_is_faster_there(monkeypatch, tmp_path):
    """OpenVINO pays more per call: a person's game (one position at a time) keeps float32."""
    choice = _choose_with(monkeypatch, tmp_path, shifted(0.01), speeds((50, 100, 100), (30, 150, 250)))
    assert choice.from_batch == 8 and "batches under 8 in float32" in choice.describe()
    assert (choice.precision_at(1), choice.precision_at(8), choice.precision_at(128)) == (
        "float32", "bfloat16", "bfloat16")


def test_auto_refuses_a_path_that_does_not_agree(monkeypatch, tmp_path):
    choice = _choose_with(monkeypatch, tmp_path, shifted(0.2), speeds((50, 100, 100), (60, 150, 250)))
    assert (choice.precision, choice.runtime) == precision.FLOAT32
    assert "no faster path agrees" in choice.describe()


def test_auto_keeps_float32_where_the_other_path_is_slower(monkeypatch, tmp_path):
    choice = _choose_with(monkeypatch, tmp_path, shifted(0.0), speeds((50, 100, 100), (60, 150, 90)))
    assert (choice.precision, choice.runtime) == precision.FLOAT32


def test_auto_takes_int8_where_it_is_fastest_and_agrees(monkeypatch, tmp_path):
    """Course Othello's network in int8 (first convolution and heads in float32) stays within
    the tolerance on the positions it was not calibrated on (0.022 in value, 0.018 in priors)."""
    choice = _choose_with(monkeypatch, tmp_path, shifted(0.0), speeds(
        (50, 100, 100), (30, 150, 170), (60, 200, 230)), name="othello")
    assert (choice.precision, choice.runtime, choice.from_batch) == (*precision.INT8, 1)
    assert choice.speedup == pytest.approx(2.3)
    assert 0 < choice.errors["value"] <= precision.TOLERANCE["value"]
    assert ("network in int8 through ONNX Runtime (first convolution and heads in float32): "
            "2.3x float32" in choice.describe())
    assert "the 256 of 512 self-play positions it was not calibrated on" in choice.describe()


def test_auto_passes_over_int8_where_it_misses_the_tolerance(monkeypatch, tmp_path):
    """Classic Connect-4's network in int8 is 0.1 from float32 in value: the next fastest
    path that agrees runs, and a path a caller left is passed over too."""
    rates = speeds((50, 100, 100), (30, 150, 170), (60, 200, 230))
    choice = _choose_with(monkeypatch, tmp_path, shifted(0.01), rates)
    assert (choice.precision, choice.runtime, choice.from_batch) == (*precision.BFLOAT16, 8)
    game, model = shipped("connect4_classic")
    left = precision.choose(onnx_of(game, model), game, 1, tmp_path, without=(precision.BFLOAT16,))
    assert (left.precision, left.runtime) == precision.FLOAT32


def test_the_int8_check_runs_on_positions_calibration_never_saw():
    game, _ = shipped("othello")
    planes, legal, _ = precision.check_positions(game)
    calibration = precision.calibration(game)
    checked, _ = precision.checked_positions(precision.INT8, planes, legal)
    assert len(calibration.planes) + len(checked) == len(planes)
    assert np.array_equal(np.concatenate([calibration.planes, checked]), planes)
    assert precision.checked_positions(precision.BFLOAT16, planes, legal)[0] is planes


def tiny_network():
    game = make_game("connect4", rows=5, cols=5, forbidden=None)
    torch.manual_seed(0)
    return game, build_model("cnn", game, channels=(8, 8)).eval()


def test_int8_is_quantized_afresh_when_the_weights_change():
    game, model = tiny_network()
    calibration = precision.calibration(game)
    network = ExportedNetwork(model, precision.INT8, calibration=calibration)
    planes, legal = calibration.planes[:16], calibration.legal[:16]
    before = network(planes, legal)[1]
    with torch.no_grad():
        for parameter in model.parameters():
            parameter.mul_(1.5)
    after = network(planes, legal)[1]
    fresh = precision.cpu_runner(onnx_of(game, model), precision.INT8, 1, calibration=calibration)
    assert not np.array_equal(before, after)
    np.testing.assert_array_equal(after, fresh(planes, legal)[1])


def test_a_quantized_model_is_cached_and_read_back(monkeypatch, tmp_path):
    game, model = tiny_network()
    model_bytes = onnx_of(game, model)
    calibration = precision.calibration(game, tmp_path)
    first = calibration.quantize(model_bytes)
    assert [file.read_bytes() for file in tmp_path.iterdir()] == [first]
    monkeypatch.setattr(int8, "quantized", lambda *args: pytest.fail("quantized again"))
    assert calibration.quantize(model_bytes) == first
    with torch.no_grad():
        next(model.parameters()).add_(0.1)
    with pytest.raises(pytest.fail.Exception, match="quantized again"):
        calibration.quantize(onnx_of(game, model))  # other weights: another model


def test_a_run_leaves_a_low_precision_path_that_leaves_the_tolerance(monkeypatch, tmp_path, capsys,
                                                                     compose_config):
    """int8 chosen at the start (the tolerance made wide); at a check the round's weights
    (re-quantized) miss it (made zero): self-play goes on in float32, said on stderr."""
    from helpers import TINY
    from alphazero.train.loop import TrainingRun
    monkeypatch.setattr(precision, "candidate_paths", lambda: [precision.FLOAT32, precision.INT8])
    monkeypatch.setattr(precision, "_cached_speeds",
                        lambda *args: {k: v for k, v in speeds((50, 100, 100), (1, 1, 1),
                                                               (60, 200, 230)).items()
                                       if k != "bfloat16"})
    monkeypatch.setattr(precision, "TOLERANCE", {"value": 10.0, "policy": 10.0})
    cfg = compose_config("config", *TINY, "selfplay.precision=auto", "device=cpu",
                         f"train.checkpoint_dir={tmp_path}")
    run = TrainingRun(cfg, tmp_path / "run", "connect4_classic")
    assert (run.precision, run.spec.precision) == ("int8", "int8")
    run.counters.round = 1
    assert not run.check_precision()  # within the tolerance
    monkeypatch.setattr(precision, "TOLERANCE", {"value": 0.0, "policy": 0.0})
    assert run.check_precision()
    assert (run.precision, run.spec.precision) == ("float32", "float32")
    said = capsys.readouterr().err
    assert "self-play's int8 network is" in said and "goes on with the network in float32" in said
    run.counters.round = 5
    assert not run.check_precision()  # float32 itself: nothing to check
    run.writer.close()


def test_a_split_runner_sends_small_batches_to_float32():
    game, model = shipped("connect4_classic")
    planes, legal, _ = precision.check_positions(game)
    runner = precision.cpu_runner(onnx_of(game, model), precision.BFLOAT16, 1, from_batch=8)
    float32 = precision.cpu_runner(onnx_of(game, model), precision.FLOAT32, 1)
    np.testing.assert_array_equal(runner(planes[:7], legal[:7])[1], float32(planes[:7], legal[:7])[1])
    assert not np.array_equal(runner(planes[:8], legal[:8])[1], float32(planes[:8], legal[:8])[1])


def test_a_cpu_without_bfloat16_units_nor_x86_keeps_float32_through_onnx_runtime(monkeypatch):
    monkeypatch.setattr(precision, "cpu_flags", lambda: frozenset({"asimd"}))
    monkeypatch.setattr(precision, "x86", lambda: False)
    assert precision.candidate_paths() == [precision.FLOAT32]
    game, model = shipped("connect4_classic")
    chosen, choice = resolve_precision("auto", model, game, torch.device("cpu"))
    assert chosen == "float32" and choice.errors is None
    assert Inference(model, torch.device("cpu"), chosen).runtime == "onnxruntime"


def test_the_speeds_are_measured_once_per_machine_and_shape(monkeypatch, tmp_path):
    if not openvino_session.available():
        pytest.skip("needs OpenVINO, which the project installs")
    monkeypatch.setattr(precision, "cpu_flags", lambda: frozenset({"avx512_bf16"}))
    monkeypatch.setattr(precision, "x86", lambda: True)
    monkeypatch.setattr(precision, "SPEED_SECONDS", 0.01)
    game, model = shipped("connect4_classic")
    model_bytes = onnx_of(game, model)
    precision.choose(model_bytes, game, 1, cache=tmp_path)
    measured = (tmp_path / "speeds.json").read_text()
    monkeypatch.setattr(precision, "positions_per_second", lambda *args: pytest.fail("measured again"))
    precision.choose(model_bytes, game, 1, cache=tmp_path)
    assert (tmp_path / "speeds.json").read_text() == measured


@pytest.mark.parametrize("kind", ["cnn", "resnet"])
def test_a_bfloat16_training_step_has_float32s_loss_within_two_percent(kind):
    """Autocast on a fixed batch of real positions from the same weights (the shipped
    network's, or a fresh residual tower's): every loss term within 2% (a bfloat16 product
    keeps 8 significant bits, 0.4%; the sums over the batch stay float32)."""
    game, model = shipped("connect4_classic")
    if kind == "resnet":
        torch.manual_seed(0)
        model = build_model("resnet", game, blocks=2, channels=16)
    planes, legal, _ = precision.check_positions(game)
    pis = (legal / legal.sum(axis=1, keepdims=True)).astype(np.float32)
    zs = np.random.default_rng(0).choice(np.array([-1.0, 0.0, 1.0], np.float32), len(planes))
    losses = {}
    for name in ("float32", "bfloat16"):
        trainer = Trainer(copy.deepcopy(model), lr=0.0, weight_decay_l2=1e-4, optimizer="sgd",
                          precision=name)
        losses[name] = trainer.train_step(planes, pis, zs)
        assert all(p.dtype == torch.float32 for p in trainer.model.parameters())
    for key in ("loss/total", "loss/value", "loss/policy", "loss/l2"):
        assert losses["bfloat16"][key] == pytest.approx(losses["float32"][key], rel=0.02), key


def test_training_precision_auto_follows_the_cpu(monkeypatch):
    from alphazero.train import trainer
    monkeypatch.setattr(trainer, "cpu_flags", lambda: frozenset({"avx512_bf16"}))
    assert trainer.training_precision("auto", torch.device("cpu")) == "bfloat16"
    monkeypatch.setattr(trainer, "cpu_flags", lambda: frozenset({"avx2"}))
    assert trainer.training_precision("auto", torch.device("cpu")) == "float32"
    assert trainer.training_precision("bfloat16", torch.device("cpu")) == "bfloat16"


@pytest.mark.skipif(not precision.x86(), reason="int8 runs on x86 CPUs only")
def test_the_selfplay_bench_runs_the_int8_path_auto_may_choose(capsys):
    """int8 is quantized on the game's positions: the bench's self-play hands them over."""
    from alphazero.bench import speeds

    assert speeds.main(["selfplay", "game=connect4_classic", "trees=2", "simulations=4",
                        "seconds=0.05", "precision=int8", "threads=1", "device=cpu", "--json"]) == 0
    (row,) = [json.loads(line) for line in capsys.readouterr().out.splitlines()]
    assert row["precision"] == "int8" and row["sims_per_s"] > 0
