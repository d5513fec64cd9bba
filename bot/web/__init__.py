"""The web channel: a player's table as a page, in any browser and as a Telegram Mini App.

Like every channel it only turns what comes in into (player, command text) for
``games.services.answer`` and shows what the services return: who asks
(``auth``: Telegram's signed initData, or a browser signed in with the ``web``
command's link), the page and its JSON (``views``, ``serialize``).
"""
