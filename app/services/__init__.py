"""Use cases as plain async functions that take the registry first; no HTTP in here."""
