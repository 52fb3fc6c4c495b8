"""LLM prompts, one module each: the prompt text and the pydantic model of the answer."""
