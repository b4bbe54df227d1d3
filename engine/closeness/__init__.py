"""Which known language is closest: the closeness curve, null vocabularies, matched sizes, comparisons."""
