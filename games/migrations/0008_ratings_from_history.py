"""Per-preset ratings carried over from history: every finished match, in the order it
finished, rated again with OpenSkill (Plackett-Luce) within its own preset, from the
placements its `match_finished` event recorded. The global rating on the user row is
left as it was. (Self-contained: it reads the historical models and openskill only.)"""

from django.db import migrations
from openskill.models import PlackettLuce


def rate_history(apps, schema_editor):
    Match = apps.get_model("games", "Match")
    MatchEvent = apps.get_model("games", "MatchEvent")
    Seat = apps.get_model("games", "Seat")
    Rating = apps.get_model("accounts", "Rating")
    model = PlackettLuce()
    ratings: dict[tuple[int, str], list] = {}  # (user, ruleset) -> [mu, sigma, games]
    finished = Match.objects.filter(status="finished").order_by("finished_at", "id")
    for match in finished.iterator():
        event = (
            MatchEvent.objects.filter(match=match, type="match_finished").order_by("-seq").first()
        )
        if event is None or not event.data.get("placements"):
            continue
        places = {int(seat): place for seat, place in event.data["placements"].items()}
        seats = list(Seat.objects.filter(match=match).order_by("seat"))
        if len(seats) < 2 or any(s.seat not in places for s in seats):
            continue
        current = [
            ratings.setdefault((s.player_id, match.ruleset), [25.0, 25.0 / 3.0, 0]) for s in seats
        ]
        teams = [[model.rating(mu=mu, sigma=sigma)] for mu, sigma, _ in current]
        updated = model.rate(teams, ranks=[places[s.seat] for s in seats])
        for entry, (new,) in zip(current, updated, strict=True):
            entry[0], entry[1], entry[2] = new.mu, new.sigma, entry[2] + 1
    Rating.objects.bulk_create(
        Rating(user_id=user_id, ruleset=ruleset, mu=mu, sigma=sigma, games=games)
        for (user_id, ruleset), (mu, sigma, games) in ratings.items()
    )


def forget(apps, schema_editor):
    apps.get_model("accounts", "Rating").objects.all().delete()


class Migration(migrations.Migration):
    dependencies = [
        ("games", "0007_match_action"),
        ("accounts", "0005_rating_per_ruleset"),
    ]

    operations = [migrations.RunPython(rate_history, forget)]
