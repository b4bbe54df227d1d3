"""Qt-free decipherment engine: data, phonology, model, training, evaluation, project store, CLI."""

import os

__version__ = "0.1.0"

# torch's OpenMP threads spin while they wait for work. When another process (or the app's GUI
# thread) holds a core, spinning threads steal it and a training step ran 10-20x slower here.
# Sleeping waits cost little when the machine is idle. Set before torch is first imported; an
# explicit OMP_WAIT_POLICY in the environment wins.
os.environ.setdefault("OMP_WAIT_POLICY", "PASSIVE")
