"""The REST API v1 (issue 21): thin adapters over the services and selectors, authenticated by API keys.

The top layer (above the portal, whose selectors it reuses): no product app imports it.
"""
