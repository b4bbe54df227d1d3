"""Test set-up shared by all tests: headless Qt, and where the full corpora live."""

import os
from pathlib import Path

import pytest

os.environ.setdefault("QT_QPA_PLATFORM", "offscreen")
# sweep workers at the tests' own priority: niced ones starve behind any busy process on the box
os.environ.setdefault("DECIPHER_WORKER_NICE", "0")
# One thread each for torch's OpenMP, MKL and numba, in the test process and every process it starts
# (CLI runs, the app's run child, sweep workers), set before anything imports torch: the tests' tensors
# are tiny, a second thread only waits, and with two test processes (`make test` runs pytest-xdist
# with -n 2) on two cores the spinning threads oversubscribe them. Side by side under xdist on the
# 2-core box: tests/engine/test_training.py::test_short_run_solves_a_synthetic_cipher took 46.5 s with
# the default threads and 2.7 s serially (benchmarks/results/test-durations/suite-xdist.md).
for _name in ("OMP_NUM_THREADS", "MKL_NUM_THREADS", "NUMBA_NUM_THREADS", "OPENBLAS_NUM_THREADS"):
    os.environ[_name] = "1"

# this machine's step times (engine/runs/estimate.py) go to a scratch file of the test session, never
# the user's cache folder; every process the tests start inherits it
if "DECIPHER_STEP_TIMES" not in os.environ:
    import tempfile

    os.environ["DECIPHER_STEP_TIMES"] = str(Path(tempfile.mkdtemp(prefix="decipher-step-times-")) / "steps.jsonl")

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
