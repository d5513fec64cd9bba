"""No two players share a name, whatever its case, and the database says so (issue 16, item 6).

Names were unique only by a check before the write, so two first contacts at
the same moment (or two ``name Zed``) could both get one. Before the
constraint is added, the names a database already shares are made unique the
way a new player's name is: the oldest player keeps his, each later one gets
the first free number after it ("Twin 2", "Twin 3"), folded as the database
folds case for the constraint.
"""

from django.db import migrations, models
from django.db.models.functions import Lower

MAX_NAME = 64  # Player.display_name's max_length


def numbered(name: str, number: int) -> str:
    suffix = f" {number}"
    return name[: MAX_NAME - len(suffix)].rstrip() + suffix


def rename_shared_names(apps, schema_editor) -> None:
    Player = apps.get_model("games", "Player")
    connection = schema_editor.connection

    def folded(name: str) -> str:
        with connection.cursor() as cursor:
            cursor.execute("SELECT LOWER(%s)", [name])
            return cursor.fetchone()[0]

    rows = Player.objects.annotate(key=Lower("display_name")).order_by("pk").values_list("pk", "display_name", "key")
    taken: set[str] = set()
    shared: list[tuple[int, str]] = []
    for pk, name, key in rows:
        if key in taken:
            shared.append((pk, name))
        taken.add(key)
    for pk, name in shared:
        number = 2
        while folded(numbered(name, number)) in taken:
            number += 1
        taken.add(folded(numbered(name, number)))
        Player.objects.filter(pk=pk).update(display_name=numbered(name, number))


class Migration(migrations.Migration):
    dependencies = [("games", "0018_heartbeats_sms_status")]

    operations = [
        migrations.RunPython(rename_shared_names, migrations.RunPython.noop),
        migrations.AddConstraint(
            model_name="player",
            constraint=models.UniqueConstraint(
                Lower("display_name"), name="player_name_unique", violation_error_message="Another player has this name."
            ),
        ),
    ]
