"""Past experiments: scripts that answered one question of an issue, kept runnable and cited from the
lab notebook (docs/notebook/); benchmarks/README.md lists them apart from the maintained benchmarks."""
