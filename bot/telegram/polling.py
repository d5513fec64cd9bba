"""Long polling: for a bot without a public HTTPS address.

A small loop of our own over ``getUpdates`` rather than PTB's Application
and Updater: the Updater confirms an update (by asking for the ones after
it) whatever became of it, so an update that failed while the database was
down would be lost. Here the updates are handled one at a time, in order (a
chat's commands in the order they were typed), and the loop asks for the
next ones only when every update it holds has been recorded. While the
database (or another service: ``bot.unavailable``) cannot be reached, the same update is tried again after a back-off
(1 s, doubling to 30 s) that Ctrl-C interrupts; its ``update_id`` is recorded
with its effect, so a try that did get through is never applied twice. An
update that fails for another reason (a bug) is logged and passed over, as
the webhook does. The synchronous service call runs in Django's thread
(``sync_to_async``), with the connection handling of a request.
"""

from __future__ import annotations

import asyncio
import contextlib
import logging
import time
from collections.abc import Awaitable
from typing import TypeVar

from asgiref.sync import sync_to_async
from django.conf import settings
from django.db import close_old_connections
from telegram import Bot, Update
from telegram.error import TelegramError

from bot.unavailable import UNAVAILABLE
from games import heartbeat
from games.text.links import remember_bot_username

from .client import introduce, make_bot
from .updates import ALLOWED_UPDATES, NotAnUpdate, PressAnswer, process

log = logging.getLogger(__name__)
T = TypeVar("T")

POLL_TIMEOUT = 30  # seconds getUpdates waits for an update
RETRY_FIRST = 1.0  # seconds before trying again an update the database could not take, doubled each time
RETRY_MAX = 30.0


class Stopped(Exception):
    """The stop event was set while we waited."""


def build_application() -> Bot:
    """The PTB bot the loop polls with and answers button presses with."""
    return make_bot()


async def serve(bot: Bot, stop: asyncio.Event, poll_timeout: int = POLL_TIMEOUT) -> None:
    """Poll until ``stop`` is set: introduce the bot (its menus and descriptions), then
    hand on every update."""
    async with bot:
        remember_bot_username(bot.username)
        await introduce(bot)
        await bot.delete_webhook()  # getUpdates is refused while a webhook is set
        log.info("@%s is polling %s", bot.username, settings.TELEGRAM_API_URL)
        with contextlib.suppress(Stopped):
            await _poll(bot, stop, poll_timeout)


async def _poll(bot: Bot, stop: asyncio.Event, poll_timeout: int) -> None:
    offset: int | None = None
    delay = RETRY_FIRST
    recorded = 0.0
    while True:
        try:
            updates = await _unless_stopped(
                bot.get_updates(offset=offset, timeout=poll_timeout, allowed_updates=ALLOWED_UPDATES), stop
            )
        except TelegramError as error:  # Telegram or the network: as PTB's Updater, wait and ask again
            log.warning("getUpdates failed (%s): again in %g s", error, delay)
            await _unless_stopped(asyncio.sleep(delay), stop)
            delay = min(delay * 2, RETRY_MAX)
            continue
        delay = RETRY_FIRST
        if time.monotonic() - recorded >= heartbeat.INTERVAL:  # alive, and Telegram answers
            recorded = time.monotonic()
            await sync_to_async(heartbeat.record, thread_sensitive=True)(heartbeat.BOT)
        for update in updates:
            await _handle_until_recorded(bot, update, stop)
            offset = update.update_id + 1  # confirmed by the next getUpdates


async def _handle_until_recorded(bot: Bot, update: Update, stop: asyncio.Event) -> None:
    """Hand the update to the shared code path until the database has taken it;
    then answer its button press, if it is one."""
    delay = RETRY_FIRST
    while True:
        try:
            answer = await sync_to_async(_process, thread_sensitive=True)(update)
            break
        except UNAVAILABLE as error:
            log.warning(
                "update %s not recorded, a service it needs is unavailable (%s): again in %g s",
                update.update_id,
                str(error).strip(),
                delay,
            )
            await _unless_stopped(asyncio.sleep(delay), stop)
            delay = min(delay * 2, RETRY_MAX)
        except NotAnUpdate as error:
            log.warning("update %s refused: %s", update.update_id, error)
            answer = None
            break
        except Exception:
            log.exception("update %s failed", update.update_id)
            answer = None
            break
    query = update.callback_query
    if query is not None:
        await _answer(bot, answer or PressAnswer(query.id, ""))


async def _unless_stopped(awaitable: Awaitable[T], stop: asyncio.Event) -> T:
    """``await awaitable``, or raise ``Stopped`` (cancelling it) as soon as ``stop`` is set."""
    task = asyncio.ensure_future(awaitable)
    stopping = asyncio.ensure_future(stop.wait())
    try:
        await asyncio.wait({task, stopping}, return_when=asyncio.FIRST_COMPLETED)
    finally:
        stopping.cancel()
    if not task.done():
        task.cancel()
        with contextlib.suppress(asyncio.CancelledError, TelegramError):
            await task
        raise Stopped
    return task.result()


def _process(update: Update) -> PressAnswer | None:
    """``process`` with Django's connection handling of a request: a bot runs for weeks,
    and a connection the database dropped is opened anew on the next try."""
    close_old_connections()
    try:
        return process(update)
    finally:
        close_old_connections()


async def _answer(bot: Bot, answer: PressAnswer) -> None:
    try:
        await bot.answer_callback_query(answer.callback_query_id, text=answer.text or None)
    except TelegramError as error:  # a replayed or expired press: nothing to stop spinning
        log.info("could not answer button press %s: %s", answer.callback_query_id, error)
