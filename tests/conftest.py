"""Shared test set-up."""
import pytest
import torch


@pytest.fixture(autouse=True)
def one_torch_thread():
    # These nets are tiny, and OpenMP threads that spin-wait on cores shared with other
    # processes make a step up to ten times slower.
    previous = torch.get_num_threads()
    torch.set_num_threads(1)
    yield
    torch.set_num_threads(previous)
