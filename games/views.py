"""Public pages: scoreboards and matches."""

from django.http import HttpRequest, HttpResponse


def scoreboard(request: HttpRequest) -> HttpResponse:
    return HttpResponse("gin3")
