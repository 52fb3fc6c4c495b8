"""Pydantic request and response shapes, one module per resource."""
