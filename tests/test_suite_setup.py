"""The suite's own set-up (tests/conftest.py): every test process and the processes it starts run
torch, MKL and numba on one thread, so that two test processes on two cores do not oversubscribe them."""

import os
import subprocess
import sys


def test_torch_runs_on_one_thread_here_and_in_child_processes():
    import torch

    assert torch.get_num_threads() == 1
    for name in ("OMP_NUM_THREADS", "MKL_NUM_THREADS", "NUMBA_NUM_THREADS", "OPENBLAS_NUM_THREADS"):
        assert os.environ[name] == "1", name
    # a child started with the tests' environment (a CLI run, the app's run child) inherits the
    # settings that gave this process its one thread (torch reads them when it is imported)
    names = "OMP_NUM_THREADS MKL_NUM_THREADS NUMBA_NUM_THREADS OPENBLAS_NUM_THREADS".split()
    child = subprocess.run([sys.executable, "-c", f"import os; print([os.environ.get(n) for n in {names!r}])"],
                           capture_output=True, text=True, timeout=300, check=True)
    assert child.stdout.strip() == str(["1"] * 4)
