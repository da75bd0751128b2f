"""Book titles stored with "i" + U+0307 are normalised again now that ``normalize`` folds
that dot away (see entities 0017); a title whose new form another book holds keeps its
old one."""

from django.db import migrations


def forwards(apps, schema_editor):
    from kgsite.text import normalize

    Book = apps.get_model("books", "Book")
    for book in Book.objects.filter(title_norm__contains="\u0307").iterator():
        new = normalize(book.title)
        if new != book.title_norm and not Book.objects.filter(title_norm=new).exists():
            book.title_norm = new
            book.save(update_fields=["title_norm"])


class Migration(migrations.Migration):
    dependencies = [("books", "0005_extract_book_formats_rst_man")]

    operations = [migrations.RunPython(forwards, migrations.RunPython.noop)]
