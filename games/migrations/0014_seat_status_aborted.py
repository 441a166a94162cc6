from django.db import migrations, models


def mark_aborted_seats(apps, schema_editor):
    """Seats left `playing` by matches aborted before this status existed."""
    Seat = apps.get_model("games", "Seat")
    Seat.objects.filter(match__status="aborted", status="playing").update(status="aborted")


class Migration(migrations.Migration):
    dependencies = [
        ("games", "0013_seek_against_people"),
    ]

    operations = [
        migrations.AlterField(
            model_name="seat",
            name="status",
            field=models.CharField(
                choices=[
                    ("playing", "Playing"),
                    ("out", "Out"),
                    ("left", "Left"),
                    ("aborted", "Aborted"),
                ],
                default="playing",
                max_length=10,
            ),
        ),
        migrations.RunPython(mark_aborted_seats, migrations.RunPython.noop),
    ]
