"""The REST API v1 (issue 21): thin adapters over the services and selectors, authenticated by API keys
(and the older business list of a reseller administrator, with their own login: reseller_admin.py).

The top layer (above the portal, whose selectors it reuses): no product app imports it.
"""
