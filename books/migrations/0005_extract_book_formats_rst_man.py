from django.db import migrations, models


class Migration(migrations.Migration):
    dependencies = [
        ("books", "0004_book_formats_html_epub"),
    ]

    operations = [
        migrations.AlterField(
            model_name="book",
            name="format",
            field=models.CharField(
                choices=[
                    ("markdown", "Markdown"),
                    ("text", "Text"),
                    ("pdf", "Pdf"),
                    ("html", "Html"),
                    ("epub", "Epub"),
                    ("rst", "Rst"),
                    ("man", "Man"),
                ],
                max_length=16,
            ),
        ),
    ]
