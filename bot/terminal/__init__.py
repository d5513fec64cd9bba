"""The terminal channel (``manage.py play``, ``make play``): a player at a text terminal.

Like every channel it only carries text: what he types goes to
``games.services.handle``, what the services write to him in the outbox is
printed. Because a terminal has no worker behind it, the session also does
for the matches it follows what the Celery worker would (computer moves, turn
clocks), safely beside a worker that may run too.

- ``screen``: printing above the line he types, reading his lines, a closed pipe.
- ``session``: one player's commands, his matches, catching up with them.
- ``refresher``: the background thread that shows what arrives as it arrives.
- ``worker``: the one call into the services' computer moves and clock scan.
- ``interrupts``: Ctrl-C and the refresher's wake-up, only where they are safe.
- ``client``: the whole run, from the command line's options to the exit status.
"""
