from django.apps import AppConfig
from django.utils.translation import gettext_lazy as _


class GamesConfig(AppConfig):
    name = "games"
    verbose_name = _("Games")

    def ready(self) -> None:
        """Register the game's handlers with the plumbing below it, in every process
        that delivers (a web process, a worker, a management command), whatever else
        it has imported: when delivery finds a player unreachable, presence acts."""
        from games.services.write import presence  # noqa: F401 (registers player_unreachable)
