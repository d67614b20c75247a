"""Signals the portal sends, for apps that may or may not be installed.

``local_run_prepared`` is how ``manage.py up`` lets the development-only ``lab`` app seed the demo
without the product importing it (decision 0018): sent after the migrations and before the servers
start, with ``asked_demo`` (``up --demo``), ``port`` and ``log`` (a line writer). Each receiver
returns the lines it wants in the start-up banner (e.g. the demo logins), or an empty list.
"""

from __future__ import annotations

from django.dispatch import Signal

local_run_prepared = Signal()
