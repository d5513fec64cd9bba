"""Long polling with PTB's Application: for a bot without a public HTTPS address.

PTB fetches the updates and calls ``on_update`` for each, one at a time, so
that a chat's commands are handled in the order they were typed; the
synchronous service call runs in Django's thread (``sync_to_async``).
"""

from __future__ import annotations

import asyncio
import logging

from asgiref.sync import sync_to_async
from django.conf import settings
from django.db import close_old_connections
from telegram import Update
from telegram.error import TelegramError
from telegram.ext import Application, ContextTypes, TypeHandler

from games.text.links import remember_bot_username

from .client import base_url, register_commands
from .updates import ALLOWED_UPDATES, PressAnswer, process

log = logging.getLogger(__name__)

POLL_TIMEOUT = 30  # seconds getUpdates waits for an update


def build_application() -> Application:
    application = Application.builder().token(settings.TELEGRAM_BOT_TOKEN).base_url(base_url()).build()
    application.add_handler(TypeHandler(Update, on_update))
    application.add_error_handler(on_error)
    return application


async def on_update(update: Update, context: ContextTypes.DEFAULT_TYPE) -> None:
    """Hand the update to the shared code path; answer a button press even if that failed."""
    answer: PressAnswer | None = None
    try:
        answer = await sync_to_async(_process, thread_sensitive=True)(update)
    finally:
        query = update.callback_query
        if query is not None:
            await _answer(context, answer or PressAnswer(query.id, ""))


def _process(update: Update) -> PressAnswer | None:
    """``process`` with Django's connection handling of a request: a bot runs for weeks."""
    close_old_connections()
    try:
        return process(update)
    finally:
        close_old_connections()


async def _answer(context: ContextTypes.DEFAULT_TYPE, answer: PressAnswer) -> None:
    try:
        await context.bot.answer_callback_query(answer.callback_query_id, text=answer.text or None)
    except TelegramError as error:  # a replayed or expired press: nothing to stop spinning
        log.info("could not answer button press %s: %s", answer.callback_query_id, error)


async def on_error(update: object, context: ContextTypes.DEFAULT_TYPE) -> None:
    log.error("update %s failed", getattr(update, "update_id", "?"), exc_info=context.error)


async def serve(application: Application, stop: asyncio.Event, poll_timeout: int = POLL_TIMEOUT) -> None:
    """Poll until ``stop`` is set: register the menu, then hand on every update."""
    async with application:
        remember_bot_username(application.bot.username)
        await register_commands(application.bot)
        await application.updater.start_polling(allowed_updates=ALLOWED_UPDATES, timeout=poll_timeout)
        await application.start()
        log.info("@%s is polling %s", application.bot.username, settings.TELEGRAM_API_URL)
        try:
            await stop.wait()
        finally:
            await application.updater.stop()
            await application.stop()
