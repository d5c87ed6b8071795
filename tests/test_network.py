"""Policy-value networks, device selection and batched inference, on a fake game spec."""
import copy

import numpy as np
import pytest
import torch

from alphazero.config.devices import check_precision, select_device
from alphazero.nn.network import (
    Inference,
    ResNet,
    build_model,
    measure_inference,
    padded_batch,
)

from helpers import KINDS, SPEC

@pytest.mark.parametrize("kind", KINDS)
def test_forward_shapes_and_masked_policy(kind, make_network, random_batch):
    planes, legal = random_batch(7)
    with torch.no_grad():
        log_policy, value = make_network(kind)(torch.from_numpy(planes), torch.from_numpy(legal))
    assert log_policy.shape == (7, SPEC.num_actions) and value.shape == (7,)
    assert torch.isfinite(log_policy).all()
    probabilities = log_policy.exp().numpy()
    np.testing.assert_allclose(np.where(legal, probabilities, 0).sum(1), 1, atol=1e-5)
    assert np.all(probabilities[~legal] == 0)
    assert torch.all(value.abs() <= 1)


@pytest.mark.parametrize("kind", KINDS)
def test_forward_without_mask_is_a_distribution(kind, make_network, random_batch):
    planes, _ = random_batch(4)
    with torch.no_grad():
        log_policy, _ = make_network(kind)(torch.from_numpy(planes))
    np.testing.assert_allclose(log_policy.exp().sum(1).numpy(), 1, atol=1e-5)


def test_unknown_model_kind_is_a_clear_error():
    with pytest.raises(ValueError, match="unknown model kind 'mlp'"):
        build_model("mlp", SPEC)


@pytest.mark.parametrize("kind", KINDS)
def test_inference_priors_and_values(kind, make_network, random_batch):
    planes, legal = random_batch(9)
    priors, values = Inference(make_network(kind), torch.device("cpu"), "float32")(planes, legal)
    assert priors.dtype == np.float32 and values.dtype == np.float32
    assert priors.shape == (9, SPEC.num_actions) and values.shape == (9,)
    np.testing.assert_allclose(priors.sum(1), 1, atol=1e-5)
    assert np.all(priors[~legal] == 0)
    assert np.all(np.abs(values) <= 1)


@pytest.mark.parametrize("kind", KINDS)
def test_bfloat16_inference_is_close_to_float32(kind, make_network, random_batch):
    # Measured max abs differences: these random-init nets ~1e-4 in priors and ~7e-4 in
    # values; a 4x10x10 CNN trained to sharp policies (top prior ~0.9) ~3e-2 in both.
    planes, legal = random_batch(64)
    model = make_network(kind)
    priors32, values32 = Inference(model, torch.device("cpu"), "float32")(planes, legal)
    priors16, values16 = Inference(model, torch.device("cpu"), "bfloat16")(planes, legal)
    assert np.abs(priors16 - priors32).max() < 1e-3
    assert np.abs(values16 - values32).max() < 1e-2
    np.testing.assert_allclose(priors16.sum(1), 1, atol=1e-5)


def test_inference_puts_a_shared_model_back_in_eval_mode(make_network, random_batch):
    planes, legal = random_batch(5)
    model = make_network("resnet")
    inference = Inference(model, torch.device("cpu"), "float32")
    expected = inference(planes, legal)
    model.train()  # as a trainer sharing the model would leave it
    for got, want in zip(inference(planes, legal), expected):
        np.testing.assert_array_equal(got, want)


def test_inference_load_state_dict_updates_weights(make_network, random_batch):
    planes, legal = random_batch(5)
    source = make_network("cnn")
    torch.manual_seed(1)
    target = Inference(build_model("cnn", SPEC), torch.device("cpu"), "float32")
    target.load_state_dict(source.state_dict())
    for got, want in zip(target(planes, legal),
                         Inference(source, torch.device("cpu"), "float32")(planes, legal)):
        np.testing.assert_array_equal(got, want)


def test_precision_choices():
    model = ResNet(SPEC.planes, SPEC.height, SPEC.width, SPEC.num_actions, blocks=1, channels=8)
    assert Inference(model, torch.device("cpu")).precision == "float32"
    with pytest.raises(ValueError, match="float16 inference needs a CUDA device"):
        Inference(model, torch.device("cpu"), "float16")
    with pytest.raises(ValueError, match="unknown precision 'int4'"):
        Inference(model, torch.device("cpu"), "int4")
    with pytest.raises(ValueError, match="int8 inference runs on the CPU only"):
        check_precision("int8", "cuda:0")
    with pytest.raises(ValueError, match="int8 runs through ONNX Runtime only"):
        Inference(model, torch.device("cpu"), "int8", "torch")


