"""HTTP blueprints, one per resource: decode, call one service function, encode."""
