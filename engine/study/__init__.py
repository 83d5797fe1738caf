"""Studies over many runs: tournaments played until ratings settle, stored matches rescored."""
