"""The Telegram channel: updates in (long polling or a webhook), the Bot API client.

Both transports hand each update to ``updates.process_update``, which turns it
into (player, command text) for ``games.services.handle``; replies and
notifications leave through the outbox and ``bot.backends.telegram``.
"""
