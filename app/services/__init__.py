"""Use cases as plain async functions over the graph gateway; no HTTP in here."""
