"""Training: the trainer (a generator of events), restarts, lockstep seeds, evaluation, the final objective."""
