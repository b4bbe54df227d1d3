"""The model: IPA features, the sign -> sound mapping, the edit and word-boundary DPs, the objective, decoding."""
