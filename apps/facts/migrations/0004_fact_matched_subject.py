from django.db import migrations, models


class Migration(migrations.Migration):
    dependencies = [
        ("facts", "0003_ingestion_jobs"),
    ]

    operations = [
        migrations.AddField(
            model_name="fact",
            name="matched_subject",
            field=models.JSONField(blank=True, default=dict),
        ),
    ]
