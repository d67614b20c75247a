"""The laboratory: development-only tools kept out of the product (issue 18, decision 0018).

Benchmark and evaluation commands, the prompt-injection suite, scenario replay, the demo seeding and
the screenshots. Installed only when ``XORVENTA_LAB`` is on (by default with DEBUG or XORVENTA_DEMO,
and in the tests): the product's apps import nothing from here, and reach the demo only through the
``apps.portal.signals.local_run_prepared`` signal that ``manage.py up`` sends.
"""
