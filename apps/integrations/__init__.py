"""Clients for external services the product talks to, one module per service (llm.py: an
OpenAI-compatible language model).

Below facts in the layers: imports no product app, so facts, chat and the rest can use it.
"""