def test_select_device(monkeypatch):
    assert select_device("cpu") == torch.device("cpu")
    monkeypatch.setattr(torch.cuda, "is_available", lambda: False)
    assert select_device("auto") == torch.device("cpu")
    with pytest.raises(ValueError, match="no CUDA GPU"):
        select_device("cuda")
    with pytest.raises(ValueError, match="unknown device 'tpu'"):
        select_device("tpu")


def test_measure_inference_reports_a_rate(make_network):
    assert measure_inference(make_network("cnn"), SPEC, batch=4, precision="float32", seconds=0.05) > 0


def test_batch_norm_heads_revive_a_channel_negative_everywhere():
    """A head conv that is negative on every input is recentred by its batch norm in
    training, so it still passes a gradient through a plain ReLU."""
    torch.manual_seed(0)
    net = build_model("cnn", SPEC, channels=(8, 8, 8))
    for head in (net.policy_head, net.value_head):
        torch.nn.init.constant_(head[0].weight, -1.0)  # negative on every input the body gives
    x = torch.rand(16, SPEC.planes, SPEC.height, SPEC.width)
    log_policy, value = net.train()(x)
    (log_policy[:, 0].sum() + value.sum()).backward()
    for head in (net.policy_head, net.value_head):
        assert head[0].weight.grad.abs().sum() > 0


@pytest.mark.parametrize("kind, sizes", [("cnn", {"channels": (8, 8, 8)}),
                                         ("resnet", {"blocks": 1, "channels": 8})])
@pytest.mark.parametrize("global_pool", [False, True])
def test_global_pooling_lets_a_cell_see_the_whole_board(kind, sizes, global_pool):
    """Three 3x3 convolutions see 3 cells each way: a stone in the far corner changes the
    body's features at (0, 0) only through the global pooling bias."""
    torch.manual_seed(0)
    net = build_model(kind, SPEC, **sizes, global_pool=global_pool).eval()
    x = torch.rand(1, SPEC.planes, SPEC.height, SPEC.width)
    moved = x.clone()
    moved[0, :, -1, -1] += 1.0
    with torch.no_grad():
        near, far = net.body(x)[0, :, 0, 0], net.body(moved)[0, :, 0, 0]
    assert bool((near - far).abs().max() > 1e-6) == global_pool


def test_padded_batches_take_few_sizes_and_little_padding():
    sizes = [padded_batch(n) for n in range(1, 8193)]
    assert all(n <= size <= max(n, 8) * 1.125 for n, size in zip(range(1, 8193), sizes))
    assert len(set(sizes)) <= 8 + 8 * 10  # the first 8, then 8 per doubling
    assert padded_batch(3625) == 3840 and padded_batch(128) == 128


@pytest.mark.skipif(not torch.cuda.is_available(), reason="CUDA graphs need a CUDA device")
@pytest.mark.parametrize("kind", sorted(KINDS))
def test_cuda_graphs_answer_as_the_cpu_does_and_follow_new_weights(kind, make_network, random_batch):
    """Batches of changing sizes through the captured graphs (padded, a graph per size)
    equal the CPU's answers, also after weights are loaded into the captured model."""
    model = make_network(kind)
    cuda = Inference(copy.deepcopy(model).cuda(), torch.device("cuda"), "float32")
    for step, n in enumerate([5, 9, 5, 1, 17, 9]):
        if step == 3:  # new weights after the first graphs were captured
            for p in model.parameters():
                p.data.add_(0.1 * torch.randn_like(p))
            cuda.load_state_dict(model.state_dict())
        cpu = Inference(model, torch.device("cpu"), "float32")
        planes, legal = random_batch(n, seed=step)
        for got, expected in zip(cuda(planes, legal), cpu(planes, legal)):
            # cuDNN convolves in TF32 by default (10-bit mantissa); stale weights would be off by far more
            np.testing.assert_allclose(got, expected, rtol=3e-3, atol=1e-3)
    assert {size for size, _, _ in cuda.graphs} == {padded_batch(n) for n in [5, 9, 1, 17]}


def test_cpu_inference_treats_subnormal_floats_as_zero(make_network, random_batch):
    """A trained network's subnormal activations made CPU moves several times slower; the
    calling thread computes with them flushed to zero once torch has evaluated a batch
    (tests/test_onnx_runtime.py checks ONNX Runtime's own setting)."""
    torch.set_flush_denormal(False)
    subnormal = torch.tensor([1e-39], dtype=torch.float32)
    assert (subnormal * 1.0).item() != 0.0
    Inference(make_network("cnn"), torch.device("cpu"), "float32", runtime="torch")(*random_batch(2))
    assert (subnormal * 1.0).item() == 0.0
