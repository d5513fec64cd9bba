"""Computer players by level: easy, normal and hard. The stored strengths become the
levels they played as (simple: easy, strong: normal), and a finished hand keeps the
review of its people's moves (``services.review``)."""

from django.db import migrations, models

RENAMED = {"simple": "easy", "strong": "normal"}


def to_levels(apps, schema_editor):
    Player = apps.get_model("games", "Player")
    for old, new in RENAMED.items():
        Player.objects.filter(strength=old).update(strength=new)


def to_strengths(apps, schema_editor):
    Player = apps.get_model("games", "Player")
    for old, new in RENAMED.items():
        Player.objects.filter(strength=new).update(strength=old)
    Player.objects.filter(strength="hard").update(strength="strong")


class Migration(migrations.Migration):
    dependencies = [
        ("games", "0022_outbox_silent"),
    ]

    operations = [
        migrations.AlterField(
            model_name="player",
            name="strength",
            field=models.CharField(
                blank=True,
                choices=[("easy", "easy"), ("normal", "normal"), ("hard", "hard")],
                max_length=10,
                verbose_name="strength",
            ),
        ),
        migrations.RunPython(to_levels, to_strengths),
        migrations.AddField(
            model_name="hand",
            name="review",
            field=models.JSONField(
                blank=True,
                help_text="The moves of people where the hard level would have played otherwise, once the hand ended.",
                null=True,
                verbose_name="review",
            ),
        ),
    ]
