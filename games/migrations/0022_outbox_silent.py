from django.db import migrations, models


class Migration(migrations.Migration):
    dependencies = [
        ("games", "0021_player_match_left"),
    ]

    operations = [
        migrations.AddField(
            model_name="outbox",
            name="silent",
            field=models.BooleanField(
                default=False,
                help_text="Sent without a sound where the platform allows it: it asks nothing of its reader.",
                verbose_name="silent",
            ),
        ),
    ]
