"""Quiet hours are 12 hours at most (issue 16, item 5): ``quiet 00-23`` made a 5 minute clock
23 hours a turn. The parser now refuses more; quiet hours set before keep their start and
end 12 hours after it."""

from django.db import migrations

MAX_QUIET_HOURS = 12  # games.text.protocol.MAX_QUIET_HOURS when this was written


def shorten(apps, schema_editor) -> None:
    Player = apps.get_model("games", "Player")
    for player in Player.objects.filter(quiet_from__isnull=False, quiet_until__isnull=False):
        if (player.quiet_until - player.quiet_from) % 24 > MAX_QUIET_HOURS:
            player.quiet_until = (player.quiet_from + MAX_QUIET_HOURS) % 24
            player.save(update_fields=["quiet_until"])


class Migration(migrations.Migration):
    dependencies = [("games", "0019_unique_names")]

    operations = [migrations.RunPython(shorten, migrations.RunPython.noop)]
