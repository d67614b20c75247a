"""Turning a visitor's question and the retrieved knowledge into a reply (see base.py for the interface)."""
