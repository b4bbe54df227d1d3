"""Package data of decipher-workbench: transcription tables, fonts with their licences, icons, the
sample projects and the priors. Installed, this folder (resources/ in the source tree) is the package
``decipher_resources`` (pyproject.toml); read it through ``engine.resources``, never by path."""
