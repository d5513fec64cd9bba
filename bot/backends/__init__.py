"""Backends that send outbox messages, one class per channel (``settings.GIN3_BACKENDS``); the
terminal's, used only by the process its player types in, is ``bot.terminal.backend``.

The contract is ``games.services.plumbing.backends``; ``games.services.plumbing.delivery``
claims each message, calls the backend and records what happened.
"""
