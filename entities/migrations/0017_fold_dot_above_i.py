"""Names, aliases and fact texts stored with "i" + U+0307 (what a default lower() makes of
İ) are normalised again now that ``normalize`` folds that dot away.

A row whose new form would clash with another row of the same type (the same name stored
twice, once through each spelling) keeps its old form: merging two entities is a curator's
decision, and the duplicates page shows them side by side. Rows are few (only text that
went through a default lower() carries the sequence); each batch is bounded.
"""

from django.db import migrations

DOT_ABOVE = "\u0307"


def _renormalise(model, field: str, *, unique_with: str | None) -> list:
    from kgsite.text import normalize

    source = {"name_norm": "canonical_name", "alias_norm": "alias", "text_norm": "text"}[field]
    changed = []
    for row in model.objects.filter(**{f"{field}__contains": DOT_ABOVE}).iterator():
        new = normalize(getattr(row, source))
        if new == getattr(row, field):
            continue
        if unique_with and model.objects.filter(
            **{field: new, unique_with: getattr(row, unique_with)}
        ).exists():
            continue
        setattr(row, field, new)
        row.save(update_fields=[field])
        changed.append(row)
    return changed


def forwards(apps, schema_editor):
    Entity = apps.get_model("entities", "Entity")
    Alias = apps.get_model("entities", "Alias")
    Fact = apps.get_model("entities", "Fact")
    entities = _renormalise(Entity, "name_norm", unique_with="type")
    aliases = _renormalise(Alias, "alias_norm", unique_with="type")
    _renormalise(Fact, "text_norm", unique_with=None)
    touched = {e.pk for e in entities} | {a.entity_id for a in aliases}
    if touched:
        from entities.name_index import name_index_refresh

        name_index_refresh(entity_ids=touched)


class Migration(migrations.Migration):
    dependencies = [("entities", "0016_recall_fulltext")]

    operations = [migrations.RunPython(forwards, migrations.RunPython.noop)]
