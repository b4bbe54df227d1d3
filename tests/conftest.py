"""Test set-up shared by all tests: headless Qt, and where the full corpora live."""

import os
from pathlib import Path

import pytest

os.environ.setdefault("QT_QPA_PLATFORM", "offscreen")
# sweep workers at the tests' own priority: niced ones starve behind any busy process on the box
os.environ.setdefault("DECIPHER_WORKER_NICE", "0")

ROOT = Path(__file__).resolve().parent.parent
DATA = Path(__file__).resolve().parent / "data"
SHARED_DATA = ROOT.parent / "shared" / "data"


def shared_path(*parts: str) -> Path:
    """A file of ../shared/data, or skip the test with a reason when it is absent."""
    path = SHARED_DATA.joinpath(*parts)
    if not path.exists():
        pytest.skip(f"needs the full corpus {path} (absent on this checkout)")
    return path


@pytest.fixture
def one_torch_thread():
    """Tiny tensors: a second torch thread only waits, and on a loaded box it waits a long time (a
    14-step restarts run took 25 s with two threads and 0.9 s with one). Restored afterwards."""
    import torch

    threads = torch.get_num_threads()
    torch.set_num_threads(1)
    yield
    torch.set_num_threads(threads)
