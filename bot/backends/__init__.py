"""Backends that send outbox messages, one class per channel (``settings.GIN3_BACKENDS``).

The contract is ``games.services.backends``; ``games.services.delivery`` claims each message, calls the
backend and records what happened.
"""
